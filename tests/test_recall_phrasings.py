"""Several phrasings in one recall (`lore recall … --or ALT`): each ranked alone, fused by rank."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable

import pytest

from lore.cli.main import main
from lore.recall.engine import recall
from lore.recall.fusion import RRF_K, fuse
from lore.recall.model import Hit, RecallRequest
from lore.recall.multi import recall_many
from lore.vaults import VaultRef
from tests.support import Vault, block_state_dir, note_text

POOL = "postgres--pgbouncer-transaction-mode--2025-03-11"
LOCKS = "postgres--migrations-lock-timeout--2025-06-02"
OLD_POOL = "postgres--pgbouncer-session-mode--2024-01-10"
NOTES = {
    POOL: note_text(
        "PgBouncer runs in transaction pooling mode",
        type="decision",
        tags="[tool/postgres, tool/pgbouncer]",
        supersedes=f"[{OLD_POOL}]",
        body="## What\nEvery production database sits behind PgBouncer in transaction mode.\n",
    ),
    OLD_POOL: note_text(
        "PgBouncer ran in session mode with a large server pool",
        type="decision",
        tags="[tool/postgres, tool/pgbouncer]",
        date="2024-01-10",
        body="## What\nSession mode kept one server connection per client: exhausted at peak.\n",
    ),
    LOCKS: note_text(
        "Migrations set a lock timeout before altering hot tables",
        type="gotcha",
        tags="[tool/postgres, tool/alembic]",
        body="## What\nAn ALTER TABLE that waits on a lock blocks every query behind it.\n",
    ),
    "web--react-query-stale-time--2025-07-01": note_text(
        "React Query staleTime defaults to zero",
        type="gotcha",
        tags="[service/web, tool/react]",
        body="## What\nEvery mount refetches unless staleTime is set.\n",
    ),
    "ops--black-friday-freeze--2025-11-10": note_text(
        "No deploys during the Black Friday change freeze",
        type="runbook",
        tags="[pattern/testing]",
        body="## What\nFrom Thursday to Monday only hotfixes approved by the on-call lead ship.\n",
    ),
}


@pytest.fixture
def vault(make_vault: Callable[..., Vault], monkeypatch: pytest.MonkeyPatch) -> Vault:
    made = make_vault(NOTES)
    monkeypatch.setenv("LORE_VAULT", str(made.root))
    return made


def run_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, object]:
    assert main(["recall", *args, "--json"]) == 0
    data: dict[str, object] = json.loads(capsys.readouterr().out)
    return data


def ids(data: dict[str, object]) -> list[str]:
    return [hit["id"] for hit in data["results"]]  # type: ignore[attr-defined, index]


def _hit(note_id: str) -> Hit:
    return Hit(
        id=note_id,
        title=note_id,
        path=f"notes/{note_id}.md",
        type="gotcha",
        repo=[],
        tags=[],
        confidence="high",
        date="2026-01-01",
        author=None,
        summary="",
        score=1.0,
        snippet="",
    )


@pytest.mark.parametrize(
    ("rankings", "expected"),
    [
        # Found by both beats first under one only: 2/62 > 1/61.
        ([["a", "b"], ["b", "c"]], ["b", "a", "c"]),
        # Agreement at the top stays at the top; a note only one phrasing found follows.
        ([["a", "b", "c"], ["a", "c"]], ["a", "c", "b"]),
        # Equal fused scores: the better single rank first, then the id.
        ([["x", "y"], ["y", "x"], ["z"]], ["x", "y", "z"]),
        # One phrasing alone: its own order.
        ([["q", "p", "r"]], ["q", "p", "r"]),
    ],
)
def test_fusion_adds_reciprocal_ranks(rankings: list[list[str]], expected: list[str]) -> None:
    hits = [[_hit(name) for name in ranking] for ranking in rankings]
    fused = [hit for _, hit in fuse(hits, 10, lambda hit: hit.id)]
    assert [hit.id for hit in fused] == expected
    best = len(rankings) / (RRF_K + 1)
    for hit in fused:
        found = [r for r in hit.ranks if r is not None]
        assert hit.score == pytest.approx(sum(1 / (RRF_K + r) for r in found) / best)
        assert 0.0 < hit.score <= 1.0
        assert hit.ranks[hit.phrasing] == min(found)  # it carries its best phrasing's scores
    assert all(hit.score == 1.0 for hit in hits[0])  # the rankings keep their own scores


def test_a_second_phrasing_finds_what_the_first_misses(
    vault: Vault, capsys: pytest.CaptureFixture[str]
) -> None:
    alone = run_json(capsys, "hot tables")
    assert POOL not in ids(alone) and "phrasings" not in alone  # the shape is unchanged
    fused = run_json(capsys, "hot tables", "--or", "connection pool exhausted")
    assert fused["phrasings"] == ["hot tables", "connection pool exhausted"]
    assert fused["query"] == "hot tables"
    assert ids(fused)[:2] == [LOCKS, POOL]  # each first under its own phrasing
    assert set(ids(fused)) >= {LOCKS, POOL}
    # The superseded note matched "pool exhausted" best: its replacement answers, as alone.
    assert OLD_POOL not in ids(fused)


def test_each_phrasing_keeps_the_filters_and_statuses(
    vault: Vault, capsys: pytest.CaptureFixture[str]
) -> None:
    gotchas = run_json(capsys, "postgres", "--or", "pgbouncer pool", "--type", "gotcha")
    assert ids(gotchas) == [LOCKS]
    everything = run_json(capsys, "postgres", "--or", "session mode exhausted", "--all")
    assert OLD_POOL in ids(everything)


def test_explain_shows_each_phrasings_rank(
    vault: Vault, capsys: pytest.CaptureFixture[str]
) -> None:
    data = run_json(capsys, "hot tables", "--or", "pgbouncer transaction mode", "--explain")
    results = data["results"]
    assert isinstance(results, list)
    by_id = {hit["id"]: hit["explain"] for hit in results}
    assert by_id[LOCKS]["ranks"] == [1, None] and by_id[LOCKS]["phrasing"] == 0
    assert by_id[POOL]["ranks"] == [None, 1] and by_id[POOL]["phrasing"] == 1
    terms = {term["term"] for term in data["terms"]}  # type: ignore[attr-defined]
    assert {"hot", "tables", "pgbouncer", "transaction"} <= terms
    assert main(["recall", "hot tables", "--or", "pgbouncer transaction mode", "--explain"]) == 0
    shown = capsys.readouterr().out
    assert "phrasing 1: hot tables" in shown and "phrasing 2: pgbouncer transaction mode" in shown
    assert "phrasing 1: #1, phrasing 2: not in its top" in shown
    assert "fused score" in shown


def test_several_phrasings_use_one_index_connection(
    vault: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The phrasings are ranked on the connection the first one opened."""
    from lore.index import read

    recall(vault.root, RecallRequest("postgres"))  # the index is built and kept
    read.forget_kept_index()
    opened: list[str] = []
    real = sqlite3.connect

    def counting(*args: object, **kwargs: object) -> sqlite3.Connection:
        opened.append(str(args[0]))
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(sqlite3, "connect", counting)
    single = recall(vault.root, RecallRequest("postgres"))
    read.forget_kept_index()
    once = len(opened)
    fused = recall(
        vault.root, RecallRequest("postgres", also=("pgbouncer pool", "lock timeout alter"))
    )
    assert once >= 1 and len(opened) == 2 * once
    assert single.engine == fused.engine == "fts5" and len(fused.rankings) == 3


