"""`lore connect`: clone an existing vault, register it, and build its index.

The source is `OWNER/REPO` (a GitHub repository), any git URL, or a local path. A
local folder that already is a vault checkout is registered where it is; anything
else is cloned — by default into `$LORE_HOME/vaults/<name>` — with the GitHub CLI's
credentials when it is installed and never an interactive prompt. A failed clone
leaves nothing behind, and a repository that is not a lore vault is removed again.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lore.config import load_config
from lore.errors import UsageError, VaultError
from lore.index.build import IndexUnavailable, open_index
from lore.paths import NOTES_DIR, lore_home
from lore.team.registry import name_from, register
from lore.vault import gh, git
from lore.vault.remote import RemoteError, clone, github_clone_url, parse_owner_repo
from lore.versioned import versioned

CLONE_TIMEOUT = 300.0


@dataclass
class ConnectResult:
    name: str
    path: Path
    source: str
    cloned: bool
    default: bool
    notes: int = 0
    index: str = ""

    def to_json(self) -> dict[str, Any]:
        return versioned(
            {
                "name": self.name,
                "path": str(self.path),
                "source": self.source,
                "cloned": self.cloned,
                "default": self.default,
                "notes": self.notes,
                "index": self.index,
            }
        )


def is_vault_folder(root: Path) -> bool:
    return (root / NOTES_DIR).is_dir() or (root / "_taxonomy.md").is_file()


def resolve_source(source: str) -> tuple[str, Path | None]:
    """(clone URL, local checkout to register in place or None) for what the user typed."""
    text = source.strip()
    if not text:
        raise UsageError("Say which vault to connect.", fix="E.g. `lore connect acme/team-memory`.")
    local = Path(text).expanduser()
    if local.exists():
        local = local.resolve()
        if git.is_git_work_tree(local):
            return str(local), local
        return str(local), None  # a bare repository or a plain folder: clone it
    owner_repo = parse_owner_repo(text)
    if owner_repo is not None and "://" not in text and not text.startswith("."):
        host = os.environ.get("GH_HOST") or "github.com"
        return github_clone_url(*owner_repo, host=host), None
    return text, None


def _default_dest(name: str) -> Path:
    return lore_home() / "vaults" / name


def connect_vault(
    source: str,
    *,
    name: str | None = None,
    path: str | None = None,
    make_default: bool = False,
    priority: int | None = None,
    timeout: float = CLONE_TIMEOUT,
) -> ConnectResult:
    url, in_place = resolve_source(source)
    vault_name = name_from(name or url)
    if in_place is not None and path is None:
        if not is_vault_folder(in_place):
            raise VaultError(
                f"{in_place} is a git repository but not a lore vault (no notes/ folder and no "
                "_taxonomy.md).",
                fix="Point at the vault's top folder, or create a vault with `lore init`.",
            )
        remote = git.remote_url(in_place, "origin")
        _, default = register(
            vault_name, in_place, remote=remote, priority=priority, make_default=make_default
        )
        result = ConnectResult(vault_name, in_place, source, False, default)
        _index(result)
        return result
    registered = load_config().vaults.get(vault_name)
    if registered is not None:
        raise UsageError(
            f"A vault named '{vault_name}' is already registered, at {registered.path}.",
            fix="Sync it with `lore sync`, or connect this one under another name with --name.",
        )
    dest = Path(path).expanduser().absolute() if path else _default_dest(vault_name)
    if dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
        raise UsageError(
            f"{dest} already exists and is not empty.",
            fix="Choose another folder with --path, or another name with --name.",
        )
    created_parent = not dest.parent.exists()
    try:
        clone(url, dest, timeout=timeout, gh=gh.gh_executable())
    except RemoteError as exc:
        _remove(dest, created_parent)
        fixes = {
            "auth": "Sign in first: `gh auth login` (lore uses its credentials for GitHub), or "
            "check your SSH key or token.",
            "unreachable": "Check the name or URL, and that you can read the repository.",
            "timeout": "The remote did not answer; try again when the network is back.",
        }
        raise VaultError(
            f"Could not clone {url}: {exc.detail or exc.kind}.",
            fix=fixes.get(exc.kind, "Check the URL and your access to it."),
        ) from None
    if not is_vault_folder(dest):
        _remove(dest, created_parent)
        raise VaultError(
            f"{url} is not a lore vault (it has no notes/ folder and no _taxonomy.md).",
            fix="Check the repository name, or create a vault with `lore init --github`.",
        )
    _, default = register(
        vault_name, dest, remote=url, priority=priority, make_default=make_default
    )
    result = ConnectResult(vault_name, dest, source, True, default)
    _index(result)
    return result


def _remove(dest: Path, created_parent: bool) -> None:
    shutil.rmtree(dest, ignore_errors=True)
    if created_parent:
        with contextlib.suppress(OSError):
            dest.parent.rmdir()


def _index(result: ConnectResult) -> None:
    try:
        conn, state = open_index(result.path)
    except IndexUnavailable as exc:
        result.index = f"not usable ({exc}); recall scans the files"
        return
    conn.close()
    result.notes = state.notes
    result.index = state.action
