"""`recall`: the library function behind `lore recall`, the hooks and the MCP server.

Two stages, as measured fastest here: FTS5 ranks candidates by BM25 with column
weights (title and tags above body) and returns the top `CANDIDATES`; Python applies
gentle boosts, hides inactive notes (a superseded match brings in the note that
replaced it), and cuts to the limit. Snippets and the per-term explanation are
computed only for the notes returned.

Computing BM25 for every matching row is most of the cost, so the first stage skips
rows that match only the query's common phrases whenever a bound proves none of them
could reach the results (`_Ranker.rank`); the answer is the same as without it.
"""

from __future__ import annotations

import json
import math
import sqlite3
from collections.abc import Sized
from datetime import date
from functools import lru_cache
from pathlib import Path

from lore import clock
from lore.index.schema import FTS_COLUMNS
from lore.recall.model import Hit, RecallRequest, RecallResult, TermScore
from lore.recall.query import AliasIndex, QueryPlan, build_query
from lore.recall.rank import Boosts, compute_boosts
from lore.recall.snippet import make_snippet
from lore.record import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

CANDIDATES = 200
COMMON_SHARE = 0.05  # a phrase in more notes than this share is scored only when it must be
BM25_K1 = 1.2  # FTS5's bm25() constant (fts5_aux.c); bounds what one phrase can add
CHUNK = 16  # candidates whose boosts are computed at a time (see the early stop in `rank`)


_COLUMNS = (
    "n.rowid, n.id, n.title, n.path, n.type, n.repo, n.tag_list, n.confidence, n.date, "
    "n.author, n.summary, n.active, n.inactive_reason, n.superseded_by"
)


@lru_cache(maxsize=8)
def _parsed_meta(aliases: str, settings: str) -> tuple[AliasIndex, dict[str, Any]]:
    """The index's aliases and recall settings, parsed once per process while unchanged."""
    return AliasIndex(json.loads(aliases)), json.loads(settings)


def recall_in_index(
    conn: sqlite3.Connection, request: RecallRequest, *, today: date | None = None
) -> RecallResult:
    meta = dict(
        conn.execute(
            "SELECT key, value FROM meta WHERE key IN ('aliases', 'recall_settings', 'version')"
        ).fetchall()
    )
    aliases, settings = _parsed_meta(meta.get("aliases") or "{}", meta["recall_settings"])
    plan = build_query(request.query, aliases)
    result = RecallResult(
        query=request.query,
        engine="fts5",
        hits=[],
        plan=plan,
        repo=request.repo,
        vault_version=meta.get("version", ""),
    )
    if plan.empty or request.limit <= 0:
        return result

    ranker = _Ranker(conn, request, settings, today or clock.today())
    hits, bodies = ranker.rank(plan)
    _add_snippets(plan, hits, bodies)
    if request.explain:
        _add_term_scores(conn, plan, hits, ranker.bm25_sql)
    result.hits = hits
    return result


