"""Keep `<vault>/.lore/index.db` in step with the vault: open, check, update or rebuild.

`open_index` is what every reader calls. When the index already reflects the
vault's HEAD (and statuses were computed today) it costs one file read of HEAD and
three small queries. Otherwise it takes the index lock, re-checks (another process
may have just done the work), then brings the index up to date: from `git diff` of
the indexed commit and HEAD when it can, by a full rebuild when it cannot. A
missing, corrupt, foreign or old-schema index is rebuilt. Rebuilds happen in place
inside one `BEGIN IMMEDIATE` transaction, so a reader with the database open never
sees a swapped file or a half-built index.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from lore import clock
from lore.errors import LoreError
from lore.files import FileLock, LockTimeout
from lore.index.schema import FTS_COLUMNS, create_schema, schema_matches
from lore.note.status import Links, compute_status
from lore.paths import INDEX_DIR, index_path
from lore.record import Record
from lore.vault.snapshot import (
    Snapshot,
    changed_notes,
    current_version,
    files_digest,
    list_notes,
    read_notes,
    read_vault_file,
    scan_files,
    take_snapshot,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

Progress = Callable[[int, int], None]
BUSY_TIMEOUT_MS = 10_000


class IndexUnavailable(LoreError):
    """SQLite or FTS5 cannot be used here; callers fall back to scanning the files."""


class IndexState(Record):
    __slots__ = ("action", "changed", "kind", "notes", "seconds", "skipped", "version")

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
    ) -> None:
        self.action = action  # "fresh", "updated", "rebuilt", "statuses"
        self.version = version
        self.kind = kind  # "git" or "files"
        self.notes = notes
        self.skipped = skipped
        self.changed = changed
        self.seconds = seconds


def today_iso() -> str:
    return clock.today().isoformat()


def connect(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(path, isolation_level=None, timeout=BUSY_TIMEOUT_MS / 1000)
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    # The index is a cache that can be rebuilt: durability across power loss is not
    # worth an fsync per transaction (WAL keeps it consistent either way).
    conn.execute("PRAGMA synchronous = NORMAL")
    return conn


def read_meta(conn: sqlite3.Connection) -> dict[str, str]:
    return dict(conn.execute("SELECT key, value FROM meta").fetchall())


def _open_valid(path: Path) -> sqlite3.Connection | None:
    """A connection to a usable index of ours, or None (missing, corrupt, foreign, old)."""
    if not path.exists():
        return None
    try:
        conn = connect(path)
    except sqlite3.Error:
        return None
    try:
        if schema_matches(conn):
            return conn
    except sqlite3.Error:
        pass
    conn.close()
    return None


def _is_fresh(conn: sqlite3.Connection, root: Path, today: str) -> bool:
    meta = read_meta(conn)
    if meta.get("status_date") != today:
        return False
    version = current_version(root)
    if version is not None:
        return meta.get("kind") == "git" and meta.get("version") == version[1]
    return meta.get("kind") == "files" and meta.get("version") == files_digest(scan_files(root))


def open_index(
    root: Path,
    *,
    rebuild: bool = False,
    progress: Progress | None = None,
    lock_timeout: float = 30.0,
) -> tuple[sqlite3.Connection, IndexState]:
    """An up-to-date index connection for the vault at `root` and what it took."""
    if not _fts5_usable():
        raise IndexUnavailable("SQLite with FTS5 is not available in this Python.")
    path = index_path(root)
    today = today_iso()
    if not rebuild:
        conn = _open_valid(path)
        if conn is not None:
            try:
                if _is_fresh(conn, root, today):
                    return conn, _state(conn, "fresh", 0, 0.0)
            except sqlite3.Error:
                pass
            conn.close()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        _ensure_gitignored(root)
        with FileLock(path.parent / "index.lock", timeout=lock_timeout):
            return _update_locked(root, path, today, rebuild, progress)
    except LockTimeout:
        conn = _open_valid(path)
        if conn is not None:  # serve the last index rather than wait longer
            return conn, _state(conn, "fresh", 0, 0.0)
        raise IndexUnavailable(
            f"another lore process is building the index at {path}; try again shortly."
        ) from None
    except OSError as exc:
        raise IndexUnavailable(
            f"cannot write the index at {path}: {exc.strerror or exc}."
        ) from None


_KEPT: dict[int, tuple[str, sqlite3.Connection, tuple[int, int]]] = {}
MAX_KEPT = 8  # threads whose connection is kept; past that the oldest is let go


def open_index_kept(root: Path) -> tuple[sqlite3.Connection, IndexState]:
    """`open_index` for a process that recalls again and again, like the MCP server.

    The connection stays open for the calling thread's next call, which reuses it (and
    the pages SQLite has cached) while it is the same index file and that index is
    still fresh; otherwise it is closed and `open_index` runs as usual. The caller must
    not close it. A connection belongs to the thread that opened it, so each thread
    keeps its own.
    """
    from _thread import get_ident  # `threading` would cost a millisecond at start-up

    thread = get_ident()
    kept = _KEPT.pop(thread, None)
    if kept is not None:
        kept_root, conn, file_id = kept
        try:
            if (
                kept_root == str(root)
                and _file_id(index_path(root)) == file_id
                and _is_fresh(conn, root, today_iso())
            ):
                _KEPT[thread] = kept
                return conn, _state(conn, "fresh", 0, 0.0)
        except (OSError, sqlite3.Error):
            pass
        conn.close()
    conn, state = open_index(root)
    try:
        _KEPT[thread] = (str(root), conn, _file_id(index_path(root)))
    except OSError:
        return conn, state  # not kept: the next call opens it again
    while len(_KEPT) > MAX_KEPT:  # another thread's, opened longest ago; closed when collected
        del _KEPT[next(iter(_KEPT))]
    return conn, state


def forget_kept_index() -> None:
    """Close the calling thread's kept connection, so the next call opens the index afresh."""
    from _thread import get_ident

    kept = _KEPT.pop(get_ident(), None)
    if kept is not None:
        kept[1].close()


