"""Whether a vault may be published as a website where anyone can read it.

A GitHub Pages site is public on every plan, even when its repository is private,
unless the organisation uses GitHub Enterprise Cloud and publishes it privately
(GitHub's docs, "Changing the visibility of your GitHub Pages site"; docs/site.md
lists who can see the site on each plan). So the publishing workflow passes the
repository's visibility, and a vault whose repository is anything but public —
private, internal, or a visibility the workflow could not tell — is built for
publishing only when `[site] publish_private = true` in the `lore.toml` at the tip of
the reviewed branch (`lore.vault.lore_toml.reviewed`, the commit the site shows); the
work tree, an unmerged change, a vault without git and a user's own config have no say
(`lore.vault.settings`: the setting sends, and is read from `REVIEWED` only).
"""

from __future__ import annotations

from pathlib import Path

from lore.errors import UsageError
from lore.vault.lore_toml import reviewed
from lore.vault.settings import REVIEWED, parse_settings, section_values

PUBLIC = "public"


def private_publishing_allowed(root: Path) -> bool:
    """`[site] publish_private` at the reviewed branch's tip (False without git)."""
    found = reviewed(root)
    if found is None:
        return False
    try:
        settings = parse_settings(found.text, source=REVIEWED)
    except UsageError:
        return False  # a lore.toml that does not parse allows nothing
    return section_values(settings, "site")["publish_private"] is True


def check_publishable(root: Path, visibility: str) -> None:
    """Raise `UsageError` unless the vault at `root` may be published at this visibility."""
    if visibility.strip().lower() == PUBLIC:
        return
    if private_publishing_allowed(root):
        return
    shown = visibility.strip()[:40] or "unknown"
    raise UsageError(
        f"Not publishing: the vault's repository is {shown}, and a GitHub Pages site is "
        "public to anyone on the internet unless your organisation publishes it privately "
        "on GitHub Enterprise Cloud.",
        fix="If everyone may read these notes (or the site is published privately), set "
        "[site] publish_private = true in lore.toml on the reviewed branch; otherwise "
        "turn the site workflow off (docs/site.md).",
    )
