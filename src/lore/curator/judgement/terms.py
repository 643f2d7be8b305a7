"""Words as the judgement compares them: tokens, stop words, stems and their weights.

A token is a run of letters and digits, case- and accent-folded: what the recall
index's `unicode61 remove_diacritics 2` tokenizer produces. A term is a token's stem
as the index's `porter` tokenizer makes it (`lore.curator.judgement.porter`), so a
term here is a term in the index and an index can answer for its document frequency.
Like FTS5, words of one or two letters are not stemmed. (`lore.recall.snippet.stem`
is a lighter suffix-stripper made for highlighting, where a stem only has to be a
prefix of the word; here two inflections must meet at one stem: `message`/`messages`,
`query`/`queries`.)

`STOP_WORDS` are English function words; `WEAK_WORDS` are verbs and nouns so common
in engineering prose that they say little about what a note is about: their weight
is cut, whatever the vault's statistics say (a vault of six notes has no useful
statistics). An `Idf` is any `Callable[[str], float]` giving a term's weight.
"""

from __future__ import annotations

import math
import re
import unicodedata
import weakref
from collections.abc import Callable, Mapping
from functools import lru_cache

from lore.curator.judgement.porter import porter_stem

Idf = Callable[[str], float]

_TOKEN = re.compile(r"[^\W_]+")
_CONTRACTION = re.compile(r"n['’]t\b")  # don't -> do not, isn't -> is not
_IRREGULAR = re.compile(r"\b(?:(ca)|(wo))n['’]t\b")  # can't -> can not, won't -> will not
_POSSESSIVE = re.compile(r"['’]s\b")

STOP_WORDS = frozenset(
    """
    a about above across after afterwards again against all almost alone along already also
    although am among an and another any anyone anything anyway anywhere are around as at be
    became because become becomes been before being below beside besides between both but by
    can could did do does doing done down during each either else elsewhere enough etc even
    ever every everyone everything for from further had has have having he her here hers
    herself him himself his how however i if in into is it its itself just least less like
    many may me meanwhile might mine more moreover most mostly much my myself neither
    nevertheless next nor of off often on once one only onto or other others otherwise our
    ours ourselves out over own per perhaps quite rather same several she should since so
    some somehow someone something sometimes somewhere still such than that the their theirs
    them themselves then there thereby therefore these they this those though through
    throughout thus to together too toward towards under until up upon us very via was we
    well were what whatever when whenever where whereas wherever whether which while who
    whoever whole whom whose why will with within without would yet you your yours yourself
    yourselves e g eg ie vs not no never cannot must always shall
    """.split()  # noqa: SIM905 - a word list reads best as text
)

WEAK_WORDS = frozenset(
    """
    use used uses using make makes made making set sets setting take
    takes took taken go goes went gone come comes came let lets put puts keep keeps kept
    need needs needed want wants work works worked thing things way ways case cases time
    team teams new old also now today note notes see instead via
    """.split()  # noqa: SIM905 - a word list reads best as text
)
WEAK_FACTOR = 0.3


def fold(text: str) -> str:
    """Lower case without accents (`Café` -> `cafe`), as the index tokenizer folds."""
    lowered = text.lower()
    if lowered.isascii():
        return lowered
    decomposed = unicodedata.normalize("NFKD", lowered)
    return "".join(char for char in decomposed if not unicodedata.combining(char))


def tokens(text: str) -> list[str]:
    """The folded tokens of `text`, in order (`pool_size=10` -> `pool`, `size`, `10`).

    `n't` reads as ` not` and a possessive `'s` is dropped, so `doesn't` gives `does`,
    `not` and `checkout's pool` gives `checkout`, `pool`.
    """
    folded = fold(text)
    if "'" in folded or "’" in folded:
        folded = _IRREGULAR.sub(lambda m: "can not" if m[1] else "will not", folded)
        folded = _POSSESSIVE.sub("", _CONTRACTION.sub(" not", folded))
    return _TOKEN.findall(folded)


@lru_cache(maxsize=65536)
def stem(token: str) -> str:
    """The index's Porter stem of a folded token (under three letters it stays as it is)."""
    return porter_stem(token)


_STOP_STEMS = frozenset(stem(word) for word in STOP_WORDS)
_WEAK_STEMS = frozenset(stem(word) for word in WEAK_WORDS)


def is_content(token: str) -> bool:
    """A token that can carry meaning: not a function word, not a bare number."""
    return len(token) > 1 and token not in STOP_WORDS and not token.isdigit()


_TERM_OF: dict[str, str] = {}  # token -> its term, or "" for a token that is not content
_MAX_TERMS_KNOWN = 500_000


def content_terms(text: str) -> list[str]:
    """The stems of the content tokens of `text`, in order, repeats kept."""
    known = _TERM_OF
    if len(known) > _MAX_TERMS_KNOWN:
        known.clear()
    found: list[str] = []
    for token in tokens(text):
        term = known.get(token)
        if term is None:
            term = known[token] = stem(token) if is_content(token) else ""
        if term:
            found.append(term)
    return found


def is_weak(term: str) -> bool:
    return term in _WEAK_STEMS or term in _STOP_STEMS


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
