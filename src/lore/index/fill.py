"""What goes into the index: every note of a snapshot, or only what a commit changed.

`fill_index` runs inside one transaction on a connection to a file or to memory: a
full rebuild (notes, then the FTS5 table built in one pass), an update from `git
diff` of the indexed commit and the reviewed branch's tip (or from file signatures
without git), and
always the statuses, taxonomy aliases and settings that recall reads from `meta`.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from lore.errors import LoreError
from lore.index.schema import FTS_COLUMNS, VOCABULARY_KEY
from lore.vault.snapshot import (
    Snapshot,
    changed_notes,
    list_notes,
    read_notes,
    read_vault_file,
    take_snapshot,
)

TYPE_CHECKING = False  # typing costs 3 ms at start-up; mypy reads the block
if TYPE_CHECKING:
    from typing import Any

Progress = Callable[[int, int], None]
# What a build reports its progress to when its caller passed nothing: set by the CLI
# for a terminal (a bar on stderr, `lore.cli.output.DelayedProgress`), so that the first
# build in a clone shows its progress whichever command started it.
BUILD_PROGRESS: Callable[[], Any] | None = None


def read_meta(conn: sqlite3.Connection) -> dict[str, str]:
    return dict(conn.execute("SELECT key, value FROM meta").fetchall())


def fill_index(
    conn: sqlite3.Connection,
    root: Path,
    today: str,
    *,
    rebuild: bool,
    progress: Progress | None = None,
    fts: bool = True,
) -> tuple[str, int]:
    """Bring the index on `conn` up to the vault's snapshot in one transaction.

    Returns what it did ("rebuilt", "updated" or "statuses") and how many note files
    changed. On any error the transaction is rolled back and the error raised: the
    index is as it was.
    """
    snapshot = take_snapshot(root, settle=True)
    meta = read_meta(conn)
    shown = None
    if progress is None and BUILD_PROGRESS is not None:
        progress = shown = BUILD_PROGRESS()
    try:
        conn.execute("BEGIN IMMEDIATE")
        if rebuild or meta.get("kind") != snapshot.kind:
            action, changed = "rebuilt", _rebuild(conn, root, snapshot, progress, fts=fts)
        elif meta.get("version") == snapshot.version:
            action, changed = "statuses", 0
        else:
            action, changed = _update(conn, root, snapshot, meta.get("version", ""), progress)
        _store_vault_files(conn, root, snapshot)
        refresh_statuses(conn, today)
        notes = conn.execute("SELECT count(*) FROM notes").fetchone()[0]
        skipped = conn.execute("SELECT count(*) FROM skipped").fetchone()[0]
        set_meta(conn, {"notes": str(notes), "skipped": str(skipped)})
        set_meta(
            conn,
            {
                "kind": snapshot.kind,
                "version": snapshot.version,
                "branch": snapshot.branch.label if snapshot.branch else "",
                "status_date": today,
                "built_at": str(int(time.time())),
            },
        )
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            # SQLite may have rolled back already (a full disk, a damaged page)
            import contextlib  # off the recall path: only on a failed write

            with contextlib.suppress(sqlite3.Error):
                conn.execute("ROLLBACK")
        raise
    finally:
        if shown is not None:
            shown.close()
    return action, changed


def set_meta(conn: sqlite3.Connection, values: dict[str, str]) -> None:
    conn.executemany(
        "INSERT INTO meta(key, value) VALUES (?, ?) "
        "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        list(values.items()),
    )


def _rebuild(
    conn: sqlite3.Connection,
    root: Path,
    snapshot: Snapshot,
    progress: Progress | None,
    *,
    fts: bool = True,
) -> int:
    if fts:
        conn.execute("INSERT INTO notes_fts(notes_fts) VALUES ('delete-all')")
    conn.execute("DELETE FROM notes")
    conn.execute("DELETE FROM skipped")
    notes = list_notes(root, snapshot)
    insert_notes(conn, root, snapshot, notes, progress, fts=False)
    if fts:
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
    delete_paths(conn, sorted(changes))
    present = {path: sig for path, sig in changes.items() if sig is not None}
    insert_notes(conn, root, snapshot, present, progress, fts=True)
    return "updated", len(changes)


def delete_paths(conn: sqlite3.Connection, paths: Iterable[str]) -> None:
    """Take these note paths out of the notes, the full-text table and the skipped list."""
    columns = ", ".join(FTS_COLUMNS)
    for path in paths:
        conn.execute(
            f"INSERT INTO notes_fts(notes_fts, rowid, {columns}) "
            f"SELECT 'delete', rowid, {columns} FROM notes WHERE path = ?",
            (path,),
        )
        conn.execute("DELETE FROM notes WHERE path = ?", (path,))
        conn.execute("DELETE FROM skipped WHERE path = ?", (path,))


INSERT_NOTE = (
    "INSERT INTO notes (id, path, title, type, tags, tag_list, confidence, date, repo, "
    "services, files_touched, author, supersedes, depends_on, expires, source, summary, "
    "body, signature) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)


def insert_notes(
    conn: sqlite3.Connection,
    root: Path,
    snapshot: Snapshot,
    wanted: dict[str, str],
    progress: Progress | None,
    *,
    fts: bool,
) -> None:
    """Parse and insert the snapshot's notes `wanted` (path -> signature); a note that cannot
    be parsed, or whose id is taken, goes to `skipped` with the reason."""
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
                cursor = conn.execute(INSERT_NOTE, note_row(note, signature))
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


def note_row(note: Any, signature: str) -> tuple[Any, ...]:
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
    """Taxonomy aliases and names, and recall settings, so that recall never parses a file.

    The names (`vocabulary`) are what `lore.recall.filters` checks `--type`, `--tag` and
    `--repo` against; JSON null when the vault has no taxonomy (then any name goes).
    """
    from lore.taxonomy import parse_taxonomy
    from lore.vault.settings import SERVED, parse_settings, recall_settings

    taxonomy_text = read_vault_file(root, snapshot, "_taxonomy.md")
    aliases: dict[str, list[str]] = {}
    vocabulary = "null"
    if taxonomy_text:
        taxonomy = parse_taxonomy(taxonomy_text)
        aliases = taxonomy.alias_map()
        vocabulary = vocabulary_json(taxonomy)
    try:
        settings = parse_settings(read_vault_file(root, snapshot, "lore.toml"), source=SERVED)
        settings_problem = ""
    except LoreError as exc:
        settings = parse_settings(None, source=SERVED)
        settings_problem = str(exc)
    set_meta(
        conn,
        {
            "aliases": json.dumps(aliases, sort_keys=True),
            VOCABULARY_KEY: vocabulary,
            "recall_settings": json.dumps(recall_settings(settings), sort_keys=True),
            "settings": json.dumps(settings, sort_keys=True),
            "settings_problem": settings_problem,
        },
    )


def vocabulary_json(taxonomy: Any) -> str:
    """The `vocabulary` meta row of a parsed taxonomy: its names and aliases, sorted."""
    return json.dumps(
        {
            "types": sorted(taxonomy.types),
            "repos": sorted(taxonomy.repos),
            "tags": sorted(taxonomy.tags),
            "aliases": taxonomy.alias_map(),
        },
        sort_keys=True,
    )


def refresh_statuses(conn: sqlite3.Connection, today: str) -> None:
    """Recompute active/inactive for every note that links or expires (the rest are active)."""
    from lore.note.status import Links, compute_status  # only when the index is written

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
