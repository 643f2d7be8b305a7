"""The real-decision recall eval: how its queries are made, the whole eval on two small
repositories of ADRs made here, and its figures when the public ADR snapshots are here
(eval/run_real_recall_eval.py; CI has no snapshots).

The ADRs and sentences below were written for this test, in the shapes real ADRs use.
The two repositories are real git repositories cloned bare into the layout the snapshot
fetcher leaves, so the eval goes through everything it uses of the curator eval's
modules (the manifest, `lore import adr` through `real_adr_import`, the raw texts): a
rename there fails here, without the snapshots.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support import git, load_script

EVAL = Path(__file__).resolve().parent.parent / "eval" / "run_real_recall_eval.py"


@pytest.fixture(scope="module")
def recall_eval() -> Any:
    return load_script(EVAL, "run_real_recall_eval")


@pytest.fixture(scope="module")
def adr_text(recall_eval: Any) -> Any:
    return sys.modules["real_recall_prompts"]  # imported by the recall eval, from eval/


def test_a_link_to_a_sibling_adr_is_a_reference_and_leaves_the_query(adr_text: Any) -> None:
    by_stem = {"0004-queue-for-webhooks": "shop--0004-queue-for-webhooks--2024-01-02"}
    sentence = (
        "Webhook deliveries are retried through the queue chosen in "
        "[ADR 4](./0004-queue-for-webhooks.md#decision), so a slow partner never blocks checkout."
    )
    assert adr_text.references(sentence, by_stem, {}) == [
        ("shop--0004-queue-for-webhooks--2024-01-02", "link")
    ]
    query = adr_text.query_of(sentence)
    assert "ADR" not in query and "0004" not in query and "](" not in query
    assert query.startswith("Webhook deliveries are retried through the queue chosen in")


def test_a_numbered_mention_is_a_reference_only_when_the_number_is_one_adr(
    adr_text: Any,
) -> None:
    sentence = "As ADR-0012 settled, invoices are rendered on the worker, not in the request."
    assert adr_text.references(sentence, {}, {12: "shop--0012-render-invoices--2024-03-01"}) == [
        ("shop--0012-render-invoices--2024-03-01", "number")
    ]
    assert adr_text.references(sentence, {}, {}) == []
    assert "0012" not in adr_text.query_of(sentence)


def test_too_little_left_is_no_query_and_metadata_is_not_prose(adr_text: Any) -> None:
    assert adr_text.query_of("See [ADR 3](0003-x.md).") is None
    assert adr_text.not_prose("Status: superseded by ADR-9")
    assert adr_text.not_prose("| Date | 2024-05-01 | Author | someone |")
    assert not adr_text.not_prose("The cache keys follow the naming set out in ADR 7.")


def test_sentences_split_on_full_stops_and_list_items(adr_text: Any) -> None:
    text = (
        "We keep one cluster. It is cheaper to run.\n\n- Logs go to the shared store\n- Alerts page"
    )
    assert adr_text.sentences(text) == [
        "We keep one cluster.",
        "It is cheaper to run.",
        "Logs go to the shared store",
        "Alerts page",
    ]


def test_real_recall_when_the_snapshots_are_here(recall_eval: Any) -> None:
    """Needs the public ADR snapshots (eval/README.md says how to get them); CI has none."""
    mirrors = os.environ.get("LORE_ADR_MIRRORS")
    if not mirrors or not Path(mirrors).is_dir():
        pytest.skip(
            "the real-decision recall eval reads public repositories' snapshots, which are "
            "not committed: set LORE_ADR_MIRRORS to a folder of them to run it"
        )
    results = recall_eval.evaluate(Path(mirrors))
    if results.get("missing"):
        pytest.skip(f"snapshots missing: {sorted(results['missing'])}")
    # the last recorded run of the notes `lore import adr` makes now (this VERSION)
    runs = json.loads(recall_eval.RESULTS.read_text(encoding="utf-8"))["runs"]
    recorded = [
        run
        for name, run in runs.items()
        if not name.startswith("agent-queries-") and run["version"] == recall_eval.VERSION
    ][-1]
    assert results["version"] == recorded["version"] == recall_eval.VERSION
    assert results["queries"] == recorded["queries"]  # the same queries as the recorded run
    for way in ("lore", "lore --repo"):
        assert results["all"][way]["mrr@10"] >= recorded["all"][way]["mrr@10"] - 0.01
    # lore's ranking is not below the floor's: on the notes the eval's own converter made
    # it was 0.011 above; on the import's (run import-adr) it is 0.002 below, within this
    # margin (eval/README.md)
    assert results["all"]["lore"]["mrr@10"] >= results["all"]["bm25"]["mrr@10"] - 0.01


# ---- the agent-query mode (eval/real_recall_agents.py) ----

AGENTS = Path(__file__).resolve().parent.parent / "eval" / "real_recall_agents.py"


@pytest.fixture(scope="module")
def agents(recall_eval: Any) -> Any:
    return load_script(AGENTS, "real_recall_agents")


def _adr(adr_text: Any, sections: list[tuple[str, str]]) -> Any:
    return adr_text.RawAdr("0007-queue-webhooks.md", "", sections)


def test_a_consequence_prompt_is_the_first_prose_sentence_of_consequences(
    adr_text: Any,
) -> None:
    adr = _adr(
        adr_text,
        [
            ("Context", "Partners time out when checkout calls them inline."),
            ("Decision", "Webhook deliveries go through a queue with retries."),
            (
                "Consequences",
                "Status: accepted\n\nA slow partner no longer blocks the checkout request. "
                "Operators watch the queue depth.",
            ),
        ],
    )
    assert adr_text.consequence_prompt(adr) == (
        "A slow partner no longer blocks the checkout request."
    )
    assert adr_text.consequence_prompt(_adr(adr_text, [("Decision", "Queue it.")])) is None
    short = _adr(adr_text, [("Positive consequences", "None."), ("Decision", "Queue.")])
    assert adr_text.consequence_prompt(short) is None  # too few words to ask with


def test_a_note_that_keeps_the_consequences_is_indexed_without_them(adr_text: Any) -> None:
    """Should `lore import adr` keep an ADR's Consequences (as `## Gotchas`, or MADR's
    "Good, because" joining `## Why`), the note the eval indexes holds none of them, and
    nothing else is lost."""
    adr = adr_text.read_adr(
        "0007-queue-webhooks.md",
        "# 7. Queue webhooks\n\nDate: 2024-01-02\n\n## Context\n\nPartners time out.\n\n"
        "## Decision\n\nWebhook deliveries go through a queue with retries.\n\n"
        "## Positive Consequences\n\n* A slow partner no longer blocks the checkout request.\n\n"
        "## Negative Consequences\n\n* Operators must watch the [queue depth](ops.md) daily.\n",
    )
    note = (
        '---\ntitle: "Queue webhooks"\ntype: decision\ndate: 2024-01-02\n---\n'
        "## What\nWebhook deliveries go through a queue with retries.\n\n"
        "## Why\nPartners time out. A slow partner no longer blocks the checkout request.\n\n"
        "## Gotchas\n- Operators must watch the queue depth daily.\n\n"
        "## How\nThe worker drains the queue.\n"
    )
    kept = adr_text.without_consequences(note, adr)
    assert "slow partner" not in kept and "queue depth" not in kept and "Gotchas" not in kept
    assert kept.startswith('---\ntitle: "Queue webhooks"\ntype: decision\ndate: 2024-01-02\n---\n')
    for held in ("## What", "queue with retries.", "## Why\nPartners time out.", "## How"):
        assert held in kept
    plain = "---\ntitle: x\n---\n## What\nWebhook deliveries go through a queue.\n"
    assert adr_text.without_consequences(plain, adr) == plain  # nothing to take out


def _queries(recall_eval: Any) -> tuple[list[Any], list[Any]]:
    query = recall_eval.Query
    citations = [
        query("shop", "shop--x--2024-02-01", "shop--queue--2024-01-02",
              "Deliveries are retried through the queue chosen earlier", "link", 0.2,
              "shop--0009-x--2024-02-01|shop--0004-queue--2024-01-02"),
    ]  # fmt: skip
    consequences = [
        query("shop", "", "shop--queue--2024-01-02",
              "A slow partner no longer blocks the checkout request.", "consequence", 0.0,
              "|shop--0004-queue--2024-01-02"),
        query("ops", "", "ops--one-cluster--2023-05-05",
              "Upgrades happen once for every team.", "consequence", 0.0,
              "|ops--0002-one-cluster--2023-05-05"),
    ]  # fmt: skip
    return citations, consequences


def test_the_material_is_the_task_the_skill_and_the_prompts_and_nothing_of_the_answers(
    recall_eval: Any, agents: Any
) -> None:
    made = agents.prompts(*_queries(recall_eval))
    assert [prompt.kind for prompt in made].count("consequence") == 2
    assert all(re.fullmatch(r"p-[0-9a-f]{8}", prompt.id) for prompt in made)
    assert made == agents.prompts(*_queries(recall_eval))  # the same ids every run
    skill = agents.SKILL.read_text(encoding="utf-8")
    text = agents.material(made, skill)
    assert skill.rstrip() in text and "--or" in text
    for prompt in made:
        assert f"- `{prompt.id}`: {prompt.text}" in text
        assert prompt.answer not in text  # no note ids
        assert not prompt.citing or prompt.citing not in text
    assert "shop" not in text and "ops--" not in text  # nor the repositories


def test_answers_are_read_with_one_sentence_for_a_bad_line(
    recall_eval: Any, agents: Any, tmp_path: Path
) -> None:
    made = agents.prompts(*_queries(recall_eval))
    known = {prompt.id for prompt in made}
    first, second = sorted(known)[:2]
    good = tmp_path / "answers.jsonl"
    good.write_text(
        json.dumps({"id": first, "query": " webhook  queue retries ", "or": "partner timeout"})
        + "\n\n"
        + json.dumps({"id": second, "query": "one cluster upgrades"})
        + "\n",
        encoding="utf-8",
    )
    answers = agents.read_answers(good, known)
    assert answers[first].query == "webhook queue retries"
    assert answers[first].also == ["partner timeout"]  # one string: a list of one
    assert answers[second].also == []
    bad_lines = {
        "{not json": "line 1 is not JSON",
        json.dumps({"id": "p-00000000", "query": "x"}): "answers no prompt of the material",
        json.dumps({"id": first, "query": "  "}): "query must be words",
        json.dumps({"id": first, "query": "q", "or": ["a", "b", "c", "d"]}): "at most 3",
        json.dumps([first]): "is not an object",
    }
    for line, says in bad_lines.items():
        bad = tmp_path / "bad.jsonl"
        bad.write_text(line + "\n", encoding="utf-8")
        with pytest.raises(agents.AnswersError, match=re.escape(says)):
            agents.read_answers(bad, known)
    twice = tmp_path / "twice.jsonl"
    line = json.dumps({"id": first, "query": "webhook queue"})
    twice.write_text(f"{line}\n{line}\n", encoding="utf-8")
    with pytest.raises(agents.AnswersError, match=r"twice.jsonl, line 2 answers p-\w+ a second"):
        agents.read_answers(twice, known)
    # Answers written for an earlier build of the prompts: a well-formed answer to a prompt
    # id this build no longer makes is counted and left out, when the caller asks for that
    older = tmp_path / "older.jsonl"
    older.write_text(
        json.dumps({"id": "p-00000000", "query": "webhook queue"}) + "\n" + line + "\n",
        encoding="utf-8",
    )
    gone: list[str] = []
    assert list(agents.read_answers(older, known, gone=gone)) == [first]
    assert gone == ["p-00000000"]
    for refused in ({"id": "webhooks", "query": "x"}, {"id": "p-00000000", "query": " "}):
        older.write_text(json.dumps(refused) + "\n", encoding="utf-8")
        with pytest.raises(agents.AnswersError, match="line 1"):
            agents.read_answers(older, known, gone=[])


def test_the_idf_overlap_baseline_and_rank_fusion(agents: Any) -> None:
    import sqlite3

    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE notes (id TEXT, title TEXT, body TEXT)")
    conn.executemany(
        "INSERT INTO notes VALUES (?, ?, ?)",
        [
            ("a", "Queue webhook deliveries", "Partners are called through the queue."),
            ("b", "One cluster for every team", "Teams share the cluster; upgrades once."),
            ("c", "Deploy on Tuesdays", "The team deploys on Tuesdays through the queue."),
        ],
    )
    baseline = agents.Baseline(conn)
    # "webhooks" is in one note (rare, weighs most), "queue" in two; stop words are dropped
    assert baseline.rank("the webhooks queue", 10) == ["a", "c"]
    assert baseline.rank("cluster upgrades", 10) == ["b"]
    assert baseline.rank("nothing matches here", 10) == []
    assert baseline.fused(["cluster upgrades", "webhooks queue"], 10)[:2] in (
        ["a", "b"],
        ["b", "a"],
    )
    assert agents.rrf([["x", "y"], ["y", "z"]]) == ["y", "x", "z"]
    assert agents.figures([1, None, 2, None]) == {
        "hit@1": 0.25, "hit@3": 0.5, "hit@10": 0.5, "mrr@10": 0.375,
    }  # fmt: skip


def test_recorded_agent_queries_score_as_recorded(recall_eval: Any, agents: Any) -> None:
    """Each recorded agent-query run, scored again from its committed answers, gives its
    recorded figures (needs the snapshots, as above)."""
    mirrors = os.environ.get("LORE_ADR_MIRRORS")
    if not mirrors or not Path(mirrors).is_dir():
        pytest.skip("needs LORE_ADR_MIRRORS, as the real-recall eval above")
    runs = json.loads(recall_eval.RESULTS.read_text(encoding="utf-8"))["runs"]
    recorded = {
        name: run
        for name, run in runs.items()
        if name.startswith("agent-queries-") and run["version"] == recall_eval.VERSION
    }
    if not recorded:
        pytest.skip("no agent-query run of these notes is recorded yet")
    for name, run in recorded.items():
        kept = run.get("answers_file", f"{name.removeprefix('agent-queries-')}.jsonl")
        answers = agents.ANSWERS_DIR / kept
        again = recall_eval.agent_mode(Path(mirrors), answers=answers, written_by=run["written_by"])
        assert again["answered"] == run["answered"]
        assert again["answers_to_gone_prompts"] == run["answers_to_gone_prompts"]
        for way in agents.WAYS:
            assert again["all"][way]["mrr@10"] == pytest.approx(run["all"][way]["mrr@10"], abs=0.01)


# ---- the whole eval on two repositories of ADRs made here ----

ACME = {  # Nygard's shape; 0003 gives no date (git's is used); 0004 is rejected
    "0001-record-decisions.md": "# 1. Record decisions\n\nDate: 2021-01-05\n\n## Status\n\n"
    "Accepted\n\n## Context\n\nWe forget why we chose things.\n\n## Decision\n\n"
    "We write every architecture decision down as a record in this folder.\n\n"
    "## Consequences\n\nNewcomers read the reasons behind the system before they change it.\n",
    "0002-store-jobs-in-postgres.md": "# 2. Store jobs in Postgres\n\nDate: 2021-02-01\n\n"
    "## Status\n\nAccepted\n\n## Context\n\nThe workers need a durable queue of background "
    "jobs.\n\n## Decision\n\nBackground jobs live in a Postgres table; the workers lock a row "
    "to take a job.\n\n## Consequences\n\nA crashed worker leaves its job for another "
    "worker to pick up once the lock is released.\n",
    "0003-retry-webhooks.md": "# 3. Retry webhooks\n\n## Status\n\nAccepted\n\n## Context\n\n"
    "Partner webhooks time out when their servers are slow.\n\n## Decision\n\nFailed webhook "
    "deliveries are retried with backoff from the job table chosen in "
    "[ADR 2](0002-store-jobs-in-postgres.md), up to a day.\n\n## Consequences\n\n"
    "Partners may see the same delivery twice and must ignore repeats.\n",
    "0004-use-soap.md": "# 4. Use SOAP\n\nDate: 2021-04-01\n\n## Status\n\nRejected\n\n"
    "## Decision\n\nPartners call us over SOAP, as chosen in "
    "[ADR 2](0002-store-jobs-in-postgres.md) for the jobs they start.\n",
}
GLOBEX = {  # MADR's shape; 0002 cites 0001 by number
    "0001-one-shared-cluster.md": "# One shared cluster\n\n* Status: accepted\n"
    "* Date: 2022-03-01\n\n## Context and Problem Statement\n\nEach team ran its own "
    "Kubernetes cluster and upgrades lagged.\n\n## Decision Outcome\n\nEvery service runs "
    "in one shared Kubernetes cluster, a namespace per team.\n\n"
    "## Positive Consequences\n\n* Upgrades happen once, for every team at the same time.\n",
    "0002-namespace-quotas.md": "# Namespace quotas\n\n* Status: accepted\n"
    "* Date: 2022-04-01\n\n## Context and Problem Statement\n\nAs ADR-0001 settled, every "
    "service shares the one cluster, and a noisy team starves the others.\n\n"
    "## Decision Outcome\n\nEach namespace gets a CPU and memory quota.\n",
}


@pytest.fixture
def two_repositories(recall_eval: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A snapshot folder of two repositories of ADRs, and a manifest naming them."""
    mirrors = tmp_path / "mirrors"
    entries = []
    for name, scope, folder, adrs in (
        ("acme/decisions", "acme", "docs/adr", ACME),
        ("globex/architecture", "globex", "adr", GLOBEX),
    ):
        work = tmp_path / scope
        (work / folder).mkdir(parents=True)
        (work / "README.md").write_text("Not an ADR.\n", encoding="utf-8")
        for file, text in adrs.items():
            (work / folder / file).write_text(text, encoding="utf-8")
        git(work, "init", "-q")
        git(work, "add", "-A")
        git(work, "commit", "-q", "-m", "decisions")
        git(
            tmp_path,
            "clone",
            "-q",
            "--bare",
            str(work),
            str(mirrors / name.replace("/", "+") / "repo"),
        )
        entries.append(
            f'[[repository]]\nname = "{name}"\ncommit = "{git(work, "rev-parse", "HEAD")}"\n'
            f'folder = "{folder}"\nlicence = "written for this test"\nscope = "{scope}"\n'
            'split = "tune"\n'
        )
    manifest = tmp_path / "manifest.toml"
    manifest.write_text(
        '[batches]\norder = ["tune", "held-out-9"]\nunread = ["held-out-9"]\n'
        "recorded_only = []\n\n" + "\n".join(entries),
        encoding="utf-8",
    )
    monkeypatch.setattr(sys.modules["real_adr_manifest"], "MANIFEST", manifest)
    return mirrors


