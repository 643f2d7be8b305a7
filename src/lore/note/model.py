"""The Note model: one reviewed piece of team knowledge (DESIGN.md 2.1)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

REQUIRED_FIELDS = ("title", "type", "tags", "confidence", "date")
OPTIONAL_FIELDS = (
    "repo",
    "services",
    "files_touched",
    "author",
    "supersedes",
    "depends_on",
    "expires",
    "source",
)
# The order fields are written in when lore renders a note.
FIELD_ORDER = (*REQUIRED_FIELDS, *OPTIONAL_FIELDS)
LIST_FIELDS = frozenset({"tags", "repo", "services", "files_touched", "supersedes", "depends_on"})
CONFIDENCE_LEVELS = ("high", "medium", "low")
MAX_TITLE_CHARS = 120
# `author`: a GitHub handle (an app's ends in [bot]).
_GITHUB_HANDLE = re.compile(r"^@?[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})(?:\[bot\])?$")


# ... or, when no handle is known, the name git records for the person ("Ada Lovelace").
_PERSON_NAME = re.compile(r"^[^\W\d_][\w .'-]{0,79}$")


def is_github_handle(value: str) -> bool:
    return bool(_GITHUB_HANDLE.match(value))


def is_author(value: str) -> bool:
    """A GitHub handle, or a git identity's name (what `lore remember` records without one)."""
    return is_github_handle(value) or bool(_PERSON_NAME.match(value))


@dataclass(frozen=True)
class Note:
    """A parsed note. Lists are tuples so that notes can be compared and hashed."""

    id: str
    title: str
    type: str
    tags: tuple[str, ...]
    confidence: str
    date: str  # ISO date, YYYY-MM-DD
    body: str
    repo: tuple[str, ...] = ()
    services: tuple[str, ...] = ()
    files_touched: tuple[str, ...] = ()
    author: str | None = None
    supersedes: tuple[str, ...] = ()
    depends_on: tuple[str, ...] = ()
    expires: str | None = None
    source: str | None = None
    path: str = ""  # relative to the vault root, e.g. notes/<id>.md
    extra: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    @property
    def summary(self) -> str:
        """The first line of `## What`, the note's one-line summary (or the title)."""
        return what_summary(self.body) or self.title


def what_summary(body: str) -> str | None:
    """The first non-empty line under the `## What` heading, if there is one."""
    lines = body.splitlines()
    for index, line in enumerate(lines):
        if line.strip().lower() == "## what":
            for candidate in lines[index + 1 :]:
                stripped = candidate.strip()
                if stripped.startswith("#"):
                    return None
                if stripped:
                    return stripped
            return None
    return None
