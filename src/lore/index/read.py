"""How every reader reads the index: `read_index`, and the connections kept between calls.

`read_index(root, read)` runs `read(conn, state)` on the vault's up-to-date index —
show, stats, recall, drift, the MCP tools and review all read through it — and is
where a read that meets damage is healed (`lore.index.build.heal_index`) and run
again. When the index cannot be used at all, `read` runs on an in-memory index of
the committed files instead (`index_from_files`), or `IndexUnavailable` is raised
for the caller's own fallback (recall scans the files).

A process that reads again and again (the MCP server) keeps one connection per
thread (`open_index_kept`), reused while it is the same file and still fresh.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

from lore.index.build import (
    IndexState,
    IndexUnavailable,
    error_kind,
    file_id,
    file_id_or_none,
    fts5_usable,
    heal_index,
    index_state,
    meta_is_fresh,
    open_index,
    today_iso,
    unavailable,
)
from lore.index.fill import fill_index, read_meta
from lore.index.health import DAMAGED, describe
from lore.index.schema import create_schema
from lore.vault.resolved import Vault

TYPE_CHECKING = False  # typing costs 3 ms at start-up; mypy reads the block
if TYPE_CHECKING:
    from typing import TypeVar

    T = TypeVar("T")


def read_index(
    where: Vault | Path,
    read: Callable[[sqlite3.Connection, IndexState], T],
    *,
    kept: bool = False,
    fallback: bool = True,
    notices: list[str] | None = None,
) -> T:
    """`read(conn, state)` on the vault's up-to-date index: the one way readers read it.

    Any SQLite error while opening or reading is sorted by `lore.index.health`: a
    damaged index is moved aside and rebuilt and `read` runs again (once). When the
    index cannot be used (cannot be written, busy, no FTS5, still failing), `read`
    runs on an in-memory index of the committed files (`fallback`), or
    `IndexUnavailable` is raised. Notices for the user (a healed index, a fallback)
    are appended to `notices`. `kept`: reuse this thread's connection between calls
    (`open_index_kept`); `read` must not keep the connection or its cursors. `where`:
    the vault's `Vault`, or its folder.
    """
    vault = Vault.of(where)
    root = vault.root
    path = vault.index_path
    trouble: IndexUnavailable | None = None
    for attempt in (1, 2):
        conn: sqlite3.Connection | None = None
        # The file this read meets, taken before opening: if it is replaced meanwhile,
        # the connection reads the new one, or the heal below sees the file has changed.
        seen = file_id_or_none(path)
        try:
            conn, state = open_index_kept(vault) if kept else open_index(vault)
            if state.healed and notices is not None:
                notices.append(state.healed)
            value = read(conn, state)
        except IndexUnavailable as exc:
            trouble = exc
            break
        except sqlite3.Error as exc:
            _let_go(conn, kept)
            kind = error_kind(exc, path)
            if kind == DAMAGED and attempt == 1:
                try:
                    healed = heal_index(vault, seen, describe(exc))
                except IndexUnavailable as unusable:
                    trouble = unusable
                    break
                if healed and notices is not None:
                    notices.append(healed)
                continue
            trouble = unavailable(kind, describe(exc), path)
            break
        if not kept:
            conn.close()
        return value
    assert trouble is not None
    if not fallback:
        raise trouble
    if notices is not None:
        notices.append(f"{trouble.message} The notes were read from the committed files instead.")
    memory = index_from_files(root)
    try:
        return read(memory, index_state(memory, "files", 0, 0.0))
    finally:
        memory.close()


def _let_go(conn: sqlite3.Connection | None, kept: bool) -> None:
    if kept:
        forget_kept_index()
    elif conn is not None:
        conn.close()


def index_from_files(root: Path) -> sqlite3.Connection:
    """An in-memory index of the vault's committed notes, for when the file cannot be used.

    The same schema, snapshot, statuses and settings as the file would have (without
    the full-text table where this Python's SQLite has no FTS5); built on every call.
    """
    fts = fts5_usable()
    conn = sqlite3.connect(":memory:", isolation_level=None)
    create_schema(conn, fts=fts)
    fill_index(conn, root, today_iso(), rebuild=True, fts=fts)
    return conn


class _Kept:
    """One thread's kept connection and what was read through it: the file it opened, and
    the meta rows, good while SQLite's `data_version` stays (it moves only when another
    connection writes the file). A plain class: this is on the recall path."""

    __slots__ = ("conn", "data_version", "file", "meta", "path", "root")

    def __init__(self, root: str, path: Path, conn: sqlite3.Connection) -> None:
        self.root = root
        self.path = path  # the index file: where it is does not move while the vault does not
        self.conn = conn
        self.file = file_id(path)
        self.data_version = _data_version(conn)  # before the rows: a write between is seen
        self.meta = read_meta(conn)

    def still_fresh(self, vault: Vault) -> bool:
        """Whether the kept connection still serves the vault's current index, up to date.

        One `stat` (the file moved aside and rebuilt is another file), one pragma (another
        connection wrote the file — an update, a rebuild, or damage — so it is opened and
        checked afresh), and the reviewed branch's tip read from its ref file (a new
        commit or a `lore sync` is seen on the next call; no process).
        """
        return (
            file_id(self.path) == self.file
            and _data_version(self.conn) == self.data_version
            and meta_is_fresh(self.meta, vault, today_iso())
        )


def _data_version(conn: sqlite3.Connection) -> int:
    return int(conn.execute("PRAGMA data_version").fetchone()[0])


_KEPT: dict[int, _Kept] = {}
MAX_KEPT = 8  # threads whose connection is kept; past that the oldest is let go


def open_index_kept(where: Vault | Path) -> tuple[sqlite3.Connection, IndexState]:
    """`open_index` for a process that recalls again and again, like the MCP server.

    The connection stays open for the calling thread's next call, which reuses it (and
    the pages SQLite has cached, and the meta rows read through it: settings, aliases,
    the taxonomy's vocabulary) while it is the same index file and that index is still
    fresh (`_Kept.still_fresh`); otherwise it is closed and `open_index` runs as usual.
    The caller must not close it. A connection belongs to the thread that opened it, so
    each thread keeps its own.
    """
    from _thread import get_ident  # `threading` would cost a millisecond at start-up

    vault = Vault.of(where)
    root = vault.root
    thread = get_ident()
    kept = _KEPT.pop(thread, None)
    if kept is not None:
        try:
            if kept.root == str(root) and kept.still_fresh(vault):
                _KEPT[thread] = kept
                return kept.conn, index_state(kept.conn, "fresh", 0, 0.0, meta=kept.meta)
        except (OSError, sqlite3.Error):
            pass
        kept.conn.close()
    conn, state = open_index(vault)
    try:
        _KEPT[thread] = _Kept(str(root), vault.index_path, conn)
    except (OSError, sqlite3.Error):
        return conn, state  # not kept: the next call opens it again
    while len(_KEPT) > MAX_KEPT:  # another thread's, opened longest ago; closed when collected
        del _KEPT[next(iter(_KEPT))]
    return conn, state


def forget_kept_index() -> None:
    """Close the calling thread's kept connection, so the next call opens the index afresh."""
    from _thread import get_ident

    kept = _KEPT.pop(get_ident(), None)
    if kept is not None:
        kept.conn.close()
