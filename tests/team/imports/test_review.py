"""The review of agent files and personal stores: keep, edit or drop each candidate.

lore runs as a person would run it, on a real pseudo-terminal (tests/support.py), and
the test types at each prompt; `$EDITOR` is a small script that edits the note. The
fake `gh` of tests/team/conftest.py stands in for GitHub's API.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support import git, run_in_terminal
from tests.team.conftest import FakeGh, Remote

EDITOR = """\
import sys
path = sys.argv[1]
text = open(path, encoding="utf-8").read()
text = text.replace("Prefer pure functions in the domain layer", "Keep the domain layer pure")
open(path, "w", encoding="utf-8").write(text)
"""


def lore(*args: str) -> list[str]:
    return [sys.executable, "-m", "lore", *args]


def notes_on(remote: Remote, branch: str) -> dict[str, str]:
    names = git(remote.bare, "diff", "--name-only", f"main...{branch}").split()
    return {
        name: git(remote.bare, "show", f"{branch}:{name}")
        for name in names
        if name.startswith("notes/")
    }


def test_keep_edit_drop_then_keep_the_rest(
    code_repo: Callable[..., Path],
    checkout: Path,
    remote: Remote,
    fake_gh: FakeGh,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    repo = code_repo("agents/payments-api", "payments-api")
    editor = tmp_path / "editor.py"
    editor.write_text(EDITOR, encoding="utf-8")
    monkeypatch.setenv("EDITOR", f"{sys.executable} {editor}")
    code, shown = run_in_terminal(
        lore("import", "agents-md", str(repo), "--vault", str(checkout), "--tag", "team/payments"),
        cwd=repo,
        answers=[
            (".cursor/rules/testing.mdc:8", b"k\r"),
            (".cursor/rules/testing.mdc:9", b"d\r"),
            (".cursorrules:5", b"e\r"),
            ("Keep the domain layer pure", b"k\r"),
            (".cursorrules:6", b"a\r"),
            ("Propose", b"y\r"),
        ],
    )
    assert code == 0, shown
    assert "Opened https://github.com/acme/team-vault/pull/7" in shown
    [branch] = [b for b in remote.branches() if b.startswith("lore/import-agents-md-")]
    notes = notes_on(remote, branch)
    texts = "\n".join(notes.values())
    assert "pytest fixtures from `tests/conftest.py`" in texts  # kept
    assert "FastAPI's TestClient" not in texts  # dropped
    assert "Keep the domain layer pure; keep I/O in the adapters." in texts  # edited
    assert "Prefer pure functions" not in texts
    assert "auxiliary verbs" in texts and "Use pnpm for the admin frontend" in texts  # the rest
    [create] = fake_gh.calls_to("pr", "create")
    assert create[create.index("--title") + 1] == f"lore: import {len(notes)} notes (agents-md)"


def test_quitting_proposes_nothing(
    code_repo: Callable[..., Path], checkout: Path, remote: Remote, fake_gh: FakeGh
) -> None:
    code, shown = run_in_terminal(
        lore(
            "import", "basic-memory", str(code_repo("basic-memory/project", "notes", origin=False)),
            "--vault", str(checkout),
        ),
        cwd=checkout,
        answers=[("Search Index Design", b"q\r")],
    )  # fmt: skip
    assert code == 0, shown
    assert "nothing was proposed" in shown
    assert remote.branches() == ["main"] and fake_gh.calls_to("pr", "create") == []


def test_an_import_that_would_ask_refuses_without_a_terminal(
    code_repo: Callable[..., Path], checkout: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from lore.cli.main import main

    repo = code_repo("agents/web-app", "web-app")
    assert main(["import", "agents-md", str(repo), "--vault", str(checkout)]) == 2
    assert "not a terminal" in capsys.readouterr().err
