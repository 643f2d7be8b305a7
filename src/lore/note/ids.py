"""Note ids: `{scope}--{topic}--{YYYY-MM-DD}` (DESIGN.md 2.1) and how to make one."""

from __future__ import annotations

import re
import unicodedata
from datetime import date

_WORD = r"[a-z0-9]+(?:-[a-z0-9]+)*"
ID_PATTERN = re.compile(
    rf"^(?P<scope>{_WORD})--(?P<topic>{_WORD})--(?P<date>\d{{4}}-\d{{2}}-\d{{2}})$"
)
MAX_ID_LENGTH = 120


def is_valid_id(text: str) -> bool:
    """True when `text` is a well-formed note id with a real calendar date."""
    if len(text) > MAX_ID_LENGTH:
        return False
    match = ID_PATTERN.match(text)
    if not match:
        return False
    try:
        date.fromisoformat(match["date"])
    except ValueError:
        return False
    return True


def slugify(text: str, max_words: int = 8) -> str:
    """Lower-case ASCII words joined by single hyphens, for a scope or a topic."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    words = re.findall(r"[a-z0-9]+", ascii_text.lower())
    return "-".join(words[:max_words])


def make_id(scope: str, topic: str, on: date) -> str:
    """Build an id from free text; raises ValueError when nothing usable is left."""
    scope_slug, topic_slug = slugify(scope, 3), slugify(topic)
    if not scope_slug or not topic_slug:
        raise ValueError("the scope and the topic need at least one letter or digit each")
    return f"{scope_slug}--{topic_slug}--{on.isoformat()}"
