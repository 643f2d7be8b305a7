"""Neutralise markdown and HTML that can hide or fetch content in a note.

`sanitize_markdown` is `sanitize_text` plus: HTML comments, raw HTML, images and
link-reference definitions outside fenced code are neutralised (an inline code span
excuses only tags that neither fetch nor hide anything). It is idempotent and linear
in time on hostile input.

`find_hazards` reports exactly what the sanitizer would change, with offsets: the
curator's `injection/` errors are built on it, so a note passes those rules if and
only if sanitising it changes nothing.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right
from functools import lru_cache

from lore.sanitize.text import removed_chars, sanitize_text

# ---- markdown: where code is, and what outside code can hide or fetch content ----
#
# GitHub shows a reviewer rendered markdown; an agent reads the raw text. Whatever
# renders as nothing (comments, link-reference definitions, some HTML) or fetches
# something (images) is neutralised. Code is shown as text by every renderer, but
# telling code from prose exactly needs a full CommonMark parser, so this errs on
# the side of prose: only fenced blocks that cannot have been closed early by a
# container count as code for everything; an inline code span only excuses raw
# HTML tags that neither hide nor fetch anything (`<div>`, `<span>`, `<br>` …).

_FENCE_OPEN = re.compile(r"( {0,3})(`{3,}|~{3,})(.*)")
_BLANK_LINE = re.compile(r"\n[ \t]*\n")
# Raw HTML as CommonMark reads it: a tag (attribute values may hold '<' and '>' when
# quoted), a comment, a processing instruction, a declaration, CDATA. The last tag
# alternative is looser than CommonMark on purpose: anything tag-shaped counts.
_TAG_NAME = r"[A-Za-z][A-Za-z0-9-]*"
_ATTRIBUTE = (
    r"(?:\s+[A-Za-z_:][A-Za-z0-9_.:-]*"
    r"(?:\s*=\s*(?:[^\s\"'=<>`]{1,2000}|'[^']{0,2000}'|\"[^\"]{0,2000}\"))?)"
)
_HTML_TAG = (
    rf"<{_TAG_NAME}{_ATTRIBUTE}{{0,100}}\s*/?>"
    rf"|</{_TAG_NAME}\s*>"
    r"|</?[A-Za-z][A-Za-z0-9:-]*(?:\s[^<>]{0,4000})?/?>"
)
_AUTOLINK = r"<[A-Za-z][A-Za-z0-9+.-]{1,31}:[^\s<>]*>"
# Inline constructs that take precedence over code spans (and over the brackets of
# link text) when they start first: autolinks and raw HTML.
_RAW_INLINE = (
    rf"{_AUTOLINK}|<!--.{{0,20000}}?-->|{_HTML_TAG}|<\?.{{0,20000}}?\?>"
    r"|<![A-Za-z][^>]{0,20000}>|<!\[CDATA\[.{0,20000}?\]\]>"
)
_INLINE_RAW = re.compile(rf"(?P<tick>`+)|{_RAW_INLINE}", re.DOTALL)
_OPAQUE = re.compile(_RAW_INLINE, re.DOTALL)
# Tags that fetch, run, hide or collapse content: never excused by a code span.
_ACTIVE_TAGS = frozenset(
    {
        "img", "image", "picture", "source", "video", "audio", "track", "iframe",
        "frame", "frameset", "object", "embed", "applet", "script", "noscript",
        "style", "link", "meta", "base", "form", "input", "textarea", "select", "svg",
        "math", "template", "details", "summary", "dialog", "portal", "marquee",
    }
)  # fmt: skip
_TAG_NAME_AT = re.compile(r"</?([A-Za-z][A-Za-z0-9:-]*)")

Ranges = list[tuple[int, int]]


@lru_cache(maxsize=64)
def _closer(length: int) -> re.Pattern[str]:
    return re.compile(rf"(?<!`)`{{{length}}}(?!`)")


def _inline_code(text: str, start: int, end: int, ranges: Ranges) -> None:
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


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _fences(text: str) -> Ranges:
    """Fenced code blocks that are code for certain.

    A fence opens with three or more backticks or tildes indented at most three
    spaces and closes with a run of the same character at least as long. An unclosed
    fence, or an indented one with a less indented line inside (a list item around
    it may have ended, closing it early), is not trusted: its lines count as prose.
    """
    if "```" not in text and "~~~" not in text:
        return []
    lines = text.split("\n")
    offsets = [0]
    for line in lines[:-1]:
        offsets.append(offsets[-1] + len(line) + 1)
    found: Ranges = []
    index = 0
    while index < len(lines):
        opened = _FENCE_OPEN.fullmatch(lines[index])
        if not opened or (opened[2][0] == "`" and "`" in opened[3]):
            index += 1
            continue
        indent, char, length = len(opened[1]), opened[2][0], len(opened[2])
        close = None
        for later in range(index + 1, len(lines)):
            line = lines[later]
            stripped = line.strip(" \t")
            if _indent(line) <= 3 and len(stripped) >= length and stripped == char * len(stripped):
                close = later
                break
            if indent and stripped and _indent(line) < indent:
                break
        if close is None:
            index += 1
            continue
        found.append((offsets[index], offsets[close] + len(lines[close])))
        index = close + 1
    return found


def _code(text: str) -> tuple[Ranges, Ranges]:
    """(fenced blocks, inline code spans), each sorted."""
    fences = _fences(text)
    spans: Ranges = []
    if "`" not in text:
        return fences, spans
    prose_start = 0
    for fence_start, fence_end in [*fences, (len(text), len(text))]:
        paragraph = prose_start
        for blank in _BLANK_LINE.finditer(text, prose_start, fence_start):
            _inline_code(text, paragraph, blank.start(), spans)
            paragraph = blank.end()
        _inline_code(text, paragraph, fence_start, spans)
        prose_start = fence_end
    return fences, spans


def code_ranges(text: str) -> Ranges:
    """Sorted (start, end) offsets of fenced code blocks and inline code spans.

    Code spans follow CommonMark: a backtick run closes at the next run of the same
    length in the same paragraph; raw HTML and autolinks that start first take
    precedence. Unclosed fences are not code (see `_fences`).
    """
    fences, spans = _code(text)
    return sorted(fences + spans)


def _range_at(ranges: Ranges, starts: list[int], offset: int) -> int | None:
    """The end of the range holding `offset`, or None when no range holds it."""
    index = bisect_right(starts, offset) - 1
    if index >= 0 and ranges[index][0] <= offset < ranges[index][1]:
        return ranges[index][1]
    return None


class _Spans:
    """A sorted set of ranges that answers "is this offset inside one?"."""

    def __init__(self, ranges: Ranges) -> None:
        merged: Ranges = []
        for start, end in sorted(ranges):
            if merged and start <= merged[-1][1]:
                merged[-1] = (merged[-1][0], max(merged[-1][1], end))
            else:
                merged.append((start, end))
        self.ranges = merged
        self.starts = [start for start, _ in merged]

    def end_of(self, offset: int) -> int | None:
        return _range_at(self.ranges, self.starts, offset)

    def __contains__(self, offset: object) -> bool:
        return isinstance(offset, int) and self.end_of(offset) is not None


# A container prefix: block-quote markers and list markers, in any order.
_CONTAINER = r"(?:[ \t]*(?:>|[-*+](?=[ \t])|\d{1,9}[.)](?=[ \t]))){0,10}[ \t]*"
# A link-reference definition may sit in a block quote or a list item, and its label
# may hold escaped brackets and span lines (but not a blank one).
_LINKREF = (
    rf"^{_CONTAINER}"
    r"\[(?:[^\[\]\\\n]|\\.|\n(?![ \t>]*\n)){1,999}\]:[ \t]*(?:\n[ \t>]*)?\S[^\n]*$"
)
_HAZARD = re.compile(
    r"(?P<comment><!--.*?(?:-->|\Z))"
    rf"|(?P<linkref>{_LINKREF})"
    # A line that opens an HTML block, complete tag or not: it turns the following
    # lines into raw HTML, fences and code spans included.
    rf"|(?P<block>^{_CONTAINER}(?:{_HTML_TAG}|<(?=[A-Za-z/?!])))"
    rf"|(?P<tag>{_HTML_TAG})"
    r"|(?P<decl><[?!])",
    re.DOTALL | re.MULTILINE,
)
_REMOTE_URL = re.compile(r"^\s*<?\s*(?:[A-Za-z][A-Za-z0-9+.-]*:|//)")
_BRACKETS = re.compile(r"\\.|[\[\]()]|\n[ \t>]*\n", re.DOTALL)
_LINK_TAIL = re.compile(r"\]\(")


class _Found:
    """A construct to neutralise: text[start:end] becomes `replacement`."""

    __slots__ = ("detail", "end", "kind", "replacement", "start")

    def __init__(self, kind: str, start: int, end: int, replacement: str, detail: str) -> None:
        self.kind = kind
        self.start = start
        self.end = end
        self.replacement = replacement
        self.detail = detail


def _pair_brackets(text: str, opaque: _Spans) -> tuple[dict[int, int], dict[int, int]]:
    """Matching ']' for each '[' and ')' for each '(' per paragraph, skipping `opaque`."""
    closes: dict[int, int] = {}
    parens: dict[int, int] = {}
    brackets: list[int] = []
    opened: list[int] = []
    for match in _BRACKETS.finditer(text):
        mark, offset = match[0], match.start()
        if mark[0] == "\\" or offset in opaque:
            continue
        if mark[0] == "\n":
            brackets.clear()
            opened.clear()
        elif mark == "[":
            brackets.append(offset)
        elif mark == "]":
            if brackets:
                closes[brackets.pop()] = offset
        elif mark == "(":
            opened.append(offset)
        elif opened:
            parens[opened.pop()] = offset
    return closes, parens


def _image_kind(url: str) -> str:
    return "remote-image" if _REMOTE_URL.match(url) else "image"


def _images(text: str, fences: _Spans, spans: Ranges) -> list[_Found]:
    """Inline images outside fenced code.

    First, precisely: brackets and parentheses are paired per paragraph as CommonMark
    does (escaped ones, and those in code spans, raw HTML or autolinks do not count),
    so `![a [b] c](url)` is found and the whole image becomes `[image: alt]`. Then,
    conservatively: any other `![` followed by `](` in the same paragraph loses its
    `!`, so it can only ever be a link. Both passes are linear.
    """
    if "![" not in text:
        return []
    opaque = _Spans(
        [*fences.ranges, *spans]
        + [m.span() for m in _OPAQUE.finditer(text) if m.start() not in fences]
    )
    closes, parens = _pair_brackets(text, opaque)
    tails = [m.start() for m in _LINK_TAIL.finditer(text)]
    blanks = [m.start() for m in _BLANK_LINE.finditer(text)]
    found: list[_Found] = []
    covered_until = -1
    position = 0
    while True:
        start = text.find("![", position)
        if start < 0:
            return found
        position = start + 1
        escaped = 0
        while start - escaped - 1 >= 0 and text[start - escaped - 1] == "\\":
            escaped += 1
        if escaped % 2 or start in fences or start < covered_until:
            continue
        close = closes.get(start + 1)
        end = parens.get(close + 1) if close is not None else None
        if close is not None and end is not None and text.startswith("(", close + 1):
            alt, url = text[start + 2 : close], text[close + 2 : end]
            shown = " ".join(alt.split())
            replacement = f"[image: {shown}]" if shown else "[image]"
            found.append(_Found(_image_kind(url), start, end + 1, replacement, url.strip()))
            covered_until = end + 1
            continue
        tail_index = bisect_right(tails, start)
        if tail_index == len(tails):
            continue
        tail = tails[tail_index]
        blank_index = bisect_right(blanks, start)
        if blank_index < len(blanks) and blanks[blank_index] < tail:
            continue
        url = text[tail + 2 : tail + 202].split(")", 1)[0]
        found.append(_Found(_image_kind(url), start, start + 2, "[", url.strip()))


def _markdown_matches(text: str) -> list[_Found]:
    """Each construct outside code that `sanitize_markdown` neutralises, in order."""
    if not any(mark in text for mark in ("<", "![", "]:")):
        return []
    fence_list, spans = _code(text)
    fences = _Spans(fence_list)
    in_span = _Spans(spans)
    found = _images(text, fences, spans)
    position = 0
    while True:
        match = _HAZARD.search(text, position)
        if match is None:
            break
        fence_end = fences.end_of(match.start())
        if fence_end is not None:
            position = max(fence_end, match.start() + 1)
            continue
        if match["tag"] is not None and match.start() in in_span:
            name = _TAG_NAME_AT.match(match[0])
            if name is None or name[1].lower() not in _ACTIVE_TAGS:
                position = match.start() + 1  # an inert tag inside a code span
                continue
        if match["comment"] is not None:
            kind, replacement = "html-comment", ""
        elif match["linkref"] is not None:
            kind, replacement = "link-reference", ""
        else:
            kind = "raw-html"
            replacement = match[0].replace("<", "‹").replace(">", "›")
        detail = " ".join(match[0].split())
        found.append(_Found(kind, match.start(), match.end(), replacement, detail))
        position = max(match.end(), match.start() + 1)
    # Keep the first of overlapping constructs; the next pass sees what is left.
    found.sort(key=lambda f: (f.start, -f.end))
    kept: list[_Found] = []
    for item in found:
        if kept and item.start < kept[-1].end:
            continue
        kept.append(item)
    return kept


def _neutralise(text: str) -> str:
    matches = _markdown_matches(text)
    if not matches:
        return text
    out: list[str] = []
    position = 0
    for item in matches:
        out.append(text[position : item.start])
        out.append(item.replacement)
        position = item.end
    out.append(text[position:])
    return "".join(out)


_STRICT_LINKREF = re.compile(_LINKREF, re.MULTILINE | re.DOTALL)
_MAX_PASSES = 8


def _neutralise_strict(text: str) -> str:
    """Last resort for pathological input: no `<`, no image and no reference anywhere."""
    text = text.replace("<", "‹").replace(">", "›")
    text = re.sub(r"!+\[", "[", text)
    return _STRICT_LINKREF.sub("", text)


def sanitize_markdown(text: str) -> str:
    """`sanitize_text`, plus markdown and HTML that can hide or fetch content."""
    text = sanitize_text(text)
    for _ in range(_MAX_PASSES):
        # Removing a construct can form a new one ("<!<!---->--"), or leave a character
        # that was harmless only beside it (a presentation selector after "-->"), so
        # repeat both to a fixed point; each pass strictly removes characters.
        cleaner = sanitize_text(_neutralise(text))
        if cleaner == text:
            return text
        text = cleaner
    return sanitize_text(_neutralise_strict(text))


class Hazard:
    """One thing the sanitizer would remove or neutralise, at offsets into the text given.

    `kind` is an `injection/` rule name ("bidi-control", "html-comment"); `detail` says
    what it is ("U+202E RIGHT-TO-LEFT OVERRIDE", "<script>", the image URL). A plain
    class, not a dataclass: this module stays cheap to import on the hook path.
    """

    __slots__ = ("detail", "end", "kind", "start")

    def __init__(self, kind: str, start: int, end: int, detail: str) -> None:
        self.kind = kind
        self.start = start
        self.end = end
        self.detail = detail

    def _key(self) -> tuple[str, int, int, str]:
        return (self.kind, self.start, self.end, self.detail)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Hazard) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"Hazard({self.kind!r}, {self.start}, {self.end}, {self.detail!r})"


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
    for index, kind in removed_chars(text):
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

    for item in matches:
        hazards.append(Hazard(item.kind, original(item.start), original(item.end), item.detail))
    return hazards
