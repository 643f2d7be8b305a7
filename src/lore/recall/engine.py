"""`recall`: the library function behind `lore recall`, the hooks and the MCP server.

It searches one vault through its index (`ranker` does the ranking), or, when the
index cannot be used, by scanning the files (`scan`), and says so. `Searcher` is one
vault opened for that; `lore.recall.multi` opens several and shares their statistics.
"""

from __future__ import annotations

import json
import sqlite3
from datetime import date
from functools import lru_cache
from pathlib import Path

from lore import clock
from lore.recall.model import Hit, RecallRequest, RecallResult
from lore.recall.query import AliasIndex, Term, build_query
from lore.recall.rank import Statistics
from lore.recall.ranker import Ranker, phrase_statistics
from lore.recall.snippet import make_snippet
from lore.record import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, TypeVar

    from lore.index.build import IndexState
    from lore.recall.filters import Filters, Vocabulary
    from lore.recall.scan import ScannedVault

    T = TypeVar("T")


@lru_cache(maxsize=8)
def _parsed_meta(aliases: str, settings: str) -> tuple[AliasIndex, dict[str, Any]]:
    """The index's aliases and recall settings, parsed once per process while unchanged."""
    return AliasIndex(json.loads(aliases)), json.loads(settings)


def _meta(
    conn: sqlite3.Connection, rows: dict[str, str] | None = None
) -> tuple[AliasIndex, dict[str, Any], str, str]:
    """The index's aliases, settings, version and branch; from `rows` (its meta rows, as
    `read_index` hands them to a reader) when given, else read."""
    meta = rows or dict(
        conn.execute(
            "SELECT key, value FROM meta "
            "WHERE key IN ('aliases', 'recall_settings', 'version', 'branch')"
        ).fetchall()
    )
    aliases, settings = _parsed_meta(meta.get("aliases") or "{}", meta["recall_settings"])
    return aliases, settings, meta.get("version", ""), meta.get("branch", "")


def query_terms(conn: sqlite3.Connection, query: str) -> list[Term]:
    """The phrases `query` searches for in this index (its taxonomy's aliases included)."""
    return build_query(query, _meta(conn)[0]).terms


def recall_in_index(
    conn: sqlite3.Connection,
    request: RecallRequest,
    *,
    today: date | None = None,
    statistics: Statistics | None = None,
    whole_rankings: bool = False,
    meta: dict[str, str] | None = None,
) -> RecallResult:
    """Recall from an open index; `statistics` (several vaults' together) sets the idf;
    `meta`: the index's meta rows when the caller has them (`IndexState.meta`).

    Several phrasings (`request.also`) are each ranked on this connection and fused
    (`lore.recall.fusion`); snippets (and `--explain`'s terms) are made for the fused
    hits only, or, with `whole_rankings`, for every hit of every phrasing's ranking
    (several vaults fuse those rankings again, `lore.recall.multi`).
    """
    day = today or clock.today()
    if not request.also:
        result, ranked = _ranked(conn, request, day, statistics, meta)
        if ranked is not None:
            ranked.finish(result.hits)
        return result
    from lore.recall.fusion import recall_fused

    rankers: list[_Ranked | None] = []

    def one(single: RecallRequest) -> RecallResult:
        result, ranked = _ranked(conn, single, day, statistics, meta)
        rankers.append(ranked)
        return result

    def finish(hits: list[Hit]) -> None:
        for index, ranked in enumerate(rankers):
            if ranked is not None:
                ranked.finish([hit for hit in hits if hit.phrasing == index])

    return recall_fused(request, one, finish, whole_rankings=whole_rankings)


class _Ranked(Record):
    """One phrasing ranked: what its hits still need (snippets, `--explain`'s terms)."""

    __slots__ = ("bodies", "explain", "plan", "ranker")

    def __init__(self, ranker: Ranker, bodies: dict[int, str], *, explain: bool) -> None:
        self.ranker = ranker
        self.plan = ranker.plan
        self.bodies = bodies
        self.explain = explain

    def finish(self, hits: list[Hit]) -> None:
        words = [word for term in self.plan.terms for word in term.words]
        for hit in hits:
            body = self.bodies.get(hit.rowid, "")
            hit.snippet = make_snippet(body, words, fallback=hit.summary)
        if self.explain:
            self.ranker.add_term_scores(hits)


def _ranked(
    conn: sqlite3.Connection,
    request: RecallRequest,
    day: date,
    statistics: Statistics | None,
    meta: dict[str, str] | None = None,
) -> tuple[RecallResult, _Ranked | None]:
    """One phrasing's hits, best first, without their snippets (None: nothing to rank)."""
    aliases, settings, version, branch = _meta(conn, meta)
    plan = build_query(request.query, aliases)
    result = RecallResult(
        query=request.query,
        engine="fts5",
        hits=[],
        plan=plan,
        repo=request.repo,
        vault_version=version,
        vault_branch=branch,
    )
    if plan.empty or request.limit <= 0:
        return result, None
    ranker = Ranker(conn, request, settings, day, plan, statistics=statistics)
    result.hits, bodies = ranker.rank()
    return result, _Ranked(ranker, bodies, explain=request.explain)


