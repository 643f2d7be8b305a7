"""docs/reliability.md and the fault suite agree: every fault test is listed, every
test the page names exists."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "reliability.md"


def _test_functions(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {
        node.name
        for node in tree.body
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test_")
    }


def test_every_fault_test_is_in_the_fault_model() -> None:
    doc = DOC.read_text(encoding="utf-8")
    named = set(re.findall(r"\b(test_\w+)", doc))
    missing = {
        f"{path.name}::{name}"
        for path in sorted((ROOT / "tests" / "faults").glob("test_*.py"))
        if path.name != Path(__file__).name
        for name in _test_functions(path)
        if name not in named
    }
    assert not missing, f"docs/reliability.md does not list: {sorted(missing)}"


def test_every_test_the_fault_model_names_exists() -> None:
    doc = DOC.read_text(encoding="utf-8")
    existing: set[str] = set()
    for path in (ROOT / "tests").rglob("test_*.py"):
        existing |= _test_functions(path)
    named = set(re.findall(r"(?:::|`)(test_\w+)\b(?!\.py)", doc))  # not the files' names
    unknown = sorted(named - existing)
    assert not unknown, f"docs/reliability.md names tests that do not exist: {unknown}"