class _Ranker(Record):
    """Stage one in FTS5 (BM25 top candidates), stage two in Python (boosts, statuses)."""

    def __init__(
        self,
        conn: sqlite3.Connection,
        request: RecallRequest,
        settings: dict[str, Any],
        today: date,
    ) -> None:
        self.conn = conn
        self.request = request
        self.settings = settings
        self.today = today
        self.where, self.params = _filters(request)
        weights = settings["weights"]
        values = ", ".join(f"{float(weights[column]):g}" for column in FTS_COLUMNS)
        self.bm25_sql = f"bm25(notes_fts, {values})"  # numbers only, from the index's settings

    def boosts(self, repos: str, confidence: str, day: str) -> Boosts:
        return compute_boosts(
            self.settings,
            note_repos=json.loads(repos),
            current_repo=self.request.repo,
            confidence=confidence,
            note_date=day,
            today=self.today,
        )

    def candidates(self, match: str, essential: str | None = None) -> dict[int, float]:
        """The top candidates by BM25 (with column weights) and their scores.

        With `essential`, only rows that match it are scored (see `rank`); the score is
        still that of the whole query, so it equals what the plain query gives the row.
        """
        essential_sql = ""
        params: list[Any] = [match]
        if essential is not None:
            # `+rowid` keeps SQLite from looking rows up one by one through the IN list.
            essential_sql = (
                " AND +notes_fts.rowid IN (SELECT rowid FROM notes_fts WHERE notes_fts MATCH ?)"
            )
            params.append(essential)
        join = " JOIN notes n ON n.rowid = notes_fts.rowid" if self.where else ""
        sql = (
            f"SELECT notes_fts.rowid, -{self.bm25_sql} AS s FROM notes_fts{join} "
            f"WHERE notes_fts MATCH ?{essential_sql}{self.where} "
            f"ORDER BY s DESC LIMIT {CANDIDATES}"
        )
        return dict(self.conn.execute(sql, (*params, *self.params)).fetchall())

    def common_terms(self, plan: QueryPlan) -> list[tuple[str, float]]:
        """The query's common phrases with the most each can add to a note's BM25, least first.

        FTS5's BM25 adds, for each phrase, idf * f * (k1 + 1) / (f + k1 * (...)), which is
        below idf * (k1 + 1) whatever the frequencies and weights. A phrase counts as
        common when more than `COMMON_SHARE` of the notes contain it; the rarest phrase
        of the query never does.
        """
        if len(plan.terms) < 2:
            return []
        # max(rowid) is at least the number of rows, so the idf below is never too low.
        rows = self.conn.execute("SELECT max(rowid) FROM notes").fetchone()[0] or 0
        counted = []
        for term in plan.terms:
            phrase = term.fts()
            hits = self.conn.execute(
                "SELECT count(*) FROM notes_fts WHERE notes_fts MATCH ?", (phrase,)
            ).fetchone()[0]
            idf = max(1e-6, math.log((rows - hits + 0.5) / (hits + 0.5)))
            counted.append((hits, phrase, idf * (BM25_K1 + 1.0) * (1.0 + 1e-9)))
        counted.sort()
        return sorted(
            ((phrase, bound) for hits, phrase, bound in counted[1:] if hits > COMMON_SHARE * rows),
            key=lambda item: item[1],
        )

    def max_boost(self) -> float:
        """No note's boosts multiply to more than this: it bounds what a candidate can reach."""
        settings = self.settings
        repo = max(1.0, float(settings["repo_boost"]), float(settings["other_repo_factor"]))
        confidence = max([1.0, *(float(v) for v in settings["confidence"].values())])
        return repo * confidence * max(1.0, float(settings["recency_max_boost"]))

    def rank(self, plan: QueryPlan) -> tuple[list[Hit], dict[int, str]]:
        """The hits in order, and the bodies of those notes (for snippets).

        Scoring BM25 is most of a query's cost, and a common word makes a quarter of the
        notes match. So, first, only notes that match one of the rarer phrases are scored
        (MaxScore): a note that matches only common phrases scores below the sum of their
        bounds (`common_terms`) times the highest boost. If the limit-th result beats
        that, no skipped note could have entered, and the answer is exactly the plain
        query's. If not, the phrases that could still matter are added and only the
        notes they bring (matching none of the phrases already scored) are scored next;
        at worst every matching note is scored once, as the plain query does.
        """
        ceiling = self.max_boost()
        limit = self.request.limit
        skipped = self.common_terms(plan)
        skip = {phrase for phrase, _ in skipped}
        scored_phrases = [t.fts() for t in plan.terms if t.fts() not in skip]
        found = self.candidates(plan.match, " OR ".join(scored_phrases) if skipped else None)
        while True:
            bm25 = dict(found)  # `score` adds the notes that replace superseded matches
            scores, boosts, replaced = self.score(bm25, ceiling)
            if not skipped:
                break
            kth = sorted(scores.values(), reverse=True)[limit - 1] if len(scores) >= limit else 0.0
            if sum(bound for _, bound in skipped) * ceiling < kth:
                break
            total, still_skipped = 0.0, []
            for phrase, bound in skipped:  # least first: skip what still cannot reach kth
                if (total + bound) * ceiling >= kth:
                    break
                total += bound
                still_skipped.append((phrase, bound))
            kept = {phrase for phrase, _ in still_skipped}
            added = [phrase for phrase, _ in skipped if phrase not in kept]
            new_rows = f"({' OR '.join(added)}) NOT ({' OR '.join(scored_phrases)})"
            found.update(self.candidates(plan.match, new_rows))
            scored_phrases += added
            skipped = still_skipped

        top = sorted(scores, key=lambda rowid: (-scores[rowid], rowid))[:limit]
        rows = self.conn.execute(
            f"SELECT {_COLUMNS}, n.body FROM notes n WHERE n.rowid IN ({_marks(top)})", top
        ).fetchall()
        replaces = {
            rowid: self.conn.execute(
                "SELECT id FROM notes WHERE rowid = ?", (replaced[rowid][0],)
            ).fetchone()[0]
            for rowid in top
            if rowid in replaced
        }
        hits = [_hit(row, bm25[row[0]], boosts[row[0]], replaces.get(row[0])) for row in rows]
        bodies = {row[0]: row[-1] for row in rows}
        hits.sort(key=lambda h: (-h.score, h.id))
        return hits, bodies

    def score(
        self, bm25: dict[int, float], ceiling: float
    ) -> tuple[dict[int, float], dict[int, Boosts], dict[int, tuple[int, float]]]:
        """Boosted scores of the candidates that can reach the limit, with their boosts.

        `bm25` gains the notes that replace superseded matches. The third value maps such
        a replacement to the superseded note it answers for and that note's BM25.
        """
        order = sorted(bm25, key=lambda rowid: -bm25[rowid])
        limit = self.request.limit
        boosts: dict[int, Boosts] = {}
        scores: dict[int, float] = {}
        replaced: dict[int, tuple[int, float]] = {}  # replacement -> (matched rowid, its bm25)
        for start in range(0, len(order), CHUNK):
            # Exact early stop: candidates come in falling BM25 order, so once the next one
            # could not beat the current limit-th score even at the highest boost, none can.
            if len(scores) >= limit:
                kth = sorted(scores.values(), reverse=True)[limit - 1]
                if bm25[order[start]] * ceiling < kth:
                    break
            chunk = order[start : start + CHUNK]
            rows = self.conn.execute(
                "SELECT rowid, repo, confidence, date, active, superseded_by FROM notes "
                f"WHERE rowid IN ({_marks(chunk)})",
                chunk,
            ).fetchall()
            for rowid, repos, confidence, day, active, superseded_by in rows:
                if active or self.request.include_inactive:
                    boosts[rowid] = self.boosts(repos, confidence, day)
                elif superseded_by:  # the note that replaced it answers instead
                    target = _final_replacement(self.conn, superseded_by, self.where, self.params)
                    if target is None or bm25[rowid] <= replaced.get(target, (0, -1.0))[1]:
                        continue
                    replaced[target] = (rowid, bm25[rowid])
                    bm25[target] = max(bm25.get(target, 0.0), bm25[rowid])  # the match's strength
                    if target not in boosts:
                        row = self.conn.execute(
                            "SELECT repo, confidence, date FROM notes WHERE rowid = ?", (target,)
                        ).fetchone()
                        boosts[target] = self.boosts(*row)
                    scores[target] = bm25[target] * boosts[target].total
                    continue
                else:
                    continue
                scores[rowid] = bm25[rowid] * boosts[rowid].total
        return scores, boosts, replaced


