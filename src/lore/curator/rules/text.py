"""Small helpers the rule families share: line numbers, quotes, links, suggestions.

Sections, code and words are read by `lore.text`."""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Iterator

from lore.sanitize import sanitize_field
from lore.text.markdown import CodeMap

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
