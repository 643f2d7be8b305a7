"""The two stages of recall in the index, and the bounds that keep their shortcuts exact.

Stage one asks FTS5 for the top `CANDIDATES` notes by BM25 with column weights (title
and tags above body); stage two, in Python, applies the gentle boosts, hides inactive
notes (a superseded match brings in the note that replaced it), and cuts to the
limit. Snippets and the per-term explanation are computed only for the notes returned.

lore's BM25 weighs a phrase by `rank.idf`, which differs from FTS5's for the commonest
phrases (and for every phrase when several vaults share their statistics). FTS5's
score of a candidate is then corrected phrase by phrase: one more FTS5 query per such
phrase gives that phrase's part of the score for the candidates (`Ranker.corrected`).

Computing BM25 for every matching row is most of the cost, so stage one skips rows
that match only the query's common phrases whenever a bound proves none of them could
reach the results, and reads only the top `CANDIDATES` rows while a bound proves the
rest could not be among the best by lore's BM25 (`Ranker.rank`).
"""

from __future__ import annotations

import heapq
import json
import math
import sqlite3
from collections.abc import Iterable, Sized
from datetime import date

from lore.index.schema import FTS_COLUMNS
from lore.recall.model import Hit, RecallRequest, TermScore
from lore.recall.query import QueryPlan
from lore.recall.rank import BM25_K1, Boosts, Statistics, compute_boosts, fts5_idf
from lore.record import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

CANDIDATES = 200
COMMON_SHARE = 0.05  # a phrase in more notes than this share is scored only when it must be
CHUNK = 16  # candidates whose boosts are computed at a time (see the early stop in `rank`)
SAFETY = 1.0 + 1e-9  # bounds are raised by this factor against rounding
PARTS_BY_LIST = 500  # up to this many rows, a phrase's parts are asked for by rowid
ROWS_PER_QUERY = 400  # what one more FTS5 query costs, in rows of a phrase read (~20 µs)


_COLUMNS = (
    "n.rowid, n.id, n.title, n.path, n.type, n.repo, n.tag_list, n.confidence, n.date, "
    "n.author, n.summary, n.active, n.inactive_reason, n.superseded_by"
)


def indexed_rows(conn: sqlite3.Connection) -> int:
    """How many notes FTS5's `bm25()` counts (its `N`), read where FTS5 keeps it.

    FTS5 keeps the number of rows it indexed as the first varint of its "averages"
    record, row 1 of `notes_fts_data` (`FTS5_AVERAGES_ROWID`, `fts5_index.c`); that is
    what `xRowCount` returns to `bm25()`. Counting the notes would cost a millisecond
    at 100k notes; this costs one page read. The varint is SQLite's: big-endian, seven
    bits a byte while the high bit is set, all eight bits in a ninth byte.
    """
    row = conn.execute("SELECT block FROM notes_fts_data WHERE id = 1").fetchone()
    value = 0
    for position, byte in enumerate(bytes(row[0]) if row and row[0] else b""):
        if position == 8:
            return (value << 8) | byte
        value = (value << 7) | (byte & 0x7F)
        if byte < 0x80:
            return value
    return 0  # an empty table: no averages yet


def phrase_statistics(conn: sqlite3.Connection, phrases: list[str]) -> Statistics:
    """How many notes this index holds, and how many contain each phrase."""
    hits = {
        phrase: conn.execute(
            "SELECT count(*) FROM notes_fts WHERE notes_fts MATCH ?", (phrase,)
        ).fetchone()[0]
        for phrase in dict.fromkeys(phrases)
    }
    return Statistics(indexed_rows(conn), hits)


