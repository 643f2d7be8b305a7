"""Keep the vault's index in step with its reviewed branch: open, check, update, rebuild, heal.

The index is `index.db` in the vault's state folder (`lore.paths.state_dir`: under the
clone's git directory, which no commit can reach). An index an older lore left in
`<vault>/.lore/` is never opened; the first build in the new place moves what else was
kept there (`lore.vault.local_state`).

`open_index` is what writers call; readers go through `lore.index.read.read_index`,
which uses it. When the index already reflects the tip of the reviewed branch (and
statuses were computed today) opening it costs a few ref-file reads and a few small
queries. Otherwise it takes the index lock, re-checks (another process may have just
done the work), then brings the index up to date (`lore.index.fill`): from `git diff`
of the indexed commit and the new tip when it can, by a full rebuild when it cannot.
Rebuilds happen in place inside one `BEGIN IMMEDIATE` transaction, so a reader with
the database open never sees a half-built index.

Every connection to the file is hardened (`lore.index.health.harden`), and a file
whose schema holds anything lore did not create is damaged: moved aside and rebuilt.

The index is a cache, so trouble with it is never fatal (`lore.index.health` sorts
every SQLite error into a kind): a damaged file — found when opening it, or by a
read that meets a bad page (`heal_index`) — is moved aside and rebuilt; an index
that cannot be written (full disk, read-only folder) raises `IndexUnwritable`.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from pathlib import Path

from lore import clock
from lore.errors import LoreError, StateUnwritable
from lore.files import FileLock, LockTimeout
from lore.index.fill import INSERT_NOTE, fill_index, note_row, read_meta, refresh_statuses, set_meta
from lore.index.health import (
    BUG,
    BUSY,
    DAMAGED,
    SUFFIXES,
    UNSURE,
    UNWRITABLE,
    classify,
    connect_existing,
    describe,
    file_problem,
    foreign_problem,
    harden,
    move_aside,
    why_unwritable,
)
from lore.index.schema import (
    APPLICATION_ID,
    SCHEMA_VERSION,
    create_schema,
    foreign_objects,
    missing_tables,
    schema_matches,
)
from lore.record import Record
from lore.vault.resolved import Vault
from lore.vault.snapshot import current_version, files_digest, scan_files

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any

Progress = Callable[[int, int], None]
BUSY_TIMEOUT_MS = 10_000
NO_FTS5 = "SQLite with FTS5 is not available in this Python."


class IndexUnavailable(LoreError):
    """The index cannot be used here; callers read the committed files instead."""


class IndexUnwritable(IndexUnavailable):
    """The index cannot be written: a full disk, a read-only folder, no permission."""

    def __init__(self, path: Path, reason: str, fix: str | None = None) -> None:
        super().__init__(
            f"Cannot write the index at {path}: {reason.rstrip('.')}.",
            fix=fix
            or "Free some disk space or make the folder writable; until then lore reads "
            "the committed notes from the files, more slowly.",
        )

    @classmethod
    def of_state(cls, error: StateUnwritable) -> IndexUnwritable:
        """The state folder's own sentence (`StateUnwritable`), as an index error: the
        readers that fall back to the files catch this one."""
        made = cls.__new__(cls)
        LoreError.__init__(made, error.message, fix=error.fix)
        return made


class IndexState(Record):
    __slots__ = (
        *("action", "changed", "healed", "kind", "meta", "notes", "seconds", "skipped"),
        "version",
    )

    def __init__(
        self,
        action: str,
        version: str,
        kind: str,
        notes: int,
        skipped: int,
        *,
        changed: int = 0,
        seconds: float = 0.0,
        healed: str = "",
    ) -> None:
        self.action = action  # "fresh", "updated", "rebuilt", "statuses"; "files" in memory
        self.version = version
        self.kind = kind  # "git" or "files"
        self.notes = notes
        self.skipped = skipped
        self.changed = changed
        self.seconds = seconds
        self.healed = healed  # why a damaged index was moved aside and rebuilt, or ""
        self.meta: dict[str, str] = {}  # the meta rows these were read from, for readers


def today_iso() -> str:
    return clock.today().isoformat()


def connect(path: Path, *, create: bool = False) -> sqlite3.Connection:
    """A connection to the index file; only the build (under the lock) may create it."""
    if create:
        conn = harden(sqlite3.connect(path, isolation_level=None, timeout=BUSY_TIMEOUT_MS / 1000))
    else:
        conn = connect_existing(path, timeout=BUSY_TIMEOUT_MS / 1000)
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    # The index is a cache that can be rebuilt: durability across power loss is not
    # worth an fsync per transaction (WAL keeps it consistent either way).
    conn.execute("PRAGMA synchronous = NORMAL")
    return conn


class _Found(Record):
    """What `_open_sound` found: a sound index's connection, or the kind of trouble."""

    __slots__ = ("conn", "trouble", "why")

    def __init__(self, conn: sqlite3.Connection | None, trouble: str = "", why: str = "") -> None:
        self.conn = conn
        self.trouble = trouble  # "", "missing", "old", or a health kind (DAMAGED, ...)
        self.why = why


