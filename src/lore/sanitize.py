"""Make note text safe to show to a terminal or to inject into an agent's context.

Note bodies are untrusted data. Everything that can hide text from a reviewer or
steer a terminal is removed: control characters (ANSI escapes included), bidi
controls, Unicode tag characters, zero-width and other format characters (a
zero-width joiner between two emoji is kept, and so is one emoji/text presentation
selector after a visible character). `sanitize_markdown` also neutralises HTML
comments, raw HTML, images and link-reference definitions outside code (code
spans and fenced blocks are shown as text by every renderer, so they are left
alone). Both functions are idempotent.

`find_hazards` reports exactly what the sanitizer would change, with offsets: the
curator's `injection/` errors are built on it, so a note passes those rules if and
only if sanitising it changes nothing. This module imports nothing heavy: it runs
on the recall and hook paths.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

_KEEP_CONTROLS = frozenset("\n\t")
_ZWJ = "\u200d"
_PRESENTATION_SELECTORS = frozenset("\ufe0e\ufe0f")
_BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
_ZERO_WIDTH = frozenset("\u200b\u200c\u200d\u2060\u2061\u2062\u2063\u2064\ufeff\u180e")
# Invisible "letters" and joiners that render as nothing (Hangul fillers, the
# combining grapheme joiner).
_INVISIBLE = frozenset("\u115f\u1160\u3164\uffa0\u034f")
_CLEAN_ASCII = re.compile(r"[^\t\n\x20-\x7e]")


def _is_emoji(char: str) -> bool:
    code = ord(char)
    return (
        0x1F000 <= code <= 0x1FAFF
        or 0x2600 <= code <= 0x27BF
        or 0x2B00 <= code <= 0x2BFF
        or code in (0xFE0F, 0x20E3)
    )


def char_hazard(char: str) -> str | None:
    """What kind of hidden or steering character this is, or None when it is harmless.

    The kinds are the `injection/` rule names: `control-character`, `tag-character`,
    `bidi-control`, `zero-width`, `format-character`. A zero-width joiner is reported
    here as `zero-width`; `sanitize_text` keeps it between two emoji.
    """
    if char in _KEEP_CONTROLS:
        return None
    code = ord(char)
    if code < 0x20 or 0x7F <= code <= 0x9F:
        return "control-character"
    if 0xE0000 <= code <= 0xE007F:
        return "tag-character"
    if char in _BIDI:
        return "bidi-control"
    if char in _ZERO_WIDTH:
        return "zero-width"
    # Variation selectors other than the two presentation selectors carry no
    # meaning in English prose and can smuggle hidden data after an emoji.
    if char in _INVISIBLE or 0xFE00 <= code <= 0xFE0D or 0xE0100 <= code <= 0xE01EF:
        return "format-character"
    # Cf: format characters (bidi controls, zero-width space/joiners, BOM, soft hyphen…)
    # Co: private use; Cs: surrogates; Zl/Zp: line and paragraph separators
    if unicodedata.category(char) in ("Cf", "Co", "Cs", "Zl", "Zp"):
        return "format-character"
    return None


def is_banned_char(char: str) -> bool:
    """A character that never reaches an agent or a terminal (ZWJ is judged in context)."""
    return char_hazard(char) is not None


def _removed_chars(text: str) -> Iterator[tuple[int, str]]:
    """(offset, kind) of each character `sanitize_text` removes, in order."""
    last_removed = -2
    anchor = ""  # the last kept character before the current run of removed ones
    length = len(text)

    def kept_before(index: int) -> str:
        if index - 1 == last_removed:
            return anchor
        return text[index - 1] if index > 0 else ""

    for match in _CLEAN_ASCII.finditer(text):
        index = match.start()
        char = text[index]
        if char == _ZWJ:
            before = kept_before(index)
            after = text[index + 1] if index + 1 < length else ""
            if before and after and _is_emoji(before) and _is_emoji(after):
                continue
            kind: str | None = "zero-width"
        elif char in _PRESENTATION_SELECTORS:
            before = kept_before(index)
            if before and not before.isspace() and before not in _PRESENTATION_SELECTORS:
                continue
            kind = "format-character"
        else:
            kind = char_hazard(char)
        if kind is not None:
            anchor = kept_before(index)
            last_removed = index
            yield index, kind


def sanitize_text(text: str) -> str:
    """Remove banned characters; keep a ZWJ only between two emoji."""
    if not _CLEAN_ASCII.search(text):
        return text
    drop = [index for index, _ in _removed_chars(text)]
    if not drop:
        return text
    out: list[str] = []
    start = 0
    for index in drop:
        out.append(text[start:index])
        start = index + 1
    out.append(text[start:])
    return "".join(out)


# ---- markdown: where code is, and what outside code can hide or fetch content ----

_FENCE_OPEN = re.compile(r" {0,3}(`{3,}|~{3,})(.*)")
_BLANK_LINE = re.compile(r"\n[ \t]*\n")
# Inline constructs that take precedence over code spans when they start first:
# autolinks, HTML comments, tags, processing instructions, declarations, CDATA.
_INLINE_RAW = re.compile(
    r"(?P<tick>`+)"
    r"|<[A-Za-z][A-Za-z0-9+.-]{1,31}:[^\s<>]*>"
    r"|<!--.*?-->"
    r"|</?[A-Za-z][A-Za-z0-9:-]*(?:\s[^<>]*)?/?>"
    r"|<\?.*?\?>"
    r"|<![A-Za-z][^>]*>"
    r"|<!\[CDATA\[.*?\]\]>",
    re.DOTALL,
)


@lru_cache(maxsize=64)
def _closer(length: int) -> re.Pattern[str]:
    return re.compile(rf"(?<!`)`{{{length}}}(?!`)")


def _inline_code(text: str, start: int, end: int, ranges: list[tuple[int, int]]) -> None:
    """Append the code spans of the paragraph text[start:end] to `ranges`."""
    cursor = start
    no_closer_after: dict[int, int] = {}  # run length -> position with no closer beyond
    while cursor < end:
        match = _INLINE_RAW.search(text, cursor, end)
        if match is None:
            return
        if match["tick"] is None:
            cursor = match.end()  # raw HTML or an autolink: its backticks open nothing
            continue
        run_start, run_end = match.span()
        backslashes = 0
        while run_start - backslashes - 1 >= start and text[run_start - backslashes - 1] == "\\":
            backslashes += 1
        if backslashes % 2:
            run_start += 1  # an escaped backtick is literal; the rest of the run may open
        length = run_end - run_start
        if length == 0 or no_closer_after.get(length, end + 1) <= run_end:
            cursor = run_end
            continue
        closer = _closer(length).search(text, run_end, end)
        if closer is None:
            no_closer_after[length] = run_end
            cursor = run_end
            continue
        ranges.append((run_start, closer.end()))
        cursor = closer.end()


def code_ranges(text: str) -> list[tuple[int, int]]:
    """Sorted (start, end) offsets of fenced code blocks and inline code spans.

    A fence opens with three or more backticks or tildes indented at most three
    spaces and closes with a run of the same character at least as long (an
    unclosed fence runs to the end). Code spans follow CommonMark: a backtick run
    closes at the next run of the same length in the same paragraph; raw HTML and
    autolinks that start first take precedence.
    """
    ranges: list[tuple[int, int]] = []

    def prose(start: int, end: int) -> None:
        if "`" not in text[start:end]:
            return
        paragraph = start
        for blank in _BLANK_LINE.finditer(text, start, end):
            _inline_code(text, paragraph, blank.start(), ranges)
            paragraph = blank.end()
        _inline_code(text, paragraph, end, ranges)

    if "`" not in text and "~~~" not in text:
        return ranges
    prose_start = 0
    fence: tuple[str, int, int] | None = None  # (character, length, start offset)
    offset = 0
    for line in text.split("\n"):
        line_end = offset + len(line)
        if fence is None:
            opened = _FENCE_OPEN.fullmatch(line)
            if opened and not (opened[1][0] == "`" and "`" in opened[2]):
                prose(prose_start, offset)
                fence = (opened[1][0], len(opened[1]), offset)
        else:
            char, length, fence_start = fence
            stripped = line.strip(" \t")
            if (
                len(line) - len(line.lstrip(" ")) <= 3
                and len(stripped) >= length
                and stripped == char * len(stripped)
            ):
                ranges.append((fence_start, line_end))
                prose_start = line_end
                fence = None
        offset = line_end + 1
    if fence is not None:
        ranges.append((fence[2], len(text)))
    else:
        prose(prose_start, len(text))
    ranges.sort()
    return ranges


def _range_at(ranges: list[tuple[int, int]], starts: list[int], offset: int) -> int | None:
    """The end of the code range holding `offset`, or None when it is prose."""
    index = bisect_right(starts, offset) - 1
    if index >= 0 and ranges[index][0] <= offset < ranges[index][1]:
        return ranges[index][1]
    return None


_HAZARD = re.compile(
    r"(?P<comment><!--.*?(?:-->|\Z))"
    r"|(?P<image>!\[(?P<alt>[^\]]*)\]\((?P<url>[^)]*)\))"
    r"|(?P<linkref>^ {0,3}\[[^\]\n]+\]:[ \t]*(?:\n[ \t]*)?\S[^\n]*$)"
    r"|(?P<tag></?[A-Za-z][A-Za-z0-9:-]*(?:\s[^<>]*)?/?>)"
    r"|(?P<decl><[?!])",
    re.DOTALL | re.MULTILINE,
)
_REMOTE_URL = re.compile(r"^\s*<?\s*(?:[A-Za-z][A-Za-z0-9+.-]*:|//)")


def _markdown_matches(text: str) -> list[tuple[str, re.Match[str]]]:
    """(kind, match) of each construct outside code that `sanitize_markdown` neutralises."""
    if not any(mark in text for mark in ("<", "![", "]:")):
        return []
    ranges = code_ranges(text)
    starts = [start for start, _ in ranges]
    found: list[tuple[str, re.Match[str]]] = []
    position = 0
    while True:
        match = _HAZARD.search(text, position)
        if match is None:
            return found
        code_end = _range_at(ranges, starts, match.start())
        if code_end is not None:
            position = max(code_end, match.start() + 1)
            continue
        if match["comment"] is not None:
            kind = "html-comment"
        elif match["image"] is not None:
            kind = "remote-image" if _REMOTE_URL.match(match["url"]) else "image"
        elif match["linkref"] is not None:
            kind = "link-reference"
        else:
            kind = "raw-html"
        found.append((kind, match))
        position = max(match.end(), match.start() + 1)


def _replacement(kind: str, match: re.Match[str]) -> str:
    if kind in ("html-comment", "link-reference"):
        return ""
    if kind in ("image", "remote-image"):
        return f"[image: {match['alt']}]" if match["alt"] else "[image]"
    return match[0].replace("<", "‹").replace(">", "›")


def _neutralise(text: str) -> str:
    matches = _markdown_matches(text)
    if not matches:
        return text
    out: list[str] = []
    position = 0
    for kind, match in matches:
        out.append(text[position : match.start()])
        out.append(_replacement(kind, match))
        position = match.end()
    out.append(text[position:])
    return "".join(out)


_STRICT_LINKREF = re.compile(r"^ {0,3}\[[^\]\n]+\]:[ \t]*(?:\n[ \t]*)?\S[^\n]*$", re.MULTILINE)
_MAX_PASSES = 8


def _neutralise_strict(text: str) -> str:
    """Last resort for pathological input: no `<`, no image and no reference anywhere."""
    text = text.replace("<", "‹").replace(">", "›")
    text = re.sub(r"!+\[", "[", text)
    return _STRICT_LINKREF.sub("", text)


def sanitize_markdown(text: str) -> str:
    """`sanitize_text`, plus markdown and HTML outside code that can hide or fetch content."""
    text = sanitize_text(text)
    for _ in range(_MAX_PASSES):
        # Removing a construct can form a new one ("<!<!---->--"), so repeat to a
        # fixed point; each pass strictly removes a '<', '!' or '['.
        cleaner = _neutralise(text)
        if cleaner == text:
            return text
        text = cleaner
    return _neutralise_strict(text)


@dataclass(frozen=True)
class Hazard:
    """One thing the sanitizer would remove or neutralise, at offsets into the text given."""

    kind: str  # an `injection/` rule name, e.g. "bidi-control", "html-comment"
    start: int
    end: int
    detail: str  # "U+202E RIGHT-TO-LEFT OVERRIDE", "<script>", the image URL…


def _char_detail(char: str) -> str:
    name = unicodedata.name(char, "")
    return f"U+{ord(char):04X} {name}".rstrip()


def find_hazards(text: str, *, markdown: bool = True) -> list[Hazard]:
    """Everything `sanitize_markdown` (or `sanitize_text` when `markdown` is false) changes.

    Character hazards come first, then markdown constructs; each has offsets into
    `text`. The list is empty exactly when sanitising leaves `text` unchanged.
    """
    hazards: list[Hazard] = []
    removed: list[int] = []
    if _CLEAN_ASCII.search(text):
        for index, kind in _removed_chars(text):
            removed.append(index)
            hazards.append(Hazard(kind, index, index + 1, _char_detail(text[index])))
    if not markdown:
        return hazards
    clean = sanitize_text(text) if removed else text
    matches = _markdown_matches(clean)
    if not matches:
        return hazards
    kept: list[int] | None = None
    if removed:
        dropped = set(removed)
        kept = [index for index in range(len(text)) if index not in dropped]

    def original(offset: int) -> int:
        if kept is None:
            return offset
        return kept[offset] if offset < len(kept) else len(text)

    for kind, match in matches:
        if kind in ("image", "remote-image"):
            detail = match["url"].strip()
        else:
            detail = " ".join(match[0].split())
        hazards.append(Hazard(kind, original(match.start()), original(match.end()), detail))
    return hazards


def one_line(text: str, limit: int = 200) -> str:
    """Sanitised text on one line, cut to `limit` characters."""
    flat = " ".join(sanitize_text(text).split())
    if len(flat) > limit:
        return flat[: limit - 1].rstrip() + "…"
    return flat
