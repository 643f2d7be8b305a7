"""Read whole notes back from the index (the committed state), by id.

Through `read_index`, like every reader: a damaged index is rebuilt first, and an
index that cannot be written is replaced by one of the committed files in memory.
"""

from __future__ import annotations

import difflib
import json
import sqlite3
from pathlib import Path

from lore.index.build import IndexState
from lore.index.read import read_index
from lore.note.model import Note

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_COLUMNS = (
    "id, path, title, type, tag_list, confidence, date, repo, services, files_touched, "
    "author, supersedes, depends_on, expires, source, body, inactive_reason"
)


def get_note(
    root: Path, note_id: str, *, notices: list[str] | None = None
) -> tuple[Note, str | None] | None:
    """The note and why it is inactive (None when active), or None if there is no such id."""
    return get_notes(root, [note_id], notices=notices).get(note_id)


def get_notes(
    root: Path, note_ids: list[str], *, notices: list[str] | None = None
) -> dict[str, tuple[Note, str | None]]:
    """Each of these notes that exists, by id, with why it is inactive (None when active)."""

    def read(conn: sqlite3.Connection, _: IndexState) -> list[Any]:
        return conn.execute(
            f"SELECT {_COLUMNS} FROM notes WHERE id IN (SELECT value FROM json_each(?))",
            (json.dumps(note_ids),),
        ).fetchall()

    return {
        row[0]: (_note(row), row[16]) for row in read_index(root, read, kept=True, notices=notices)
    }


def _note(row: Any) -> Note:
    return Note(
        id=row[0],
        path=row[1],
        title=row[2],
        type=row[3],
        tags=tuple(json.loads(row[4])),
        confidence=row[5],
        date=row[6],
        repo=tuple(json.loads(row[7])),
        services=tuple(json.loads(row[8])),
        files_touched=tuple(p for p in row[9].split("\n") if p),
        author=row[10],
        supersedes=tuple(json.loads(row[11])),
        depends_on=tuple(json.loads(row[12])),
        expires=row[13],
        source=row[14],
        body=row[15],
    )


def similar_ids(
    root: Path, note_id: str, limit: int = 3, *, notices: list[str] | None = None
) -> list[str]:
    def read(conn: sqlite3.Connection, _: IndexState) -> list[str]:
        return [r[0] for r in conn.execute("SELECT id FROM notes")]

    ids = read_index(root, read, kept=True, notices=notices)
    starting = sorted(found for found in ids if found.startswith(note_id))
    if starting:  # `lore show billing--` names the ids it starts
        return starting[: max(limit, 10)]
    return difflib.get_close_matches(note_id, ids, n=limit, cutoff=0.6)