def _open_sound(path: Path) -> _Found:
    """A connection to a sound, current index of ours, or why there is none."""
    problem = file_problem(path)
    if problem is not None:
        return _Found(None, DAMAGED, problem)
    if not path.exists():
        return _Found(None, "missing")
    try:
        conn = connect(path)
    except sqlite3.Error as exc:
        return _Found(None, error_kind(exc), describe(exc))
    try:
        if schema_matches(conn):
            return _Found(conn)
        ours = conn.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        missing = missing_tables(conn)
        foreign = foreign_objects(conn)
    except sqlite3.Error as exc:
        conn.close()
        return _Found(None, error_kind(exc), describe(exc))
    conn.close()
    if ours and version != SCHEMA_VERSION:
        return _Found(None, "old")
    if not ours:
        return _Found(None, DAMAGED, "it is not a lore index")
    if missing:
        return _Found(None, DAMAGED, f"missing table(s): {', '.join(missing)}")
    if foreign:
        return _Found(None, DAMAGED, foreign_problem(foreign))
    return _Found(None, DAMAGED, "its meta table has no schema row")


def error_kind(exc: sqlite3.Error, path: Path | None = None) -> str:
    """`classify`, with an unsure error settled by looking at the file; a bug is raised.

    Without `path` (errors from lore's own checks of the file) unsure means damaged.
    """
    kind = classify(exc)
    if kind == UNSURE:
        if path is None:
            return DAMAGED
        found = _open_sound(path)
        if found.conn is None:
            return DAMAGED
        found.conn.close()
        kind = BUG  # the file is whole: the statement was at fault
    if kind == BUG:
        raise exc
    return kind


def is_fresh(conn: sqlite3.Connection, vault: Vault, today: str) -> bool:
    return meta_is_fresh(read_meta(conn), vault, today)


def meta_is_fresh(meta: dict[str, str], vault: Vault, today: str) -> bool:
    """Whether an index with these meta rows serves the reviewed branch's tip (read from
    the ref files: no process) and had its statuses computed today."""
    if meta.get("status_date") != today:
        return False
    found = vault.found
    version = current_version(vault.root, found, vault.state_dir) if found else None
    if version is not None:
        return meta.get("kind") == "git" and meta.get("version") == version[1]
    digest = files_digest(scan_files(vault.root))
    return meta.get("kind") == "files" and meta.get("version") == digest


def open_index(
    where: Vault | Path,
    *,
    rebuild: bool = False,
    progress: Progress | None = None,
    lock_timeout: float = 30.0,
) -> tuple[sqlite3.Connection, IndexState]:
    """An up-to-date index connection for the vault (`where`: its `Vault`, or its folder)
    and what it took.

    A damaged index is moved aside and rebuilt. Raises `IndexUnwritable` when the
    index cannot be written, `IndexUnavailable` when it cannot be used otherwise.
    """
    if not fts5_usable():
        raise IndexUnavailable(NO_FTS5)
    vault = Vault.of(where)
    path = vault.index_path
    today = today_iso()
    if not rebuild:
        conn = _open_sound(path).conn
        if conn is not None:
            try:
                meta = read_meta(conn)
                if meta_is_fresh(meta, vault, today):
                    return conn, index_state(conn, "fresh", 0, 0.0, meta=meta)
            except sqlite3.Error:
                pass  # looked at again under the lock
            conn.close()
    return _under_lock(
        vault, path, lock_timeout=lock_timeout, rebuild=rebuild, progress=progress, damaged=None
    )


