"""Faults in the team operations' git: a killed `lore remember`, refused pushes, hostile names.

Real processes on real repositories: `lore` runs as its own process (so it can be
killed with SIGKILL), the remote is a local bare repository reached through the GitHub
URL (git's `url.insteadOf`), and a pre-receive hook on it holds or refuses a push. Only
GitHub's API is faked (the `gh` of tests/team/conftest.py). Each case asserts the exit
code, what lore says, and that no note or commit was lost.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.held import gave_up, held_program, started
from tests.support import git, note_text, proposal_worktree
from tests.team import conftest as team

# The team loop's fixtures: a git identity and a PATH without outside `gh` (autouse),
# the fake `gh`, the bare remote and clones of it.
team_env = team.team_env
fake_gh = team.fake_gh
remote = team.remote
clone_of = team.clone_of

NOTE_ID = "payments-api--retries-use-jittered-backoff--2026-11-02"
NOTE_PATH = f"notes/{NOTE_ID}.md"
FLAGS = [
    "--title", "Retries use jittered backoff",
    "--type", "convention",
    "--tag", "pattern/retries",
    "--repo", "payments-api",
    "--confidence", "high",
    "--what", "Outbound HTTP retries use exponential backoff with full jitter.",
]  # fmt: skip
CANARY = "pwned"


def lore(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "lore", *args],
        capture_output=True,
        text=True,
        env=os.environ.copy(),
        cwd=cwd,
        timeout=120,
        check=False,
    )


def wait_for(condition: Callable[[], bool], what: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up waiting for {what}")
        time.sleep(0.05)


def group_gone(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return True
    return False


def install_hook(bare: Path, script: str) -> Path:
    hook = bare / "hooks" / "pre-receive"
    hook.parent.mkdir(exist_ok=True)
    hook.write_text("#!/bin/sh\n" + script, encoding="utf-8")
    hook.chmod(0o755)
    return hook


def lore_branches(root: Path) -> list[str]:
    return git(root, "for-each-ref", "--format=%(refname:short)", "refs/heads/lore/").split()


def proposal_rows(checkout: Path) -> list[dict[str, str]]:
    listed = lore("proposals", "--vault", str(checkout), "--json")
    assert listed.returncode == 0, listed.stderr
    rows: list[dict[str, str]] = json.loads(listed.stdout)["vaults"][0]["proposals"]
    return rows


@pytest.fixture
def checkout(remote: team.Remote, clone_of: Callable[..., Path]) -> Path:
    return clone_of()


# ---- kill -9 during `lore remember` ----


@pytest.mark.parametrize("push", ["finishes-after-the-kill", "dies-with-lore"])
def test_kill_9_during_the_push_loses_nothing_and_resume_finishes(
    push: str,
    checkout: Path,
    remote: team.Remote,
    fake_gh: team.FakeGh,
    tmp_path: Path,
) -> None:
    mark = tmp_path / "hook-state"
    mark.mkdir()
    # The remote takes the push, then holds it until the test says how it ends.
    install_hook(
        remote.bare,
        f'echo $$ > "{mark}/hook.pid"\n'
        f'while [ ! -e "{mark}/release" ]; do sleep 0.05; done\n'
        f'exit "$(cat "{mark}/release")"\n',
    )
    before = team.snapshot(checkout)
    running = subprocess.Popen(
        [sys.executable, "-m", "lore", "remember", "--vault", str(checkout), *FLAGS, "--yes"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=os.environ.copy(),
    )
    pid_file = mark / "hook.pid"
    wait_for(lambda: pid_file.exists() and pid_file.read_text().strip() != "", "the push")
    push_group = os.getpgid(int(pid_file.read_text()))
    assert push_group != os.getpgrp()  # git's own session: killing it spares the tests
    running.kill()
    running.communicate(timeout=30)
    assert running.returncode == -signal.SIGKILL

    # What was committed before the kill is all there: the branch, its commit, the note.
    committed = git(checkout, "rev-parse", f"lore/{NOTE_ID}")
    note = git(checkout, "show", f"lore/{NOTE_ID}:{NOTE_PATH}")
    assert note.startswith("---\ntitle: Retries use jittered backoff\n")
    kept = proposal_worktree(checkout, NOTE_ID) / NOTE_PATH
    assert kept.read_text(encoding="utf-8").strip() == note

    if push == "finishes-after-the-kill":  # the orphaned push completes on its own
        (mark / "release").write_text("0")
        wait_for(lambda: group_gone(push_group), "the orphaned push to finish")
        assert git(remote.bare, "rev-parse", f"lore/{NOTE_ID}") == committed
    else:  # the push is killed with lore: the remote never got the branch
        os.killpg(push_group, signal.SIGKILL)
        wait_for(lambda: group_gone(push_group), "the killed push")
        (mark / "release").write_text("0")
        assert remote.branches() == ["main"]

    # `lore proposals` says how to finish it; `--resume` does, with the same commit.
    rows = proposal_rows(checkout)
    assert [(row["id"], row["state"]) for row in rows] == [(NOTE_ID, "unfinished")]
    assert f"lore remember --resume {NOTE_ID}" in rows[0]["next"]
    resumed = lore("remember", "--vault", str(checkout), "--resume", NOTE_ID, "--json")
    assert resumed.returncode == 0, resumed.stderr
    outcome = json.loads(resumed.stdout)
    assert (outcome["status"], outcome["pull_request"]) == ("opened", team.PR_URL)
    assert git(remote.bare, "rev-parse", f"lore/{NOTE_ID}") == committed
    assert len(fake_gh.calls_to("pr", "create")) == 1
    assert lore_branches(checkout) == []
    assert team.snapshot(checkout) == before


# ---- a git that hangs on this machine ----


def test_a_commit_that_hangs_is_cut_at_the_timeout_and_the_note_is_kept(
    checkout: Path,
    remote: team.Remote,
    fake_gh: team.FakeGh,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A signing program that waits for a passphrase no one types (commit.gpgSign)."""
    from lore.cli.main import main
    from lore.vault import repository

    release = tmp_path / "passphrase"  # typed when the test ends
    signer = held_program(tmp_path / "gpg-waits", release)
    for number, (key, value) in enumerate(
        [("commit.gpgSign", "true"), ("gpg.program", str(signer))]
    ):
        monkeypatch.setenv(f"GIT_CONFIG_KEY_{number}", key)
        monkeypatch.setenv(f"GIT_CONFIG_VALUE_{number}", value)
    monkeypatch.setenv("GIT_CONFIG_COUNT", "2")
    monkeypatch.setattr(repository, "GIT_TIMEOUT", 1.0)
    code = main(["remember", "--vault", str(checkout), *FLAGS, "--yes"])
    err = " ".join(capsys.readouterr().err.split())
    assert code == 1
    assert started(release) and not gave_up(release)  # cut while the signer still waited
    assert "could not be committed: `git commit` failed in" in err
    assert "it did not finish in 1 s" in err
    assert f"Then run `lore remember --resume {NOTE_ID}`" in err
    kept = proposal_worktree(checkout, NOTE_ID) / NOTE_PATH
    assert "Outbound HTTP retries" in kept.read_text(encoding="utf-8")
    assert remote.branches() == ["main"]

    monkeypatch.setenv("GIT_CONFIG_COUNT", "0")  # the passphrase is typed, in effect
    assert main(["remember", "--vault", str(checkout), "--resume", NOTE_ID]) == 0
    assert "Outbound HTTP retries" in git(remote.bare, "show", f"lore/{NOTE_ID}:{NOTE_PATH}")


