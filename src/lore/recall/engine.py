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
from lore.recall.query import AliasIndex, QueryPlan, Term, build_query
from lore.recall.rank import Statistics
from lore.recall.ranker import Ranker, phrase_statistics
from lore.recall.snippet import make_snippet

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from lore.recall.scan import ScannedVault


@lru_cache(maxsize=8)
def _parsed_meta(aliases: str, settings: str) -> tuple[AliasIndex, dict[str, Any]]:
    """The index's aliases and recall settings, parsed once per process while unchanged."""
    return AliasIndex(json.loads(aliases)), json.loads(settings)


def _meta(conn: sqlite3.Connection) -> tuple[AliasIndex, dict[str, Any], str]:
    meta = dict(
        conn.execute(
            "SELECT key, value FROM meta WHERE key IN ('aliases', 'recall_settings', 'version')"
        ).fetchall()
    )
    aliases, settings = _parsed_meta(meta.get("aliases") or "{}", meta["recall_settings"])
    return aliases, settings, meta.get("version", "")


def query_terms(conn: sqlite3.Connection, query: str) -> list[Term]:
    """The phrases `query` searches for in this index (its taxonomy's aliases included)."""
    return build_query(query, _meta(conn)[0]).terms


def recall_in_index(
    conn: sqlite3.Connection,
    request: RecallRequest,
    *,
    today: date | None = None,
    statistics: Statistics | None = None,
    counted: Statistics | None = None,
) -> RecallResult:
    """Recall from an open index; `statistics` (several vaults' together) sets the idf.

    `counted` is this index's own `phrase_statistics` for the query, when the caller
    has them already.
    """
    aliases, settings, version = _meta(conn)
    plan = build_query(request.query, aliases)
    result = RecallResult(
        query=request.query,
        engine="fts5",
        hits=[],
        plan=plan,
        repo=request.repo,
        vault_version=version,
    )
    if plan.empty or request.limit <= 0:
        return result

    ranker = Ranker(
        conn,
        request,
        settings,
        today or clock.today(),
        plan,
        statistics=statistics,
        counted=counted,
    )
    hits, bodies = ranker.rank()
    _add_snippets(plan, hits, bodies)
    if request.explain:
        ranker.add_term_scores(hits)
    result.hits = hits
    return result


def _add_snippets(plan: QueryPlan, hits: list[Hit], bodies: dict[int, str]) -> None:
    words = [word for term in plan.terms for word in term.words]
    for hit in hits:
        hit.snippet = make_snippet(bodies.get(hit.rowid, ""), words, fallback=hit.summary)


class Searcher:
    """One vault opened for recall: its index, or its files when the index cannot be used.

    `kept` reuses this thread's kept index connection (`open_index_kept`, checked to be
    the same, sound and fresh index); a caller searching several vaults opens each
    afresh and closes it. If a search fails inside the index (a damaged FTS table), the
    searcher scans the files from then on and says so in `notices`.
    """

    def __init__(self, root: Path, *, kept: bool = True) -> None:
        from lore.index.build import IndexUnavailable, open_index, open_index_kept

        self.root = root
        self.kept = kept
        self.notices: list[str] = []
        self.conn: sqlite3.Connection | None = None
        self.scanned: ScannedVault | None = None
        self.skipped = 0  # notes the index could not read
        self.counted: Statistics | None = None  # this index's counts of the last phrases asked
        try:
            self.conn, state = open_index_kept(root) if kept else open_index(root)
        except (IndexUnavailable, sqlite3.Error) as exc:
            self._fall_back(exc)
            return
        self.skipped = state.skipped

    def _fall_back(self, exc: Exception) -> ScannedVault:
        from lore.index.build import forget_kept_index
        from lore.recall.scan import ScannedVault

        if self.kept:
            forget_kept_index()
        elif self.conn is not None:
            self.conn.close()
        self.conn = None
        self.scanned = ScannedVault(self.root)
        self.notices.append(f"The index could not be used ({exc}); scanned the files instead.")
        return self.scanned

    def terms(self, query: str) -> list[Term]:
        """The phrases `query` searches for in this vault (its taxonomy's aliases included)."""
        if self.conn is not None:
            try:
                return query_terms(self.conn, query)
            except sqlite3.Error as exc:
                self._fall_back(exc)
        assert self.scanned is not None
        return self.scanned.plan(query).terms

    def statistics(self, terms: list[Term]) -> Statistics:
        """How many notes this vault holds, and how many contain each of these phrases."""
        if self.conn is not None:
            try:
                self.counted = phrase_statistics(self.conn, [term.fts() for term in terms])
                return self.counted
            except sqlite3.Error as exc:
                self._fall_back(exc)
        assert self.scanned is not None
        return self.scanned.statistics(terms)

    def recall(self, request: RecallRequest, statistics: Statistics | None = None) -> RecallResult:
        """Recall from this vault; `statistics` (several vaults' together) sets the idf."""
        scanned = self.scanned
        if self.conn is not None:
            try:
                result = recall_in_index(
                    self.conn, request, statistics=statistics, counted=self.counted
                )
            except sqlite3.Error as exc:
                scanned = self._fall_back(exc)
            else:
                result.notices += self.notices
                if self.skipped:
                    result.notices.append(
                        f"{self.skipped} note(s) could not be read and are not searched; "
                        "`lore index` lists them."
                    )
                return result
        assert scanned is not None
        result = scanned.recall(request, statistics)
        result.notices += self.notices
        return result

    def close(self) -> None:
        if not self.kept and self.conn is not None:
            self.conn.close()
        self.conn = None


def recall(root: Path, request: RecallRequest) -> RecallResult:
    """Recall from the vault at `root`: the index when it can, a scan of the files if not.

    The index connection is kept for this thread's next recall. Several vaults searched
    together go through `lore.recall.multi`, which shares their statistics.
    """
    return Searcher(root).recall(request)