def _under_lock(
    vault: Vault,
    path: Path,
    *,
    lock_timeout: float,
    rebuild: bool,
    progress: Progress | None,
    damaged: tuple[tuple[int, int] | None, str] | None,
) -> tuple[sqlite3.Connection, IndexState]:
    lock = FileLock(path.parent / "index.lock", timeout=lock_timeout)
    from lore.vault.local_state import check_state_dir, ensure_state_dir  # off the fresh path

    try:
        check_state_dir(vault.root, vault.state_dir)  # a file or a link where the folder goes
    except StateUnwritable as exc:  # the sentence every command says, as the index's error
        raise IndexUnwritable.of_state(exc) from None
    try:
        ensure_state_dir(vault.root, vault.state_dir)
        lock.acquire()
    except StateUnwritable as exc:
        raise IndexUnwritable(path, why_unwritable(path.parent, exc.why)) from None
    except LockTimeout:
        conn = _open_sound(path).conn
        if conn is not None:  # serve the last index rather than wait longer
            return conn, index_state(conn, "fresh", 0, 0.0)
        raise IndexUnavailable(
            f"Another lore process is building the index at {path}; try again shortly."
        ) from None
    except OSError as exc:
        raise IndexUnwritable(path, why_unwritable(path.parent, describe(exc))) from None
    try:
        return _update_locked(
            vault, path, today=today_iso(), rebuild=rebuild, progress=progress, damaged=damaged
        )
    except OSError as exc:  # moving a damaged file aside
        raise IndexUnwritable(path, why_unwritable(path.parent, describe(exc))) from None
    finally:
        lock.release()


def _update_locked(
    vault: Vault,
    path: Path,
    *,
    today: str,
    rebuild: bool,
    progress: Progress | None,
    damaged: tuple[tuple[int, int] | None, str] | None,
) -> tuple[sqlite3.Connection, IndexState]:
    started = time.perf_counter()
    found = _open_sound(path)
    conn = found.conn
    if conn is not None and damaged is not None and damaged[0] in (None, file_id(path)):
        conn.close()  # a reader met damage in this very file: it goes
        conn, found = None, _Found(None, DAMAGED, damaged[1])
    healed = ""
    if conn is None:
        if found.trouble in (UNWRITABLE, BUSY):
            raise unavailable(found.trouble, found.why, path)
        if found.trouble == DAMAGED:
            healed = _move_aside(path, found.why)
        conn = _create(path, found.trouble == "old")
        rebuild = True
    elif not rebuild and is_fresh(conn, vault, today):
        return conn, index_state(conn, "fresh", 0, 0.0)
    root = vault.root
    try:
        action, changed = fill_index(conn, root, today, rebuild=rebuild, progress=progress)
    except sqlite3.Error as exc:
        conn.close()
        kind = error_kind(exc, path)
        if kind != DAMAGED or healed:
            raise unavailable(kind, describe(exc), path) from None
        healed = _move_aside(path, describe(exc))
        conn = _create(path, False)
        try:
            action, changed = fill_index(conn, root, today, rebuild=True, progress=progress)
        except sqlite3.Error as again:
            conn.close()
            raise unavailable(error_kind(again, path), describe(again), path) from None
    return conn, index_state(conn, action, changed, time.perf_counter() - started, healed)


def heal_index(vault: Vault, seen: tuple[int, int] | None, why: str) -> str:
    """Move aside the damaged index a reader met (`seen`: its file id) and rebuild it.

    Under the lock; when the file is no longer the one the reader saw, another
    process has healed it already and nothing is done. Returns the notice, or "".
    """
    if not fts5_usable():
        raise IndexUnavailable(NO_FTS5)
    conn, state = _under_lock(
        vault,
        vault.index_path,
        lock_timeout=30.0,
        rebuild=False,
        progress=None,
        damaged=(seen, why),
    )
    conn.close()
    return state.healed


