"""A `.lore` that a commit carries — a link out of the vault, or a file — is inert.

Route 2 of issue 17: older lore kept its index, locks and proposal worktrees in
`<vault>/.lore/`, so a committed symbolic link named `.lore` sent every write there
outside the vault, and a committed file named `.lore` made `lore remember` crash (exit 3,
FileExistsError). lore's state now lives in the clone's git directory; nothing follows
or writes through `.lore`. Real git and a local bare remote; only GitHub's API is faked.
"""

# ruff: noqa: F811 - the team loop's fixtures are imported (tests/security/state_support.py)

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from lore.cli.main import main
from lore.paths import index_path
from tests.security.state_support import (  # noqa: F401 - pytest fixtures
    clone_of,
    digest,
    fake_gh,
    lore_json,
    remote,
    team_env,
    work_repo_for,
)
from tests.support import git, note_text
from tests.team.conftest import PR_URL, FakeGh, Remote
from tests.team.test_remember import BASE_FLAGS, NOTE_ID

NOTE = "billing--invoices-are-immutable--2026-10-30"


def every_file(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


def push_lore(remote: Remote, make: Callable[[Path], None], message: str) -> None:
    work = remote.work()
    make(work)
    git(work, "add", "-f", ".lore")
    git(work, "commit", "-q", "-m", message)
    git(work, "push", "-q", "origin", "main")


def use_the_vault(vault: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Everything a developer's day runs against a vault."""
    work = work_repo_for(tmp_path)
    code, recalled = lore_json(capsys, "recall", "invoice credit note", "--vault", str(vault))
    assert code == 0 and [hit["id"] for hit in recalled["results"]] == [NOTE]
    assert main(["index", "--vault", str(vault)]) == 0
    assert main(["index", "--rebuild", "--vault", str(vault)]) == 0
    assert main(["sync", "--vault", str(vault)]) == 0
    assert main(["doctor", "--offline", "--vault", str(vault)]) in (0, 1)
    assert "Invoices are immutable once issued" in digest(vault, work)
    capsys.readouterr()


@pytest.fixture
def with_note(remote: Remote) -> Remote:
    remote.commit_note(
        NOTE,
        note_text(
            "Invoices are immutable once issued",
            tags="[service/billing]",
            body="## What\nAn issued invoice is never edited; a credit note corrects it.\n",
        ),
    )
    return remote


@pytest.mark.parametrize("target", ["relative", "absolute"])
def test_a_committed_lore_link_sends_nothing_outside_the_vault(
    target: str,
    with_note: Remote,
    clone_of: Callable[..., Path],
    fake_gh: FakeGh,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    link = "../outside" if target == "relative" else str(outside)
    push_lore(with_note, lambda work: (work / ".lore").symlink_to(link), "cache folder")
    vault = clone_of("vault")
    assert (vault / ".lore").is_symlink() and (vault / ".lore").resolve() == outside

    use_the_vault(vault, tmp_path, capsys)
    code = main(["remember", "--vault", str(vault), *BASE_FLAGS, "--yes"])
    assert code == 0, capsys.readouterr().err
    capsys.readouterr()

    assert every_file(outside) == []
    assert os.readlink(vault / ".lore") == link  # never replaced, never deleted
    assert git(vault, "status", "--porcelain") == ""
    assert index_path(vault).is_file()
    assert not index_path(vault).resolve().is_relative_to(outside)


def test_remember_works_when_lore_is_a_file(
    with_note: Remote,
    clone_of: Callable[..., Path],
    fake_gh: FakeGh,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """It crashed with exit 3 (FileExistsError): lore needed `.lore/` to be its folder."""
    push_lore(with_note, lambda work: (work / ".lore").write_text("not a folder\n"), "a file")
    vault = clone_of("vault")
    code = main(["remember", "--vault", str(vault), *BASE_FLAGS, "--yes", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert json.loads(out)["pull_request"] == PR_URL
    assert (vault / ".lore").read_text() == "not a folder\n"
    assert NOTE_ID in git(with_note.bare, "ls-tree", "-r", "--name-only", f"lore/{NOTE_ID}")
    use_the_vault(vault, tmp_path, capsys)
    assert (vault / ".lore").read_text() == "not a folder\n"


def test_an_untracked_lore_file_does_not_stop_remember(
    with_note: Remote,
    clone_of: Callable[..., Path],
    fake_gh: FakeGh,
    capsys: pytest.CaptureFixture[str],
) -> None:
    vault = clone_of("vault")
    (vault / ".lore").write_text("mine\n")
    code = main(["remember", "--vault", str(vault), *BASE_FLAGS, "--yes"])
    assert code == 0, capsys.readouterr().err
    assert (vault / ".lore").read_text() == "mine\n"
