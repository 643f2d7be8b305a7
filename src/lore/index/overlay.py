"""An index of the vault as a review sees it: another commit, or notes added and hidden.

The curator reads the vault a change would join through an index connection. When
the vault's own index reflects another commit, the caller opens a transaction it
never commits and brings the connection's view there: `apply_changes` applies `git
diff` of the two commits (`snapshot.changed_notes`: only the notes that differ are
parsed), `replace_files` does the same for notes read from the working tree, `hide`
takes out the notes under review and `insert_note` puts notes in. Rolling back leaves
the file as it was, so the index keeps serving recall the reviewed branch's tip.
`build_in_memory` builds the same tables in memory from a snapshot's files, for when
the file cannot be used.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from pathlib import Path

from lore.index.fill import INSERT_NOTE, delete_paths, insert_notes, note_row
from lore.index.schema import FTS_COLUMNS, create_schema
from lore.note.model import Note
from lore.vault.snapshot import Snapshot

_FTS_INSERT = (
    f"INSERT INTO notes_fts(rowid, {', '.join(FTS_COLUMNS)}) "
    f"SELECT rowid, {', '.join(FTS_COLUMNS)} FROM notes WHERE rowid = ?"
)


def apply_changes(
    conn: sqlite3.Connection, root: Path, snapshot: Snapshot, changes: dict[str, str | None]
) -> None:
    """Apply `snapshot.changed_notes` (path -> new signature, None when gone) to the notes."""
    delete_paths(conn, sorted(changes))
    present = {path: sig for path, sig in changes.items() if sig is not None}
    insert_notes(conn, root, snapshot, present, None, fts=True)


def replace_files(conn: sqlite3.Connection, root: Path, paths: Iterable[str]) -> None:
    """Make these note paths what the working tree holds now: a regular file is read, and
    anything else (gone, a link, a folder) leaves the notes."""
    wanted = sorted(set(paths))
    delete_paths(conn, wanted)
    present = {path: "" for path in wanted if _regular_file(root / path)}
    insert_notes(conn, root, Snapshot("files", ""), present, None, fts=True)


def _regular_file(path: Path) -> bool:
    return path.is_file() and not path.is_symlink()


def hide(conn: sqlite3.Connection, paths: Iterable[str]) -> None:
    delete_paths(conn, sorted(set(paths)))


def insert_note(conn: sqlite3.Connection, note: Note, signature: str) -> int:
    """Insert one note (its id must be free) into the notes and the full-text table."""
    cursor = conn.execute(INSERT_NOTE, note_row(note, signature))
    rowid = int(cursor.lastrowid or 0)
    conn.execute(_FTS_INSERT, (rowid,))
    return rowid


def build_in_memory(root: Path, snapshot: Snapshot, wanted: dict[str, str]) -> sqlite3.Connection:
    """An in-memory index of the snapshot's notes `wanted` (path -> signature), statuses aside.

    The notes are parsed once, then the full-text table is built in one pass, as a
    rebuild of the vault's index does.
    """
    conn = sqlite3.connect(":memory:", isolation_level=None)
    try:
        create_schema(conn)
        conn.execute("BEGIN")
        insert_notes(conn, root, snapshot, wanted, None, fts=False)
        conn.execute("INSERT INTO notes_fts(notes_fts) VALUES ('rebuild')")
        conn.execute("COMMIT")
    except BaseException:
        conn.close()
        raise
    return conn
