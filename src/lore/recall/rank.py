"""How much a word of the query weighs (BM25's idf), and the gentle boosts on top of BM25.

**idf.** SQLite's `bm25()` weighs a phrase found in `n` of `N` notes by
`log((N - n + 0.5) / (n + 0.5))`, and when that is not positive (a phrase in half the
notes or more) by 1e-6 (`fts5_aux.c`). In the few notes a team starts with, that is
most words: the only note of a one-note vault scored 0, and the boosts multiplied 0.
lore weighs a phrase by FTS5's idf, but never by less than three quarters of the idf
Lucene uses, `log(1 + (N - n + 0.5) / (n + 0.5))`, which stays above zero. The floor
takes over for a phrase in more than about 28 % of the notes (where the odds
`(N - n + 0.5) / (n + 0.5)` fall below 2.63): in a vault of a few hundred notes that
is only the commonest words, so nearly every query scores as FTS5 scores it; in a
vault of a handful of notes every match counts, rarer words more. The share was
chosen on the eval's small vaults (`eval/README.md`): Lucene's whole idf ranks them a
little better still, but differs from FTS5's for every phrase, and correcting FTS5's
score for every phrase (`ranker`) cost 30-50 % of recall time.

**Statistics.** `N` and `n` are those of one vault, or, when several vaults are
searched together, of all of them (`Statistics`): every vault then weighs a word alike.

**Boosts.** Each is a multiplier close to 1 (a tie-breaker, not a re-ranker): measured
on this project's eval, strong boosts bury the note that actually answers the query.
"""

from __future__ import annotations

import math
from datetime import date

from lore.record import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


BM25_K1 = 1.2  # FTS5's bm25() constant (fts5_aux.c): a phrase adds less than idf * (k1 + 1)
FTS5_IDF_MIN = 1e-6  # what FTS5's bm25() uses for an idf that is not positive
IDF_FLOOR_SHARE = 0.75  # lore's idf is at least this share of Lucene's


def fts5_idf(rows: int, hits: int) -> float:
    """The idf SQLite's `bm25()` gives a phrase found in `hits` of `rows` notes.

    The same expression as `fts5Bm25GetData` in `fts5_aux.c`, so it is the same
    number (both call the C library's `log`).
    """
    idf = math.log((rows - hits + 0.5) / (hits + 0.5))
    return idf if idf > 0.0 else FTS5_IDF_MIN


def idf(rows: int, hits: int) -> float:
    """The idf lore scores a phrase with: FTS5's, floored at half of Lucene's (see above)."""
    odds = (rows - hits + 0.5) / (hits + 0.5)
    return max(math.log(odds), IDF_FLOOR_SHARE * math.log1p(odds))


class Statistics(Record):
    """How many notes were searched (`rows`) and how many contain each phrase (`hits`).

    Phrases are keyed by their FTS5 text (`Term.fts()`); a phrase not listed is in none.
    """

    __slots__ = ("hits", "rows")

    def __init__(self, rows: int, hits: dict[str, int]) -> None:
        self.rows = rows
        self.hits = hits

    def idf(self, phrase: str) -> float:
        return idf(self.rows, self.hits.get(phrase, 0))

    def floored(self, phrase: str) -> bool:
        """Whether the floor, not FTS5's formula, gives this phrase's idf."""
        hits = self.hits.get(phrase, 0)
        return idf(self.rows, hits) > math.log((self.rows - hits + 0.5) / (hits + 0.5))

    @staticmethod
    def combined(parts: list[Statistics]) -> Statistics:
        """The statistics of several vaults searched as one collection."""
        hits: dict[str, int] = {}
        for part in parts:
            for phrase, count in part.hits.items():
                hits[phrase] = hits.get(phrase, 0) + count
        return Statistics(sum(part.rows for part in parts), hits)


class Boosts(Record):
    __slots__ = ("confidence", "recency", "repo")

    def __init__(self, repo: float, confidence: float, recency: float) -> None:
        self.repo = repo
        self.confidence = confidence
        self.recency = recency

    @property
    def total(self) -> float:
        return self.repo * self.confidence * self.recency


def compute_boosts(
    settings: dict[str, Any],
    *,
    note_repos: list[str],
    current_repo: str | None,
    confidence: str,
    note_date: str,
    today: date,
) -> Boosts:
    repo = 1.0
    if current_repo and note_repos:
        if current_repo in (r.lower() for r in note_repos):
            repo = float(settings["repo_boost"])
        else:
            repo = float(settings["other_repo_factor"])
    conf = float(settings["confidence"].get(confidence, 1.0))
    recency = 1.0
    try:
        age_days = max(0, (today - date.fromisoformat(note_date)).days)
    except ValueError:
        age_days = None
    if age_days is not None:
        half_life = float(settings["recency_half_life_days"])
        extra = float(settings["recency_max_boost"]) - 1.0
        recency = 1.0 + extra * math.pow(0.5, age_days / half_life)
    return Boosts(repo, conf, recency)
