"""Whether a vault may be published as a website where anyone can read it.

A GitHub Pages site is public on every plan, even when its repository is private,
unless the organisation uses GitHub Enterprise Cloud and publishes it privately
(GitHub's docs, "Changing the visibility of your GitHub Pages site"; docs/site.md
lists who can see the site on each plan). So the publishing workflow passes the
repository's visibility, and a vault whose repository is anything but public —
private, internal, or a visibility the workflow could not tell — is built for
publishing only when `[site] publish_private = true` in the `lore.toml` of the
reviewed branch (the index keeps it, as it keeps every setting it serves; a setting
in the work tree or in an unmerged change has no say).
"""

from __future__ import annotations

from typing import Any

from lore.errors import UsageError
from lore.vault.settings import section_values

PUBLIC = "public"


def check_publishable(settings: dict[str, Any], visibility: str) -> None:
    """Raise `UsageError` unless a vault of this visibility may be published."""
    if visibility.strip().lower() == PUBLIC:
        return
    if section_values(settings, "site")["publish_private"] is True:
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