class Searcher:
    """One vault searched in rounds, as `lore.recall.multi` does: its phrases, their
    counts, then the recall with the statistics of all the vaults.

    Each round reads the index through `read_index` (so a damaged index is healed as
    for any reader) on a connection of its own. When the index cannot be used, the
    searcher reads the files from then on (`ScannedVault`) and says so in `notices`.
    """

    def __init__(self, root: Path) -> None:
        self.root = root
        self.notices: list[str] = []
        self.scanned: ScannedVault | None = None
        self.skipped = 0  # notes the index could not read

    def _read(self, read: Callable[[sqlite3.Connection], T]) -> T | None:
        """`read` on the index, or None when it cannot be used (then `scanned` is set)."""
        from lore.index.build import IndexUnavailable
        from lore.index.read import read_index

        if self.scanned is not None:
            return None
        try:
            value, self.skipped = read_index(
                self.root,
                lambda conn, state: (read(conn), state.skipped),
                fallback=False,
                notices=self.notices,
            )
        except (IndexUnavailable, sqlite3.Error) as exc:
            from lore.recall.scan import ScannedVault  # parses notes: off the usual path

            self.scanned = ScannedVault(self.root)
            reason = (
                exc.message if isinstance(exc, IndexUnavailable) else f"The index failed: {exc}."
            )
            self.notices.append(f"{reason} Scanned the files instead.")
            return None
        return value

    def vocabulary(self) -> Vocabulary | None:
        """The names this vault's taxonomy defines (None: it has none), for `check_filters`."""
        from lore.recall.filters import from_files, stored_vocabulary

        known = self._read(stored_vocabulary)
        if self.scanned is not None:
            return from_files(self.root)
        return known

    def terms(self, query: str) -> list[Term]:
        """The phrases `query` searches for in this vault (its taxonomy's aliases included)."""
        terms = self._read(lambda conn: query_terms(conn, query))
        if terms is not None:
            return terms
        assert self.scanned is not None
        return self.scanned.plan(query).terms

    def statistics(self, terms: list[Term]) -> Statistics:
        """How many notes this vault holds, and how many contain each of these phrases."""
        phrases = [term.fts() for term in terms]
        counted = self._read(lambda conn: phrase_statistics(conn, phrases))
        if counted is not None:
            return counted
        assert self.scanned is not None
        return self.scanned.statistics(terms)

    def recall(self, request: RecallRequest, statistics: Statistics) -> RecallResult:
        """Recall from this vault, its idf from `statistics` (those of all the vaults)."""
        result = self._read(
            lambda conn: recall_in_index(conn, request, statistics=statistics, whole_rankings=True)
        )
        if result is None:
            assert self.scanned is not None
            result = self.scanned.recall(request, statistics)
        elif self.skipped:
            result.notices.append(
                f"{self.skipped} note(s) could not be read and are not searched; "
                "`lore index` lists them."
            )
        result.notices[:0] = self.notices
        return result


def recall(root: Path, request: RecallRequest, check: Filters | None = None) -> RecallResult:
    """Recall from the vault at `root`: the index when it can, a scan of the files if not.

    With `check`, those filter names are checked first against the taxonomy's names the
    index stored (`lore.recall.filters`): an unknown one raises `UsageError`.

    The index connection is kept for this thread's next recall (`open_index_kept`
    checks it is still the same, sound and fresh index before reusing it); a damaged
    index is rebuilt first (`read_index`). Several vaults searched together go through
    `lore.recall.multi`, which shares their statistics (`Searcher`).
    """
    from lore.index.build import IndexUnavailable
    from lore.index.read import read_index

    notices: list[str] = []

    def read(conn: sqlite3.Connection, state: IndexState) -> tuple[RecallResult, int]:
        if check is not None and not check.empty:
            from lore.recall.filters import check_filters, stored_vocabulary

            check_filters(stored_vocabulary(conn, state.meta), check)
        return recall_in_index(conn, request, meta=state.meta), state.skipped

    try:
        result, skipped = read_index(
            root,
            read,
            kept=True,
            fallback=False,
            notices=notices,
        )
    except (IndexUnavailable, sqlite3.Error) as exc:
        from lore.recall.scan import recall_by_scan

        if check is not None and not check.empty:
            from lore.recall.filters import check_filters, from_files

            check_filters(from_files(root), check)
        result = recall_by_scan(root, request)
        result.notices[:0] = notices
        reason = exc.message if isinstance(exc, IndexUnavailable) else f"The index failed: {exc}."
        result.notices.append(f"{reason} Scanned the files instead.")
        return result
    result.notices[:0] = notices
    if skipped:
        result.notices.append(
            f"{skipped} note(s) could not be read and are not searched; `lore index` lists them."
        )
    return result
