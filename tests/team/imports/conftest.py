"""Fixtures for `lore import`: code repositories made from tests/fixtures/import, a vault.

A code repository is a real git repository in `tmp_path` holding a copy of one fixture
folder, committed with the pinned identity and date of tests/support.py, with an
`origin` on GitHub (never contacted: only its URL is read) so notes get a `source` URL.
The vault is the one of tests/team/conftest.py: a clone of a local bare repository that
git reaches as https://github.com/acme/team-vault.git, with the fake `gh` where a test
opens a pull request.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from lore.cli.main import main
from tests.support import git
from tests.team.conftest import Remote

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "import"


@pytest.fixture
def code_repo(tmp_path: Path) -> Callable[..., Path]:
    """`code_repo("adr/nygard", "payments-api")`: the fixture as a committed repository."""

    def make(fixture: str, name: str, *, owner: str = "acme", origin: bool = True) -> Path:
        root = tmp_path / "code" / name
        shutil.copytree(FIXTURES / fixture, root, symlinks=True)
        git(root, "init", "-q", "-b", "main")
        if origin:
            git(root, "remote", "add", "origin", f"https://github.com/{owner}/{name}.git")
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", "fixtures")
        return root

    return make


@pytest.fixture
def checkout(remote: Remote, clone_of: Callable[..., Path]) -> Path:
    """The user's clone of the team vault."""
    return clone_of()


def run_import(
    capsys: pytest.CaptureFixture[str], *args: str
) -> tuple[int, dict[str, Any] | None, str, str]:
    """`lore import …` in-process: (exit code, the JSON it printed or None, stdout, stderr)."""
    code = main(["import", *args])
    captured = capsys.readouterr()
    try:
        data = json.loads(captured.out)
    except ValueError:
        data = None
    return code, data, captured.out, captured.err


def note_by_source(data: dict[str, Any], suffix: str) -> dict[str, Any]:
    found = [n for n in data["notes"] if n["source"].endswith(suffix)]
    assert len(found) == 1, [n["source"] for n in data["notes"]]
    return found[0]


def skip_reason(data: dict[str, Any], suffix: str) -> str:
    found = [s["reason"] for s in data["skipped"] if s["source"].endswith(suffix)]
    assert found, [s["source"] for s in data["skipped"]]
    return found[0]


def frontmatter(text: str) -> dict[str, str]:
    """The note's fields as written (a double-quoted value unquoted; lists as `[a, b]`)."""
    head = text.split("\n---\n", 1)[0].removeprefix("---\n")
    fields = dict(line.split(": ", 1) for line in head.splitlines())
    return {k: json.loads(v) if v.startswith('"') else v for k, v in fields.items()}