def _marks(items: Sized) -> str:
    return ",".join("?" * len(items))


def _filters(request: RecallRequest) -> tuple[str, list[Any]]:
    clauses: list[str] = []
    params: list[Any] = []
    if request.types:
        clauses.append(f"n.type IN ({','.join('?' * len(request.types))})")
        params.extend(request.types)
    for tag in request.tags:
        if "/" in tag:
            clauses.append("instr(n.tag_list, ?) > 0")
            params.append(json.dumps(tag))
        else:  # a bare name matches the tag in any dimension, or a whole dimension
            clauses.append("(instr(n.tag_list, ?) > 0 OR instr(n.tag_list, ?) > 0)")
            params.extend([f'/{tag}"', f'"{tag}/'])
    where = "".join(f" AND {clause}" for clause in clauses)
    return where, params


def _hit(row: tuple[Any, ...], bm25: float, boosts: Boosts, replaces: str | None) -> Hit:
    return Hit(
        rowid=row[0],
        id=row[1],
        title=row[2],
        path=row[3],
        type=row[4],
        repo=json.loads(row[5]),
        tags=json.loads(row[6]),
        confidence=row[7],
        date=row[8],
        author=row[9],
        summary=row[10],
        active=bool(row[11]),
        inactive_reason=row[12],
        replaces=replaces,
        base_score=bm25,
        boosts=boosts,
        score=bm25 * boosts.total,
        snippet="",
    )


