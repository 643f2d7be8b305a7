"""docs/security.md names real tests: each `file::test` it lists exists in that file (a
row's later `::test` names mean the same file), so the list of attacks and the tests that
keep them closed cannot drift apart. SECURITY.md links the page."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "security.md"


def _tests(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}


def named_tests() -> list[tuple[str, str]]:
    """(file, test) for each test the page names."""
    found: list[tuple[str, str]] = []
    for line in DOC.read_text(encoding="utf-8").splitlines():
        current = None
        for match in re.finditer(r"`(tests/[\w/]+\.py)?::(test_\w+)", line):
            current = match[1] or current
            assert current, f"{match[0]} names no file: {line}"
            found.append((current, match[2]))
    return found


def test_every_test_the_security_page_names_exists() -> None:
    named = named_tests()
    assert len(named) >= 20
    missing = [
        f"{file}::{test}"
        for file, test in named
        if not (ROOT / file).is_file() or test not in _tests(ROOT / file)
    ]
    assert not missing, f"docs/security.md names tests that do not exist: {missing}"


def test_security_md_links_the_page_and_the_reporting_route() -> None:
    text = (ROOT / "SECURITY.md").read_text(encoding="utf-8")
    assert "docs/security.md" in text and "Report a vulnerability" in text
    assert "(security.md)" in (ROOT / "docs" / "reliability.md").read_text(encoding="utf-8")
