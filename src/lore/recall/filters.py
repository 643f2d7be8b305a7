"""Check `--type`, `--tag` and `--repo` against the vaults' taxonomies before searching.

A misspelt filter would otherwise find nothing and say nothing. The names a taxonomy
defines are stored in the index when it is built or updated (the `vocabulary` meta
row, written by `lore.index.fill.vocabulary_json`), so checking them costs one small
read on the connection recall opens anyway (`stored_vocabulary`): no file, no
subprocess, no taxonomy parser. Only the scan fallback, which reads the files anyway,
parses `_taxonomy.md` (`from_files`).

A vault without a taxonomy accepts any name, and so does a search of several vaults
when one of them has none; otherwise a name must be known to one of the vaults.
"""

from __future__ import annotations

import json
from functools import lru_cache

from lore.errors import UsageError
from lore.index.schema import VOCABULARY_KEY
from lore.record import Record

SHOWN = 12  # the most known names an error lists

TYPE_CHECKING = False
if TYPE_CHECKING:
    import sqlite3
    from collections.abc import Iterable
    from pathlib import Path


class Filters(Record):
    """The names a command was given to filter by, to be checked (`repo`: None = not given)."""

    __slots__ = ("repo", "tags", "types")

    def __init__(
        self, *, types: tuple[str, ...] = (), tags: tuple[str, ...] = (), repo: str | None = None
    ) -> None:
        self.types = types
        self.tags = tags
        self.repo = repo

    @property
    def empty(self) -> bool:
        return not (self.types or self.tags or self.repo)


class Vocabulary(Record):
    """The types, repositories and tags of one or more taxonomies, with their aliases."""

    __slots__ = ("aliases", "repos", "tags", "types")

    def __init__(
        self,
        types: Iterable[str],
        repos: Iterable[str],
        tags: Iterable[str],
        aliases: dict[str, list[str]] | None = None,
    ) -> None:
        self.types = frozenset(types)
        self.repos = frozenset(repos)
        self.tags = frozenset(tags)
        self.aliases = aliases or {}  # alias -> the names it stands for

    @staticmethod
    def from_json(text: str) -> Vocabulary | None:
        data = json.loads(text)
        if not isinstance(data, dict):
            return None  # no taxonomy when the index was built
        return Vocabulary(data["types"], data["repos"], data["tags"], data.get("aliases"))

    @staticmethod
    def union(parts: list[Vocabulary | None]) -> Vocabulary | None:
        """Every vault's names together; None (accept anything) if one vault has no taxonomy."""
        if not parts or any(part is None for part in parts):
            return None
        known = [part for part in parts if part is not None]
        aliases: dict[str, list[str]] = {}
        for part in known:
            for alias, names in part.aliases.items():
                merged = aliases.setdefault(alias, [])
                merged += [name for name in names if name not in merged]
        return Vocabulary(
            (name for part in known for name in part.types),
            (name for part in known for name in part.repos),
            (name for part in known for name in part.tags),
            aliases,
        )


def stored_vocabulary(
    conn: sqlite3.Connection, meta: dict[str, str] | None = None
) -> Vocabulary | None:
    """The vocabulary the index stored; None when the vault had no taxonomy. `meta`: the
    index's meta rows when the caller has them (`IndexState.meta`)."""
    if meta:
        text = meta.get(VOCABULARY_KEY)
    else:
        row = conn.execute("SELECT value FROM meta WHERE key = ?", (VOCABULARY_KEY,)).fetchone()
        text = row[0] if row else None
    return None if text is None else _parsed(text)


@lru_cache(maxsize=8)
def _parsed(text: str) -> Vocabulary | None:
    """A stored vocabulary, parsed once per process while unchanged (the MCP server asks
    on every call; a `Vocabulary` is never changed once made)."""
    return Vocabulary.from_json(text)


def from_files(root: Path) -> Vocabulary | None:
    """The vocabulary of the committed `_taxonomy.md`, parsed: for the scan fallback only."""
    from lore.taxonomy import TAXONOMY_FILE, parse_taxonomy
    from lore.vault.snapshot import read_vault_file, take_snapshot

    text = read_vault_file(root, take_snapshot(root), TAXONOMY_FILE)
    if text is None:
        return None
    taxonomy = parse_taxonomy(text)
    return Vocabulary(taxonomy.types, taxonomy.repos, taxonomy.tags, taxonomy.alias_map())


def check_filters(known: Vocabulary | None, filters: Filters) -> None:
    """Raise `UsageError` naming the known values when a filter names nothing `known` has."""
    if known is None or filters.empty:
        return
    for kind in filters.types:
        if known.types and kind not in known.types:
            raise _unknown(f"--type {kind} is not a type", "types", known.types, known, kind)
    for tag in filters.tags:
        if known.tags and not _tag_known(tag, known.tags):
            what = "a tag" if "/" in tag else "a tag or a dimension"
            raise _unknown(f"--tag {tag} is not {what}", "tags", known.tags, known, tag)
    repo = filters.repo
    if repo and known.repos and repo not in known.repos:
        raise _unknown(
            f"--repo {repo} is not a repository", "repositories", known.repos, known, repo
        )


def _tag_known(tag: str, tags: frozenset[str]) -> bool:
    """Whether `tag` finds anything as recall reads it (see `ranker.filter_sql`)."""
    if "/" in tag:
        return tag in tags
    return any(name.split("/", 1)[-1] == tag or name.split("/", 1)[0] == tag for name in tags)


def _unknown(
    problem: str, plural: str, names: frozenset[str], known: Vocabulary, name: str
) -> UsageError:
    """The error for an unknown name: the known values (at most `SHOWN` of them), and a
    suggestion from the aliases or the spelling (off the usual path, so `difflib` is
    imported only here)."""
    import difflib

    suggestion = [n for n in known.aliases.get(name, []) if n in names]
    if not suggestion:
        suggestion = difflib.get_close_matches(name, sorted(names), n=1, cutoff=0.6)
    hint = f" Did you mean {suggestion[0]}?" if suggestion else ""
    if plural == "tags":  # every tag of a taxonomy is a wall of text: those of one dimension
        plural, names = _tags_shown(name, suggestion[0] if suggestion else None, names)
    shown = sorted(names)
    listed = ", ".join(shown[:SHOWN])
    if len(shown) > SHOWN:
        listed += f" and {len(shown) - SHOWN} more: `lore taxonomy` lists them"
    flag = problem.split(" ", 1)[0]
    leave_out = "--repo '' for no repository boost" if flag == "--repo" else f"leave {flag} out"
    return UsageError(
        f"{problem} in the vault's taxonomy (known {plural}: {listed}).{hint}",
        fix=f"Use one of those, or {leave_out}.",
    )


def _tags_shown(
    tag: str, suggestion: str | None, tags: frozenset[str]
) -> tuple[str, frozenset[str]]:
    """What an unknown tag's error lists: the tags of its dimension (or of the suggested
    tag's), or the dimensions when neither names one."""
    dimensions = frozenset(name.split("/", 1)[0] for name in tags if "/" in name)
    for guess in (tag, suggestion or ""):
        dimension = guess.split("/", 1)[0] if "/" in guess else ""
        if dimension in dimensions:
            return f"{dimension} tags", frozenset(n for n in tags if n.startswith(dimension + "/"))
    return ("dimensions", dimensions) if dimensions else ("tags", tags)
