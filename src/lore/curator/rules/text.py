"""Small text helpers the rule families share: line numbers, sections, links, suggestions."""

from __future__ import annotations

import difflib
import re
from bisect import bisect_right
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from lore.sanitize import sanitize_field
from lore.sanitize.markdown import code_ranges

_HEADING = re.compile(r"^(#{1,6})[ \t]+(.*?)[ \t#]*$", re.MULTILINE)
_URL = re.compile(r"\b(?:https?|ftp)://[^\s<>()\[\]`\"']+", re.IGNORECASE)
_MD_LINK = re.compile(r"\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]{0,300}\")?\s*\)")
_AUTOLINK = re.compile(r"<([A-Za-z][A-Za-z0-9+.-]{1,31}:[^\s<>]*)>")


def line_at(text: str, offset: int, first_line: int = 1) -> int:
    return first_line + text.count("\n", 0, offset)


def quote(text: str, limit: int = 80) -> str:
    """User text for a message: one sanitised line, cut short."""
    return sanitize_field(text, limit)


def did_you_mean(word: str, candidates: Iterable[str]) -> str | None:
    matches = difflib.get_close_matches(word, list(candidates), n=1, cutoff=0.6)
    return matches[0] if matches else None


class CodeMap:
    """Answers "is this offset inside code?" for one text."""

    def __init__(self, text: str) -> None:
        # Code needs a backtick or a tilde (fences and spans): most text has neither.
        self.ranges = code_ranges(text) if "`" in text or "~" in text else []
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


@dataclass(frozen=True)
class Section:
    level: int
    title: str
    start: int  # offset of the heading line
    content_start: int  # offset just after the heading line


def sections(body: str, code: CodeMap | None = None) -> list[Section]:
    """Markdown headings outside code, in order."""
    code = code or CodeMap(body)
    found: list[Section] = []
    for match in _HEADING.finditer(body):
        if match.start() in code:
            continue
        end = match.end() + 1 if match.end() < len(body) else match.end()
        found.append(Section(len(match[1]), match[2].strip(), match.start(), end))
    return found


def urls(text: str, code: CodeMap | None = None) -> Iterator[tuple[int, str]]:
    """(offset, url) of links outside code: markdown links, autolinks and bare URLs."""
    code = code or CodeMap(text)
    seen: set[int] = set()
    for pattern in (_MD_LINK, _AUTOLINK, _URL):
        for match in pattern.finditer(text):
            start = match.start(1) if pattern is not _URL else match.start()
            if start in seen or start in code:
                continue
            seen.add(start)
            yield start, match[1] if pattern is not _URL else match[0]


def url_host(url: str) -> str | None:
    match = re.match(r"^[A-Za-z][A-Za-z0-9+.-]*://(?:[^/?#@]*@)?\[?([^/?#:\]]+)", url.strip())
    return match[1].lower().rstrip(".") if match else None


LOOPBACK = frozenset({"localhost", "127.0.0.1", "::1"})


def domain_allowed(host: str, allowed: Iterable[str]) -> bool:
    """A host on an allowed domain (or a sub-domain of one), or this machine."""
    if host in LOOPBACK or host.endswith(".localhost"):
        return True
    return any(host == domain or host.endswith("." + domain) for domain in allowed)
