"""Processes that die mid-build, and processes that build and read at the same time.

A builder killed with SIGKILL inside its transaction leaves the index as it was
before (SQLite rolls the WAL back) and frees the index lock (the kernel drops a dead
process's `flock`). Builders and readers racing each other never fail, never read a
half-built index, and a damaged index met by several readers at once is moved aside
once.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from lore.files import FileLock
from tests.faults.conftest import (
    READY,
    SHOWN,
    FaultVault,
    Outcome,
    kill_9,
    overwrite_page,
    remove_index_files,
    root_page,
    run_together,
    start_until_ready,
)
from tests.faults.test_index_faults import ACTIVE, NOTES

# A child that rebuilds the vault's index and stops, at the chosen moment, inside the
# transaction: the notes are inserted, the full-text index and the commit are not.
# Its connections get a tiny page cache, so the transaction spills pages into the WAL
# before it commits, as a large vault's rebuild does.
KILLED_BUILDER = """
import sys, time
from pathlib import Path
import lore.index.build as build

real_connect = build.connect
def small_cache(*args, **kwargs):
    conn = real_connect(*args, **kwargs)
    conn.execute("PRAGMA cache_size = 2")
    return conn
build.connect = small_cache

def stop_here(done, total):
    print("{ready}", flush=True)
    time.sleep(600)

build.open_index(Path(sys.argv[1]), rebuild={rebuild}, progress=stop_here)
"""


def killed_mid_build(vault: FaultVault, *, rebuild: bool) -> None:
    code = KILLED_BUILDER.format(ready=READY, rebuild=rebuild)
    process = start_until_ready(f"import sys; sys.argv[1:] = [{str(vault.root)!r}]\n{code}")
    wal = Path(f"{vault.index}-wal")
    assert wal.stat().st_size > 0, "the transaction had written pages when it was killed"
    kill_9(process)


def assert_lock_free(vault: FaultVault) -> None:
    with FileLock(vault.index.parent / "index.lock", timeout=0):
        pass


def assert_answers(vault: FaultVault, lore_cli: Callable[..., Outcome]) -> None:
    recalled = lore_cli("recall", "--json", "topic7", "keyword7")
    assert recalled.code == 0 and recalled.json()["results"][0]["id"] == SHOWN, recalled
    stats = lore_cli("stats", "--json")
    assert stats.code == 0, stats
    assert (stats.json()["notes"]["total"], stats.json()["notes"]["active"]) == (NOTES, ACTIVE)
    check = lore_cli("index", "--check", "--json")
    assert check.code == 0 and check.json()["integrity"] == "ok", check
    vault.assert_nothing_lost()


def test_kill_9_during_a_rebuild_keeps_the_old_index(
    fault_vault: FaultVault, lore_cli: Callable[..., Outcome]
) -> None:
    before = fault_vault.index.read_bytes()
    killed_mid_build(fault_vault, rebuild=True)
    assert_lock_free(fault_vault)
    assert fault_vault.index_is_sound()
    assert fault_vault.index.read_bytes() == before  # never checkpointed into the file
    assert_answers(fault_vault, lore_cli)
    assert not fault_vault.aside.exists()  # nothing to heal: the old index was intact


def test_kill_9_during_the_first_build(
    fault_vault: FaultVault, lore_cli: Callable[..., Outcome]
) -> None:
    remove_index_files(fault_vault.index)
    killed_mid_build(fault_vault, rebuild=False)
    assert_lock_free(fault_vault)
    # The schema was committed before the notes: an empty index, not fresh, so rebuilt.
    assert_answers(fault_vault, lore_cli)


def test_kill_9_while_healing_a_damaged_index(
    fault_vault: FaultVault, lore_cli: Callable[..., Outcome]
) -> None:
    overwrite_page(fault_vault.index, 1)  # seen at open: moved aside, then rebuilt
    killed_mid_build(fault_vault, rebuild=False)
    assert_lock_free(fault_vault)
    assert fault_vault.aside.exists()
    assert_answers(fault_vault, lore_cli)


READER = """
import json, sys
from pathlib import Path
from lore.index.notes import get_note
from lore.recall.engine import recall
from lore.recall.model import RecallRequest
from lore.team.stats import vault_stats
root = Path({root!r})
seen = []
for _ in range({rounds}):
    notices = []
    note = get_note(root, {shown!r}, notices=notices)
    hits = [h.id for h in recall(root, RecallRequest("topic7 keyword7")).hits]
    stats = vault_stats(root)
    seen.append([note[0].title if note else None, hits[:1], stats.total, stats.active, notices])
print(json.dumps(seen))
"""

BUILDER = """
from pathlib import Path
from lore.index.build import open_index
for _ in range({rounds}):
    conn, state = open_index(Path({root!r}), rebuild=True)
    conn.close()
print(state.action, state.notes)
"""


def reader_code(vault: FaultVault, rounds: int) -> str:
    return READER.format(root=str(vault.root), rounds=rounds, shown=SHOWN)


def read_results(outcome: Outcome) -> list[list[object]]:
    assert outcome.code == 0 and outcome.err == "", outcome
    rounds: list[list[object]] = json.loads(outcome.out)
    return rounds


def test_builders_and_readers_at_once(fault_vault: FaultVault, tmp_path: Path) -> None:
    builders = [BUILDER.format(root=str(fault_vault.root), rounds=3)] * 3
    readers = [reader_code(fault_vault, 8)] * 3
    outcomes = run_together(builders + readers, tmp_path)
    for outcome in outcomes[:3]:
        assert outcome.code == 0 and outcome.out.split() == ["rebuilt", str(NOTES)], outcome
    for outcome in outcomes[3:]:
        for title, hits, total, active, notices in read_results(outcome):
            assert (title, hits, total, active) == (
                "Runbook step 7 for topic7",
                [SHOWN],
                NOTES,
                ACTIVE,
            )
            assert notices == []  # nothing was ever damaged or unusable
    assert fault_vault.index_is_sound()
    assert not fault_vault.aside.exists()
    fault_vault.assert_nothing_lost()


def test_readers_meeting_one_damage_heal_it_once(fault_vault: FaultVault, tmp_path: Path) -> None:
    overwrite_page(fault_vault.index, root_page(fault_vault.index, "notes"))
    outcomes = run_together([reader_code(fault_vault, 2)] * 4, tmp_path)
    healed = 0
    for outcome in outcomes:
        for title, hits, total, active, notices in read_results(outcome):
            assert (title, hits, total, active) == (
                "Runbook step 7 for topic7",
                [SHOWN],
                NOTES,
                ACTIVE,
            )
            healed += sum("has been rebuilt" in str(n) for n in notices)  # type: ignore[attr-defined]
    assert healed == 1, outcomes
    assert fault_vault.aside.exists()
    assert not Path(f"{fault_vault.aside}.aside").exists()
    assert fault_vault.index_is_sound()
    fault_vault.assert_nothing_lost()