class Ranker(Record):
    """Stage one in FTS5 (BM25 top candidates), stage two in Python (boosts, statuses).

    `idf` is what lore weighs each phrase by, `fts_idf` what FTS5's `bm25()` did, and
    `ratio` their quotient: lore's score is FTS5's with each phrase's part multiplied
    by its ratio (`corrected`).
    """

    def __init__(
        self,
        conn: sqlite3.Connection,
        request: RecallRequest,
        settings: dict[str, Any],
        today: date,
        plan: QueryPlan,
        *,
        statistics: Statistics | None,
    ) -> None:
        self.conn = conn
        self.request = request
        self.settings = settings
        self.today = today
        self.plan = plan
        self.where, self.params = filter_sql(request)
        weights = settings["weights"]
        values = ", ".join(f"{float(weights[column]):g}" for column in FTS_COLUMNS)
        self.bm25_sql = f"bm25(notes_fts, {values})"  # numbers only, from the index's settings
        local = phrase_statistics(conn, [term.fts() for term in plan.terms])
        self.rows, self.hits = local.rows, local.hits
        # Every first-stage query names the phrases rarest first (see `candidates`).
        self.order = sorted(local.hits, key=lambda phrase: (local.hits[phrase], phrase))
        self.scoring = statistics or local  # what the idf comes from
        self.fts_idf = {phrase: fts5_idf(local.rows, n) for phrase, n in local.hits.items()}
        self.idf = {phrase: self.scoring.idf(phrase) for phrase in local.hits}
        self.ratio = {phrase: self.idf[phrase] / self.fts_idf[phrase] for phrase in local.hits}

        # One ratio multiplies the whole of FTS5's score; only the phrases with another are
        # scored alone. Scoring a phrase alone costs about a row per note that has it, so
        # the ratio chosen leaves the fewest such rows (usually 1: no phrase reweighed).
        def cost(base: float) -> tuple[int, float]:
            rest = [p for p, r in self.ratio.items() if r != base]
            return sum(local.hits[p] + ROWS_PER_QUERY for p in rest), -base

        self.base = min(set(self.ratio.values()), key=cost)
        self.adjust = {p: r - self.base for p, r in self.ratio.items() if r != self.base}
        self.exact: dict[int, float] = {}  # rowid -> lore's BM25, for the rows corrected

    def boosts(self, repos: str, confidence: str, day: str) -> Boosts:
        return compute_boosts(
            self.settings,
            note_repos=json.loads(repos),
            current_repo=self.request.repo,
            confidence=confidence,
            note_date=day,
            today=self.today,
        )

    def candidates(self, match: str, essential: str | None = None, rest: str | None = None) -> Pass:
        """The matching rows by FTS5's BM25 (with column weights), best first, as a `Pass`.

        With `essential`, only rows that match it are scored (see `rank`), through FTS5
        expressions that name every phrase of `match` once: `essential` itself, or with
        `rest` (the phrases it leaves out) `(essential) AND (rest)` and `(essential) NOT
        (rest)`, one query. FTS5 adds a row's parts in the order the expression names the
        phrases (one under `NOT` adds 0.0), the row's phrases come in `order` in each, so
        the score is the plain query's bit for bit, and FTS5 reads only the entries they
        need: 0.5-0.9x the time of `match`'s rows kept to `essential`'s by `rowid IN` (14
        queries, 100,000 notes), which a filtered query still does (two expressions read
        the filter's rows twice: 4 % more). Rows are read as needed: the first
        `CANDIDATES` (or `limit`), more only when a bound says they could count.
        """
        one = f"SELECT notes_fts.rowid AS rowid, -{self.bm25_sql} AS s FROM notes_fts "
        one += "WHERE notes_fts MATCH ?"
        if self.where:
            one += f" AND +notes_fts.rowid IN (SELECT n.rowid FROM notes n WHERE 1{self.where})"
            if essential is not None:
                within = "SELECT rowid FROM notes_fts WHERE notes_fts MATCH ?"
                one += f" AND +notes_fts.rowid IN ({within})"
                return Pass(self.conn, one, [match, *self.params, essential])
        if essential is None:
            expressions = [match]
        elif rest is None:
            expressions = [essential]
        else:
            expressions = [f"({essential}) AND ({rest})", f"({essential}) NOT ({rest})"]
        params = [value for expression in expressions for value in (expression, *self.params)]
        return Pass(self.conn, " UNION ALL ".join([one] * len(expressions)), params)

    def phrase_parts(self, phrase: str, rowids: list[int]) -> list[tuple[int, float]]:
        """FTS5's BM25 of `phrase` alone for these rows: its part of their score."""
        sql = f"SELECT rowid, -{self.bm25_sql} FROM notes_fts WHERE notes_fts MATCH ?"
        if len(rowids) > PARTS_BY_LIST:  # many rows: one JSON list, not a parameter each
            return self.conn.execute(
                f"{sql} AND +rowid IN (SELECT value FROM json_each(?))",
                (phrase, json.dumps(rowids)),
            ).fetchall()
        return self.conn.execute(
            f"{sql} AND +notes_fts.rowid IN ({_marks(rowids)})", (phrase, *rowids)
        ).fetchall()

    def corrected(self, found: dict[int, float]) -> dict[int, float]:
        """lore's BM25 of the found rows, from FTS5's.

        FTS5's score adds, phrase by phrase, fts_idf * tf-part; lore's adds idf * tf-part,
        that is FTS5's part times `ratio`. FTS5's whole score is multiplied by `base`,
        and each phrase with another ratio has its part (its FTS5 BM25 alone, the same
        number) added again times the difference.
        """
        if not self.adjust and self.base == 1.0:  # lore weighs every phrase as FTS5 does
            return dict(found)
        new = [rowid for rowid in found if rowid not in self.exact]
        for rowid in new:
            self.exact[rowid] = self.base * found[rowid]
        if new:
            for phrase, difference in self.adjust.items():
                for rowid, part in self.phrase_parts(phrase, new):
                    self.exact[rowid] += difference * part
        return {rowid: self.exact[rowid] for rowid in found}

    def left_out_bound(self, last: float) -> float:
        """The most lore's BM25 can be for a row whose FTS5 score is at most `last`.

        The row's FTS5 parts add up to at most `last`, and each is below
        fts_idf * (k1 + 1); lore's score weighs them by their ratios, so the most it can
        be puts the parts with the highest ratios as high as they go.
        """
        total, left = 0.0, last
        for ratio, phrase in sorted(((r, p) for p, r in self.ratio.items()), reverse=True):
            if left <= 0.0:
                break
            part = min(left, self.fts_idf[phrase] * (BM25_K1 + 1.0))
            total += ratio * part
            left -= part
        return total * SAFETY

    def common_terms(self) -> list[tuple[str, float]]:
        """The query's common phrases with the most each can add to a note's BM25, least first.

        BM25 adds, for each phrase, idf * f * (k1 + 1) / (f + k1 * (...)), which is below
        idf * (k1 + 1) whatever the frequencies and weights. A phrase counts as common
        when more than `COMMON_SHARE` of the notes contain it; the rarest phrase of the
        query never does.
        """
        if len(self.hits) < 2:
            return []
        counted = sorted((n, phrase) for phrase, n in self.hits.items())
        return sorted(
            (
                (phrase, self.idf[phrase] * (BM25_K1 + 1.0) * SAFETY)
                for n, phrase in counted[1:]
                if n > COMMON_SHARE * self.rows
            ),
            key=lambda item: item[1],
        )

    def worth_skipping(
        self, skipped: list[tuple[str, float]], scored: list[str], ceiling: float
    ) -> bool:
        """Whether a first pass over the rarer phrases' notes could settle the answer.

        It does when the limit-th score beats what the skipped phrases could add. A rare
        phrase makes the pass cheap, so it is always worth trying. When every phrase is
        common and the skipped ones could add more than the most the scored ones give a
        note, it almost never settles it (a query of common words only, all about as
        common), and each further pass reads every phrase again: the plain query is
        cheaper. The answer is the same either way.

        With `--type` or `--tag`, the plain query scores only the notes the filter keeps,
        so what a pass saves shrinks with the share it keeps, while the reading of every
        phrase does not, and a first pass settles the answer less often (its limit-th score
        is among fewer notes). So a phrase is rare enough only under `COMMON_SHARE` times
        the square root of that share, and without one the plain query runs. Measured at
        100,000 notes with `--type` keeping 14 %: queries of common words took up to 1.9x
        as long in passes as in the plain query; typical queries, whose topic words are
        in about 1 % of the notes, stay in passes (eight queries of the bench: 407 ms in
        all before, 314 ms after).
        """
        least = min(self.hits[phrase] for phrase in scored)
        share = self.filter_share()
        if least <= COMMON_SHARE * self.rows * share**0.5:
            return True
        if share < 1.0:
            return False
        most = sum(self.idf[phrase] * (BM25_K1 + 1.0) for phrase in scored)
        return sum(bound for _, bound in skipped) * ceiling < most

    def filter_share(self) -> float:
        """The share of the notes `--type` and `--tag` keep (1.0 without them): one count
        on the covering index of those columns (0.6 ms at 100,000 notes)."""
        if not self.where:
            return 1.0
        (kept,) = self.conn.execute(
            f"SELECT count(*) FROM notes n WHERE 1{self.where}", self.params
        ).fetchone()
        return int(kept) / max(1, self.rows)

    def max_boost(self) -> float:
        """No note's boosts multiply to more than this: it bounds what a candidate can reach."""
        settings = self.settings
        repo = max(1.0, float(settings["repo_boost"]), float(settings["other_repo_factor"]))
        confidence = max([1.0, *(float(v) for v in settings["confidence"].values())])
        return repo * confidence * max(1.0, float(settings["recency_max_boost"]))

    def rank(self) -> tuple[list[Hit], dict[int, str]]:
        """The hits in order, and the bodies of those notes (for snippets).

        Scoring BM25 is most of a query's cost, and a common word makes a quarter of the
        notes match. So, first, only notes that match one of the rarer phrases are scored
        (MaxScore): a note that matches only common phrases scores below the sum of their
        bounds (`common_terms`) times the highest boost. If the limit-th result beats
        that, no skipped note could have entered, and the answer is exactly the plain
        query's. If not, the phrases that could still matter are added and only the
        notes they bring (matching none of the phrases already scored) are scored next;
        at worst every matching note is scored once, as the plain query does. When every
        phrase of the query is common there is nothing worth skipping: the plain query
        runs at once.

        Each of those queries (a `Pass`) is read for its top `CANDIDATES` (at least
        `limit`) by FTS5's score, which may order them otherwise than lore's (`ratio`).
        A row left unread scores at most `left_out_bound` of the last one read; when that
        could reach the limit-th best BM25 found, the pass is read further, in FTS5's
        order, until no unread row could enter the results even at the highest boost:
        the answer every matching row would give, without reading them all. Otherwise the
        best `limit` notes by lore's BM25 are among the candidates, and the boosts, which
        move a score by a quarter at most, reorder the candidates (as before).
        """
        ceiling = self.max_boost()
        limit = self.request.limit
        size = max(CANDIDATES, limit)
        match = " OR ".join(self.order)
        skipped = self.common_terms()
        skip = {phrase for phrase, _ in skipped}
        scored_phrases = [phrase for phrase in self.order if phrase not in skip]
        if skipped and not self.worth_skipping(skipped, scored_phrases, ceiling):
            skipped, scored_phrases = [], list(self.order)
        found: dict[int, float] = {}
        cut: list[Pass] = []  # passes left after their first rows: more may count
        deep: list[Pass] = []  # passes read on until no unread row can enter the results
        scored = set(scored_phrases)

        def start(essential: str | None, rest: str | None = None) -> None:
            query = self.candidates(match, essential, rest)
            found.update(query.take(size))
            if not query.done:
                cut.append(query)

        if skipped:  # the skipped phrases come last in `order` (the commonest)
            start(" OR ".join(scored_phrases), " OR ".join(p for p in self.order if p in skip))
        else:
            start(None)
        while True:
            bm25 = self.corrected(found)  # `score` adds the notes that replace superseded
            scores, boosts, replaced = self.score(bm25, ceiling)
            kth = _kth(scores.values(), limit)
            unsure = [
                p for p in deep if not p.done and self.left_out_bound(p.last) * ceiling >= kth
            ]
            if unsure:
                # Read every row above what could still enter: kth only rises as rows
                # are added, so one reading settles each pass.
                threshold = self.score_below(kth / ceiling)
                for query in unsure:
                    found.update(query.take_above(threshold))
                    deep.remove(query)
                continue
            left_out = []
            if cut:
                kth_bm25 = _kth((bm25[rowid] for rowid in scores), limit)
                left_out = [p for p in cut if self.left_out_bound(p.last) >= kth_bm25]
            if left_out:
                for query in left_out:
                    cut.remove(query)
                    deep.append(query)
                continue
            if not skipped or sum(bound for _, bound in skipped) * ceiling < kth:
                break
            added, skipped = self.next_pass(skipped, scored, kth, ceiling)
            still = " OR ".join(p for p in self.order if p in {q for q, _ in skipped})
            start(f"({' OR '.join(added)}) NOT ({' OR '.join(scored_phrases)})", still or None)
            scored_phrases += added
            scored.update(added)

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

    def next_pass(
        self, skipped: list[tuple[str, float]], scored: set[str], kth: float, ceiling: float
    ) -> tuple[list[str], list[tuple[str, float]]]:
        """The phrases a further pass adds (in `order`) and those it still skips: the
        least bounds (first in `skipped`) that together still cannot reach `kth`.

        The pass names the phrases a row may have in `order` (see `candidates`), the
        added ones first; when several vaults' idf orders the bounds otherwise than this
        vault's counts order `order`, so that a skipped phrase would come before an added
        one, every phrase left is added instead.
        """
        total, still_skipped = 0.0, []
        for phrase, bound in skipped:  # least first: skip what still cannot reach kth
            if (total + bound) * ceiling >= kth:
                break
            total += bound
            still_skipped.append((phrase, bound))
        kept = {phrase for phrase, _ in still_skipped}
        left = {phrase for phrase, _ in skipped}
        added = [p for p in self.order if p in left and p not in kept and p not in scored]
        still = [p for p in self.order if p in kept]
        if still and self.order.index(still[0]) < self.order.index(added[-1]):
            return [p for p in self.order if p in left and p not in scored], []
        return added, still_skipped

    def score_below(self, target: float) -> float:
        """An FTS5 score below which no row's lore BM25 reaches `target` (`left_out_bound`).

        `left_out_bound` grows with the score, so the answer is found by bisection;
        minus infinity when any row could (fewer than `limit` results so far).
        """
        if target <= 0.0:
            return -math.inf
        low, high = 0.0, max(target, 1.0)
        while self.left_out_bound(high) < target:
            high *= 2.0
        for _ in range(60):
            middle = (low + high) / 2.0
            if self.left_out_bound(middle) < target:
                low = middle
            else:
                high = middle
        return low

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

    def add_term_scores(self, hits: list[Hit]) -> None:
        """Each phrase's part of each hit's BM25, with its idf: together they add up to it."""
        by_rowid = {hit.rowid: hit for hit in hits}
        for term in self.plan.terms:
            phrase = term.fts()
            ratio = self.ratio[phrase]
            weight = self.idf[phrase]
            floored = self.scoring.floored(phrase)
            for rowid, part in self.phrase_parts(phrase, list(by_rowid)):
                by_rowid[rowid].terms.append(
                    TermScore(term.label, term.origin, part * ratio, idf=weight, floored=floored)
                )
        for hit in hits:
            hit.terms.sort(key=lambda t: -t.score)


