"""The structure of a note's markdown: headings and sections, code, quotes and bullets.

One reading for the whole product. A heading is a CommonMark ATX heading — up to three
spaces, one to six `#`, then a space or the end of the line; a closing run of `#` counts
only after a space, so `## C#` is titled `C#` — and a heading inside code is no heading.
Code is what the sanitizer reads as code (`lore.sanitize.markdown.code_ranges`: fenced
blocks and inline spans, with raw HTML taking precedence as CommonMark says), so what is
shown as code and what is checked as prose never disagree.

The heading pattern itself is `lore.text.headings` (the recall path reads only that).
"""

from __future__ import annotations

import re
from bisect import bisect_right

from lore.record import Record
from lore.text.headings import HEADING

QUOTE_LINE = re.compile(r"^[ \t]{0,3}>.*$", re.MULTILINE)
BULLET = re.compile(r"^(?P<indent>[ \t]*)(?P<marker>[-*+]|\d{1,9}[.)])[ \t]+(?P<text>.*)$")
BULLET_MARKER = re.compile(r"^[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+")  # a list item's marker
COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.DOTALL)  # unseen when rendered
# Struck through: words the author withdrew (a struck list item with the remark after it).
STRUCK = re.compile(r"^[ \t]*~~[^~\n]+~~.*$|~~[^~\n]+~~", re.MULTILINE)


class CodeMap:
    """Answers "is this offset inside code?" for one text."""

    __slots__ = ("_starts", "ranges")

    def __init__(self, text: str) -> None:
        # Code needs a backtick or a tilde (fences and spans): most text has neither, and
        # the sanitizer's markdown module (about 3 ms to import) is loaded only for code.
        self.ranges: list[tuple[int, int]] = []
        if "`" in text or "~" in text:
            from lore.sanitize.markdown import code_ranges

            self.ranges = code_ranges(text)
        self._starts = [start for start, _ in self.ranges]

    def __contains__(self, offset: object) -> bool:
        if not isinstance(offset, int) or not self.ranges:
            return False
        index = bisect_right(self._starts, offset) - 1
        return index >= 0 and offset < self.ranges[index][1]

    def prose(self, text: str) -> str:
        """`text` with code blanked out (same length and line breaks)."""
        if not self.ranges:
            return text
        chars = list(text)
        for start, end in self.ranges:
            for index in range(start, end):
                if chars[index] != "\n":
                    chars[index] = " "
        return "".join(chars)

    def fences(self, text: str) -> list[tuple[int, int]]:
        """The ranges that are fenced code blocks (not inline spans)."""
        return [(s, e) for s, e in self.ranges if text[s:e].lstrip(" ").startswith(("```", "~~~"))]


class Section(Record):
    """A heading outside code: its level, title and where it and its content start."""

    __slots__ = ("content_start", "level", "start", "title")

    def __init__(self, level: int, title: str, start: int, content_start: int) -> None:
        self.level = level
        self.title = title
        self.start = start  # offset of the heading line
        self.content_start = content_start  # offset just after the heading line


def sections(body: str, code: CodeMap | None = None) -> list[Section]:
    """The headings of `body` outside code, in order."""
    code = code or CodeMap(body)
    found: list[Section] = []
    for match in HEADING.finditer(body):
        if match.start() in code:
            continue
        end = match.end() + 1 if match.end() < len(body) else match.end()
        found.append(Section(len(match[1]), match[2].strip(), match.start(), end))
    return found


def split_sections(body: str) -> list[tuple[str, str]]:
    """(lower-case heading, text) of each section outside code, headings cut out; text
    before the first heading has heading ""."""
    found: list[tuple[str, str]] = []
    title, start = "", 0
    for section in sections(body):
        found.append((title, body[start : section.start]))
        title, start = section.title.lower(), section.content_start
    found.append((title, body[start:]))
    return found
