"""Helpers for the curator's security tests: a vault, a pull request branch, the CLI.

Every test runs on a real git repository in `tmp_path` (the seed vault, committed on
main) and reviews a real branch, through the library or through `lore curate`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from lore.curator.run import CurateResult, curate
from lore.curator.target import Range
from tests.support import Vault, git

TODAY = "2026-11-15"
SRC = str(Path(__file__).resolve().parents[2] / "src")
NOTE = "notes/billing--retries-use-jitter--2026-11-02.md"


def open_pull_request(vault: Vault, files: dict[str, str | bytes], branch: str = "pr") -> None:
    """Commit `files` (path -> content) on a new branch from main; force-adds ignored paths."""
    git(vault.root, "checkout", "-q", "-b", branch, "main")
    for path, content in files.items():
        target = vault.root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(content, encoding="utf-8")
        git(vault.root, "add", "-f", "--", path)
    git(vault.root, "commit", "-q", "-m", f"pull request {branch}")


def review(
    vault: Vault, head: str = "pr", policy_approved_by: str | None = None, **options: Any
) -> CurateResult:
    target = Range("main", head, policy_approved_by=policy_approved_by)
    return curate(vault.root, target, today=TODAY, **options)


def lore(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "PYTHONPATH": SRC, "LORE_TODAY": TODAY}
    return subprocess.run(
        [sys.executable, "-m", "lore", *args],
        capture_output=True,
        text=True,
        env=environment,
        cwd=cwd,
        timeout=120,
        check=False,
    )


def curate_json(vault: Vault, *args: str) -> tuple[int, list[dict[str, Any]]]:
    """`lore curate --base main --head pr --format json …`: the exit code and findings."""
    result = lore(
        "curate", "--base", "main", "--head", "pr", "--format", "json", *args, cwd=vault.root
    )
    assert result.returncode in (0, 1), result.stderr
    return result.returncode, json.loads(result.stdout)["findings"]


def by_rule(findings: list[Any]) -> dict[str, list[Any]]:
    """Findings (objects or JSON dicts) grouped by rule id."""
    grouped: dict[str, list[Any]] = {}
    for finding in findings:
        rule = finding["rule"] if isinstance(finding, dict) else finding.rule
        grouped.setdefault(rule, []).append(finding)
    return grouped
