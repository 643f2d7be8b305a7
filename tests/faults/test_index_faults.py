"""A damaged index heals, whatever the damage, under every command that reads it.

Each damage below is done to a real index file; each reading command then runs
against it: `recall`, `show`, `stats`, `index --check`, `index --rebuild`, `doctor`,
the session-start hook and MCP `get_note` (`test_index_mcp.py`). Every case checks
the exit code, the message, the answer, and that no note or commit was lost. The
index is a cache: healing means moving the bad file aside (kept as
`.lore/index.db.aside`) and building it again from the committed notes.

Some damage is seen when the index is opened (its header, schema version and tables
are checked every time); some only when a command reads the damaged page. `parts`
says which pages a damage breaks and `READS` which a command reads, so each case
knows whether its command must have met the damage and healed it, or only answered
right.
"""

from __future__ import annotations

import io
import json
import sqlite3
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.faults.conftest import (
    SHOWN,
    FaultVault,
    Outcome,
    drop_table,
    file_digest,
    make_directory,
    make_foreign_database,
    overwrite_page,
    remove_index_files,
    root_page,
    truncate_to_pages,
)

NOTES = 30
ACTIVE = 29  # one note is superseded


class Damage:
    def __init__(
        self,
        name: str,
        make: Callable[[Path], None],
        *,
        at_open: bool = False,
        parts: frozenset[str] = frozenset(),
        old: bool = False,
    ) -> None:
        self.name = name
        self.make = make
        self.at_open = at_open  # every open of the index sees it
        self.parts = parts  # what it breaks that only a read of those pages meets
        self.old = old  # an older lore's index: rebuilt quietly, not damage

    def met_by(self, reads: frozenset[str]) -> bool:
        return self.at_open or bool(self.parts & reads)

    def __repr__(self) -> str:
        return self.name


def _page_of(table: str) -> Callable[[Path], None]:
    return lambda index: overwrite_page(index, root_page(index, table))


def _rightmost_leaf_of_notes(index: Path) -> None:
    root = root_page(index, "notes")
    data = index.read_bytes()[(root - 1) * 4096 : root * 4096]
    assert data[0] == 0x05, "the notes table should span several pages"
    overwrite_page(index, int.from_bytes(data[8:12], "big"))


def _delete_fts_rows(index: Path) -> None:
    conn = sqlite3.connect(index)
    conn.execute("DELETE FROM notes_fts_data WHERE id > 1")  # schema and meta stay sound
    conn.commit()
    conn.close()


def _keep_first_pages(index: Path) -> None:
    keep = max(root_page(index, "meta"), root_page(index, "sqlite_autoindex_meta_1"))
    truncate_to_pages(index, keep)


def _zero_length(index: Path) -> None:
    remove_index_files(index)
    index.write_bytes(b"")


def _not_a_database(index: Path) -> None:
    remove_index_files(index)
    index.write_bytes(b"this is not a database at all\n" * 200)


def _old_schema(index: Path) -> None:
    conn = sqlite3.connect(index)
    conn.execute("PRAGMA user_version = 0")
    conn.commit()
    conn.close()


def _drop(table: str) -> Callable[[Path], None]:
    return lambda index: drop_table(index, table)


DAMAGES = [
    Damage("header-page", lambda index: overwrite_page(index, 1), at_open=True),
    Damage("meta-root-page", _page_of("meta"), at_open=True),
    Damage("notes-root-page", _page_of("notes"), parts=frozenset({"notes", "notes-leaves"})),
    Damage("notes-leaf-page", _rightmost_leaf_of_notes, parts=frozenset({"notes-leaves"})),
    Damage("id-index-page", _page_of("sqlite_autoindex_notes_1"), parts=frozenset({"id-index"})),
    Damage("fts-data-page", _page_of("notes_fts_data"), parts=frozenset({"fts"})),
    Damage("fts-rows-deleted", _delete_fts_rows, parts=frozenset({"fts"})),
    Damage("truncated", _keep_first_pages, at_open=True),
    Damage("dropped-notes_fts", _drop("notes_fts"), at_open=True),
    Damage("dropped-notes", _drop("notes"), at_open=True),
    Damage("dropped-meta", _drop("meta"), at_open=True),
    Damage("dropped-skipped", _drop("skipped"), at_open=True),
    Damage("zero-length", _zero_length, at_open=True),
    Damage("not-a-database", _not_a_database, at_open=True),
    Damage("foreign-database", make_foreign_database, at_open=True),
    Damage("directory", make_directory, at_open=True),
    Damage("old-schema", _old_schema, at_open=True, old=True),
]

# Which pages each command reads (always the notes table's root, through its rows).
READS = {
    "recall": frozenset({"notes", "fts"}),
    "show": frozenset({"notes", "id-index"}),
    "stats": frozenset({"notes", "notes-leaves"}),
    "hook": frozenset({"notes", "notes-leaves"}),
    "get_note": frozenset({"notes", "id-index"}),
}

