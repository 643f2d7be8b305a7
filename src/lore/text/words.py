"""Words of note prose, as every part of lore reads them: tokens, stems, stop words.

A token is a run of letters and digits, case- and accent-folded: what the recall
index's `unicode61 remove_diacritics 2` tokenizer produces. A term is a token's stem as
the index's `porter` tokenizer makes it (`lore.text.porter`), so a term of the judgement
is a term of the index, and recall's highlighting marks the words FTS5 matched. Like
FTS5, tokens of one or two letters are not stemmed.

Three word lists, each with the one principle that decides what belongs in it (the
tests hold examples of each from unrelated sources, `tests/text/test_words.py`):

- `STOP_WORDS`: English function words — articles, pronouns, prepositions,
  conjunctions, auxiliaries, negations and quantifiers — which say nothing about what a
  text is about. Neither the judgement nor recall counts them.
- `WEAK_WORDS`: open-class words so common in engineering prose that they say little
  about what a note is about; the judgement cuts their weight whatever the vault's
  statistics say (a vault of six notes has no useful statistics).
- `REQUEST_WORDS`: the words a request to an agent is made of ("please tell me how we
  use …"): recall drops them from a question, as it drops `STOP_WORDS`
  (`QUERY_STOP_WORDS`); a note's prose keeps them.

This module is on the recall path: it imports only `re`, `unicodedata` and `functools`.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from lore.text.porter import porter_stem

STOP_WORDS = frozenset(
    """
    a about above across after afterwards again against all almost alone along already also
    although am among an and another any anyone anything anyway anywhere are around as at be
    became because become becomes been before being below beside besides between both but by
    can could did do does doing done down during each either else elsewhere enough etc even
    ever every everyone everything few for from further had has have having he her here hers
    herself him himself his how however i if in into is it its itself just least less like
    many may me meanwhile might mine more moreover most mostly much my myself neither
    nevertheless next nor of off often on once one only onto or other others otherwise ought
    our ours ourselves out over own per perhaps quite rather same several she should since so
    some somehow someone something sometimes somewhere still such than that the their theirs
    them themselves then there thereby therefore these they this those though through
    throughout thus to together too toward towards under until up upon us very via was we
    well were what whatever when whenever where whereas wherever whether which while who
    whoever whole whom whose why will with within without would yet you your yours yourself
    yourselves e g eg ie e.g i.e vs not no never cannot must always shall
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

REQUEST_WORDS = frozenset(
    """
    please tell know explain show get gets got happen happens instead make makes made
    need needs needed use used uses using want wants thing things way ways two
    """.split()  # noqa: SIM905 - a word list reads best as text
)

QUERY_STOP_WORDS = STOP_WORDS | REQUEST_WORDS

_TOKEN = re.compile(r"[^\W_]+")
# Patterns only some callers need are strings, compiled (and cached) by `re` on first use:
# the recall path imports this module and uses none of them.
_CONTRACTION = r"n['’]t\b"  # don't -> do not, isn't -> is not
_IRREGULAR = r"\b(?:(ca)|(wo))n['’]t\b"  # can't -> can not, won't -> will not
_POSSESSIVE = r"['’]s\b"

# A word as a person counts it (`twenty-two` and `don't` are one word each).
_COUNTED = r"[\w'’-]+"
# Scripts written without spaces between words, and their average word length in
# characters: Chinese and Japanese (Han, kana) about two; Thai, Lao, Khmer and Burmese
# about four. A run of them counts as that many words, not as one.
_UNSPACED = (
    (r"[\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+", 2),
    (r"[\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff]+", 4),
)


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
        folded = re.sub(_IRREGULAR, lambda m: "can not" if m[1] else "will not", folded)
        folded = re.sub(_POSSESSIVE, "", re.sub(_CONTRACTION, " not", folded))
    return _TOKEN.findall(folded)


def index_tokens(text: str) -> list[str]:
    """The folded tokens of `text` exactly as the index's tokenizer splits them (an
    apostrophe separates: `doesn't` gives `doesn`, `t`)."""
    return _TOKEN.findall(fold(text))


def identifier_parts(text: str) -> list[str]:
    """The runs of letters and digits of `text` as written (no folding): the parts of an
    identifier or a path, `X-Request-Id` -> `X`, `Request`, `Id`."""
    return _TOKEN.findall(text)


@lru_cache(maxsize=65536)
def stem(token: str) -> str:
    """The index's Porter stem of a folded token (under three letters it stays as it is)."""
    return porter_stem(token)


def stem_prefix(term: str) -> str:
    """A prefix every word with this stem starts with, folded: where to look for them.

    A Porter stem is the word with its suffix cut, then at most one short ending put
    back (`happy` -> `happi`, `generalization` -> `gener`, `relational` -> `relat`):
    the stem without its last three letters is the word's own start
    (`tests/text/test_words.py` checks every word of a word list).
    """
    return term[: max(len(term) - 3, min(len(term), 2))]


@lru_cache(maxsize=1)
def weak_stems() -> frozenset[str]:
    """The stems of `WEAK_WORDS` (made on first use: the recall path needs none)."""
    return frozenset(stem(word) for word in WEAK_WORDS)


@lru_cache(maxsize=1)
def _little_stems() -> frozenset[str]:
    return weak_stems() | frozenset(stem(word) for word in STOP_WORDS)


def is_weak(term: str) -> bool:
    """A term (a stem) that says little of what a text is about: a function word's, or a
    `WEAK_WORDS` word's."""
    return term in _little_stems()


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


def count_words(text: str) -> int:
    """How many words `text` has, in any script: spaced words, and runs of unspaced
    scripts (Chinese, Japanese, Thai, …) by their average word length."""
    words = 0
    for pattern, length in _UNSPACED:
        for run in re.findall(pattern, text):
            words += -(-len(run) // length)
        text = re.sub(pattern, " ", text)
    return words + len(re.findall(_COUNTED, text))


def counted_words(text: str) -> list[str]:
    """The words of `text` as `count_words` counts them (in a spaced script)."""
    return re.findall(_COUNTED, text)
