"""Snippets: the window of a note's body where the query's words are densest, highlighted.

Computed in Python from the body of the few notes returned (cheaper than a second
FTS5 pass, and the same for the index and the scan fallback). Words are compared as
the index holds them (folded, then FTS5's own Porter stem: `lore.text.words`), so the
words marked are the words FTS5 matched. Highlights are marked with `HIGHLIGHT`; the
output layer renders them.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterable

from lore.sanitize import sanitize_markdown
from lore.text.headings import without_headings
from lore.text.words import fold, stem, stem_prefix

HIGHLIGHT = ("\x02", "\x03")
WINDOW = 18
_TOKEN = re.compile(r"\S+")


def term_of(word: str) -> str:
    """A word as the index holds it: folded, then Porter-stemmed (`lore.text.words`)."""
    return stem(fold(word))


def _hit_tokens(text: str, wanted: set[str]) -> set[int]:
    """Indexes (in `text.split()`) of the words whose term is wanted.

    Every word with a given stem starts with that stem's `stem_prefix`: `str.find`
    locates those candidates in the lowered text and only they are stemmed. A text
    that is not ASCII (where lowering and folding may change lengths and letters) goes
    to the regular expression below, which stems every word.
    """
    lowered = text.lower()
    if not lowered.isascii():
        return _hit_tokens_by_regex(text, wanted)
    offsets: set[int] = set()
    for prefix in {stem_prefix(term) for term in wanted} - {""}:
        start = lowered.find(prefix)
        while start != -1:
            if start == 0 or not _is_word_char(lowered[start - 1]):
                rest = _WORD_REST.match(lowered, start)
                end = rest.end() if rest else start + len(prefix)
                if stem(lowered[start:end]) in wanted:
                    offsets.add(start)
            start = lowered.find(prefix, start + 1)
    return _token_indexes(text, sorted(offsets))


_WORD_REST = re.compile(r"[^\W_]*")
_WORD_RUN = re.compile(r"(?<![^\W_])[^\W_]+")


def _is_word_char(char: str) -> bool:
    r"""What `[^\W_]` matches: a letter or digit (`\w` is those and the underscore)."""
    return char.isalnum()


def _token_indexes(text: str, offsets: list[int]) -> set[int]:
    """For each offset (ascending, each on a non-space character), its index in `text.split()`.

    Counted piece by piece, so the text is read once however many words matched.
    """
    found: set[int] = set()
    count = 0  # tokens in text[:done]
    done = 0
    for offset in offsets:
        piece = text[done : offset + 1]
        count += len(piece.split())
        if done and not text[done - 1].isspace() and not piece[:1].isspace():
            count -= 1  # the token at `done` was already counted with the previous piece
        done = offset + 1
        found.add(count - 1)
    return found


def _hit_tokens_by_regex(text: str, wanted: set[str]) -> set[int]:
    """`_hit_tokens` for any text: every word (a run of letters and digits) is stemmed."""
    found: set[int] = set()
    starts: list[int] | None = None
    for match in _WORD_RUN.finditer(text):
        if term_of(match.group()) not in wanted:
            continue
        if starts is None:  # where each whitespace-separated token starts
            starts = [token.start() for token in _TOKEN.finditer(text)]
        found.add(bisect_right(starts, match.start()) - 1)
    return found


def make_snippet(body: str, query_words: Iterable[str], fallback: str = "") -> str:
    """About `WINDOW` words of `body` around the densest run of query words, or `fallback`."""
    wanted = {term_of(w) for w in query_words if w}
    text = without_headings(sanitize_markdown(body))
    tokens = text.split()
    if not tokens or not wanted:
        return fallback
    hits = _hit_tokens(text, wanted)
    if not hits:
        return fallback
    window = min(WINDOW, len(tokens))
    # The densest window can always start at a hit: count the hits each one opens.
    ordered = sorted(hits)
    best_start = max(
        ordered, key=lambda i: (bisect_left(ordered, i + window) - bisect_left(ordered, i), -i)
    )
    best_start = min(best_start, len(tokens) - window)
    # Start a little before the first hit of the window, so it reads in context.
    first_hit = min(i for i in hits if i >= best_start)
    start = max(0, min(best_start, first_hit - 3))
    end = min(len(tokens), start + window)
    start_mark, end_mark = HIGHLIGHT
    words = [
        f"{start_mark}{token}{end_mark}" if index in hits else token
        for index, token in enumerate(tokens[start:end], start=start)
    ]
    prefix = "…" if start > 0 else ""
    suffix = "…" if end < len(tokens) else ""
    return prefix + " ".join(words) + suffix