HEALED = "has been rebuilt from the notes"


def damaged(fault_vault: FaultVault, damage: Damage) -> FaultVault:
    damage.make(fault_vault.index)
    return fault_vault


def assert_healed_or_answered(
    vault: FaultVault, damage: Damage, command: str, messages: str
) -> None:
    """Met: healed, with one notice, the bad file kept aside. Not met: nothing to say."""
    if damage.met_by(READS[command]) and not damage.old:
        assert HEALED in messages, messages
        assert vault.aside.exists(), "the damaged file is kept aside"
        assert vault.index_is_sound()
    elif damage.old:
        assert HEALED not in messages and not vault.aside.exists()
        assert vault.index_is_sound()
    vault.assert_nothing_lost()


@pytest.mark.parametrize("damage", DAMAGES, ids=repr)
def test_recall_heals(
    damage: Damage, fault_vault: FaultVault, lore_cli: Callable[..., Outcome]
) -> None:
    vault = damaged(fault_vault, damage)
    run = lore_cli("recall", "--json", "topic7", "keyword7")
    assert run.code == 0, run
    data = run.json()
    assert data["engine"] == "fts5", data.get("notices")
    assert data["results"][0]["id"] == SHOWN
    superseded = lore_cli("recall", "--json", "database", "pool", "connections").json()
    assert [hit["id"] for hit in superseded["results"]] == ["postgres--pool-size-50--2026-11-01"]
    assert_healed_or_answered(vault, damage, "recall", json.dumps(data.get("notices", [])))


@pytest.mark.parametrize("damage", DAMAGES, ids=repr)
def test_show_heals(
    damage: Damage, fault_vault: FaultVault, lore_cli: Callable[..., Outcome]
) -> None:
    vault = damaged(fault_vault, damage)
    run = lore_cli("show", SHOWN, "--json")
    assert run.code == 0, run
    note = run.json()
    assert (note["id"], note["title"]) == (SHOWN, "Runbook step 7 for topic7")
    assert "keyword7" in note["body"] and note["active"] is True
    assert_healed_or_answered(vault, damage, "show", run.said)


@pytest.mark.parametrize("damage", DAMAGES, ids=repr)
def test_stats_heals(
    damage: Damage, fault_vault: FaultVault, lore_cli: Callable[..., Outcome]
) -> None:
    vault = damaged(fault_vault, damage)
    run = lore_cli("stats", "--json")
    assert run.code == 0, run
    counts = run.json()["notes"]
    assert (counts["total"], counts["active"]) == (NOTES, ACTIVE)
    assert_healed_or_answered(vault, damage, "stats", run.said)


@pytest.mark.parametrize("damage", DAMAGES, ids=repr)
def test_index_check_reports_and_leaves_the_file(
    damage: Damage, fault_vault: FaultVault, lore_cli: Callable[..., Outcome]
) -> None:
    vault = damaged(fault_vault, damage)
    before = file_digest(vault.index)
    run = lore_cli("index", "--check")
    if damage.old:  # not damage: brought up to date, then checked
        assert run.code == 0, run
        assert "Integrity check passed" in run.said
    else:
        assert run.code == 1, run
        assert "Integrity check failed" in run.said
        assert "lore index --rebuild" in run.said and "no note is lost" in run.said
        assert file_digest(vault.index) == before, "--check must not touch the file"
        assert not vault.aside.exists()
        as_json = lore_cli("index", "--check", "--json")
        assert as_json.code == 1 and as_json.json()["integrity"], as_json
    assert "Traceback" not in run.err and "internal error" not in run.err
    vault.assert_nothing_lost()


@pytest.mark.parametrize("damage", DAMAGES, ids=repr)
def test_index_rebuild_heals(
    damage: Damage, fault_vault: FaultVault, lore_cli: Callable[..., Outcome]
) -> None:
    vault = damaged(fault_vault, damage)
    run = lore_cli("index", "--rebuild", "--json")
    assert run.code == 0, run
    data = run.json()
    assert (data["action"], data["notes"], data["active"]) == ("rebuilt", NOTES, ACTIVE)
    assert vault.index_is_sound()
    if damage.at_open and not damage.old:
        assert data["healed"] and HEALED in data["healed"] and HEALED in run.said
        assert vault.aside.exists()
    if damage.old:
        assert data["healed"] is None and not vault.aside.exists()
    vault.assert_nothing_lost()


