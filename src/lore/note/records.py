"""Which record a note stands for: the number a team gave the decision it holds.

Imported decision records keep their number in one of two places: the id's topic
(`adr-015-…`, `0002-…`, `2023-04-26-023-…` after a date), or, when the import named the
note after its title, the file its `source:` links to (`…/docs/adr/0015-use-x.md`).
"Supersedes ADR 15" names the note whose record number is 15 (`record_number`).
"""

from __future__ import annotations

import re

_TOPIC_NUMBER = re.compile(r"^(?:adr-?|ad-?)?0*(\d{1,5})$")
_TOPIC_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}-")  # "2023-04-26-023-local-state": a date first
_SOURCE_TAIL = re.compile(r"[?#].*$|/+$")  # a URL's query, anchor or last slash
_SOURCE_SUFFIX = re.compile(r"(?:\.html?)?(?:\.md|\.markdown)?$")
_WORD = re.compile(r"[a-z0-9]+")


def number_of(note_id: str) -> int | None:
    """The decision number an id's topic starts with (`adr-015-…`, `0002-…`, after a date:
    `2023-04-26-023-…`), if any."""
    parts = note_id.split("--")
    if len(parts) != 3:
        return None
    return _leading_number(parts[1])


def _leading_number(topic: str) -> int | None:
    words = _TOPIC_DATE.sub("", topic).split("-")
    for size in (1, 2):
        match = _TOPIC_NUMBER.match("-".join(words[:size]))
        if match:
            return int(match[1])
    return None


def record_number(note_id: str, source: str | None = None) -> int | None:
    """The number of the record a note stands for: its id's (`number_of`), else the number
    the file its `source:` names starts with — an imported ADR keeps its title, not its
    number, in its id, and "supersedes ADR 15" means the note whose source is
    `…/0015-use-x.md` (`…/adr-015-….md`, `…/2023-04-26-023-….md`)."""
    found = number_of(note_id)
    if found is not None or not source:
        return found
    name = _SOURCE_TAIL.sub("", source.lower()).rsplit("/", 1)[-1]
    name = _SOURCE_SUFFIX.sub("", name)
    return _leading_number("-".join(_WORD.findall(name)))