def test_the_eval_runs_on_adrs_that_lore_import_adr_converts(
    recall_eval: Any, two_repositories: Path
) -> None:
    results = recall_eval.evaluate(two_repositories, splits=("tune",))
    assert results["missing"] == {}
    assert results["repositories"] == 2 and results["notes"] == 5
    assert results["skipped_by_import"] == {"rejected": 1}
    # 0003 cites 0002 by a link, globex's 0002 cites its 0001 by number; the rejected
    # ADR's link asks nothing (it is no note)
    assert (results["queries"], results["by_link"], results["by_number"]) == (2, 1, 1)
    shown = {(citing, answer): text for _, citing, answer, text, _ in results["_shown"]}
    assert shown == {
        ("acme--retry-webhooks--2026-11-01", "acme--store-jobs-in-postgres--2021-02-01"): (
            "Failed webhook deliveries are retried with backoff from the job table chosen in , "
            "up to a day."
        ),
        ("globex--namespace-quotas--2022-04-01", "globex--one-shared-cluster--2022-03-01"): (
            "As settled, every service shares the one cluster, and a noisy team starves the others."
        ),
    }
    assert results["all"]["lore"]["hit@10"] == 1.0


def test_the_agent_mode_on_adrs_that_lore_import_adr_converts(
    recall_eval: Any, agents: Any, two_repositories: Path, tmp_path: Path
) -> None:
    """The prompts, their ids (made as when the eval had its own converter, so answers
    written then still score), the indexed notes without their Consequences, and answers
    scored, an answer to a prompt no longer made counted and left out."""
    root = tmp_path / "vault"
    consequences: list[Any] = []
    citations, counts = recall_eval.build(two_repositories, root, consequences, splits=("tune",))
    assert counts["consequence_held_by_note"] == 0
    made = agents.prompts(citations, consequences)
    by_answer = {(p.kind, p.answer): p for p in made}
    assert len(made) == 6  # four consequences, two citations
    expected = {  # kind, then each ADR's file stem and the date its text gives (else git's)
        ("consequence", "acme--record-decisions--2021-01-05"): "consequence||"
        "acme--0001-record-decisions--2021-01-05",
        ("consequence", "acme--retry-webhooks--2026-11-01"): "consequence||"
        "acme--0003-retry-webhooks--2026-11-01",
        ("citation", "acme--store-jobs-in-postgres--2021-02-01"): "citation|"
        "acme--0003-retry-webhooks--2026-11-01|acme--0002-store-jobs-in-postgres--2021-02-01",
    }
    for (kind, answer), named in expected.items():
        digest = hashlib.sha256(named.encode()).hexdigest()[:8]
        assert by_answer[(kind, answer)].id == f"p-{digest}"
    assert by_answer[("consequence", "globex--one-shared-cluster--2022-03-01")].text == (
        "Upgrades happen once, for every team at the same time."
    )
    for prompt in made:
        if prompt.kind == "consequence":
            note = (root / "notes" / f"{prompt.answer}.md").read_text(encoding="utf-8")
            assert prompt.text not in note and "## Gotchas" not in note
    material = tmp_path / "material.md"
    recall_eval.agent_mode(two_repositories, material=material, splits=("tune",))
    text = material.read_text(encoding="utf-8")
    assert all(f"- `{p.id}`: {p.text}" in text for p in made)
    assert "acme" not in text and "globex" not in text  # no note id, no repository
    titles = {
        "acme--record-decisions--2021-01-05": "record architecture decisions",
        "acme--store-jobs-in-postgres--2021-02-01": "background jobs postgres table",
        "acme--retry-webhooks--2026-11-01": "retry failed webhook deliveries",
        "globex--one-shared-cluster--2022-03-01": "one shared kubernetes cluster",
        "globex--namespace-quotas--2022-04-01": "namespace quota",
    }
    lines = [
        json.dumps({"id": p.id, "query": titles[p.answer], "or": ["decision record"]}) for p in made
    ]
    lines.append(json.dumps({"id": "p-00000000", "query": "a prompt of an earlier build"}))
    answers = tmp_path / "answers.jsonl"
    answers.write_text("\n".join(lines) + "\n", encoding="utf-8")
    results = recall_eval.agent_mode(
        two_repositories, answers=answers, written_by="the test", splits=("tune",)
    )
    assert (results["prompts"], results["answered"], results["answers_to_gone_prompts"]) == (
        6,
        6,
        1,
    )
    assert results["all"]["one"]["hit@1"] == 1.0  # each query names its note's subject
    assert set(results["all"]) == set(agents.WAYS) | {"prompts"}
    assert results["consequence"]["prompts"] == 4 and results["citation"]["prompts"] == 2
