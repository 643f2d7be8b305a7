"""Markdown headings, as CommonMark reads an ATX heading: up to three spaces, one to six
`#`, then a space or the end of the line; a closing run of `#` counts only after a space,
so `## C#` is titled `C#`. Which headings are inside code is `lore.text.markdown`'s.

On the recall path (snippets drop heading lines): it imports only `re`.
"""

from __future__ import annotations

import re

HEADING = re.compile(r"^[ ]{0,3}(#{1,6})(?=[ \t]|$)[ \t]*(.*?)(?:[ \t]+#+)?[ \t]*$", re.MULTILINE)


def heading(line: str) -> tuple[int, str] | None:
    """(level, title) when this one line is a heading, else None."""
    match = HEADING.match(line.rstrip("\n"))
    return (len(match[1]), match[2].strip()) if match else None


def without_headings(text: str, replacement: str = " ") -> str:
    """`text` with every heading line replaced (code or not: a quick reading)."""
    return HEADING.sub(replacement, text)
