"""Which unused taxonomy entries the gardener may propose removing: never a young vault's.

A new vault starts with the template's taxonomy (some sixty types, repos and tags) and
a handful of notes, so almost every entry is unused on day one; proposing to remove
them all would gut the vocabulary, and the next note would fail
`taxonomy/unknown-tag`. The gardener therefore spares, under `[garden]` in lore.toml:

- the template's entries (`keep_template_taxonomy`, on by default): those of the seed
  `_taxonomy.md` this lore ships, and of the vault's first `_taxonomy.md` in its
  history (the seed of the lore release that created it);
- entries added less than `keep_new_taxonomy_days` ago (90 by default; 0 turns this
  off), dated by the commit that added the entry's line on the audited branch
  (`git log --first-parent`: the day it was merged, not the day it was written).

Both read git objects only, like the rest of the audit. A shallow history makes its
oldest visible commit look like the one that added everything: entries are spared
rather than removed.
"""

from __future__ import annotations

from datetime import date, timedelta
from pathlib import Path
from typing import Any

from lore.taxonomy import TAXONOMY_FILE, parse_taxonomy
from lore.vault import git
from lore.vault.seed import seed_root

_NO_BLOB = "0" * 40


def _names(text: str) -> set[str]:
    return {entry.name for entry in parse_taxonomy(text).entries()}


def _history(root: Path, commit: str) -> list[tuple[str, set[str]]]:
    """(commit date, entry names) for each version of `_taxonomy.md`, oldest first."""
    args = ["log", "--first-parent", "--reverse", "--no-abbrev", "--raw", "--format=%x1e%cI"]
    result = git.run_git([*args, commit, "--", TAXONOMY_FILE], root, check=False)
    versions: list[tuple[str, str]] = []  # (date, blob of the new version)
    for chunk in result.stdout.decode("utf-8", "replace").split("\x1e"):
        lines = [line for line in chunk.splitlines() if line.strip()]
        raw = [line for line in lines[1:] if line.startswith(":")]
        if lines and raw:
            versions.append((lines[0].strip()[:10], raw[-1].split()[3]))
    blobs = git.read_objects(root, {blob for _, blob in versions if blob != _NO_BLOB})
    return [
        (day, _names(blobs[blob][1].decode("utf-8", "replace")) if blob in blobs else set())
        for day, blob in versions
    ]


def _template_names(history: list[tuple[str, set[str]]]) -> set[str]:
    seed = (seed_root() / TAXONOMY_FILE).read_text(encoding="utf-8")
    first = history[0][1] if history else set()
    return _names(seed) | first


def added_on(history: list[tuple[str, set[str]]]) -> dict[str, str]:
    """Entry name -> the day its line last appeared in `_taxonomy.md` (it is there since)."""
    added: dict[str, str] = {}
    present: set[str] = set()
    for day, names in history:
        for name in names - present:
            added[name] = day
        present = names
    return {name: day for name, day in added.items() if name in present}


def spared_entries(
    root: Path, commit: str, names: set[str], settings: dict[str, Any], today: str
) -> dict[str, str]:
    """Of the unused entries `names`, those the gardener keeps: name -> why."""
    keep_template = bool(settings["keep_template_taxonomy"])
    keep_days = int(settings["keep_new_taxonomy_days"])
    if not names or (not keep_template and keep_days <= 0):
        return {}
    history = _history(root, commit)
    spared: dict[str, str] = {}
    if keep_template:
        template = _template_names(history)
        spared.update(dict.fromkeys(names & template, "it came with the template"))
    if keep_days > 0:
        since = (date.fromisoformat(today) - timedelta(days=keep_days)).isoformat()
        for name, day in added_on(history).items():
            if name in names and name not in spared and day > since:
                spared[name] = f"it was added on {day}, less than {keep_days} days ago"
    return spared
