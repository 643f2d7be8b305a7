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


# Words an id never ends on when the title is cut short (`…-nginx-closed-a`).
_DANGLING = frozenset(
    "a an the of to in on for and or at by with from as into than that is are".split()  # noqa: SIM905
)


def slugify(text: str, max_words: int = 8) -> str:
    """Lower-case ASCII words joined by single hyphens, for a scope or a topic; a cut
    never leaves an article or a preposition dangling at the end."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    words = re.findall(r"[a-z0-9]+", ascii_text.lower())
    kept = words[:max_words]
    if len(words) > max_words:
        while len(kept) > 1 and kept[-1] in _DANGLING:
            kept.pop()
    return "-".join(kept)


def topic_slug(title: str, kind: str = "", max_words: int = 8) -> str:
    """The id's topic for a title (docs/note-format.md, "Ids").

    A title in a script with an ASCII form (English, accented Latin) gives its words. A
    title mostly in letters that have none — Chinese, Japanese, Korean, Cyrillic, Greek,
    Arabic, … — gives the few ASCII words it has (or the note's type) and a short hash
    of the title: stable (the same title always makes the same id), with no
    transliteration to get wrong.
    """
    slug = slugify(title, max_words)
    letters = [char for char in title if char.isalpha()]
    unmapped = sum(
        1 for char in letters if not unicodedata.normalize("NFKD", char).encode("ascii", "ignore")
    )
    if not letters or unmapped * 2 < len(letters):
        return slug
    import hashlib

    normal = " ".join(unicodedata.normalize("NFC", title).split())
    digest = hashlib.sha256(normal.encode("utf-8")).hexdigest()[:8]
    head = "-".join(slug.split("-")[:4]) if slug else slugify(kind, 2)
    return f"{head}-{digest}" if head else digest


def make_id(scope: str, topic: str, on: date) -> str:
    """Build an id from free text; raises ValueError when nothing usable is left."""
    scope_slug, topic_slug = slugify(scope, 3), slugify(topic)
    if not scope_slug or not topic_slug:
        raise ValueError("the scope and the topic need at least one letter or digit each")
    return f"{scope_slug}--{topic_slug}--{on.isoformat()}"
