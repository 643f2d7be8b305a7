"""The index: built from HEAD, updated from git diff, rebuilt when broken, safe to share."""

from __future__ import annotations

import multiprocessing
import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

import pytest

from lore.index.build import IndexUnavailable, open_index
from lore.index.health import integrity_problems
from lore.index.read import forget_kept_index, open_index_kept
from lore.index.schema import APPLICATION_ID, SCHEMA_VERSION
from lore.index.status import uncommitted_notes
from lore.paths import index_path
from lore.recall.engine import recall
from lore.recall.model import RecallRequest
from tests.support import Vault, block_state_dir, note_text


def ids(root: Path) -> set[str]:
    conn, _ = open_index(root)
    try:
        return {row[0] for row in conn.execute("SELECT id FROM notes")}
    finally:
        conn.close()


def three_notes() -> dict[str, str]:
    return {
        "billing--httpx-tests--2026-11-02": note_text(),
        "postgres--lock-timeout--2026-10-01": note_text(
            "Migrations set a lock timeout",
            type="gotcha",
            tags="[tool/postgres]",
            body="## What\nSet lock_timeout before ALTER TABLE.\n",
        ),
        "web--cookie-flags--2026-09-01": note_text(
            "Session cookies are HttpOnly",
            type="decision",
            tags="[service/auth]",
            body="## What\nThe session cookie is HttpOnly and SameSite=Lax.\n",
        ),
    }


def test_build_from_head(make_vault: Callable[..., Vault]) -> None:
    vault = make_vault(three_notes())
    conn, state = open_index(vault.root)
    conn.close()
    assert state.action == "rebuilt"
    assert state.notes == 3
    assert state.kind == "git"
    again, second = open_index(vault.root)
    again.close()
    assert second.action == "fresh"
    conn = sqlite3.connect(index_path(vault.root))
    assert conn.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    from tests.support import git

    head = git(vault.root, "rev-parse", "HEAD")
    assert conn.execute("SELECT value FROM meta WHERE key='version'").fetchone()[0] == head
    assert integrity_problems(conn) == []


def test_uncommitted_edits_are_not_served(make_vault: Callable[..., Vault]) -> None:
    vault = make_vault(three_notes())
    vault.write("billing--httpx-tests--2026-11-02", note_text("Edited locally, not reviewed"))
    vault.write("extra--unreviewed--2026-11-03", note_text("Brand new and uncommitted"))
    conn, _ = open_index(vault.root)
    titles = {row[0] for row in conn.execute("SELECT title FROM notes")}
    conn.close()
    assert "Edited locally, not reviewed" not in titles
    assert "Brand new and uncommitted" not in titles
    assert uncommitted_notes(vault.root) == [
        "notes/billing--httpx-tests--2026-11-02.md",
        "notes/extra--unreviewed--2026-11-03.md",
    ]


def test_update_touches_only_changed_notes(make_vault: Callable[..., Vault]) -> None:
    vault = make_vault(three_notes())
    conn, _ = open_index(vault.root)
    before = dict(conn.execute("SELECT id, rowid FROM notes").fetchall())
    conn.close()
    vault.write("billing--httpx-tests--2026-11-02", note_text("Integration tests use httpx, v2"))
    vault.remove("web--cookie-flags--2026-09-01")
    vault.write("new--added-note--2026-11-05", note_text("A newly merged note"))
    vault.commit("merge three changes")
    conn, state = open_index(vault.root)
    after = dict(conn.execute("SELECT id, rowid FROM notes").fetchall())
    hits = conn.execute(
        "SELECT n.id FROM notes_fts JOIN notes n ON n.rowid = notes_fts.rowid "
        "WHERE notes_fts MATCH '\"merged\"'"
    ).fetchall()
    gone = conn.execute("SELECT count(*) FROM notes_fts WHERE notes_fts MATCH '\"httponly\"'")
    assert gone.fetchone()[0] == 0
    assert integrity_problems(conn) == []
    conn.close()
    assert state.action == "updated"
    assert state.changed == 3
    assert (
        after["postgres--lock-timeout--2026-10-01"] == before["postgres--lock-timeout--2026-10-01"]
    )
    assert "web--cookie-flags--2026-09-01" not in after
    assert hits == [("new--added-note--2026-11-05",)]


