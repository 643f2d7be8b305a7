"""The retrieval eval is a quality gate: recall must stay well above the targets and the baseline."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

EVAL = Path(__file__).resolve().parent.parent / "eval" / "run_eval.py"


@pytest.fixture(scope="module")
def results() -> dict:  # type: ignore[type-arg]
    spec = importlib.util.spec_from_file_location("run_eval", EVAL)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["run_eval"] = module
    spec.loader.exec_module(module)
    return module.evaluate()  # type: ignore[no-any-return]


def test_fixture_is_large_enough(results: dict) -> None:  # type: ignore[type-arg]
    assert results["notes"] >= 200
    assert results["queries"] >= 40


def test_quality_targets(results: dict) -> None:  # type: ignore[type-arg]
    overall = results["lore"]["summary"]["all"]
    assert overall["ndcg@10"] >= 0.90
    assert overall["mrr@10"] >= 0.90


def test_clearly_above_the_baseline(results: dict) -> None:  # type: ignore[type-arg]
    lore = results["lore"]["summary"]
    baseline = results["baseline"]["summary"]
    assert lore["all"]["ndcg@10"] >= baseline["all"]["ndcg@10"] + 0.15
    for kind in ("alias", "superseded", "expired", "repo"):
        assert lore[kind]["ndcg@10"] > baseline[kind]["ndcg@10"], kind


def test_small_vaults(results: dict) -> None:  # type: ignore[type-arg]
    """Vaults of 3 to 20 notes drawn from the fixture: the answer scores, and ranks first."""
    for size, row in results["small_vaults"].items():
        assert row["zero_score"] == 0, size
        assert row["ndcg@10"] >= 0.95, size
        assert row["mrr@10"] >= 0.95, size


# ---- the curator's judgement on its judged public set (eval/curator) ----

CURATOR_EVAL = Path(__file__).resolve().parent.parent / "eval" / "run_curator_eval.py"


@pytest.fixture(scope="module")
def curator_results() -> dict:  # type: ignore[type-arg]
    spec = importlib.util.spec_from_file_location("run_curator_eval", CURATOR_EVAL)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["run_curator_eval"] = module
    spec.loader.exec_module(module)
    return module.evaluate()  # type: ignore[no-any-return]


def test_the_judged_set_is_large_and_covers_every_kind(curator_results: dict) -> None:  # type: ignore[type-arg]
    assert curator_results["pairs"] >= 80
    labels = curator_results["labels"]
    assert labels["duplicate"] >= 20 and labels["contradiction"] >= 30 and labels["distinct"] >= 30
    kinds = {(row["label"], row["kind"]) for row in curator_results["rows"]}
    for kind in ("number", "unit", "polarity", "antonym", "alternative"):
        assert ("contradiction", kind) in kinds, kind
    assert {row["split"] for row in curator_results["rows"]} == {"tune", "held-out", "held-out-2"}


def test_curator_warnings_meet_their_targets(curator_results: dict) -> None:  # type: ignore[type-arg]
    figures = curator_results["summary"]["all"]
    for warning in ("duplicate", "contradiction"):
        assert figures[warning]["precision"] >= 0.90, warning
        assert figures[warning]["recall"] >= 0.80, warning


def test_the_issue_examples_are_judged_as_labelled(curator_results: dict) -> None:  # type: ignore[type-arg]
    rows = {row["id"]: row for row in curator_results["rows"]}
    assert rows["issue-kafka-commit-after-processing"]["duplicate"]
    assert rows["issue-dlq-alert-threshold"]["conflict"]["kind"] == "number"
    assert rows["issue-cursor-not-offset-pagination"]["conflict"]["kind"] == "alternative"
