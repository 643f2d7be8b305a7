"""Snippets: the window of a note's body where the query's words are densest, highlighted.

Computed in Python from the body of the few notes returned (cheaper than a second
FTS5 pass, and the same for the index and the scan fallback). Words are compared
after a light suffix-stripping stem, close enough to FTS5's porter stemmer for
highlighting. Highlights are marked with `HIGHLIGHT`; the output layer renders them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

from lore.sanitize import sanitize_text

HIGHLIGHT = ("\x02", "\x03")
WINDOW = 18
_PART = re.compile(r"[^\W_]+", re.UNICODE)
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s.*$", re.MULTILINE)
_SUFFIXES = (
    "ations",
    "ation",
    "ings",
    "ing",
    "edly",
    "ers",
    "ies",
    "ied",
    "es",
    "ed",
    "er",
    "ly",
    "s",
)


@lru_cache(maxsize=8192)
def stem(word: str) -> str:
    word = word.lower()
    for suffix in _SUFFIXES:
        if len(word) > len(suffix) + 2 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def make_snippet(body: str, query_words: Iterable[str], fallback: str = "") -> str:
    """About `WINDOW` words of `body` around the densest run of query words, or `fallback`."""
    wanted = {stem(w) for w in query_words if w}
    text = _HEADING.sub(" ", sanitize_text(body))
    tokens = text.split()
    if not tokens or not wanted:
        return fallback
    # A stem only drops a suffix, so a word can match only if it shares its first
    # three letters with a wanted stem: most words are ruled out without stemming.
    prefixes = {w[:3] for w in wanted}

    def matches(token: str) -> bool:
        for part in _PART.findall(token):
            lowered = part.lower()
            if lowered[:3] in prefixes and stem(lowered) in wanted:
                return True
        return False

    hits = [matches(token) for token in tokens]
    if not any(hits):
        return fallback
    best_start, best_count = 0, -1
    window = min(WINDOW, len(tokens))
    count = sum(hits[:window])
    for start in range(len(tokens) - window + 1):
        if start:
            count += hits[start + window - 1] - hits[start - 1]
        if count > best_count:
            best_start, best_count = start, count
    # Start a little before the first hit of the window, so it reads in context.
    first_hit = next(i for i in range(best_start, best_start + window) if hits[i])
    start = max(0, min(best_start, first_hit - 3))
    end = min(len(tokens), start + window)
    start_mark, end_mark = HIGHLIGHT
    words = [
        f"{start_mark}{token}{end_mark}" if hits[index] else token
        for index, token in enumerate(tokens[start:end], start=start)
    ]
    prefix = "…" if start > 0 else ""
    suffix = "…" if end < len(tokens) else ""
    return prefix + " ".join(words) + suffix