def _move_aside(path: Path, why: str) -> str:
    aside = move_aside(path)
    return (
        f"The index was damaged ({why}) and has been rebuilt from the notes; the damaged "
        f"file is kept as {aside}."
    )


def unavailable(kind: str, why: str, path: Path) -> IndexUnavailable:
    if kind == UNWRITABLE:
        return IndexUnwritable(path, why_unwritable(path.parent, why))
    if kind == BUSY:
        return IndexUnavailable(f"The index at {path} is busy ({why}); try again shortly.")
    return IndexUnavailable(f"The index at {path} could not be rebuilt ({why}).")


def _create(path: Path, in_place: bool) -> sqlite3.Connection:
    """An empty index with our schema. `in_place`: over an older lore's index in the file.

    A new file that could not be set up (a full disk) is removed again, so that the
    next command does not take it for a damaged index.
    """
    try:
        return _create_schema(path)
    except sqlite3.Error as exc:
        kind = error_kind(exc)
        if kind != DAMAGED or not in_place:
            if not in_place:
                _remove(path)
            raise unavailable(kind, describe(exc), path) from None
    move_aside(path)  # an older index that cannot even be emptied
    try:
        return _create_schema(path)
    except sqlite3.Error as exc:
        _remove(path)
        raise unavailable(error_kind(exc), describe(exc), path) from None


def _remove(path: Path) -> None:
    import contextlib  # off the recall path: only after a failed first build

    for suffix in SUFFIXES:
        with contextlib.suppress(OSError):
            Path(f"{path}{suffix}").unlink(missing_ok=True)


def _create_schema(path: Path) -> sqlite3.Connection:
    conn = connect(path, create=True)
    try:
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("BEGIN IMMEDIATE")
        create_schema(conn)
        conn.execute("INSERT INTO meta(key, value) VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            import contextlib  # off the recall path: only on a failed write

            with contextlib.suppress(sqlite3.Error):
                conn.execute("ROLLBACK")
        conn.close()
        raise
    return conn


def file_id(path: Path) -> tuple[int, int]:
    stat = path.stat()
    return stat.st_dev, stat.st_ino


def file_id_or_none(path: Path) -> tuple[int, int] | None:
    try:
        return file_id(path)
    except OSError:
        return None


_FTS5: bool | None = None


def fts5_usable() -> bool:
    global _FTS5  # noqa: PLW0603 - computed once per process
    if _FTS5 is None:
        from lore.index.schema import fts5_available

        _FTS5 = fts5_available()
    return _FTS5


def index_state(
    conn: sqlite3.Connection,
    action: str,
    changed: int,
    seconds: float,
    healed: str = "",
    *,
    meta: dict[str, str] | None = None,
) -> IndexState:
    """The index's state; the counts come from the meta rows written with every update
    (`meta`: those rows, when the caller has just read them)."""
    if meta is None:
        meta = read_meta(conn)
    state = IndexState(
        action=action,
        version=meta.get("version", ""),
        kind=meta.get("kind", ""),
        notes=int(meta.get("notes", "0")),
        skipped=int(meta.get("skipped", "0")),
        changed=changed,
        seconds=seconds,
        healed=healed,
    )
    state.meta = meta
    return state


def index_in_memory(
    notes: Iterable[Any], *, aliases: dict[str, list[str]], today: str
) -> sqlite3.Connection:
    """A throwaway in-memory index of these notes (the curator uses it to find related notes).

    Same schema, ranking settings (the defaults) and statuses as a vault's index, so
    `recall_in_index` answers from it as it would from the vault.
    """
    import json

    from lore.vault.settings import defaults, recall_settings

    conn = sqlite3.connect(":memory:", isolation_level=None)
    create_schema(conn)
    conn.executemany(INSERT_NOTE, [note_row(note, "") for note in notes])
    conn.execute("INSERT INTO notes_fts(notes_fts) VALUES ('rebuild')")
    set_meta(
        conn,
        {
            "aliases": json.dumps(aliases, sort_keys=True),
            "recall_settings": json.dumps(recall_settings(defaults()), sort_keys=True),
        },
    )
    refresh_statuses(conn, today)
    return conn
