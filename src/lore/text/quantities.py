"""Numbers with their units in a clause, converted so that 5 s and 5000 ms are one value.

A quantity is a number (`10`, `1.5`, `10,000`, `10k`, `thirty`) with what follows
it: a unit of time, size or share (converted to seconds, bytes, per cent), a rate
(`100 requests per minute` -> requests per second), or a counted noun (`10
messages`: a count of `messag`). A number with nothing after it takes its name from
the words before it (`pool_size=10`, `HTTP 429`: a value of `size`, of `http`).

What is not a quantity: dates, times of day, versions with two dots, years, issue
numbers (`#812`), numbers glued to letters (`p99`, `40P01`, `ITMS-90683`) and the
ends of a range (`4 to 30 pods`), whose comparison would say nothing reliable.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lore.text.words import STOP_WORDS, stem

TOLERANCE = 0.025  # values this close are the same (1 MB against 1000 KB)

_TIME = {
    **dict.fromkeys(("ns", "nanosecond", "nanoseconds"), 1e-9),
    **dict.fromkeys(("us", "µs", "microsecond", "microseconds"), 1e-6),
    **dict.fromkeys(("ms", "msec", "msecs", "millisecond", "milliseconds"), 1e-3),
    **dict.fromkeys(("s", "sec", "secs", "second", "seconds"), 1.0),
    **dict.fromkeys(("m", "min", "mins", "minute", "minutes"), 60.0),
    **dict.fromkeys(("h", "hr", "hrs", "hour", "hours"), 3600.0),
    **dict.fromkeys(("d", "day", "days"), 86400.0),
    **dict.fromkeys(("w", "wk", "wks", "week", "weeks"), 604800.0),
    **dict.fromkeys(("month", "months"), 2592000.0),
    **dict.fromkeys(("y", "yr", "yrs", "year", "years"), 31536000.0),
}
_SIZE = {
    **dict.fromkeys(("b", "byte", "bytes"), 1.0),
    **dict.fromkeys(("kb", "kib", "kilobyte", "kilobytes"), 1024.0),
    **dict.fromkeys(("mb", "mib", "megabyte", "megabytes"), 1024.0**2),
    **dict.fromkeys(("gb", "gib", "gigabyte", "gigabytes"), 1024.0**3),
    **dict.fromkeys(("tb", "tib", "terabyte", "terabytes"), 1024.0**4),
}
UNITS: dict[str, tuple[str, float]] = {
    **{word: ("time", factor) for word, factor in _TIME.items()},
    **{word: ("size", factor) for word, factor in _SIZE.items()},
    **dict.fromkeys(("%", "percent", "pct"), ("percent", 1.0)),
    "x": ("factor", 1.0),
}
_UNITS_WORDS = (
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
    "nineteen", "twenty",
)  # fmt: skip
_TENS = ("thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
NUMBER_WORDS = {word: float(value) for value, word in enumerate(_UNITS_WORDS)} | {
    word: float(value) for value, word in zip(range(30, 100, 10), _TENS, strict=True)
}
_SCALES = {"hundred": 100.0, "thousand": 1000.0, "million": 1e6}
_MONTHS = frozenset(
    {
        "january", "february", "march", "april", "may", "june", "july", "august", "september",
        "october", "november", "december", "jan", "feb", "mar", "apr", "jun", "jul", "aug",
        "sep", "sept", "oct", "nov", "dec",
    }
)  # fmt: skip
_NOISE = re.compile(
    r"\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}:\d{2}(?::\d{2})?\b|\bv?\d+(?:\.\d+){2,}\S*"
    r"|#\d+|\b\d+[a-z]+\d\w*|\b[a-z]+-\d+\b"
)
_TOKEN = re.compile(
    r"(?P<num>\d{1,3}(?:,\d{3})+(?!\d)|\d+(?:\.\d+)?)(?P<glued>[a-zµ%]+)?"
    r"|(?P<word>[a-zµ][a-z0-9µ]*)|(?P<mark>%|[^\sa-z0-9])"
)
_MAYBE = re.compile(
    r"\d|\b(?:"
    + "|".join(NUMBER_WORDS)
    + r"|an?\s+(?:"
    + "|".join(word for word in _TIME if len(word) > 1)
    + r"))\b"
)
_RANGE_WORDS = frozenset({"-", "–", "to", "and"})
_PER = frozenset({"per", "a", "an", "/", "every", "each"})
_JOINERS = frozenset({"=", ":", "_", "(", "-", "'"})


@dataclass(frozen=True)
class Quantity:
    """One number and what it measures."""

    value: float  # in the dimension's base unit (seconds, bytes, per cent, per second)
    dimension: str  # time, size, percent, factor or count; `/time` marks a rate
    nouns: frozenset[str]  # what a count counts, or the names before a bare number
    context: frozenset[str]  # the content words right around it, within the clause
    text: str  # as written, for the message
    written: float = 0.0  # the number as written, before any unit (3000 in `3000 ms`)

    def measures_same(self, other: Quantity) -> bool:
        if self.dimension != other.dimension:
            return False
        if self.dimension.startswith("count"):
            return bool(self.nouns & other.nouns)
        return True

    def equals(self, other: Quantity) -> bool:
        high = max(abs(self.value), abs(other.value))
        return high == 0 or abs(self.value - other.value) <= TOLERANCE * high

    def written_alike(self, other: Quantity) -> bool:
        """The same number written in both, with a unit on one side only (`3000` and
        `3000 ms`): most likely one value, its unit left implicit."""
        return self.written == other.written and (self.dimension == "count") != (
            other.dimension == "count"
        )


class _Token:
    __slots__ = ("end", "glued", "kind", "start", "text", "value")

    def __init__(self, match: re.Match[str]) -> None:
        self.kind = match.lastgroup if match.lastgroup != "glued" else "num"
        self.text = match.group()
        self.start, self.end = match.start(), match.end()
        self.glued = match["glued"] or ""
        self.value: float | None = float(match["num"].replace(",", "")) if match["num"] else None
        if self.kind == "word" and self.text in NUMBER_WORDS:
            self.value = NUMBER_WORDS[self.text]


def _tokens(text: str) -> list[_Token]:
    found = [_Token(match) for match in _TOKEN.finditer(text)]
    merged: list[_Token] = []
    for token in found:  # "two hundred" is one number
        if (
            token.kind == "word"
            and token.text in _SCALES
            and merged
            and merged[-1].value is not None
            and merged[-1].kind == "word"
        ):
            merged[-1].value = (merged[-1].value or 1.0) * _SCALES[token.text]
            merged[-1].text += " " + token.text
            merged[-1].end = token.end
            continue
        merged.append(token)
    return merged


def _is_word(token: _Token | None) -> bool:
    return token is not None and token.kind == "word" and token.value is None


def _is_content(token: _Token) -> bool:
    return _is_word(token) and token.text not in STOP_WORDS and token.text not in UNITS


def _in_range(tokens: list[_Token], index: int) -> bool:
    """`4 to 30`, `4-30`, `between 4 and 30`, `from 38% ... to 61%`: a range or a change."""
    before_word = tokens[index - 1].text if index >= 1 else ""
    if before_word == "from" or (
        before_word == "to" and any(t.text == "from" for t in tokens[max(0, index - 12) : index])
    ):
        return True

    def number_at(position: int) -> bool:
        return 0 <= position < len(tokens) and tokens[position].value is not None

    after = tokens[index + 1] if index + 1 < len(tokens) else None
    before = tokens[index - 1] if index >= 1 else None
    return bool(
        (after is not None and after.text in _RANGE_WORDS and number_at(index + 2))
        or (before is not None and before.text in _RANGE_WORDS and number_at(index - 2))
    )


def _stops_context(token: _Token) -> bool:
    """A number or a mark that ends a phrase (`=`, `:` and `_` do not: `pool_size=10`)."""
    return token.value is not None or (token.kind == "mark" and token.text not in _JOINERS)


def _words_before(tokens: list[_Token], index: int, limit: int) -> list[_Token]:
    found: list[_Token] = []
    for position in range(index - 1, -1, -1):
        token = tokens[position]
        if _stops_context(token) or len(found) == limit:
            break
        found.append(token)
    return found


def _context(tokens: list[_Token], start: int, end: int) -> frozenset[str]:
    """Stems of up to three content words before `start` and two after `end`."""
    before = [t for t in _words_before(tokens, start, 6) if _is_content(t)][:3]
    after: list[_Token] = []
    for position in range(end, len(tokens)):  # not `tokens[end:]`: a copy for each number
        token = tokens[position]
        if _stops_context(token) or len(after) == 2:
            break
        if _is_content(token):
            after.append(token)
    return frozenset(stem(token.text) for token in (*before, *after))


def _named_unit(tokens: list[_Token], index: int) -> str:
    """A unit that ends the name just before a bare number: `TIMEOUT_MS (default 2000)`."""
    for position in range(index - 1, max(index - 5, 0), -1):
        token = tokens[position]
        if token.value is not None:
            break
        if token.text in UNITS and len(token.text) > 1 and tokens[position - 1].text == "_":
            return token.text
    return ""


def quantities(clause: str) -> list[Quantity]:
    """The quantities of one clause (lower-cased text), in order."""
    if not _MAYBE.search(clause):
        return []  # most clauses have no number at all: skip the tokenising
    text = _NOISE.sub(" ", clause)
    tokens = _tokens(text)
    found: list[Quantity] = []
    for index, token in enumerate(tokens):
        if token.value is None and token.text in ("a", "an") and _single_unit(tokens, index):
            token.value = 1.0  # "cached for a year", "within an hour"
        if token.value is None or _in_range(tokens, index):
            continue
        value, unit, position = token.value, token.glued, index + 1
        if unit == "k":
            value, unit = value * 1000, ""
        elif unit and unit not in UNITS:
            continue  # 4xx, 3ds, 2nd: a name, not a quantity
        if position < len(tokens) and tokens[position].text == "-":  # a 5-second timeout
            position += 1
        following = tokens[position] if position < len(tokens) else None
        after_that = tokens[position + 1] if position + 1 < len(tokens) else None
        if not unit and following is not None and _is_word(following):
            if following.text in UNITS:
                unit, position = following.text, position + 1
            elif _is_content(following) and after_that and after_that.text in _TIME:  # 2 work days
                unit, position = after_that.text, position + 2
        if unit in _MONTHS or (following is not None and following.text in _MONTHS):
            continue
        if unit:
            dimension, factor = UNITS[unit]
            quantity = Quantity(value * factor, dimension, frozenset(), frozenset(), "")
        elif following is not None and _is_content(following):
            nouns = {stem(following.text)}
            if (
                after_that is not None
                and _is_content(after_that)
                and not after_that.text.endswith(("ing", "ed"))
            ):
                nouns.add(stem(after_that.text))
            position += 1
            quantity = Quantity(value, "count", frozenset(nouns), frozenset(), "")
        elif token.kind == "word":
            continue  # "one of"
        elif named := _named_unit(tokens, index):
            dimension, factor = UNITS[named]
            quantity = Quantity(value * factor, dimension, frozenset(), frozenset(), "")
        elif value.is_integer() and 1900 <= value <= 2100:
            continue  # a year
        else:
            names = [t for t in _words_before(tokens, index, 6) if _is_content(t)][:3]
            if not names:
                continue
            names_of = frozenset(stem(t.text) for t in names)
            quantity = Quantity(value, "count", names_of, frozenset(), "")
        end = tokens[position - 1].end if position > index + 1 else token.end
        dimension, amount = quantity.dimension, quantity.value
        if dimension != "time" and (seconds := _per(tokens, position)):
            dimension, amount = dimension + "/time", amount / seconds
        found.append(
            Quantity(
                amount,
                dimension,
                quantity.nouns,
                _context(tokens, index, position) - quantity.nouns,
                text[token.start : end],
                token.value,
            )
        )
    return found


def _single_unit(tokens: list[_Token], index: int) -> bool:
    """`a`/`an` before a unit of time ("for a year"), unless it makes a rate of a number
    just before it ("100 requests a minute"); `a second` is too often the ordinal."""
    following = tokens[index + 1].text if index + 1 < len(tokens) else ""
    if following not in _TIME or following in ("second", "s", "m", "h", "d", "w", "y"):
        return False
    return not any(token.value is not None for token in tokens[max(0, index - 2) : index])


def _per(tokens: list[_Token], position: int) -> float | None:
    """The length in seconds of a `per minute`, `/s` or `a day` at `position`, if any."""
    if position + 1 < len(tokens) and tokens[position].text in _PER:
        unit = tokens[position + 1].text
        if unit in _TIME:
            return _TIME[unit]
    return None