def test_an_index_lock_left_by_a_killed_git_is_named_with_its_fix(
    checkout: Path, remote: team.Remote, fake_gh: team.FakeGh
) -> None:
    """A git killed mid-commit leaves `index.lock`: lore says which file, and what to do."""
    hook = install_hook(remote.bare, "exit 1\n")
    assert lore("remember", "--vault", str(checkout), *FLAGS, "--yes").returncode == 1
    hook.unlink()
    kept = proposal_worktree(checkout, NOTE_ID) / NOTE_PATH
    kept.write_text(kept.read_text() + "\n## Why\nThe provider rate-limits retries.\n")
    lock = checkout / ".git" / "worktrees" / NOTE_ID / "index.lock"
    lock.write_text("")
    locked = lore("remember", "--vault", str(checkout), "--resume", NOTE_ID)
    assert locked.returncode == 2
    message = " ".join(locked.stderr.split())
    assert f"is locked by {lock}" in message
    assert f"If no git command is running there, delete {lock}" in message
    assert "rate-limits retries" in kept.read_text()  # the edit is still there
    lock.unlink()
    resumed = lore("remember", "--vault", str(checkout), "--resume", NOTE_ID)
    assert resumed.returncode == 0, resumed.stderr
    assert "rate-limits retries" in git(remote.bare, "show", f"lore/{NOTE_ID}:{NOTE_PATH}")


