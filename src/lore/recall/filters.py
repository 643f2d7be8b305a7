"""Check `--type` and `--repo` against the vaults' taxonomies before searching.

A misspelt filter would otherwise find nothing and say nothing. Only called when a
filter is given, so a plain recall reads no taxonomy: the committed `_taxonomy.md`
of each searched vault is read then (a vault without one is not checked). Tag
filters are not checked here: a bare name may match a whole dimension.
"""

from __future__ import annotations

from lore.errors import UsageError
from lore.taxonomy import TAXONOMY_FILE, parse_taxonomy
from lore.vault.snapshot import read_vault_file, take_snapshot
from lore.vaults import VaultRef


def check_filters(vaults: list[VaultRef], types: tuple[str, ...], repo: str | None) -> None:
    """Raise `UsageError` naming the known values when a type or repo is in no taxonomy."""
    known_types: set[str] = set()
    known_repos: set[str] = set()
    for ref in vaults:
        if not ref.root.is_dir():
            continue
        text = read_vault_file(ref.root, take_snapshot(ref.root), TAXONOMY_FILE)
        if text is None:
            return  # a vault without a taxonomy accepts anything
        taxonomy = parse_taxonomy(text)
        known_types |= set(taxonomy.types)
        known_repos |= set(taxonomy.repos)
    for kind in types:
        if known_types and kind not in known_types:
            raise UsageError(
                f"--type {kind} is not a type in the vault's taxonomy "
                f"(known types: {', '.join(sorted(known_types))}).",
                fix="Use one of those, or leave --type out.",
            )
    if repo and known_repos and repo not in known_repos:
        raise UsageError(
            f"--repo {repo} is not a repository in the vault's taxonomy "
            f"(known repositories: {', '.join(sorted(known_repos))}).",
            fix="Use one of those, or --repo '' for no repository boost.",
        )