def test_history_rewrite_falls_back_to_rebuild(make_vault: Callable[..., Vault]) -> None:
    from tests.support import git

    vault = make_vault(three_notes())
    open_index(vault.root)[0].close()
    vault.write("new--added-note--2026-11-05", note_text("A newly merged note"))
    vault.commit("one")
    open_index(vault.root)[0].close()
    git(vault.root, "reset", "-q", "--hard", "HEAD~1")
    git(vault.root, "reflog", "expire", "--expire=now", "--all")
    git(vault.root, "gc", "-q", "--prune=now")
    conn, state = open_index(vault.root)
    conn.close()
    assert state.action == "rebuilt"
    assert "new--added-note--2026-11-05" not in ids(vault.root)


DAMAGES = ["garbage", "empty", "foreign", "old-schema", "truncated"]


def damage_index(path: Path, damage: str) -> None:
    if damage == "garbage":
        for suffix in ("-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)
        path.write_bytes(b"this is not a database at all" * 100)
    elif damage == "empty":
        for suffix in ("", "-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)
        path.write_bytes(b"")
    elif damage == "foreign":
        for suffix in ("", "-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)
        other = sqlite3.connect(path)
        other.execute("CREATE TABLE notes (x)")
        other.execute("PRAGMA application_id = 12345")
        other.commit()
        other.close()
    elif damage == "old-schema":
        conn = sqlite3.connect(path)
        conn.execute("PRAGMA user_version = 0")
        conn.commit()
        conn.close()
    elif damage == "truncated":
        conn = sqlite3.connect(path)
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        conn.close()
        data = path.read_bytes()
        path.write_bytes(data[: len(data) // 3])


@pytest.mark.parametrize("damage", DAMAGES)
def test_broken_index_is_rebuilt(make_vault: Callable[..., Vault], damage: str) -> None:
    vault = make_vault(three_notes())
    path = index_path(vault.root)
    open_index(vault.root)[0].close()
    damage_index(path, damage)
    conn, state = open_index(vault.root)
    conn.close()
    assert state.action == "rebuilt"
    assert ids(vault.root) == set(three_notes())


def _recalled(root: Path, query: str) -> list[str]:
    result = recall(root, RecallRequest(query=query))
    assert result.engine == "fts5", result.notices
    return [hit.id for hit in result.hits]


@pytest.mark.parametrize("damage", DAMAGES)
def test_kept_connection_survives_a_damaged_index(
    make_vault: Callable[..., Vault], damage: str
) -> None:
    vault = make_vault(three_notes())
    assert _recalled(vault.root, "lock timeout") == ["postgres--lock-timeout--2026-10-01"]
    damage_index(index_path(vault.root), damage)
    assert _recalled(vault.root, "lock timeout") == ["postgres--lock-timeout--2026-10-01"]
    assert _recalled(vault.root, "cookie") == ["web--cookie-flags--2026-09-01"]
    forget_kept_index()
    assert ids(vault.root) == set(three_notes())


def test_kept_connection_is_reused_and_follows_the_vault(
    make_vault: Callable[..., Vault],
) -> None:
    vault = make_vault(three_notes())
    first, _ = open_index_kept(vault.root)
    again, state = open_index_kept(vault.root)
    assert again is first and state.action == "fresh"

    vault.write("new--retry-budget--2026-11-05", note_text("Retry budget for webhooks"))
    vault.commit("add a note")
    assert _recalled(vault.root, "retry budget") == ["new--retry-budget--2026-11-05"]

    for suffix in ("", "-wal", "-shm"):  # the folder is deleted and the index built anew
        Path(f"{index_path(vault.root)}{suffix}").unlink(missing_ok=True)
    open_index(vault.root)[0].close()
    replaced, state = open_index_kept(vault.root)
    assert replaced is not first
    assert state.notes == 4

    other = make_vault(three_notes())
    elsewhere, _ = open_index_kept(other.root)
    assert elsewhere is not replaced
    with pytest.raises(sqlite3.ProgrammingError):  # closed: one kept connection per thread
        replaced.execute("SELECT 1")
    forget_kept_index()


def test_each_thread_keeps_its_own_connection(make_vault: Callable[..., Vault]) -> None:
    vault = make_vault(three_notes())
    answers: list[list[str]] = []

    def ask() -> None:
        for _ in range(3):
            answers.append(_recalled(vault.root, "session cookie"))
        forget_kept_index()

    threads = [threading.Thread(target=ask) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert answers == [["web--cookie-flags--2026-09-01"]] * 12


def _build_in_process(root: str, queue: multiprocessing.Queue[str]) -> None:
    try:
        conn, state = open_index(Path(root))
        conn.close()
        queue.put(state.action)
    except Exception as exc:  # noqa: BLE001 - reported to the parent test
        queue.put(f"error: {exc!r}")


def test_concurrent_builders_neither_fail_nor_both_rebuild(
    make_vault: Callable[..., Vault],
) -> None:
    notes = {f"bulk--note-{i}--2026-01-01": note_text(f"Bulk note {i}") for i in range(300)}
    vault = make_vault(notes)
    context = multiprocessing.get_context("spawn")
    queue: multiprocessing.Queue[str] = context.Queue()
    workers = [
        context.Process(target=_build_in_process, args=(str(vault.root), queue)) for _ in range(4)
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
    results = sorted(queue.get(timeout=5) for _ in workers)
    assert results.count("rebuilt") == 1, results
    assert results.count("fresh") == 3, results
    assert len(ids(vault.root)) == 300


def test_reader_keeps_a_consistent_view_during_rebuild(make_vault: Callable[..., Vault]) -> None:
    vault = make_vault(three_notes())
    reader, _ = open_index(vault.root)
    reader.execute("BEGIN")
    before = reader.execute("SELECT count(*) FROM notes").fetchone()[0]
    writer, state = open_index(vault.root, rebuild=True)
    writer.close()
    assert reader.execute("SELECT count(*) FROM notes").fetchone()[0] == before
    reader.execute("COMMIT")
    assert reader.execute("SELECT count(*) FROM notes").fetchone()[0] == 3
    reader.close()
    assert state.action == "rebuilt"


def test_vault_without_git_is_indexed_from_files(make_vault: Callable[..., Vault]) -> None:
    vault = make_vault(three_notes(), use_git=False)
    conn, state = open_index(vault.root)
    conn.close()
    assert state.kind == "files"
    assert state.notes == 3
    vault.write("new--added-note--2026-11-05", note_text("A note on disk"))
    vault.remove("web--cookie-flags--2026-09-01")
    conn, state = open_index(vault.root)
    conn.close()
    assert state.action == "updated"
    assert state.changed == 2
    assert ids(vault.root) == (set(three_notes()) - {"web--cookie-flags--2026-09-01"}) | {
        "new--added-note--2026-11-05"
    }


def test_broken_notes_are_skipped_and_listed(make_vault: Callable[..., Vault]) -> None:
    notes = three_notes()
    notes["broken--no-frontmatter--2026-01-01"] = "just text\n"
    notes["broken--bad-date--2026-01-01"] = note_text(date="yesterday")
    vault = make_vault(notes)
    conn, state = open_index(vault.root)
    skipped = dict(conn.execute("SELECT path, problem FROM skipped").fetchall())
    conn.close()
    assert state.notes == 3
    assert state.skipped == 2
    assert (
        "notes/broken--bad-date--2026-01-01.md:6:"
        in skipped["notes/broken--bad-date--2026-01-01.md"]
    )


def test_statuses(make_vault: Callable[..., Vault]) -> None:
    notes = three_notes()
    notes["postgres--lock-timeout-v2--2026-11-01"] = note_text(
        "Migrations set a 5 s lock timeout",
        tags="[tool/postgres]",
        supersedes="[postgres--lock-timeout--2026-10-01]",
    )
    notes["old--freeze--2025-11-01"] = note_text("Freeze", expires="2025-12-01")
    notes["web--depends--2026-10-01"] = note_text(
        "Depends on the old note", depends_on="[postgres--lock-timeout--2026-10-01]"
    )
    vault = make_vault(notes)
    conn, _ = open_index(vault.root)
    rows = dict(conn.execute("SELECT id, inactive_reason FROM notes WHERE active = 0").fetchall())
    conn.close()
    assert rows == {
        "postgres--lock-timeout--2026-10-01": "superseded by postgres--lock-timeout-v2--2026-11-01",
        "old--freeze--2025-11-01": "expired on 2025-12-01",
        "web--depends--2026-10-01": "depends on postgres--lock-timeout--2026-10-01, which is not active",
    }


def test_unwritable_index_location_is_reported(make_vault: Callable[..., Vault]) -> None:
    vault = make_vault(three_notes())
    block_state_dir(vault.root)
    with pytest.raises(IndexUnavailable):
        open_index(vault.root)


def test_kept_connection_over_a_file_overwritten_in_place_is_reopened(
    make_vault: Callable[..., Vault],
) -> None:
    notes = {
        f"bulk--note-{i}--2026-01-01": note_text(
            f"Bulk note {i} about topic{i}", body=f"Word{i}.\n"
        )
        for i in range(400)
    }
    vault = make_vault(notes)
    open_index(vault.root)[0].close()  # built by another connection: the kept one reads little
    assert _recalled(vault.root, "topic1") == ["bulk--note-1--2026-01-01"]
    damage_index(index_path(vault.root), "garbage")  # same file, new bytes: SQLite can't tell
    assert _recalled(vault.root, "topic399") == ["bulk--note-399--2026-01-01"]
    forget_kept_index()


def test_search_that_fails_inside_the_index_rebuilds_it(
    make_vault: Callable[..., Vault],
) -> None:
    vault = make_vault(three_notes())
    open_index(vault.root)[0].close()
    conn = sqlite3.connect(index_path(vault.root))
    conn.execute("DELETE FROM notes_fts_data WHERE id > 1")  # schema and meta stay sound
    conn.commit()
    conn.close()
    result = recall(vault.root, RecallRequest(query="lock timeout"))
    forget_kept_index()
    assert result.engine == "fts5"
    assert [hit.id for hit in result.hits] == ["postgres--lock-timeout--2026-10-01"]
    assert "has been rebuilt" in result.notices[0]
    assert Path(f"{index_path(vault.root)}.aside").is_file()
    conn, state = open_index(vault.root)
    assert integrity_problems(conn) == []
    conn.close()
    assert state.action == "fresh"


def _error_of(conn: sqlite3.Connection, sql: str) -> sqlite3.Error:
    try:
        conn.execute(sql)
    except sqlite3.Error as exc:
        return exc
    raise AssertionError(f"{sql} did not fail")


def test_every_sqlite_error_is_sorted_into_a_kind(tmp_path: Path) -> None:
    from lore.index.health import BUG, BUSY, DAMAGED, UNSURE, UNWRITABLE, classify

    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE VIRTUAL TABLE t USING fts5(x)")
    # SQLite's generic error: a dropped table, or a query it cannot parse. Which one
    # is settled by looking at the index (test_a_bad_query_is_not_taken_for_damage).
    assert classify(_error_of(conn, "SELECT * FROM no_such_table")) == UNSURE
    assert classify(_error_of(conn, "SELECT * FROM t WHERE t MATCH '\"unclosed'")) == UNSURE
    garbage = tmp_path / "garbage.db"
    garbage.write_bytes(b"not a database" * 300)
    assert classify(_error_of(sqlite3.connect(garbage), "SELECT 1 FROM sqlite_master")) == DAMAGED
    locked = tmp_path / "locked.db"
    holder = sqlite3.connect(locked, isolation_level=None)
    holder.execute("CREATE TABLE x (y)")
    holder.execute("BEGIN EXCLUSIVE")
    waiter = sqlite3.connect(locked, timeout=0)
    assert classify(_error_of(waiter, "SELECT * FROM x")) == BUSY
    holder.execute("ROLLBACK")
    read_only = sqlite3.connect(f"file:{locked}?mode=ro", uri=True)
    assert classify(_error_of(read_only, "INSERT INTO x VALUES (1)")) == UNWRITABLE
    conn.close()
    assert classify(_error_of(conn, "SELECT 1")) == BUG  # a closed connection: our bug
    assert classify(OSError(28, "No space left on device")) == UNWRITABLE
    # Python 3.10 has no error codes: the message decides.
    for message, kind in [
        ("database or disk is full", UNWRITABLE),
        ("attempt to write a readonly database", UNWRITABLE),
        ("database is locked", BUSY),
        ("database disk image is malformed", DAMAGED),
        ("file is not a database", DAMAGED),
        ("no such table: notes_fts", UNSURE),
    ]:
        assert classify(sqlite3.OperationalError(message)) == kind, message


def test_a_bad_query_is_not_taken_for_damage(make_vault: Callable[..., Vault]) -> None:
    from lore.index.read import read_index

    vault = make_vault(three_notes())
    open_index(vault.root)[0].close()
    with pytest.raises(sqlite3.OperationalError, match="unterminated string"):
        read_index(
            vault.root,
            lambda conn, _: conn.execute(
                "SELECT rowid FROM notes_fts WHERE notes_fts MATCH '\"unclosed'"
            ).fetchall(),
        )
    assert not Path(f"{index_path(vault.root)}.aside").exists()  # nothing moved, nothing rebuilt


def test_without_fts5_readers_use_the_committed_files(
    make_vault: Callable[..., Vault], monkeypatch: pytest.MonkeyPatch
) -> None:
    """This Python's SQLite has FTS5, so its absence is simulated by lore's own flag."""
    from lore.index import build
    from lore.index.notes import get_note
    from lore.team.stats import vault_stats

    vault = make_vault(three_notes())
    monkeypatch.setattr(build, "_FTS5", False)
    notices: list[str] = []
    found = get_note(vault.root, "postgres--lock-timeout--2026-10-01", notices=notices)
    assert found is not None and found[0].title == "Migrations set a lock timeout"
    assert notices == [
        "SQLite with FTS5 is not available in this Python. "
        "The notes were read from the committed files instead."
    ]
    assert vault_stats(vault.root).total == 3
    assert not index_path(vault.root).exists()


def test_index_json_is_never_empty_when_the_index_cannot_be_used(
    make_vault: Callable[..., Vault],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    import json

    from lore.cli.main import main
    from lore.index import build

    vault = make_vault(three_notes())
    monkeypatch.setattr(build, "_FTS5", False)  # simulated: this SQLite has FTS5
    assert main(["index", "--rebuild", "--json", "--vault", str(vault.root)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["engine"], data["action"]) == ("scan", "unavailable")
    assert "FTS5" in data["error"]


def test_unwritable_index_folder_is_exit_2_with_the_reason(
    make_vault: Callable[..., Vault], capsys: pytest.CaptureFixture[str]
) -> None:
    from lore.cli.main import main

    vault = make_vault(three_notes())
    block_state_dir(vault.root)
    assert main(["index", "--rebuild", "--vault", str(vault.root)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    folder = index_path(vault.root).parent
    assert err.startswith(f"lore: Cannot write lore's state folder {folder}: ")
    assert "it is a file, not a folder" in err
    assert main(["show", "postgres--lock-timeout--2026-10-01", "--vault", str(vault.root)]) == 0
    assert "Migrations set a lock timeout" in capsys.readouterr().out


class _WithoutFts5Option(sqlite3.Connection):
    """A real connection whose SQLite says it was built without ENABLE_FTS5, so the
    check must fall back to creating a table (`refuse`: that fails too, as it would)."""

    refuse = False
    option = False  # True: the compile option answers as this machine's SQLite does
    statements: ClassVar[list[str]] = []

    def execute(self, sql: str, *args: Any) -> sqlite3.Cursor:
        self.statements.append(sql)
        if "sqlite_compileoption_used" in sql and not self.option:
            return super().execute("SELECT 0")
        if self.refuse and "USING fts5" in sql:
            raise sqlite3.OperationalError("no such module: fts5")
        return super().execute(sql, *args)


@pytest.mark.parametrize("registered", [True, False])
def test_fts5_is_found_without_the_compile_option_only_by_trying(
    monkeypatch: pytest.MonkeyPatch, registered: bool
) -> None:
    from lore.index import schema

    real_connect = sqlite3.connect
    monkeypatch.setattr(
        sqlite3,
        "connect",
        lambda *a, **k: real_connect(*a, **k, factory=_WithoutFts5Option),
    )
    monkeypatch.setattr(_WithoutFts5Option, "statements", [])
    monkeypatch.setattr(_WithoutFts5Option, "option", True)
    assert schema.fts5_available()  # this machine's SQLite has the option: no table made
    assert not any("CREATE" in sql for sql in _WithoutFts5Option.statements)
    monkeypatch.setattr(_WithoutFts5Option, "option", False)
    monkeypatch.setattr(_WithoutFts5Option, "refuse", not registered)
    assert schema.fts5_available() is registered
