"""The Porter stem of a word, as SQLite's FTS5 `porter` tokenizer makes it.

The recall index stems with FTS5's `porter` tokenizer, and the judgement looks terms up
in the index, so a stem here must be the index's term, letter for letter. FTS5 follows
Martin Porter's own C implementation, which departs from the published algorithm in two
rules of step 2 (`bli` -> `ble` in place of `abli` -> `able`, and a new `logi` -> `log`):
"possibly" is `possibl` and "technology" `technolog`, where a stemmer of the published
algorithm gives `possibli` and `technologi`. No maintained Python stemmer offers that
variant, so it is written here, step by step as the algorithm is published (Porter,
"An algorithm for suffix stripping", 1980) with those two departures;
`tests/curator/test_judgement.py` checks it against a real FTS5 table, for real words
and random ones.

The input is a folded token (lower-case ASCII letters); like FTS5, tokens of fewer than
three letters are left as they are.
"""

from __future__ import annotations

_VOWELS = frozenset("aeiou")


def _consonant(word: str, i: int) -> bool:
    """Whether word[i] is a consonant: not a vowel, and a `y` only after a vowel or first."""
    letter = word[i]
    if letter in _VOWELS:
        return False
    if letter == "y":
        return i == 0 or not _consonant(word, i - 1)
    return True


def _measure(stem: str) -> int:
    """m in [C](VC)^m[V]: how many vowel-consonant sequences the stem has."""
    count = 0
    previous_vowel = False
    for i in range(len(stem)):
        consonant = _consonant(stem, i)
        if consonant and previous_vowel:
            count += 1
        previous_vowel = not consonant
    return count


def _has_vowel(stem: str) -> bool:
    return any(not _consonant(stem, i) for i in range(len(stem)))


def _double_consonant(word: str) -> bool:
    """Ends in a doubled consonant; FTS5 counts a doubled `y` as one too (`yy`)."""
    return len(word) >= 2 and word[-1] == word[-2] and word[-1] not in _VOWELS


def _cvc(word: str) -> bool:
    """Ends consonant-vowel-consonant, the last not w, x or y (`hop`, not `snow`)."""
    n = len(word)
    return (
        n >= 3
        and _consonant(word, n - 1)
        and not _consonant(word, n - 2)
        and _consonant(word, n - 3)
        and word[-1] not in "wxy"
    )


def _ends(word: str, suffix: str) -> bool:
    """The word ends with the suffix and is longer than it (FTS5 never strips a whole word)."""
    return len(word) > len(suffix) and word.endswith(suffix)


def _step1ab(word: str) -> str:
    if _ends(word, "sses") or _ends(word, "ies"):
        word = word[:-2]
    elif word.endswith("s") and not word.endswith("ss"):
        word = word[:-1]
    if _ends(word, "eed"):
        if _measure(word[:-3]) > 0:
            word = word[:-1]
        return word
    for suffix in ("ed", "ing"):
        if _ends(word, suffix) and _has_vowel(word[: -len(suffix)]):
            word = word[: -len(suffix)]
            if word.endswith(("at", "bl", "iz")):
                return word + "e"
            if _double_consonant(word) and word[-1] not in "lsz":
                return word[:-1]
            if _measure(word) == 1 and _cvc(word):
                return word + "e"
            return word
    return word


def _step1c(word: str) -> str:
    if word.endswith("y") and _has_vowel(word[:-1]):
        return word[:-1] + "i"
    return word


_STEP2 = (
    ("ational", "ate"),
    ("tional", "tion"),
    ("enci", "ence"),
    ("anci", "ance"),
    ("izer", "ize"),
    ("bli", "ble"),  # Porter's departure: the published rule is abli -> able
    ("alli", "al"),
    ("entli", "ent"),
    ("eli", "e"),
    ("ousli", "ous"),
    ("ization", "ize"),
    ("ation", "ate"),
    ("ator", "ate"),
    ("alism", "al"),
    ("iveness", "ive"),
    ("fulness", "ful"),
    ("ousness", "ous"),
    ("aliti", "al"),
    ("iviti", "ive"),
    ("biliti", "ble"),
    ("logi", "log"),  # Porter's departure: not in the published algorithm
)
_STEP3 = (
    ("icate", "ic"),
    ("ative", ""),
    ("alize", "al"),
    ("iciti", "ic"),
    ("ical", "ic"),
    ("ful", ""),
    ("ness", ""),
)
_STEP4 = (
    "al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent",
    "ion", "ou", "ism", "ate", "iti", "ous", "ive", "ize",
)  # fmt: skip


def _replace(word: str, rules: tuple[tuple[str, str], ...]) -> str:
    """The first rule whose suffix the word ends with, applied when its stem has m > 0.

    The longest suffix decides (`ational` before `tional`); once one matches, no other
    rule of the step is tried, whether or not its condition held.
    """
    best: tuple[str, str] | None = None
    for suffix, replacement in rules:
        if word.endswith(suffix) and (best is None or len(suffix) > len(best[0])):
            best = (suffix, replacement)
    if best is None:
        return word
    stem = word[: -len(best[0])]
    return stem + best[1] if _measure(stem) > 0 else word


def _step4(word: str) -> str:
    best = max((s for s in _STEP4 if word.endswith(s)), key=len, default=None)
    if best is None:
        return word
    stem = word[: -len(best)]
    if best == "ion" and not stem.endswith(("s", "t")):
        return word
    return stem if _measure(stem) > 1 else word


def _step5(word: str) -> str:
    if word.endswith("e"):
        stem = word[:-1]
        m = _measure(stem)
        if m > 1 or (m == 1 and not _cvc(stem)):
            word = stem
    if word.endswith("ll") and _measure(word) > 1:
        word = word[:-1]
    return word


MAX_BYTES = 64  # FTS5 passes a longer token through unstemmed, as a shorter one than 3


def porter_stem(word: str) -> str:
    """The FTS5 `porter` stem of a folded token.

    FTS5 stems a token's UTF-8 bytes, a byte that is not an ASCII letter counting as a
    consonant, so a token that is not ASCII is stemmed byte for byte here too (every
    suffix is ASCII, so a cut never falls inside a character).
    """
    raw = word.encode()
    if not 3 <= len(raw) <= MAX_BYTES:
        return word
    if word.isascii():
        return _stem(word)
    return _stem(raw.decode("latin-1")).encode("latin-1").decode()


def _stem(word: str) -> str:
    word = _step1c(_step1ab(word))
    word = _replace(word, _STEP2)
    word = _replace(word, _STEP3)
    return _step5(_step4(word))
