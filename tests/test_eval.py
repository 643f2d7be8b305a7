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
