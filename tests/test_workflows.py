"""The GitHub workflows pass zizmor and GitHub's workflow schema; a bad one fails both checks.

zizmor runs offline (its online audits need GitHub's API, which cannot be reached here).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
WORKFLOWS = sorted(
    [
        *(ROOT / ".github" / "workflows").glob("*.yml"),
        *(ROOT / "vault-template" / ".github" / "workflows").glob("*.yml"),
    ]
)
BAD = ROOT / "tests" / "fixtures" / "workflows" / "insecure.yml"


def tool(name: str) -> str:
    found = shutil.which(name, path=str(Path(sys.executable).parent)) or shutil.which(name)
    if found is None:
        pytest.fail(f"{name} is not installed; `pip install -e '.[test]'` installs it")
    return found


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, capture_output=True, text=True, timeout=120, check=False)


def test_there_are_workflows() -> None:
    names = {path.name for path in WORKFLOWS}
    assert {"curator.yml", "lore-curator.yml", "lore-comment.yml"} <= names


def test_workflows_pass_zizmor() -> None:
    result = run(tool("zizmor"), "--offline", *map(str, WORKFLOWS))
    assert result.returncode == 0, result.stdout + result.stderr


def test_workflows_match_the_schema() -> None:
    result = run(
        tool("check-jsonschema"),
        "--builtin-schema",
        "vendor.github-workflows",
        *map(str, WORKFLOWS),
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_a_bad_workflow_fails_the_lint() -> None:
    result = run(tool("zizmor"), "--offline", str(BAD))
    assert result.returncode != 0
    for audit in ("dangerous-triggers", "template-injection", "unpinned-uses", "artipacked"):
        assert audit in result.stdout, audit


def test_hardening_rules_hold() -> None:
    for path in WORKFLOWS:
        text = path.read_text(encoding="utf-8")
        assert "pull_request_target" not in text, path
        assert "permissions: {}" in text, path
        for line in text.splitlines():
            if "uses:" in line and "/" in line:
                ref = line.split("@", 1)[1].split()[0]
                assert len(ref) == 40 and all(c in "0123456789abcdef" for c in ref), line
        if "actions/checkout" in text:
            assert "persist-credentials: false" in text, path
