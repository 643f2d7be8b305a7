"""An index that cannot be written: a read-only state folder or a full disk.

Each case runs lore as a process in a private mount namespace where the vault's state
folder (`<git dir>/lore/`, which holds the index) is a read-only bind mount, or a small tmpfs filled to the last block (root and
`unshare -m`; skipped otherwise). Commands that only read must keep answering from
the committed files; commands whose job is to write the index say "Cannot write the
index" and exit 2 — never 3, never a traceback, never exit 0 with nothing printed.
"""

from __future__ import annotations

import json
import shlex
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.faults.conftest import (
    SHOWN,
    FaultVault,
    Outcome,
    full_disk,
    in_private_mounts,
    lore_process,
    needs_private_mounts,
    overwrite_page,
    read_only,
    root_page,
)

pytestmark = needs_private_mounts

NOTES = 30
FRESH_NOTE = "ops--zebra-crossing--2026-11-19"
CANNOT_WRITE = "Cannot write the index at"


class Scenario:
    def __init__(self, name: str, prepare: Callable[[FaultVault, Path], str], *, stale: bool):
        self.name = name
        self.prepare = prepare  # returns the shell lines that set up the mount
        self.stale = stale  # a note was merged after the index was built

    def __repr__(self) -> str:
        return self.name


def _read_only_stale(vault: FaultVault, scratch: Path) -> str:
    vault.add_note(FRESH_NOTE, "Zebra crossings are merged after the index")
    return read_only(vault.index.parent)


def _read_only_damaged(vault: FaultVault, scratch: Path) -> str:
    overwrite_page(vault.index, root_page(vault.index, "notes"))
    return read_only(vault.index.parent)


def _full_disk_no_index(vault: FaultVault, scratch: Path) -> str:
    return full_disk(vault.index.parent, size_kib=64)


def _full_disk_stale(vault: FaultVault, scratch: Path) -> str:
    vault.add_note(FRESH_NOTE, "Zebra crossings are merged after the index")
    kept = scratch / "kept-lore"
    shutil.copytree(vault.index.parent, kept)
    return full_disk(vault.index.parent, keep=kept, size_kib=1024)


SCENARIOS = [
    Scenario("read-only-stale", _read_only_stale, stale=True),
    Scenario("read-only-damaged", _read_only_damaged, stale=False),
    Scenario("full-disk-no-index", _full_disk_no_index, stale=False),
    Scenario("full-disk-stale", _full_disk_stale, stale=True),
]


def run(vault: FaultVault, setup: str, *args: str, stdin: bytes | None = None) -> Outcome:
    return lore_process(list(args), prefix=in_private_mounts(setup), stdin=stdin, cwd=vault.root)


def assert_clean(outcome: Outcome) -> None:
    assert "Traceback" not in outcome.err and "internal error" not in outcome.err, outcome


@pytest.fixture(params=SCENARIOS, ids=repr)
def unwritable(
    request: pytest.FixtureRequest, fault_vault: FaultVault, tmp_path: Path
) -> tuple[FaultVault, str, Scenario]:
    scenario: Scenario = request.param
    return fault_vault, scenario.prepare(fault_vault, tmp_path), scenario


def test_recall_scans_the_committed_files(unwritable: tuple[FaultVault, str, Scenario]) -> None:
    vault, setup, scenario = unwritable
    outcome = run(vault, setup, "recall", "--json", "topic7", "keyword7")
    assert outcome.code == 0, outcome
    data = outcome.json()
    assert data["engine"] == "scan" and data["results"][0]["id"] == SHOWN
    assert any(CANNOT_WRITE in notice for notice in data["notices"]), data["notices"]
    if scenario.stale:  # the commit the index has not seen is served
        zebra = run(vault, setup, "recall", "--json", "zebra", "crossings").json()
        assert [hit["id"] for hit in zebra["results"]] == [FRESH_NOTE]
    assert_clean(outcome)
    vault.assert_nothing_lost()


def test_show_reads_the_committed_files(unwritable: tuple[FaultVault, str, Scenario]) -> None:
    vault, setup, scenario = unwritable
    wanted = FRESH_NOTE if scenario.stale else SHOWN
    outcome = run(vault, setup, "show", wanted, "--json")
    assert outcome.code == 0, outcome
    assert outcome.json()["id"] == wanted
    assert CANNOT_WRITE in outcome.said and "read from the committed files instead" in outcome.said
    assert_clean(outcome)
    vault.assert_nothing_lost()


def test_stats_reads_the_committed_files(unwritable: tuple[FaultVault, str, Scenario]) -> None:
    vault, setup, scenario = unwritable
    outcome = run(vault, setup, "stats", "--json")
    assert outcome.code == 0, outcome
    counts = outcome.json()["notes"]
    added = 1 if scenario.stale else 0
    assert (counts["total"], counts["active"]) == (NOTES + added, NOTES - 1 + added)
    assert CANNOT_WRITE in outcome.said
    assert_clean(outcome)
    vault.assert_nothing_lost()


