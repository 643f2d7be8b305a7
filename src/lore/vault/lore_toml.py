"""Where `lore.toml` is read from: the reviewed branch's tip, or the file on disk.

A checked-out pull request, or an edit nobody has reviewed, puts its own `lore.toml` in
the work tree; the settings that send data or a key, choose a model or decide what is
served must not come from there (`lore.vault.settings`, `SENDS` and `SERVES`). So a
command that runs on a checkout reads `lore.toml` as the reviewed branch has it at its
tip (`reviewed`), and notices when the file on disk says something else (`differs`):
then lore says so in one line (`differs_notice`) and calls no model. Only a vault that
is not a git repository, or has no commit yet, has nothing but the file on disk
(`checkout_text`), which is read without following a link and parsed as `CHECKOUT`.

The index and recall read `lore.toml` from their served snapshot (`lore.vault.snapshot`),
the gardener and the curator's pull-request mode at a commit; this module is for the
commands that stand on a checkout.
"""

from __future__ import annotations

import os
from pathlib import Path

from lore.record import Record
from lore.vault import git
from lore.vault.settings import SETTINGS_FILE

MAX_BYTES = 1024 * 1024  # a settings file is a few kilobytes


class ReviewedSettings(Record):
    """`lore.toml` at the reviewed branch's tip, and whether the file on disk differs."""

    __slots__ = ("branch", "commit", "differs", "text")

    def __init__(self, branch: str, commit: str, text: str | None, differs: bool) -> None:
        self.branch = branch  # how people name it: origin/main, main
        self.commit = commit
        self.text = text  # None: the reviewed branch has no lore.toml (the defaults)
        self.differs = differs  # the work tree's lore.toml is not the reviewed one


def _decode(raw: bytes | None) -> str | None:
    if raw is None:
        return None
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        return None


def _checkout_bytes(root: Path) -> bytes | None:
    """The file on disk, never through a link (a link is read as no file)."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0)
    try:
        handle = os.open(root / SETTINGS_FILE, flags)
    except OSError:
        return None
    try:
        with os.fdopen(handle, "rb") as file:
            return file.read(MAX_BYTES)
    except OSError:
        return None


def checkout_text(root: Path) -> str | None:
    """`lore.toml` as it is on disk (None when absent, a link, or not UTF-8)."""
    return _decode(_checkout_bytes(root))


def reviewed(root: Path, branch: git.ReviewedBranch | None = None) -> ReviewedSettings | None:
    """`lore.toml` at the tip of the branch agents are served (`lore.vault.snapshot`);
    None when the vault is not a git work tree or has no commit yet. `branch`: that
    branch, when the caller has read it (`lore.vault.resolved.Vault.reviewed`)."""
    from lore.vault.snapshot import UNSETTLED, served_branch

    branch = branch or served_branch(root)
    if branch is None:
        return None
    commit = branch.commit.removeprefix(UNSETTLED)
    if not commit:
        return None
    raw = git.read_file_at(root, commit, SETTINGS_FILE)
    return ReviewedSettings(branch.label, commit, _decode(raw), raw != _checkout_bytes(root))


def differs_notice(settings: ReviewedSettings) -> str:
    """The one line that says the work tree's lore.toml is not the reviewed one."""
    return (
        f"lore.toml here is not the one on {settings.branch} (a checked-out pull request or "
        f"an uncommitted edit): lore reads its settings from {settings.branch} and calls no "
        "model until the two agree."
    )
