"""The sanitizer: what every piece of note text passes through before it leaves lore.

Note text is untrusted data. `lore.sanitize.text` removes characters that hide text or
steer a terminal (cheap: it runs on every recall and hook); `lore.sanitize.markdown`
also neutralises markdown and HTML that hide or fetch content, and reports what it
would change (`find_hazards`, which the curator's `injection/` rules are built on).

The public API is re-exported here. `sanitize_markdown` imports its module on first
call, so importing this package compiles no markdown patterns.
"""

from __future__ import annotations

from lore.sanitize.text import char_hazard, is_banned_char, one_line, removed_chars, sanitize_text

__all__ = [
    "char_hazard",
    "is_banned_char",
    "one_line",
    "removed_chars",
    "sanitize_markdown",
    "sanitize_text",
]


def sanitize_markdown(text: str) -> str:
    """`sanitize_text`, plus markdown and HTML that can hide or fetch content."""
    from lore.sanitize.markdown import sanitize_markdown as sanitize

    return sanitize(text)
