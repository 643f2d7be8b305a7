"""Prompts on a real terminal: their letters show, and Ctrl-D cancels cleanly.

Each test runs lore as a person would, on a pseudo-terminal, and types at its prompt.
The fake `gh` (tests/team/conftest.py) stands in for GitHub's API.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support import git, run_in_terminal
from tests.team.conftest import FakeGh, Remote
from tests.team.test_remember import BASE_FLAGS, NOTE_ID

CTRL_D = b"\x04"


@pytest.fixture
def checkout(remote: Remote, clone_of: Callable[..., Path]) -> Path:
    return clone_of()


def lore(*args: str) -> list[str]:
    return [sys.executable, "-m", "lore", *args]


def crash_logs(home: Path) -> list[Path]:
    return list((home / "lore-home" / "logs").glob("crash-*.log"))


def test_ctrl_d_at_the_remember_prompt_cancels_cleanly(
    checkout: Path, fake_gh: FakeGh, isolated_home: Path
) -> None:
    code, shown = run_in_terminal(
        lore("remember", "--vault", str(checkout), *BASE_FLAGS),
        cwd=checkout,
        answers=[("[y/n]", CTRL_D)],
    )
    assert code == 130, shown
    assert "cancelled" in shown and "internal error" not in shown
    assert crash_logs(isolated_home) == []
    assert git(checkout, "branch", "--list", f"lore/{NOTE_ID}") == ""  # the draft was discarded
    assert fake_gh.calls_to("pr", "create") == []


def test_the_review_prompt_shows_its_letters_and_ctrl_d_cancels(
    checkout: Path, fake_gh: FakeGh, isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(
        "FAKE_GH_PR_VIEW",
        json.dumps(
            {
                "number": 7,
                "title": "lore: a note",
                "url": "https://github.com/acme/team-vault/pull/7",
                "headRefName": "main",
                "headRepositoryOwner": {"login": "acme"},
                "isCrossRepository": False,
                "baseRefName": "main",
                "author": {"login": "octocat"},
            }
        ),
    )
    code, shown = run_in_terminal(
        lore("review", "7", "--vault", str(checkout)),
        cwd=checkout,
        answers=[("[s]kip", CTRL_D)],
    )
    assert "[a]pprove, [r]equest changes, [m]erge or [s]kip [a/r/m/s]" in shown, shown
    assert code == 130 and "cancelled" in shown and "internal error" not in shown
    assert crash_logs(isolated_home) == []
    assert fake_gh.calls_to("pr", "review") == [] and fake_gh.calls_to("pr", "merge") == []
