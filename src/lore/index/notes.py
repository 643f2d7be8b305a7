"""Read whole notes back from the index (the committed state), by id."""

from __future__ import annotations

import difflib
import json
from pathlib import Path

from lore.index.build import open_index
from lore.note.model import Note


def get_note(root: Path, note_id: str) -> tuple[Note, str | None] | None:
    """The note and why it is inactive (None when active), or None if there is no such id."""
    conn, _ = open_index(root)
    try:
        row = conn.execute(
            "SELECT id, path, title, type, tag_list, confidence, date, repo, services, "
            "files_touched, author, supersedes, depends_on, expires, source, body, "
            "inactive_reason FROM notes WHERE id = ?",
            (note_id,),
        ).fetchone()
    finally:
        conn.close()
    if row is None:
        return None
    note = Note(
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
    return note, row[16]


def similar_ids(root: Path, note_id: str, limit: int = 3) -> list[str]:
    conn, _ = open_index(root)
    try:
        ids = [r[0] for r in conn.execute("SELECT id FROM notes")]
    finally:
        conn.close()
    return difflib.get_close_matches(note_id, ids, n=limit, cutoff=0.6)
