"""Term weights for the judgement: how much a shared term says two notes agree.

Terms come from `lore.text.words` (the index's tokens and Porter stems). A term of a
function word, or of a word so common in engineering prose that it says little
(`WEAK_WORDS`), has its weight cut, whatever the vault's statistics say (a vault of six
notes has no useful statistics). An `Idf` is any `Callable[[str], float]` giving a
term's weight.
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Callable, Mapping

from lore.text.words import weak_stems

Idf = Callable[[str], float]

WEAK_FACTOR = 0.3
_WEAK_STEMS = weak_stems()


class Weights:
    """An IDF's term weights, each computed once, and the total weight of a term set,
    each set once (a full audit weighs the same notes' terms many thousand times)."""

    def __init__(self, idf: Idf) -> None:
        self.idf = idf
        self._terms: dict[str, float] = {}
        self._totals: dict[frozenset[str], float] = {}
        self._squares: dict[frozenset[str], float] = {}

    def __call__(self, term: str) -> float:
        found = self._terms.get(term)
        if found is None:
            found = self.idf(term)
            if term in _WEAK_STEMS:
                found *= WEAK_FACTOR
            self._terms[term] = found
        return found

    def total(self, terms: frozenset[str]) -> float:
        found = self._totals.get(terms)
        if found is None:
            found = self._totals[terms] = math.fsum(self(term) for term in terms)
        return found

    def squares(self, terms: frozenset[str]) -> float:
        """The sum of the squared weights of a term set (a cosine's norm), each set once."""
        found = self._squares.get(terms)
        if found is None:
            found = self._squares[terms] = math.fsum(self(term) ** 2 for term in terms)
        return found


_WEIGHTS: weakref.WeakKeyDictionary[Idf, Weights] = weakref.WeakKeyDictionary()


def weights(idf: Idf) -> Weights:
    """The memoised weights of an IDF (one table per IDF function)."""
    found = _WEIGHTS.get(idf)
    if found is None:
        found = _WEIGHTS[idf] = Weights(idf)
    return found


def weight(term: str, idf: Idf) -> float:
    """The term's IDF, cut for words that say little in any vault."""
    return weights(idf)(term)


MIN_DOCUMENTS = 100


def idf_from_counts(document_frequency: Mapping[str, int], documents: int) -> Idf:
    """BM25's IDF, `ln(1 + (N - df + 0.5) / (df + 0.5))`; an unseen term counts as df 0.

    N is at least `MIN_DOCUMENTS`: in a vault of a few notes every term is in one or two
    of them, and two notes being compared would make all their shared terms look common.
    """
    total = max(documents, MIN_DOCUMENTS)

    def idf(term: str) -> float:
        df = min(document_frequency.get(term, 0), total)
        return math.log(1.0 + (total - df + 0.5) / (df + 0.5))

    return idf


def weighted_overlap(one: frozenset[str], other: frozenset[str], idf: Idf) -> tuple[float, float]:
    """(weighted Jaccard, weighted share of the smaller side) of two term sets."""
    if not one or not other:
        return 0.0, 0.0
    table = weights(idf)
    shared = math.fsum(table(term) for term in one & other)
    if not shared:
        return 0.0, 0.0
    size_one, size_two = table.total(one), table.total(other)
    union = size_one + size_two - shared
    smaller = min(size_one, size_two)
    return (shared / union if union else 0.0), (shared / smaller if smaller else 0.0)
