"""A note as JSON: the one shape `lore show --json` and the MCP `get_note` tool print.

Every field is note-derived and untrusted, so each goes through the sanitizer here:
one-line fields through `sanitize_field`, the body through `sanitize_markdown`.
"""

from __future__ import annotations

from typing import Any

from lore.note.model import Note
from lore.sanitize import sanitize_field, sanitize_fields, sanitize_markdown
from lore.versioned import versioned


def _optional(value: str | None) -> str | None:
    return None if value is None else sanitize_field(value)


def note_json(
    note: Note,
    inactive_reason: str | None,
    *,
    vault: str | None = None,
    commit: str | None = None,
) -> dict[str, Any]:
    """The note's fields and body, sanitized, with where it was read from."""
    return versioned(
        {
            "id": sanitize_field(note.id),
            "path": sanitize_field(note.path),
            "title": sanitize_field(note.title),
            "type": sanitize_field(note.type),
            "tags": sanitize_fields(note.tags),
            "confidence": sanitize_field(note.confidence),
            "date": sanitize_field(note.date),
            "repo": sanitize_fields(note.repo),
            "services": sanitize_fields(note.services),
            "files_touched": sanitize_fields(note.files_touched),
            "author": _optional(note.author),
            "supersedes": sanitize_fields(note.supersedes),
            "depends_on": sanitize_fields(note.depends_on),
            "expires": _optional(note.expires),
            "source": _optional(note.source),
            "active": inactive_reason is None,
            "inactive_reason": _optional(inactive_reason),
            "vault": {"name": _optional(vault), "commit": commit},
            "body": sanitize_markdown(note.body),
        }
    )
