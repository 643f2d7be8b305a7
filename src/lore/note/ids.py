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
# What any note file's name must be for lore to serve it, reviewed or not: it becomes an id
# that agents and shells pass around, so no leading '-' (an option), no '..', no spaces,
# no characters that hide or reorder text. The curator asks for `ID_PATTERN` on top.
_SAFE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


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


def is_safe_name(text: str) -> bool:
    """True when a note file's name (without .md) can be served as an id at all."""
    return len(text) <= MAX_ID_LENGTH and bool(_SAFE_NAME.match(text)) and ".." not in text


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