def _file_id(path: Path) -> tuple[int, int]:
    stat = path.stat()
    return stat.st_dev, stat.st_ino


def _ensure_gitignored(root: Path) -> None:
    """The index folder gets its own .gitignore, so it is never committed by accident."""
    ignore = root / INDEX_DIR / ".gitignore"
    if not ignore.exists():
        ignore.write_text("# lore's local index and caches; derived, never committed\n*\n")


_FTS5: bool | None = None


def _fts5_usable() -> bool:
    global _FTS5  # noqa: PLW0603 - computed once per process
    if _FTS5 is None:
        from lore.index.schema import fts5_available

        _FTS5 = fts5_available()
    return _FTS5


def _update_locked(
    root: Path, path: Path, today: str, rebuild: bool, progress: Progress | None
) -> tuple[sqlite3.Connection, IndexState]:
    started = time.perf_counter()
    conn = _open_valid(path)
    if conn is None:
        conn = _create(path)
        rebuild = True
    elif not rebuild and _is_fresh(conn, root, today):
        return conn, _state(conn, "fresh", 0, 0.0)

    snapshot = take_snapshot(root)
    meta = read_meta(conn)
    try:
        conn.execute("BEGIN IMMEDIATE")
        if rebuild or meta.get("kind") != snapshot.kind:
            action, changed = "rebuilt", _rebuild(conn, root, snapshot, progress)
        elif meta.get("version") == snapshot.version:
            action, changed = "statuses", 0
        else:
            action, changed = _update(conn, root, snapshot, meta.get("version", ""), progress)
        _store_vault_files(conn, root, snapshot)
        _refresh_statuses(conn, today)
        notes = conn.execute("SELECT count(*) FROM notes").fetchone()[0]
        skipped = conn.execute("SELECT count(*) FROM skipped").fetchone()[0]
        _set_meta(conn, {"notes": str(notes), "skipped": str(skipped)})
        _set_meta(
            conn,
            {
                "kind": snapshot.kind,
                "version": snapshot.version,
                "status_date": today,
                "built_at": str(int(time.time())),
            },
        )
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    return conn, _state(conn, action, changed, time.perf_counter() - started)


def _create(path: Path) -> sqlite3.Connection:
    """A fresh schema in place; a file SQLite cannot read at all is replaced."""
    try:
        conn = connect(path)
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("BEGIN IMMEDIATE")
        create_schema(conn)
        conn.execute(
            "INSERT INTO meta(key, value) VALUES ('schema', ?)",
            (str(conn.execute("PRAGMA user_version").fetchone()[0]),),
        )
        conn.execute("COMMIT")
        return conn
    except sqlite3.DatabaseError:
        # Not a database at all (corrupt or some other file): under the lock, nobody
        # else is writing it, so remove it with its WAL and start again.
        for suffix in ("", "-wal", "-shm", "-journal"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)
        conn = connect(path)
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("BEGIN IMMEDIATE")
        create_schema(conn)
        conn.execute("INSERT INTO meta(key, value) VALUES ('schema', '1')")
        conn.execute("COMMIT")
        return conn


