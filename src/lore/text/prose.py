"""A note's prose: the sentences its author wrote, section by section.

What the judgement reads as the note's own claims, and what the curator's candidate
search compares: the body without fenced code, HTML comments (unseen when rendered: a
template's hints), struck-through words (withdrawn), block quotes (someone else's words),
the `## Related` section (links, not claims), `[[links]]` and URLs. Inline code keeps its
text without the backticks (`pool_size=10` is a claim), and emphasis marks go.
"""

from __future__ import annotations

import re

from lore.text.markdown import COMMENT, QUOTE_LINE, STRUCK, CodeMap, sections

RELATED = "related"
WHAT = "what"
_NOISE = re.compile(r"\[\[[^\]\n]{0,300}\]\]|https?://\S+|\]\([^)\n]{0,2000}\)")  # bounded: linear


def _without_fences(body: str) -> str:
    for start, end in reversed(CodeMap(body).fences(body)):
        body = body[:start] + "\n\n" + body[end:]
    return body


def is_related(title: str) -> bool:
    """Whether a heading's title names the `## Related` section (links, not claims)."""
    return title.lower().split(" ", 1)[0].rstrip(":") == RELATED


def prose_sections(body: str) -> list[tuple[str, str]]:
    """(lower-case heading, prose) of each section that has prose; text before any
    heading has heading "". A `## Related` section and its sub-sections are left out."""
    body = COMMENT.sub(" ", STRUCK.sub(" ", _without_fences(body)))
    found: list[tuple[str, str]] = []
    title, start, skipping_from = "", 0, 0  # skipping_from: the level of a Related section
    for section in sections(body):
        if not skipping_from:
            found.append((title, body[start : section.start]))
        if skipping_from and section.level > skipping_from:
            continue
        skipping_from = section.level if section.level <= 2 and is_related(section.title) else 0
        title, start = section.title.lower(), section.content_start
    if not skipping_from:
        found.append((title, body[start:]))
    cleaned = [(name, _clean(text)) for name, text in found]
    return [(name, text) for name, text in cleaned if text.strip()]


def _clean(text: str) -> str:
    text = _NOISE.sub(" ", QUOTE_LINE.sub("", text))
    return text.replace("`", "").replace("**", "").replace("__", "")


def what_of(body: str) -> str:
    """The `## What` section's prose, or the body's first section when it has none."""
    parts = prose_sections(body)
    return next((text for name, text in parts if name == WHAT), parts[0][1] if parts else "")