# ---- pushes the remote refuses ----


def test_a_refused_push_keeps_the_branch_and_names_the_remote_s_reason(
    checkout: Path, remote: team.Remote, fake_gh: team.FakeGh
) -> None:
    hook = install_hook(
        remote.bare,
        "printf 'GH006: Protected branch update failed: \\033[2Jlore/ branches need a review.\\n' >&2\n"
        "exit 1\n",
    )
    before = team.snapshot(checkout)
    refused = lore("remember", "--vault", str(checkout), *FLAGS, "--yes")
    assert refused.returncode == 1
    message = " ".join(refused.stderr.split())
    assert "push to origin failed: [remote rejected] (pre-receive hook declined)" in message
    assert "GH006: Protected branch update failed" in message  # the remote's own reason
    assert "\x1b" not in refused.stderr  # ... as data: no terminal control from a remote
    assert "The remote refused the branch" in message
    assert f"Then run `lore remember --resume {NOTE_ID}`" in message
    assert "Traceback" not in refused.stderr
    assert lore_branches(checkout) == [f"lore/{NOTE_ID}"]
    committed = git(checkout, "rev-parse", f"lore/{NOTE_ID}")
    assert "Outbound HTTP retries" in git(checkout, "show", f"lore/{NOTE_ID}:{NOTE_PATH}")
    assert remote.branches() == ["main"]
    assert team.snapshot(checkout) == before
    assert fake_gh.calls_to("pr", "create") == []

    hook.unlink()
    resumed = lore("remember", "--vault", str(checkout), "--resume", NOTE_ID)
    assert resumed.returncode == 0, resumed.stderr
    assert git(remote.bare, "rev-parse", f"lore/{NOTE_ID}") == committed


def test_a_push_refused_as_not_a_fast_forward_keeps_both_branches(
    checkout: Path, remote: team.Remote, fake_gh: team.FakeGh
) -> None:
    """Someone else's `lore/<id>` reached the remote first: neither branch is lost."""
    hook = install_hook(remote.bare, "exit 1\n")
    assert lore("remember", "--vault", str(checkout), *FLAGS, "--yes").returncode == 1
    ours = git(checkout, "rev-parse", f"lore/{NOTE_ID}")
    hook.unlink()
    work = remote.work()
    git(work, "switch", "-q", "-c", f"lore/{NOTE_ID}")
    (work / "notes" / f"{NOTE_ID}.md").write_text(note_text("Someone else's note"))
    git(work, "add", "-A")
    git(work, "commit", "-q", "-m", "a teammate's proposal")
    git(work, "push", "-q", "origin", f"lore/{NOTE_ID}")
    theirs = git(remote.bare, "rev-parse", f"lore/{NOTE_ID}")

    refused = lore("remember", "--vault", str(checkout), "--resume", NOTE_ID)
    assert refused.returncode == 1
    message = " ".join(refused.stderr.split())
    assert "push to origin failed: [rejected]" in message
    assert "an existing branch of that name" in message
    assert f"lore remember --resume {NOTE_ID}" in message
    assert git(checkout, "rev-parse", f"lore/{NOTE_ID}") == ours
    assert git(remote.bare, "rev-parse", f"lore/{NOTE_ID}") == theirs
    assert fake_gh.calls_to("pr", "create") == []