class Pass:
    """One first-stage query: its best rows by FTS5's score, and more when asked for.

    `take` runs it with a LIMIT (SQLite keeps only the best rows while scoring); a pass
    read further runs it again for every row scoring above a threshold, so that only
    those are sorted and read (sorting every matching row cost a third more).
    """

    __slots__ = ("conn", "done", "last", "params", "sql")

    def __init__(self, conn: sqlite3.Connection, sql: str, params: list[Any]) -> None:
        self.conn = conn
        self.sql = sql  # "SELECT rowid, s … WHERE MATCH …" (no ORDER BY), or a UNION ALL
        self.params = params
        self.done = False  # every row that could count has been read
        self.last = math.inf  # no unread row scores above this

    def take(self, count: int) -> dict[int, float]:
        rows = self.conn.execute(
            f"{self.sql} ORDER BY s DESC, rowid LIMIT {int(count)}", self.params
        ).fetchall()
        if len(rows) < count:
            self.done = True
        elif rows:
            self.last = rows[-1][1]
        return dict(rows)

    def take_above(self, threshold: float) -> dict[int, float]:
        """Every row with a score above `threshold` (then none unread scores more)."""
        self.done = True
        if threshold == -math.inf:
            return dict(self.conn.execute(self.sql, self.params).fetchall())
        rows = self.conn.execute(
            f"SELECT rowid, s FROM ({self.sql}) WHERE s > ?", [*self.params, threshold]
        ).fetchall()
        self.last = threshold
        return dict(rows)


def _kth(values: Iterable[float], limit: int) -> float:
    """The limit-th largest value, or 0 when there are fewer."""
    best = heapq.nlargest(limit, values)
    return best[-1] if len(best) >= limit else 0.0


def _marks(items: Sized) -> str:
    return ",".join("?" * len(items))


def filter_sql(request: RecallRequest) -> tuple[str, list[Any]]:
    """The request's filters as SQL on `notes n` (" AND …" clauses) and their parameters."""
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
    if request.ids is not None:  # the notes changed `--since`: one parameter, however many
        clauses.append("n.id IN (SELECT value FROM json_each(?))")
        params.append(json.dumps(sorted(request.ids)))
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
