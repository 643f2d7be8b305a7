"""The real-decision recall eval: how its queries are made, and its figures when the
public ADR snapshots are here (eval/run_real_recall_eval.py; CI has no snapshots).

The sentences below were written for this test, in the shapes real ADRs use.
"""

from __future__ import annotations

import json
import os
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