def test_a_refused_change_set_says_so_and_resumes(
    checkout: Path, remote: team.Remote, fake_gh: team.FakeGh
) -> None:
    """The gardener's pull request goes the same way as a note's (one publishing path)."""
    expired = "billing--old-refund-flag--2026-01-01"
    remote.commit_note(
        expired,
        note_text("Refunds go through the old flag", date="2026-01-01", expires="2026-06-01"),
    )
    git(checkout, "pull", "-q")
    hook = install_hook(remote.bare, "echo 'pushes are closed' >&2\nexit 1\n")
    refused = lore("garden", "--vault", str(checkout), "--propose")
    assert refused.returncode == 1
    message = " ".join(refused.stderr.split())
    assert "The change is committed on the branch lore/garden-2026-11-02" in message
    assert "pushes are closed" in message and "The remote refused the branch" in message
    assert "Then run `lore garden --resume garden-2026-11-02`" in message
    archived = git(checkout, "show", f"lore/garden-2026-11-02:archive/{expired}.md")
    assert archived.startswith("---\ntitle: Refunds go through the old flag")
    hook.unlink()
    resumed = lore("garden", "--vault", str(checkout), "--resume", "garden-2026-11-02")
    assert resumed.returncode == 0, resumed.stderr
    assert "lore/garden-2026-11-02" in remote.branches()


# ---- hostile names never reach git as options ----


@pytest.mark.parametrize(
    ("command", "said"),
    [
        (["remember", "--resume=--upload-pack=touch pwned"], "is not a note id"),
        (["remember", "--resume=../../../etc"], "is not a note id"),
        (["garden", "--resume=--exec=touch pwned"], "is not the name of a change"),
        (["garden", "--resume=../proposals/x"], "is not the name of a change"),
        (["drift", "--resume=--output=pwned"], "is not the name of a change"),
    ],
)
def test_hostile_names_to_resume_are_refused_before_git(
    command: list[str], said: str, checkout: Path, remote: team.Remote
) -> None:
    before = team.snapshot(checkout)
    refs = git(remote.bare, "for-each-ref")
    result = lore(*command, "--vault", str(checkout), cwd=checkout)
    assert result.returncode == 2
    assert said in result.stderr and "Traceback" not in result.stderr
    assert not (checkout / CANARY).exists() and not Path(CANARY).exists()
    assert team.snapshot(checkout) == before
    assert lore_branches(checkout) == []
    assert git(remote.bare, "for-each-ref") == refs


def test_an_option_as_drift_s_since_is_refused(checkout: Path, tmp_path: Path) -> None:
    code_repo = tmp_path / "payments-api"
    code_repo.mkdir()
    git(code_repo, "init", "-q", "-b", "main")
    (code_repo / "app.py").write_text("print('hi')\n")
    git(code_repo, "add", "-A")
    git(code_repo, "commit", "-q", "-m", "start")
    result = lore(
        "drift",
        "--vault", str(checkout),
        "--code-repo", str(code_repo),
        f"--since=--output={CANARY}",
        cwd=code_repo,
    )  # fmt: skip
    assert result.returncode == 2
    assert "names no commit" in result.stderr
    assert not (code_repo / CANARY).exists()


def test_hostile_branch_names_on_the_remote_stay_data(
    checkout: Path, remote: team.Remote, fake_gh: team.FakeGh
) -> None:
    """Branches named like options under lore/ are listed and skipped, never run."""
    work = remote.work()
    for name in ("--upload-pack=touch-pwned", "-x"):
        git(work, "push", "-q", "origin", f"HEAD:refs/heads/lore/{name}")
    git(checkout, "fetch", "-q", "origin")
    made = lore("remember", "--vault", str(checkout), *FLAGS, "--yes", "--json", cwd=checkout)
    assert made.returncode == 0, made.stderr
    assert json.loads(made.stdout)["status"] == "opened"
    assert git(remote.bare, "show", f"lore/{NOTE_ID}:{NOTE_PATH}").startswith("---")
    listed = lore("proposals", "--vault", str(checkout), "--json", cwd=checkout)
    assert listed.returncode == 0, listed.stderr
    assert not (checkout / CANARY).exists()
    refused = lore("remember", "--vault", str(checkout), "--resume=-x", cwd=checkout)
    assert refused.returncode == 2 and "is not a note id" in refused.stderr