@pytest.mark.parametrize("flags", [["--rebuild", "--json"], ["--check"]], ids=" ".join)
def test_index_says_it_cannot_write(
    unwritable: tuple[FaultVault, str, Scenario], flags: list[str]
) -> None:
    vault, setup, _ = unwritable
    outcome = run(vault, setup, "index", *flags)
    assert outcome.code == 2, outcome
    if "--json" in flags:  # the same error as one JSON object (docs/cli.md)
        assert outcome.json()["error"].startswith(CANNOT_WRITE), outcome
    else:
        assert outcome.out == ""
    assert outcome.err.startswith(f"lore: {CANNOT_WRITE}"), outcome
    assert "Free some disk space or make the folder writable" in outcome.said
    assert_clean(outcome)
    vault.assert_nothing_lost()


def test_doctor_says_the_index_cannot_be_written(
    unwritable: tuple[FaultVault, str, Scenario],
) -> None:
    vault, setup, scenario = unwritable
    outcome = run(vault, setup, "doctor", "--offline", "--json")
    assert outcome.code == 1, outcome
    check = next(c for c in outcome.json()["checks"] if c["name"] == "index")
    assert check["ok"] is False and check["value"].startswith("cannot be written"), check
    reason = "is read-only" if scenario.name.startswith("read-only") else "is full"
    assert reason in check["value"]
    assert_clean(outcome)
    vault.assert_nothing_lost()


def test_session_start_hook_stays_silent(
    unwritable: tuple[FaultVault, str, Scenario], tmp_path: Path
) -> None:
    vault, setup, _ = unwritable
    payload = json.dumps({"cwd": str(tmp_path), "hook_event_name": "SessionStart"})
    outcome = run(
        vault, setup, "hook", "session-start", "--agent", "claude-code", stdin=payload.encode()
    )
    assert (outcome.code, outcome.out, outcome.err) == (0, "", "")
    vault.assert_nothing_lost()


@pytest.mark.parametrize(
    "scenario", [SCENARIOS[1], SCENARIOS[3]], ids=repr
)  # a server costs a second or two to start: one per kind of unwritable folder
def test_mcp_get_note_reads_the_committed_files(
    scenario: Scenario, fault_vault: FaultVault, tmp_path: Path
) -> None:
    from tests.faults.test_index_mcp import mcp_client, server_params

    setup = scenario.prepare(fault_vault, tmp_path)
    (tmp_path / "home").mkdir()
    params = server_params(fault_vault.root, tmp_path / "home", in_private_mounts(setup))
    wanted = FRESH_NOTE if scenario.stale else SHOWN
    with mcp_client(params) as client:
        result = client.call("get_note", {"id": wanted})
        assert not result.is_error, result.content[0].text
        assert result.structured_content["id"] == wanted
        recalled = client.call("recall", {"query": "topic7 keyword7"})
        assert not recalled.is_error, recalled.content[0].text
        assert recalled.structured_content["engine"] == "scan"
        assert recalled.structured_content["results"][0]["id"] == SHOWN
    fault_vault.assert_nothing_lost()


def test_a_rebuild_that_fills_the_disk_leaves_the_old_index(
    fault_vault: FaultVault, tmp_path: Path
) -> None:
    """Full disk mid-rebuild: exit 2, and once space is freed the old index is sound."""
    kept = tmp_path / "kept-lore"
    shutil.copytree(fault_vault.index.parent, kept)
    folder = fault_vault.index.parent
    setup = full_disk(folder, keep=kept, size_kib=1024)
    after = (  # "$0" is this Python: `lore_process` puts it after the prefix
        'lore() { "$0" -m lore "$@"; }; '
        'lore index --rebuild; echo "rebuild exit $?"; '
        f"rm {shlex.quote(str(folder / 'filler'))}; "
        'lore index --check --json; echo "check exit $?"; '
        'lore recall --json topic7 keyword7; echo "recall exit $?"'
    )
    outcome = lore_process(
        [],
        prefix=["unshare", "-m", "sh", "-c", f"set -e; {setup}; set +e; {after}"],
        cwd=fault_vault.root,
    )
    assert "rebuild exit 2" in outcome.out, outcome
    assert CANNOT_WRITE in outcome.err and "the disk is full" in outcome.said
    assert "check exit 0" in outcome.out and "recall exit 0" in outcome.out, outcome
    check_json = outcome.out.split("rebuild exit 2", 1)[1].split("check exit 0")[0]
    check = json.loads(check_json)
    assert check["integrity"] == "ok" and check["notes"] == NOTES and check["action"] == "fresh"
    recall_json = outcome.out.split("check exit 0", 1)[1].split("recall exit 0")[0]
    assert json.loads(recall_json)["engine"] == "fts5"
    assert_clean(outcome)
    fault_vault.assert_nothing_lost()
