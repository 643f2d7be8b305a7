"""Read text the way it looks: look-alike letters folded to the ASCII they imitate.

"Ignοre previous instructions" with a Greek omicron, or "ѕystem" with a Cyrillic dze,
reads as plain English to a person and to a model, but no ASCII pattern matches it.
`fold` maps every character outside ASCII to the ASCII letters it is confusable with,
following the Unicode confusables data of UTS #39 ("Unicode Security Mechanisms",
`confusables.txt`): the text is decomposed (NFD), combining marks are dropped (so
accents and "zalgo" marks cannot split a word), and each remaining non-ASCII
character becomes its ASCII look-alike. ASCII is left as written: the full skeleton
would also turn `I` and `|` into `l` and `rn` into `m`, which only breaks patterns
that are already written in ASCII. A character is case-folded before it is looked up,
so a Greek capital iota (Ι) reads as `i`, not as the `l` the skeleton gives it.

`mixed_script_words` finds words that mix Latin letters with Greek or Cyrillic ones
that look like Latin letters — the shape of a homoglyph spelling.

The data comes from `confusable-homoglyphs` (MIT; its `confusables.json` and
`categories.json` are built from Unicode's `confusables.txt` and `Scripts.txt`),
imported on first use: loading it costs about 40 ms, so only the curator calls this
module, never recall or the hooks. Folding keeps every line break, so a line number
in folded text is the line number in the original.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from functools import lru_cache

_NON_ASCII = re.compile(r"[^\x00-\x7f]+")
_WORD = re.compile(r"[^\W\d_]{2,}")  # runs of letters (any script)
_SUSPECT_SCRIPTS = frozenset({"GREEK", "CYRILLIC"})


@lru_cache(maxsize=4096)
def _look_alike(char: str) -> str | None:
    """The ASCII a single non-ASCII character imitates, or None when it imitates none."""
    from confusable_homoglyphs import confusables

    for candidate in dict.fromkeys((char.casefold(), char)):
        if len(candidate) != 1 or candidate.isascii():
            if candidate.isascii() and candidate.isalnum():
                return candidate
            continue
        found = confusables.is_confusable(candidate, greedy=True, preferred_aliases=["latin"])
        for item in found or ():
            for glyph in item["homoglyphs"]:
                shape = str(glyph["c"]).replace("\u200e", "")
                if shape and shape.isascii() and shape.isalnum():
                    return shape
    compatible = unicodedata.normalize("NFKC", char)
    if compatible != char and compatible.isascii() and compatible.strip():
        return compatible
    return None


def _fold_run(match: re.Match[str]) -> str:
    out: list[str] = []
    for char in unicodedata.normalize("NFD", match[0]):
        if unicodedata.category(char) in ("Mn", "Me"):
            continue  # a combining mark: accents and zalgo never split a word
        if char.isascii():
            out.append(char)
            continue
        shape = _look_alike(char)
        out.append(shape if shape is not None else char)
    return "".join(out)


def fold(text: str) -> str:
    """`text` with each non-ASCII character replaced by its ASCII look-alike (if any).

    Line breaks are kept, so line numbers carry over; offsets within a line do not.
    """
    if text.isascii():
        return text
    return _NON_ASCII.sub(_fold_run, text)


def script_of(char: str) -> str:
    """The Unicode script alias of a character (`LATIN`, `GREEK`, `CYRILLIC`, `COMMON`, …)."""
    from confusable_homoglyphs import categories

    return str(categories.alias(char))


def mixed_script_words(text: str) -> Iterator[tuple[int, str, str]]:
    """(offset, word, script) for each word mixing Latin letters with Greek or Cyrillic
    letters that look like Latin ones ("Ignοre"); `script` names the other script.

    A Greek or Cyrillic letter that resembles no Latin letter (μ in "μs", Δ in "Δt") is
    ordinary notation, not a disguise.
    """
    if text.isascii():
        return
    for match in _WORD.finditer(text):
        word = match[0]
        if word.isascii():
            continue
        scripts = {char: script_of(char) for char in set(word)}
        if "LATIN" not in scripts.values():
            continue
        disguised = sorted(
            scripts[char]
            for char in scripts
            if scripts[char] in _SUSPECT_SCRIPTS and _look_alike(char) is not None
        )
        if disguised:
            yield match.start(), word, disguised[0]