def _set_meta(conn: sqlite3.Connection, values: dict[str, str]) -> None:
    conn.executemany(
        "INSERT INTO meta(key, value) VALUES (?, ?) "
        "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        list(values.items()),
    )


def _rebuild(
    conn: sqlite3.Connection, root: Path, snapshot: Snapshot, progress: Progress | None
) -> int:
    conn.execute("INSERT INTO notes_fts(notes_fts) VALUES ('delete-all')")
    conn.execute("DELETE FROM notes")
    conn.execute("DELETE FROM skipped")
    notes = list_notes(root, snapshot)
    _insert_notes(conn, root, snapshot, notes, progress, fts=False)
    conn.execute("INSERT INTO notes_fts(notes_fts) VALUES ('rebuild')")
    conn.execute("INSERT INTO notes_fts(notes_fts) VALUES ('optimize')")
    return len(notes)


def _update(
    conn: sqlite3.Connection,
    root: Path,
    snapshot: Snapshot,
    old_version: str,
    progress: Progress | None,
) -> tuple[str, int]:
    changes: dict[str, str | None] | None
    if snapshot.kind == "git":
        changes = changed_notes(root, old_version, snapshot)
        if changes is None:
            return "rebuilt", _rebuild(conn, root, snapshot, progress)
    else:
        current = snapshot.files or {}
        known = dict(conn.execute("SELECT path, signature FROM notes").fetchall())
        known.update(conn.execute("SELECT path, signature FROM skipped").fetchall())
        changes = {
            path: current.get(path)
            for path in set(current) | set(known)
            if current.get(path) != known.get(path)
        }
    _delete_paths(conn, sorted(changes))
    present = {path: sig for path, sig in changes.items() if sig is not None}
    _insert_notes(conn, root, snapshot, present, progress, fts=True)
    return "updated", len(changes)


def _delete_paths(conn: sqlite3.Connection, paths: Iterable[str]) -> None:
    columns = ", ".join(FTS_COLUMNS)
    for path in paths:
        conn.execute(
            f"INSERT INTO notes_fts(notes_fts, rowid, {columns}) "
            f"SELECT 'delete', rowid, {columns} FROM notes WHERE path = ?",
            (path,),
        )
        conn.execute("DELETE FROM notes WHERE path = ?", (path,))
        conn.execute("DELETE FROM skipped WHERE path = ?", (path,))


