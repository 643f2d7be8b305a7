"""The index as a hook reads it: as it is, never waiting, never rebuilding.

`lore.index.build.open_index` brings the index up to date first, which can mean a
rebuild of several seconds. A hook cannot wait that long, so it reads the index as
it stands (WAL lets it read while another process writes) and reports whether it is
stale; the caller then refreshes it in the background for the next session. A
missing, corrupt, foreign or old-schema index reads as None (the refresh rebuilds
it); damage that shows only when a page is read is an error the caller hands to
`is_damage` (then it rebuilds the index in the background, and stays silent).
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from lore import clock
from lore.index.health import DAMAGED, UNSURE, classify, connect_existing
from lore.index.schema import schema_matches
from lore.paths import index_path
from lore.record import Record
from lore.vault.settings import section_values
from lore.vault.snapshot import current_version

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

BUSY_TIMEOUT_S = 0.25  # a writer holds SQLite's lock only for a commit


class IndexView(Record):
    """An open index connection and what it reflects."""

    __slots__ = ("conn", "meta", "stale")

    def __init__(self, conn: sqlite3.Connection, meta: dict[str, str], stale: bool) -> None:
        self.conn = conn
        self.meta = meta
        self.stale = stale  # the reviewed branch moved, statuses are from another day, or no git

    @property
    def version(self) -> str:
        return self.meta.get("version", "")

    @property
    def settings_json(self) -> str:
        return self.meta.get("settings", "") or "{}"

    def settings(self) -> dict[str, object]:
        try:
            data = json.loads(self.settings_json)
        except ValueError:
            return {}
        return data if isinstance(data, dict) else {}

    def hooks(self) -> dict[str, Any]:
        """The vault's `[hooks]` settings, each checked (defaults fill in the rest)."""
        return section_values(self.settings(), "hooks")

    def close(self) -> None:
        self.conn.close()


def open_view(root: Path) -> IndexView | None:
    """The vault's index if it is a usable index of ours, else None (nothing waits)."""
    path = index_path(root)
    if path.is_symlink() or not path.is_file():
        return None
    try:
        conn = connect_existing(path, timeout=BUSY_TIMEOUT_S)
    except sqlite3.Error:
        return None
    try:
        conn.execute("PRAGMA query_only = 1")
        if not schema_matches(conn):
            conn.close()
            return None
        meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
    except sqlite3.Error:
        conn.close()
        return None
    return IndexView(conn, meta, _is_stale(root, meta))


def is_damage(exc: BaseException, root: Path) -> bool:
    """Whether an error met while reading the vault's index means the file is damaged."""
    if not isinstance(exc, sqlite3.Error):
        return False
    kind = classify(exc)
    if kind == UNSURE:  # damage if the schema is no longer whole, else the query's fault
        view = open_view(root)
        if view is None:
            return True
        view.close()
        return False
    return kind == DAMAGED


def _is_stale(root: Path, meta: dict[str, str]) -> bool:
    if meta.get("status_date") != clock.today().isoformat():
        return True
    if meta.get("kind") != "git":
        return True  # a folder vault is checked by scanning its files: leave that to a refresh
    try:
        version = current_version(root)
    except Exception:  # noqa: BLE001 - git trouble only means "refresh in the background"
        return True
    return version is None or version[1] != meta.get("version")