def _final_replacement(
    conn: sqlite3.Connection, first: str, where: str, params: list[Any]
) -> int | None:
    """The rowid of the active note at the end of a `superseded_by` chain (within filters)."""
    seen: set[str] = set()
    current: str | None = first
    while current and current not in seen:
        seen.add(current)
        row = conn.execute(
            "SELECT rowid, active, superseded_by FROM notes WHERE id = ?", (current,)
        ).fetchone()
        if row is None:
            return None
        if row[1]:
            matches = conn.execute(
                f"SELECT 1 FROM notes n WHERE n.rowid = ?{where}", (row[0], *params)
            ).fetchone()
            return int(row[0]) if matches else None
        current = row[2]
    return None


def _add_snippets(plan: QueryPlan, hits: list[Hit], bodies: dict[int, str]) -> None:
    words = [word for term in plan.terms for word in term.words]
    for hit in hits:
        hit.snippet = make_snippet(bodies.get(hit.rowid, ""), words, fallback=hit.summary)


def _add_term_scores(
    conn: sqlite3.Connection, plan: QueryPlan, hits: list[Hit], bm25_sql: str
) -> None:
    """BM25 of each term alone: for an OR query they add up to the note's BM25 score."""
    by_rowid = {hit.rowid: hit for hit in hits}
    marks = ",".join("?" * len(by_rowid))
    for term in plan.terms:
        rows = conn.execute(
            f"SELECT rowid, -{bm25_sql} FROM notes_fts WHERE notes_fts MATCH ? "
            f"AND rowid IN ({marks})",
            (term.fts(), *by_rowid),
        ).fetchall()
        for rowid, score in rows:
            by_rowid[rowid].terms.append(TermScore(term.label, term.origin, float(score)))
    for hit in hits:
        hit.terms.sort(key=lambda t: -t.score)


def recall(root: Path, request: RecallRequest) -> RecallResult:
    """Recall from the vault at `root`: the index when it can, a scan of the files if not.

    The index connection is kept for this thread's next recall (`open_index_kept`
    checks it is still the same, sound and fresh index before reusing it); a damaged
    index is rebuilt first (`read_index`).
    """
    from lore.index.build import IndexUnavailable
    from lore.index.read import read_index

    notices: list[str] = []
    try:
        result, skipped = read_index(
            root,
            lambda conn, state: (recall_in_index(conn, request), state.skipped),
            kept=True,
            fallback=False,
            notices=notices,
        )
    except (IndexUnavailable, sqlite3.Error) as exc:
        from lore.recall.scan import recall_by_scan

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
