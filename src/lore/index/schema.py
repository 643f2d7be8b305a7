"""The index schema. The index is a cache: a schema change bumps `SCHEMA_VERSION` and rebuilds.

`notes` holds one row per readable note with its frontmatter; `notes_fts` is an
external-content FTS5 table over it (no second copy of the text), tokenised with
porter stemming over unicode61. `meta` records what the index reflects: the vault
commit (or file digest), the date statuses were computed for, taxonomy aliases, the
taxonomy's names (`vocabulary`, for checking recall's filters) and recall settings, so
recall reads nothing but this file.
"""

from __future__ import annotations

import sqlite3

APPLICATION_ID = 0x4C4F5245  # "LORE"
SCHEMA_VERSION = 2  # 2: the `vocabulary` meta row and the `notes_filters` index

FTS_COLUMNS = ("title", "tags", "body", "files_touched")
# The meta row of the taxonomy's names: JSON {"types", "repos", "tags": [names],
# "aliases": {alias: [names]}}, or null when the vault has no taxonomy.
VOCABULARY_KEY = "vocabulary"

# Every schema object a sound index has, FTS5's shadow tables and SQLite's own indexes
# for UNIQUE and PRIMARY KEY included: one dropped table (by hand, or by damage that
# lost its schema row) makes the file unusable, and anything else — a trigger, a view,
# another table — was not made by lore, so the file is not trusted (rebuilt). A change
# to SCHEMA changes this set (tests/test_index.py checks the two agree).
OBJECTS = frozenset(
    {
        ("table", "meta"),
        ("table", "notes"),
        ("table", "skipped"),
        ("table", "notes_fts"),
        ("table", "notes_fts_data"),
        ("table", "notes_fts_idx"),
        ("table", "notes_fts_docsize"),
        ("table", "notes_fts_config"),
        ("index", "notes_path"),
        ("index", "notes_filters"),
        ("index", "sqlite_autoindex_meta_1"),
        ("index", "sqlite_autoindex_notes_1"),
        ("index", "sqlite_autoindex_skipped_1"),
    }
)
TABLES = frozenset(name for kind, name in OBJECTS if kind == "table")

SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE notes (
    rowid INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    path TEXT NOT NULL,
    title TEXT NOT NULL,
    type TEXT NOT NULL,
    tags TEXT NOT NULL,            -- tag names as words, for FTS
    tag_list TEXT NOT NULL,        -- JSON list of full tags
    confidence TEXT NOT NULL,
    date TEXT NOT NULL,
    repo TEXT NOT NULL,            -- JSON list, [] = org-wide
    services TEXT NOT NULL,        -- JSON list
    files_touched TEXT NOT NULL,   -- one path per line, for FTS
    author TEXT,
    supersedes TEXT NOT NULL,      -- JSON list of ids
    depends_on TEXT NOT NULL,      -- JSON list of ids
    expires TEXT,
    source TEXT,
    summary TEXT NOT NULL,
    body TEXT NOT NULL,
    signature TEXT NOT NULL,       -- git blob sha, or mtime_ns:size without git
    active INTEGER NOT NULL DEFAULT 1,
    inactive_reason TEXT,
    superseded_by TEXT
);
CREATE INDEX notes_path ON notes(path);
CREATE INDEX notes_filters ON notes(type, tag_list);  -- recall's --type and --tag, read alone
CREATE TABLE skipped (path TEXT PRIMARY KEY, signature TEXT NOT NULL, problem TEXT NOT NULL);
"""

FTS_SCHEMA = """
CREATE VIRTUAL TABLE notes_fts USING fts5(
    title, tags, body, files_touched,
    content='notes', content_rowid='rowid',
    tokenize='porter unicode61 remove_diacritics 2'
);
"""


def fts5_available() -> bool:
    """Whether this Python's SQLite has FTS5: asked of its compile options first, which
    costs a third of creating a table (it is asked on every recall); only an SQLite
    built without the option is probed by creating one (FTS5 may be registered else)."""
    try:
        conn = sqlite3.connect(":memory:")
        try:
            (built_in,) = conn.execute("SELECT sqlite_compileoption_used('ENABLE_FTS5')").fetchone()
            if not built_in:
                conn.execute("CREATE VIRTUAL TABLE t USING fts5(x)")
        finally:
            conn.close()
    except sqlite3.Error:
        return False
    return True


def create_schema(conn: sqlite3.Connection, *, fts: bool = True) -> None:
    """Drop whatever is in the file and create our tables, inside the caller's transaction.

    Without `fts` the full-text table is left out: an in-memory index for reading notes
    by id where this Python's SQLite has no FTS5.
    """
    rows = conn.execute(
        "SELECT type, name FROM sqlite_master WHERE type IN ('table', 'view') "
        "AND name NOT LIKE 'sqlite_%'"
    ).fetchall()
    virtual = [name for kind, name in rows if kind == "table" and _is_virtual(conn, name)]
    for name in virtual:
        conn.execute(f'DROP TABLE IF EXISTS "{_quote(name)}"')
    for kind, name in conn.execute(
        "SELECT type, name FROM sqlite_master WHERE type IN ('table', 'view') "
        "AND name NOT LIKE 'sqlite_%'"
    ).fetchall():
        conn.execute(f'DROP {kind.upper()} IF EXISTS "{_quote(name)}"')
    text = SCHEMA + FTS_SCHEMA if fts else SCHEMA
    without_comments = "\n".join(line.split("--", 1)[0] for line in text.splitlines())
    for statement in without_comments.split(";"):
        if statement.strip():
            conn.execute(statement)
    conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")


def _quote(name: str) -> str:
    return name.replace('"', '""')


def _is_virtual(conn: sqlite3.Connection, name: str) -> bool:
    row = conn.execute("SELECT sql FROM sqlite_master WHERE name = ?", (name,)).fetchone()
    return bool(row and row[0] and row[0].upper().startswith("CREATE VIRTUAL TABLE"))


def schema_matches(conn: sqlite3.Connection) -> bool:
    """Ours, current and whole: application id, user version, a meta row, and exactly
    the schema objects lore creates (`OBJECTS`: every table, and no trigger, view or
    other object).

    Cheap enough for every open (a few small reads of pages SQLite reads anyway); it
    cannot see damage inside a table, which shows as an error when that page is read.
    """
    app_id = conn.execute("PRAGMA application_id").fetchone()[0]
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if app_id != APPLICATION_ID or version != SCHEMA_VERSION:
        return False
    return schema_objects(conn) == OBJECTS and _schema_row(conn)


def schema_objects(conn: sqlite3.Connection) -> frozenset[tuple[str, str]]:
    """(type, name) of every object in the file's schema: one read of `sqlite_master`."""
    return frozenset(conn.execute("SELECT type, name FROM sqlite_master").fetchall())


def missing_tables(conn: sqlite3.Connection) -> list[str]:
    names = {name for kind, name in schema_objects(conn) if kind == "table"}
    return sorted(TABLES - names)


def foreign_objects(conn: sqlite3.Connection) -> list[str]:
    """Schema objects lore did not create (`trigger notes_au`, `view v`), sorted.

    Names come from a file lore did not write, so they are shown with anything but
    letters, digits, `_`, `.` and `-` replaced, and cut to 60 characters.
    """
    return sorted(f"{_shown(kind)} {_shown(name)}" for kind, name in schema_objects(conn) - OBJECTS)


def _shown(name: object) -> str:
    text = str(name)[:60]
    return "".join(c if c.isascii() and (c.isalnum() or c in "_.-") else "?" for c in text)


def _schema_row(conn: sqlite3.Connection) -> bool:
    row = conn.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
    return bool(row and row[0] == str(SCHEMA_VERSION))