_INSERT = (
    "INSERT INTO notes (id, path, title, type, tags, tag_list, confidence, date, repo, "
    "services, files_touched, author, supersedes, depends_on, expires, source, summary, "
    "body, signature) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)


def _insert_notes(
    conn: sqlite3.Connection,
    root: Path,
    snapshot: Snapshot,
    wanted: dict[str, str],
    progress: Progress | None,
    *,
    fts: bool,
) -> None:
    from lore.errors import NoteError
    from lore.note.parse import parse_note

    paths = sorted(wanted)
    total = len(paths)
    done = 0
    batch = 2000
    for start in range(0, total, batch):
        chunk = paths[start : start + batch]
        contents = read_notes(root, snapshot, {path: wanted[path] for path in chunk})
        for path in chunk:
            if path not in contents:
                continue
            signature, raw = contents[path]
            try:
                note = parse_note(raw, path)
            except NoteError as exc:
                conn.execute(
                    "INSERT OR REPLACE INTO skipped(path, signature, problem) VALUES (?, ?, ?)",
                    (path, signature, str(exc)),
                )
                continue
            try:
                cursor = conn.execute(_INSERT, _row(note, signature))
            except sqlite3.IntegrityError:
                existing = conn.execute("SELECT path FROM notes WHERE id = ?", (note.id,))
                conn.execute(
                    "INSERT OR REPLACE INTO skipped(path, signature, problem) VALUES (?, ?, ?)",
                    (
                        path,
                        signature,
                        f"{path}: the id '{note.id}' is already used by "
                        f"{existing.fetchone()[0]}. Rename one of them.",
                    ),
                )
                continue
            if fts:
                conn.execute(
                    "INSERT INTO notes_fts(rowid, title, tags, body, files_touched) "
                    "SELECT rowid, title, tags, body, files_touched FROM notes WHERE rowid = ?",
                    (cursor.lastrowid,),
                )
        done += len(chunk)
        if progress is not None:
            progress(done, total)


def _row(note: Any, signature: str) -> tuple[Any, ...]:
    tag_words = " ".join(tag.split("/", 1)[-1] for tag in note.tags)
    return (
        note.id,
        note.path,
        note.title,
        note.type,
        tag_words,
        json.dumps(list(note.tags)),
        note.confidence,
        note.date,
        json.dumps(list(note.repo)),
        json.dumps(list(note.services)),
        "\n".join(note.files_touched),
        note.author,
        json.dumps(list(note.supersedes)),
        json.dumps(list(note.depends_on)),
        note.expires,
        note.source,
        note.summary,
        note.body,
        signature,
    )


def _store_vault_files(conn: sqlite3.Connection, root: Path, snapshot: Snapshot) -> None:
    """Taxonomy aliases and recall settings, so that recall never parses a file."""
    from lore.taxonomy import parse_taxonomy
    from lore.vault.settings import parse_settings, recall_settings

    taxonomy_text = read_vault_file(root, snapshot, "_taxonomy.md")
    aliases: dict[str, list[str]] = {}
    if taxonomy_text:
        taxonomy = parse_taxonomy(taxonomy_text)
        aliases = taxonomy.alias_map()
    try:
        settings = parse_settings(read_vault_file(root, snapshot, "lore.toml"))
        settings_problem = ""
    except LoreError as exc:
        settings = parse_settings(None)
        settings_problem = str(exc)
    _set_meta(
        conn,
        {
            "aliases": json.dumps(aliases, sort_keys=True),
            "recall_settings": json.dumps(recall_settings(settings), sort_keys=True),
            "settings": json.dumps(settings, sort_keys=True),
            "settings_problem": settings_problem,
        },
    )


def _refresh_statuses(conn: sqlite3.Connection, today: str) -> None:
    """Recompute active/inactive for every note that links or expires (the rest are active)."""
    rows = conn.execute(
        "SELECT id, supersedes, depends_on, expires FROM notes "
        "WHERE supersedes != '[]' OR depends_on != '[]' OR expires IS NOT NULL OR active = 0"
    ).fetchall()
    links = {
        row[0]: Links(row[0], tuple(json.loads(row[1])), tuple(json.loads(row[2])), row[3])
        for row in rows
    }
    referenced = {t for link in links.values() for t in (*link.supersedes, *link.depends_on)}
    missing = sorted(referenced - set(links))
    for start in range(0, len(missing), 500):
        chunk = missing[start : start + 500]
        marks = ",".join("?" * len(chunk))
        for (nid,) in conn.execute(f"SELECT id FROM notes WHERE id IN ({marks})", chunk):
            links[nid] = Links(nid)
    statuses = compute_status(links.values(), today)
    conn.execute(
        "UPDATE notes SET active = 1, inactive_reason = NULL, superseded_by = NULL WHERE active = 0"
    )
    conn.executemany(
        "UPDATE notes SET active = 0, inactive_reason = ?, superseded_by = ? WHERE id = ?",
        [(s.reason, s.superseded_by, nid) for nid, s in statuses.items()],
    )


def _state(conn: sqlite3.Connection, action: str, changed: int, seconds: float) -> IndexState:
    """The index's state; the counts come from the meta rows written with every update."""
    meta = read_meta(conn)
    return IndexState(
        action=action,
        version=meta.get("version", ""),
        kind=meta.get("kind", ""),
        notes=int(meta.get("notes", "0")),
        skipped=int(meta.get("skipped", "0")),
        changed=changed,
        seconds=seconds,
    )


def index_in_memory(
    notes: Iterable[Any], *, aliases: dict[str, list[str]], today: str
) -> sqlite3.Connection:
    """A throwaway in-memory index of these notes (the curator uses it to find related notes).

    Same schema, ranking settings (the defaults) and statuses as a vault's index, so
    `recall_in_index` answers from it as it would from the vault.
    """
    from lore.vault.settings import defaults, recall_settings

    conn = sqlite3.connect(":memory:", isolation_level=None)
    create_schema(conn)
    conn.executemany(_INSERT, [_row(note, "") for note in notes])
    conn.execute("INSERT INTO notes_fts(notes_fts) VALUES ('rebuild')")
    _set_meta(
        conn,
        {
            "aliases": json.dumps(aliases, sort_keys=True),
            "recall_settings": json.dumps(recall_settings(defaults()), sort_keys=True),
        },
    )
    _refresh_statuses(conn, today)
    return conn
