"""The real-decision recall eval: how its queries are made, and its figures when the
public ADR snapshots are here (eval/run_real_recall_eval.py; CI has no snapshots).

The sentences below were written for this test, in the shapes real ADRs use.
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support import load_script

EVAL = Path(__file__).resolve().parent.parent / "eval" / "run_real_recall_eval.py"


@pytest.fixture(scope="module")
def recall_eval() -> Any:
    return load_script(EVAL, "run_real_recall_eval")


def test_a_link_to_a_sibling_adr_is_a_reference_and_leaves_the_query(recall_eval: Any) -> None:
    by_stem = {"0004-queue-for-webhooks": "shop--0004-queue-for-webhooks--2024-01-02"}
    sentence = (
        "Webhook deliveries are retried through the queue chosen in "
        "[ADR 4](./0004-queue-for-webhooks.md#decision), so a slow partner never blocks checkout."
    )
    assert recall_eval.references(sentence, by_stem, {}) == [
        ("shop--0004-queue-for-webhooks--2024-01-02", "link")
    ]
    query = recall_eval.query_of(sentence)
    assert "ADR" not in query and "0004" not in query and "](" not in query
    assert query.startswith("Webhook deliveries are retried through the queue chosen in")


def test_a_numbered_mention_is_a_reference_only_when_the_number_is_one_adr(
    recall_eval: Any,
) -> None:
    sentence = "As ADR-0012 settled, invoices are rendered on the worker, not in the request."
    assert recall_eval.references(sentence, {}, {12: "shop--0012-render-invoices--2024-03-01"}) == [
        ("shop--0012-render-invoices--2024-03-01", "number")
    ]
    assert recall_eval.references(sentence, {}, {}) == []
    assert "0012" not in recall_eval.query_of(sentence)


def test_too_little_left_is_no_query_and_metadata_is_not_prose(recall_eval: Any) -> None:
    assert recall_eval.query_of("See [ADR 3](0003-x.md).") is None
    assert recall_eval._not_prose("Status: superseded by ADR-9")
    assert recall_eval._not_prose("| Date | 2024-05-01 | Author | someone |")
    assert not recall_eval._not_prose("The cache keys follow the naming set out in ADR 7.")


def test_sentences_split_on_full_stops_and_list_items(recall_eval: Any) -> None:
    text = (
        "We keep one cluster. It is cheaper to run.\n\n- Logs go to the shared store\n- Alerts page"
    )
    assert recall_eval.sentences(text) == [
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
    recorded = json.loads(recall_eval.RESULTS.read_text(encoding="utf-8"))["runs"]["first-sight"]
    assert results["queries"] == recorded["queries"]  # the same queries as the recorded run
    for way in ("lore", "lore --repo"):
        assert results["all"][way]["mrr@10"] >= recorded["all"][way]["mrr@10"] - 0.01
    # lore's ranking is at least the floor's on these notes
    assert results["all"]["lore"]["mrr@10"] >= results["all"]["bm25"]["mrr@10"]


# ---- the agent-query mode (eval/real_recall_agents.py) ----

AGENTS = Path(__file__).resolve().parent.parent / "eval" / "real_recall_agents.py"


@pytest.fixture(scope="module")
def agents(recall_eval: Any) -> Any:
    return load_script(AGENTS, "real_recall_agents")


def _adr(recall_eval: Any, sections: list[tuple[str, str]]) -> Any:
    adr_eval = sys.modules["run_real_adr_eval"]  # imported by the recall eval
    return adr_eval.Adr("0007-queue-webhooks.md", 7, "Queue webhooks", "Accepted", "2024-01-02",
                        sections, "")  # fmt: skip


def test_a_consequence_prompt_is_the_first_prose_sentence_of_consequences(
    recall_eval: Any,
) -> None:
    adr = _adr(
        recall_eval,
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
    assert recall_eval.consequence_prompt(adr) == (
        "A slow partner no longer blocks the checkout request."
    )
    assert recall_eval.consequence_prompt(_adr(recall_eval, [("Decision", "Queue it.")])) is None
    short = _adr(recall_eval, [("Positive consequences", "None."), ("Decision", "Queue.")])
    assert recall_eval.consequence_prompt(short) is None  # too few words to ask with


def _queries(recall_eval: Any) -> tuple[list[Any], list[Any]]:
    query = recall_eval.Query
    citations = [
        query("shop", "shop--0009-x--2024-02-01", "shop--0004-queue--2024-01-02",
              "Deliveries are retried through the queue chosen earlier", "link", 0.2),
    ]  # fmt: skip
    consequences = [
        query("shop", "", "shop--0004-queue--2024-01-02",
              "A slow partner no longer blocks the checkout request.", "consequence", 0.0),
        query("ops", "", "ops--0002-one-cluster--2023-05-05",
              "Upgrades happen once for every team.", "consequence", 0.0),
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
    recorded = {name: run for name, run in runs.items() if name.startswith("agent-queries-")}
    if not recorded:
        pytest.skip("no agent-query run is recorded yet")
    for name, run in recorded.items():
        answers = agents.ANSWERS_DIR / f"{name.removeprefix('agent-queries-')}.jsonl"
        again = recall_eval.agent_mode(Path(mirrors), answers=answers, written_by=run["written_by"])
        assert again["answered"] == run["answered"]
        for way in agents.WAYS:
            assert again["all"][way]["mrr@10"] == pytest.approx(run["all"][way]["mrr@10"], abs=0.01)