def test_the_scan_fallback_fuses_the_same_way(vault: Vault) -> None:
    request = RecallRequest("hot tables", also=("connection pool exhausted",), limit=3)
    indexed = recall(vault.root, request)
    block_state_dir(vault.root)
    scanned = recall(vault.root, request)
    assert scanned.engine == "scan" and indexed.engine == "fts5"
    assert [hit.id for hit in scanned.hits] == [hit.id for hit in indexed.hits]
    assert [hit.ranks for hit in scanned.hits] == [hit.ranks for hit in indexed.hits]


def test_several_vaults_fuse_each_phrasings_merged_list(
    make_vault: Callable[..., Vault],
) -> None:
    team = make_vault({POOL: NOTES[POOL], OLD_POOL: NOTES[OLD_POOL]})
    org = make_vault({LOCKS: NOTES[LOCKS], POOL: NOTES[POOL]})  # the same id in both
    vaults = [VaultRef("team", team.root), VaultRef("org", org.root)]
    request = RecallRequest("hot tables", also=("pgbouncer transaction mode",))
    result = recall_many(vaults, request)
    found = list(zip(result.labels, [hit.id for hit in result.hits], strict=True))
    assert found[0] == ("org", LOCKS)  # first for "hot tables"
    assert ("team", POOL) in found and ("org", POOL) in found  # one note per vault
    assert len(found) == len(set(found))
    assert result.phrasings == ["hot tables", "pgbouncer transaction mode"]


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--or", "pool"], "there is no query"),
        (["pool", "--or", "  "], "--or needs words"),
        (["pool", "--or", "a", "--or", "b", "--or", "c", "--or", "d"], "at most 3 other"),
    ],
)
def test_bad_phrasings_are_one_sentence_and_exit_2(
    vault: Vault, capsys: pytest.CaptureFixture[str], args: list[str], says: str
) -> None:
    assert main(["recall", *args]) == 2
    err = capsys.readouterr().err
    assert says in err and "Traceback" not in err