@pytest.mark.parametrize("damage", DAMAGES, ids=repr)
def test_doctor_reports(
    damage: Damage, fault_vault: FaultVault, lore_cli: Callable[..., Outcome]
) -> None:
    vault = damaged(fault_vault, damage)
    before = file_digest(vault.index)
    run = lore_cli("doctor", "--offline", "--json")
    report = run.json()
    check = next(c for c in report["checks"] if c["name"] == "index")
    if damage.old:
        assert check["ok"] is None and "older lore" in check["value"]
    else:
        assert run.code == 1, run
        assert check["ok"] is False and check["value"].startswith("damaged: "), check
        assert "lore index --rebuild" in check["fix"]
        assert any(problem.startswith("index: damaged") for problem in report["problems"])
    assert file_digest(vault.index) == before, "doctor must not touch the file"
    vault.assert_nothing_lost()


def test_doctor_says_a_sound_index_is_sound(
    fault_vault: FaultVault, lore_cli: Callable[..., Outcome]
) -> None:
    """The control case: the same check passes on the undamaged index."""
    report = lore_cli("doctor", "--offline", "--json").json()
    check = next(c for c in report["checks"] if c["name"] == "index")
    assert check == {"name": "index", "value": f"sound ({NOTES} notes)", "ok": True, "fix": None}


# --- the session-start hook --------------------------------------------------------


class Launches:
    """What the hook asked to start in the background (run here in the foreground).

    The launcher itself (detached, throttled, time-limited) is tested end to end in
    tests/integrations/test_hooks.py; here the command it was given is run in this
    process, so each case can check that it heals the index.
    """

    def __init__(self) -> None:
        self.commands: list[list[str]] = []

    def __call__(self, name: str, argv: list[str], **_: object) -> bool:
        self.commands.append(argv)
        return True


def run_session_start(
    monkeypatch: pytest.MonkeyPatch, capsysbinary: pytest.CaptureFixture[bytes], cwd: Path
) -> tuple[int, bytes, bytes]:
    from lore.cli.main import main

    payload = json.dumps({"cwd": str(cwd), "hook_event_name": "SessionStart", "source": "startup"})
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(payload.encode())))
    capsysbinary.readouterr()
    code = main(["hook", "session-start", "--agent", "claude-code"])
    captured = capsysbinary.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize("damage", DAMAGES, ids=repr)
def test_session_start_hook_fails_open_and_heals_in_the_background(
    damage: Damage,
    fault_vault: FaultVault,
    monkeypatch: pytest.MonkeyPatch,
    capsysbinary: pytest.CaptureFixture[bytes],
    tmp_path: Path,
) -> None:
    from lore.cli import hook_cmd
    from lore.cli.main import main
    from lore.integrations import hooks

    launches = Launches()
    monkeypatch.setattr(hooks, "launch_once", launches)
    monkeypatch.setattr(hook_cmd, "HARD_LIMIT_S", 0)  # no SIGALRM watchdog inside pytest
    monkeypatch.setattr(hook_cmd, "sync_command", lambda: None)
    vault = damaged(fault_vault, damage)
    code, out, err = run_session_start(monkeypatch, capsysbinary, tmp_path)
    assert (code, err) == (0, b"")
    if damage.met_by(READS["hook"]):
        assert out == b"", "a hook that meets a damaged index stays silent"
        assert len(launches.commands) == 1
        command = launches.commands[0]
        assert command[:3] == [sys.executable, "-m", "lore"]
        assert command[3:7] == ["index", "--vault", str(vault.root), "--json"]
        assert ("--rebuild" in command) == (not damage.at_open)  # read damage: a rebuild
        assert main(command[3:]) == 0  # what the background job runs
        capsysbinary.readouterr()
        assert vault.index_is_sound()
        code, out, err = run_session_start(monkeypatch, capsysbinary, tmp_path)
        assert (code, err) == (0, b"")
    assert b"postgres--pool-size-50--2026-11-01" in out, out[:300]
    assert b"postgres--pool-size-20--2025-01-10" not in out  # superseded: not in the digest
    vault.assert_nothing_lost()


@pytest.mark.parametrize("command", ["recall", "show", "stats"])
def test_text_that_is_not_utf8_in_a_sound_page_heals(
    command: str, fault_vault: FaultVault, lore_cli: Callable[..., Outcome]
) -> None:
    """Pages SQLite finds sound, holding text lore never wrote (bytes that are not UTF-8):
    Python cannot read the rows, so the file is damaged for lore and is healed like any
    other damage (found in a fuzzing run of random bytes)."""
    conn = sqlite3.connect(fault_vault.index)
    conn.execute("UPDATE notes SET title = CAST(x'C328FF' AS TEXT)")
    conn.commit()
    conn.close()
    args = {
        "recall": ("recall", "--json", "topic7", "keyword7"),
        "show": ("show", SHOWN, "--json"),
        "stats": ("stats", "--json"),
    }[command]
    run = lore_cli(*args)
    assert run.code == 0, run
    data = run.json()
    titles = [hit["title"] for hit in data.get("results", [])] + [data.get("title", "")]
    assert not any("\ufffd" in title for title in titles)  # real titles: rebuilt from notes
    assert HEALED in run.said and fault_vault.aside.exists()
