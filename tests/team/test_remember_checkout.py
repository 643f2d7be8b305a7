"""`lore remember` checks out nothing it does not need, and checks the draft against the remote.

A proposal's worktree holds only the note's own file (the rest of the tree is in its
git index, marked skip-worktree), so its cost does not grow with the vault; the draft
is checked against the remote's default branch through the vault's index, brought
there from the checkout's HEAD. Real git, a local bare remote and the fake `gh`
(tests/team/conftest.py) for GitHub's API.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from lore.cli.main import main
from lore.paths import state_dir
from tests.support import git, note_text, proposal_worktree
from tests.team.conftest import PR_URL, FakeGh, Remote, snapshot
from tests.team.test_remember import BASE_FLAGS, NOTE_ID, lore_branches, remember

SEEN = "payments-api--timeouts-are-five-seconds--2026-10-01"
LATER = "payments-api--webhooks-are-verified--2026-10-20"
LATER_BODY = "## What\nEvery webhook's signature is verified before the payload is parsed.\n"


@pytest.fixture
def checkout(remote: Remote, clone_of: Callable[..., Path]) -> Path:
    remote.commit_note(
        SEEN,
        note_text(
            "Outbound calls time out after five seconds",
            tags="[pattern/retries]",
            repo="payments-api",
            date="2026-10-01",
            body="## What\nOutbound HTTP calls time out after five seconds.\n",
        ),
    )
    return clone_of()


def test_a_proposal_checks_out_only_its_own_note(
    checkout: Path, remote: Remote, fake_gh: FakeGh, capsys: pytest.CaptureFixture[str]
) -> None:
    hook = remote.bare / "hooks" / "pre-receive"
    hook.parent.mkdir(exist_ok=True)
    hook.write_text("#!/bin/sh\nexit 1\n")  # the push fails: the worktree stays to look at
    hook.chmod(0o755)
    config = git(checkout, "config", "--local", "--list")
    before = snapshot(checkout)
    code, _, err = remember(checkout, *BASE_FLAGS, "--yes", capsys=capsys)
    assert code == 1 and f"lore remember --resume {NOTE_ID}" in err
    worktree = proposal_worktree(checkout, NOTE_ID)
    on_disk = sorted(p.relative_to(worktree).as_posix() for p in worktree.rglob("*") if p.is_file())
    assert [p for p in on_disk if not p.startswith(".git")] == [f"notes/{NOTE_ID}.md"]
    assert git(worktree, "status", "--porcelain") == ""  # the rest is there, unchanged
    committed = git(checkout, "ls-tree", "-r", "--name-only", f"lore/{NOTE_ID}").split()
    base = git(checkout, "ls-tree", "-r", "--name-only", "origin/main").split()
    assert sorted(committed) == sorted([*base, f"notes/{NOTE_ID}.md"])
    assert git(checkout, "config", "--local", "--list") == config  # no sparse-checkout setting
    assert snapshot(checkout) == before

    hook.unlink()
    code, out, err = remember(checkout, "--resume", NOTE_ID, "--json", capsys=capsys)
    assert code == 0, err
    assert json.loads(out)["pull_request"] == PR_URL
    pushed = git(remote.bare, "ls-tree", "-r", "--name-only", f"lore/{NOTE_ID}").split()
    assert sorted(pushed) == sorted(committed)
    assert lore_branches(checkout) == [] and not worktree.exists()


def test_a_dry_run_creates_no_branch_worktree_or_metadata(
    checkout: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = snapshot(checkout)
    code, out, _ = remember(checkout, *BASE_FLAGS, "--dry-run", "--json", capsys=capsys)
    assert code == 0 and json.loads(out)["status"] == "draft"
    assert not (state_dir(checkout) / "proposals").exists()
    assert lore_branches(checkout) == []
    assert git(checkout, "worktree", "list").count("\n") == 0
    assert snapshot(checkout) == before


def test_the_draft_is_checked_against_the_remote_through_the_index(
    checkout: Path, remote: Remote, capsys: pytest.CaptureFixture[str]
) -> None:
    """The remote has moved on since the index was built (a note the checkout has not
    pulled): the draft is judged against what it would join, the remote's main."""
    assert main(["index", "--vault", str(checkout)]) == 0  # the index: origin/main, as cloned
    head = git(checkout, "rev-parse", "HEAD")
    remote.commit_note(
        LATER,
        note_text(
            "Webhooks are verified before parsing",
            tags="[pattern/retries]",
            repo="payments-api",
            date="2026-10-20",
            body=LATER_BODY,
        ),
    )
    capsys.readouterr()
    flags = [*BASE_FLAGS[:-2], "--what", LATER_BODY.split("\n")[1]]
    code, out, _ = remember(checkout, *flags, "--dry-run", "--json", capsys=capsys)
    assert code == 1  # a word-for-word copy of a note the remote has is an error
    found = [(f["rule"], f["message"]) for f in json.loads(out)["findings"]]
    assert ("duplicate/exact", f"the body is the same as {LATER}'s") in found
    assert git(checkout, "rev-parse", "HEAD") == head  # nothing pulled into the checkout
    assert main(["index", "--vault", str(checkout), "--json"]) == 0
    served = json.loads(capsys.readouterr().out)  # the overlay is gone: the fetched main
    assert (served["branch"], served["commit"]) == (
        "origin/main",
        git(checkout, "rev-parse", "origin/main"),
    )
    assert served["commit"] != head
