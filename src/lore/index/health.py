"""What can be wrong with an index file, how to tell, and moving a bad one aside.

The index is a cache of the committed notes, so lore never repairs it: a file that is
not a sound index of ours is moved aside and built again. Every error SQLite raises
on the index falls into one of these kinds (`classify`), decided here once for every
reader and writer (`lore.index.build` and `lore.index.read` act on them):

- `DAMAGED`: malformed pages, not a database, a missing table, a directory where the
  file should be, text that is not UTF-8: move it aside (`move_aside`) and rebuild.
- `UNWRITABLE`: a full disk, a read-only file system or folder, no permission, an I/O
  error: the index cannot be written. Readers answer from the committed files.
- `BUSY`: another process holds SQLite's lock past the busy timeout.
- `BUG`: a misuse of the API: lore's own mistake, not the file's. Raised as it is;
  rebuilding would not help.
- `UNSURE`: SQLite's generic error ("no such table", a full-text query it cannot
  parse): damage only if the file's schema is no longer whole, which the caller
  checks (`lore.index.build`); otherwise the query was at fault, a `BUG`.

Python 3.11+ gives SQLite's error code; 3.10 only its message, which these codes'
messages are matched on.

What is checked when (docs/index.md, "Damage"): every open checks the header, the
schema version and that the schema holds exactly lore's objects (`schema_matches`,
well under a millisecond: a missing table, or a trigger or view lore did not create,
is damage); damage inside a table shows as an error when a command reads the
damaged page; `lore index --check` and `lore doctor` run SQLite's and FTS5's full
integrity checks (`integrity_problems`), which read every page.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from lore.index.schema import APPLICATION_ID, SCHEMA_VERSION, foreign_objects, missing_tables
from lore.record import Record

DAMAGED = "damaged"
UNWRITABLE = "unwritable"
BUSY = "busy"
BUG = "bug"
UNSURE = "unsure"

_UNWRITABLE_CODES = {
    3,  # SQLITE_PERM
    8,  # SQLITE_READONLY
    10,  # SQLITE_IOERR
    13,  # SQLITE_FULL
    14,  # SQLITE_CANTOPEN
    22,  # SQLITE_NOLFS
    23,  # SQLITE_AUTH
}
_BUSY_CODES = {5, 6, 7, 9}  # BUSY, LOCKED, NOMEM, INTERRUPT: try again later, keep the file
_UNWRITABLE_WORDS = (
    "disk is full",
    "readonly database",
    "read-only",
    "unable to open",
    "disk i/o error",
    "not authorized",
    "permission",
)
_BUSY_WORDS = ("database is locked", "table is locked", "out of memory", "interrupted")
# "could not decode to utf-8": Python's own error for text lore never wrote (it writes
# only UTF-8), in a page SQLite finds sound: damage as far as lore can tell.
_DAMAGED_WORDS = (
    "malformed",
    "not a database",
    "vtable constructor failed",
    "could not decode to utf-8",
)
SQLITE_ERROR = 1

SUFFIXES = ("", "-wal", "-shm", "-journal")
FULL_BELOW_BYTES = 64 * 1024  # less free space than this: a write failed for want of it
ASIDE_SUFFIX = ".aside"


def classify(exc: BaseException) -> str:
    """Which kind of trouble an error on the index file is (see the module docstring)."""
    if isinstance(exc, OSError):
        return UNWRITABLE
    if isinstance(exc, (sqlite3.ProgrammingError, sqlite3.InterfaceError)):
        return BUG
    code = getattr(exc, "sqlite_errorcode", None)
    if isinstance(code, int):
        primary = code & 0xFF
        if primary in _UNWRITABLE_CODES:
            return UNWRITABLE
        if primary in _BUSY_CODES:
            return BUSY
        return UNSURE if primary == SQLITE_ERROR else DAMAGED
    message = str(exc).lower()
    if any(word in message for word in _UNWRITABLE_WORDS):
        return UNWRITABLE
    if any(word in message for word in _BUSY_WORDS):
        return BUSY
    if any(word in message for word in _DAMAGED_WORDS):
        return DAMAGED
    return UNSURE


def describe(exc: BaseException) -> str:
    """The error in a few words for a message: SQLite's own text, or the OS's."""
    if isinstance(exc, OSError):
        return exc.strerror or str(exc)
    return str(exc) or type(exc).__name__


def why_unwritable(folder: Path, why: str) -> str:
    """`why`, plus "the disk is full" when it is (SQLite says only "disk I/O error")."""
    return f"the disk is full ({why})" if disk_full(folder) else why


def disk_full(folder: Path) -> bool:
    """Less than `FULL_BELOW_BYTES` free where `folder` is (False when it cannot tell)."""
    try:
        stat = os.statvfs(folder)
    except (OSError, AttributeError):  # no statvfs on Windows
        return False
    return stat.f_bavail * stat.f_frsize < FULL_BELOW_BYTES


def file_problem(path: Path) -> str | None:
    """Why whatever sits at `path` cannot be opened as a database file, or None.

    A symbolic link is never followed: lore's index is a file lore made, in a folder
    no commit reaches, so a link there points at a file lore did not make.
    """
    try:
        if path.is_symlink():
            return "it is a symbolic link, which lore never follows"
        if not path.exists():
            return None
        if path.is_dir():
            return "a folder is where the index file should be"
        if not path.is_file():
            return "it is not a regular file"
    except OSError:
        return None  # cannot look: opening it will say why
    return None


def move_aside(path: Path) -> Path:
    """Rename the index and its WAL, shared-memory and journal files to `<name>.aside…`.

    Renamed, not deleted: nothing is lost, no space is needed, and the bad file stays
    for a bug report until the next one replaces it. The WAL goes with its database,
    so a new index never replays an old index's WAL (SQLite does not check that a WAL
    belongs to its file). A reader that still has the old file open keeps reading it
    and finds the new index at its next open; SQLite does not checkpoint or delete a
    WAL when its database was moved. Raises OSError when the folder is not writable.
    """
    aside = path.with_name(path.name + ASIDE_SUFFIX)
    for suffix in SUFFIXES:
        target = Path(f"{aside}{suffix}")
        if target.is_dir() and not target.is_symlink():
            import shutil

            shutil.rmtree(target)
        elif target.exists() or target.is_symlink():
            target.unlink()
    for suffix in SUFFIXES:  # the database first: a new reader then finds no file at all
        source = Path(f"{path}{suffix}")
        if source.exists() or source.is_symlink():
            source.replace(f"{aside}{suffix}")
    return aside


def integrity_problems(conn: sqlite3.Connection) -> list[str]:
    """Every problem SQLite's and FTS5's full checks find; [] for a sound index.

    Reads every page: seconds on a large index, so only `lore index --check` and
    `lore doctor` run it. FTS5's check runs as `('integrity-check', 1)`, which also
    catches a full-text index out of step with its notes; it is an INSERT, run in a
    transaction that is rolled back. An error that stops a check is a problem too.
    """
    problems: list[str] = []
    try:
        missing = missing_tables(conn)
        if missing:
            return [f"missing table(s): {', '.join(missing)}"]
        rows = conn.execute("PRAGMA quick_check").fetchall()
    except sqlite3.DatabaseError as exc:
        return [describe(exc)]
    if rows != [("ok",)]:
        problems.extend(str(r[0]) for r in rows)
    try:
        conn.execute("SAVEPOINT lore_check")
        try:
            conn.execute("INSERT INTO notes_fts(notes_fts, rank) VALUES ('integrity-check', 1)")
        finally:
            conn.execute("ROLLBACK TO lore_check")
            conn.execute("RELEASE lore_check")
    except sqlite3.DatabaseError as exc:
        if classify(exc) == UNWRITABLE:
            pass  # a read-only file: SQLite's own check above has run
        else:
            problems.append(f"full-text index: {describe(exc)}")
    return problems


class IndexHealth(Record):
    """What `inspect_index` found.

    `state` is "missing", "sound", "old" (an older lore's index), "damaged", or
    "unreadable" (the file may be sound, but could not be read: no permission, locked).
    """

    __slots__ = ("notes", "path", "problems", "state", "version")

    def __init__(
        self,
        path: Path,
        state: str,
        problems: list[str] | None = None,
        *,
        notes: int | None = None,
        version: str | None = None,
    ) -> None:
        self.path = path
        self.state = state
        self.problems = problems or []
        self.notes = notes
        self.version = version

    @property
    def damaged(self) -> bool:
        return self.state == "damaged"


def inspect_index(path: Path) -> IndexHealth:
    """The index file as it is, fully checked, without creating or changing it.

    Missing, or an older lore's index (rebuilt at the next use), are not damage;
    anything else that is not a sound current index of ours is. When the file cannot
    even be read (no permission), the reason is a problem too.
    """
    if not path.exists():
        return IndexHealth(path, "missing")
    problem = file_problem(path)
    if problem is not None:
        return IndexHealth(path, "damaged", [problem])
    try:
        conn = connect_existing(path)
    except sqlite3.Error as exc:
        return IndexHealth(path, _state_of(exc), [describe(exc)])
    try:
        return _inspect(path, conn)
    except sqlite3.DatabaseError as exc:
        return IndexHealth(path, _state_of(exc), [describe(exc)])
    finally:
        conn.close()


def foreign_problem(foreign: list[str]) -> str:
    shown = ", ".join(foreign[:3]) + (f" and {len(foreign) - 3} more" if len(foreign) > 3 else "")
    return f"it holds schema objects lore did not create ({shown})"


def _state_of(exc: BaseException) -> str:
    return "damaged" if classify(exc) == DAMAGED else "unreadable"


def connect_existing(
    path: Path, *, timeout: float = 10.0, read_only: bool = False
) -> sqlite3.Connection:
    """A hardened connection to the database file at `path`, which must exist: never
    creates one.

    Read and write where the file allows it, read-only where it does not (SQLite's
    own fallback), or read-only when asked. Only the index build creates the file,
    under the index lock.
    """
    mode = "ro" if read_only else "rw"
    conn = sqlite3.connect(
        f"{path.absolute().as_uri()}?mode={mode}", uri=True, isolation_level=None, timeout=timeout
    )
    return harden(conn)


def harden(conn: sqlite3.Connection) -> sqlite3.Connection:
    """What every connection to an index on disk gets before it reads a page.

    `trusted_schema = OFF`: SQL functions with side effects and virtual tables other
    than the ones the schema itself names may not be used by a view or trigger in the
    file. Defensive mode (Python 3.12+ exposes it; older Pythons skip it) forbids the
    statements that can corrupt a database on purpose (`writable_schema`, writes to
    shadow tables). Together with `schema_matches` refusing any object lore did not
    create, a file lore did not write cannot run anything when it is read.
    """
    conn.execute("PRAGMA trusted_schema = OFF")
    setconfig = getattr(conn, "setconfig", None)
    defensive = getattr(sqlite3, "SQLITE_DBCONFIG_DEFENSIVE", None)
    if setconfig is not None and defensive is not None:
        setconfig(defensive, True)
    return conn


def is_hardened(conn: sqlite3.Connection) -> bool:
    """Whether `harden` has been applied (for tests and `lore doctor`)."""
    trusted = conn.execute("PRAGMA trusted_schema").fetchone()
    getconfig = getattr(conn, "getconfig", None)
    defensive = getattr(sqlite3, "SQLITE_DBCONFIG_DEFENSIVE", None)
    if getconfig is not None and defensive is not None and not getconfig(defensive):
        return False
    return trusted is not None and trusted[0] == 0


def _inspect(path: Path, conn: sqlite3.Connection) -> IndexHealth:
    app_id = conn.execute("PRAGMA application_id").fetchone()[0]
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if app_id != APPLICATION_ID:
        return IndexHealth(
            path, "damaged", ["it is not a lore index (another application's file, or empty)"]
        )
    if version != SCHEMA_VERSION:
        return IndexHealth(path, "old", [f"schema version {version}, lore uses {SCHEMA_VERSION}"])
    foreign = foreign_objects(conn)
    if foreign:
        return IndexHealth(path, "damaged", [foreign_problem(foreign)])
    problems = integrity_problems(conn)
    if problems:
        return IndexHealth(path, "damaged", problems)
    meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
    if meta.get("schema") != str(SCHEMA_VERSION):
        return IndexHealth(path, "damaged", ["its meta table has no schema row"])
    notes = conn.execute("SELECT count(*) FROM notes").fetchone()[0]
    return IndexHealth(path, "sound", notes=notes, version=meta.get("version"))
