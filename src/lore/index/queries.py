"""Questions the curator asks an index connection: notes by id, term statistics, BM25 search.

Each function reads one connection (the vault's index, or one built in memory) and
returns plain values; none of them writes to the notes. `document_frequencies` reads
FTS5's own statistics through an `fts5vocab` table made in the connection's `temp`
schema, so it works on an index opened for reading. `search` runs one FTS5 `MATCH`
ranked by `bm25()` with a weight per column (`schema.FTS_COLUMNS`: title, tags, body,
files_touched). `phrase` and `any_of` quote words for a `MATCH` expression.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Sequence

from lore.note.model import Note

VOCABULARY = "lore_vocabulary"  # the fts5vocab table, in the temp schema
NOTE_COLUMNS = (
    "rowid, id, path, title, type, tag_list, confidence, date, repo, services, "
    "files_touched, author, supersedes, depends_on, expires, source, body"
)
_CHUNK = 500  # ids or terms per `IN (...)`, well under SQLite's variable limit

Row = tuple[object, ...]


def note_from_row(row: Row) -> Note:
    """The `Note` an index row (selected with `NOTE_COLUMNS`) holds."""
    return Note(
        id=str(row[1]),
        path=str(row[2]),
        title=str(row[3]),
        type=str(row[4]),
        tags=tuple(json.loads(str(row[5]))),
        confidence=str(row[6]),
        date=str(row[7]),
        repo=tuple(json.loads(str(row[8]))),
        services=tuple(json.loads(str(row[9]))),
        files_touched=tuple(path for path in str(row[10]).split("\n") if path),
        author=None if row[11] is None else str(row[11]),
        supersedes=tuple(json.loads(str(row[12]))),
        depends_on=tuple(json.loads(str(row[13]))),
        expires=None if row[14] is None else str(row[14]),
        source=None if row[15] is None else str(row[15]),
        body=str(row[16]),
    )


def _chunks(values: Sequence[str]) -> Iterable[Sequence[str]]:
    for start in range(0, len(values), _CHUNK):
        yield values[start : start + _CHUNK]


def rows_by_rowid(conn: sqlite3.Connection, rowids: Iterable[int]) -> dict[int, Row]:
    wanted = sorted(set(rowids))
    found: dict[int, Row] = {}
    for start in range(0, len(wanted), _CHUNK):
        chunk = wanted[start : start + _CHUNK]
        marks = ",".join("?" * len(chunk))
        query = f"SELECT {NOTE_COLUMNS} FROM notes WHERE rowid IN ({marks})"
        for row in conn.execute(query, chunk):
            found[int(row[0])] = tuple(row)
    return found


def row_of_id(conn: sqlite3.Connection, note_id: str) -> Row | None:
    row = conn.execute(f"SELECT {NOTE_COLUMNS} FROM notes WHERE id = ?", (note_id,)).fetchone()
    return None if row is None else tuple(row)


def ids_and_rowids(conn: sqlite3.Connection) -> list[tuple[str, int]]:
    """(id, rowid) of every note, by id."""
    return [
        (str(nid), int(rowid))
        for nid, rowid in conn.execute("SELECT id, rowid FROM notes ORDER BY id")
    ]


def count_notes(conn: sqlite3.Connection) -> int:
    return int(conn.execute("SELECT count(*) FROM notes").fetchone()[0])


def linked_notes(
    conn: sqlite3.Connection,
) -> list[tuple[int, str, list[str], list[str], str | None]]:
    """(rowid, id, supersedes, depends_on, expires) of every note that links or expires:
    the only notes whose fields can make a note inactive."""
    rows = conn.execute(
        "SELECT rowid, id, supersedes, depends_on, expires FROM notes "
        "WHERE supersedes != '[]' OR depends_on != '[]' OR expires IS NOT NULL"
    )
    return [
        (int(rowid), str(nid), json.loads(sup), json.loads(dep), expires)
        for rowid, nid, sup, dep, expires in rows
    ]


def rowids_of_ids(conn: sqlite3.Connection, ids: Iterable[str]) -> dict[str, int]:
    """id -> rowid for those of `ids` that are notes of the index."""
    wanted = sorted(set(ids))
    found: dict[str, int] = {}
    for chunk in _chunks(wanted):
        marks = ",".join("?" * len(chunk))
        query = f"SELECT id, rowid FROM notes WHERE id IN ({marks})"
        found.update((str(nid), int(rowid)) for nid, rowid in conn.execute(query, list(chunk)))
    return found


def numbered_notes(conn: sqlite3.Connection) -> list[tuple[str, int, str | None]]:
    """(id, rowid, source) of the notes whose topic, or the file their `source` names,
    starts with a number (`adr-015-…`, `0015-…`, `…/0015-use-x.md`): the notes a
    "supersedes ADR 15" may mean."""
    rows = conn.execute(
        "SELECT id, rowid, source FROM notes WHERE id GLOB '*--[0-9]*' "
        "OR id GLOB '*--adr[0-9-]*' OR id GLOB '*--ad-[0-9]*' OR source GLOB '*/[0-9]*' "
        "OR source GLOB '*/[Aa][Dd][Rr][0-9_-]*'"
    )
    return [(str(nid), int(rowid), None if src is None else str(src)) for nid, rowid, src in rows]


def paths_of_ids(conn: sqlite3.Connection, ids: Iterable[str]) -> set[str]:
    """The paths of the notes with these ids."""
    found: set[str] = set()
    for chunk in _chunks(sorted(set(ids))):
        marks = ",".join("?" * len(chunk))
        query = f"SELECT path FROM notes WHERE id IN ({marks})"
        found.update(str(path) for (path,) in conn.execute(query, list(chunk)))
    return found


def skipped_notes(conn: sqlite3.Connection) -> list[tuple[str, str]]:
    """(path, signature) of the note files the index could not take (see `fill.insert_notes`)."""
    return [(str(p), str(s)) for p, s in conn.execute("SELECT path, signature FROM skipped")]


def document_frequencies(conn: sqlite3.Connection, terms: Iterable[str]) -> dict[str, int]:
    """How many notes use each term (an FTS5 token: a porter stem) in their title or body.

    FTS5 counts documents per column; a note that has a word in its title nearly always
    repeats it in the body, so the larger of the two counts stands for both (tags and
    file paths are not prose and are left out). Absent terms are left out.
    """
    wanted = sorted(set(terms))
    if not wanted:
        return {}
    conn.execute(
        f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.{VOCABULARY} "
        "USING fts5vocab(main, notes_fts, col)"
    )
    found: dict[str, int] = {}
    for chunk in _chunks(wanted):
        marks = ",".join("?" * len(chunk))
        query = (
            f"SELECT term, doc FROM temp.{VOCABULARY} "
            f"WHERE term IN ({marks}) AND col IN ('title', 'body')"
        )
        for term, doc in conn.execute(query, list(chunk)):
            found[str(term)] = max(found.get(str(term), 0), int(doc))
    return found


def phrase(words: Iterable[str]) -> str:
    """Words as one quoted FTS5 phrase (`"a b c"`)."""
    return '"' + " ".join(word.replace('"', '""') for word in words) + '"'


def any_of(words: Iterable[str]) -> str:
    """Words as an FTS5 OR of quoted words (`"a" OR "b"`)."""
    return " OR ".join(phrase([word]) for word in words)


def search(
    conn: sqlite3.Connection,
    match: str,
    weights: Sequence[float],
    *,
    limit: int,
    offset: int = 0,
) -> list[tuple[int, float]]:
    """(rowid, score) of the notes matching `match`, best first, ties by note id; the score
    is BM25 with a weight per column, made positive (higher is better)."""
    marks = ", ".join(str(float(weight)) for weight in weights)
    query = (
        f"SELECT notes_fts.rowid, bm25(notes_fts, {marks}) AS score FROM notes_fts "
        "JOIN notes ON notes.rowid = notes_fts.rowid "
        "WHERE notes_fts MATCH ? ORDER BY score, notes.id LIMIT ? OFFSET ?"
    )
    rows = conn.execute(query, (match, limit, offset))
    return [(int(rowid), -float(score)) for rowid, score in rows]


def matching(conn: sqlite3.Connection, match: str) -> list[int]:
    """Every rowid matching `match`, unranked."""
    rows = conn.execute("SELECT rowid FROM notes_fts WHERE notes_fts MATCH ?", (match,))
    return [int(rowid) for (rowid,) in rows]
