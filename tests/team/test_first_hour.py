"""A new user's first hour with `lore remember`, `lore proposals` and `lore review`.

Real git, a local bare repository behind the vault's GitHub URL (tests/team/conftest.py);
the terminal is a real pseudo-terminal and the signals are real signals. No GitHub API
is reached: without `gh`, a pushed branch is what GitHub would show as the proposal.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from lore.cli.main import main
from lore.team.drafts.draft import NoteInput, build_note
from tests.support import git
from tests.team.conftest import Remote

TITLE = "Nginx closes idle keep-alive connections after 75 seconds"
WHAT = "The reverse proxy closes idle keep-alive connections after 75 seconds by default."
FLAGS = ["--title", TITLE, "--type", "gotcha", "--tag", "tool/nginx", "--what", WHAT]


@pytest.fixture
def checkout(remote: Remote, clone_of: Callable[..., Path]) -> Path:
    return clone_of()


def lore_refs(root: Path) -> list[str]:
    return git(root, "for-each-ref", "--format=%(refname:short)", "refs/heads/lore/").split()


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "lore", *args],
        cwd=cwd, capture_output=True, text=True, timeout=180,
    )  # fmt: skip


# ---- a closed terminal at "Propose?" ----


def _read_until(fd: int, wanted: bytes, seconds: float) -> bytes:
    seen = b""
    deadline = time.monotonic() + seconds
    while wanted not in seen and time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.5)
        if ready:
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
    return seen


@pytest.mark.parametrize("signum", [signal.SIGHUP, signal.SIGTERM], ids=["SIGHUP", "SIGTERM"])
def test_a_signal_at_the_prompt_cleans_up_like_ctrl_c(checkout: Path, signum: int) -> None:
    """lore waits at "Propose … as a pull request?" on a real terminal; the terminal is
    closed (SIGHUP) or the process is told to stop (SIGTERM). Nothing may be left: no
    branch, no worktree, nothing `lore proposals` would offer to resume."""
    master, slave = os.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "lore", "remember", *FLAGS, "--vault", str(checkout)],
        stdin=slave, stdout=slave, stderr=slave, start_new_session=True, cwd=checkout.parent,
        env={**os.environ, "COLUMNS": "200"},
    )  # fmt: skip
    os.close(slave)
    try:
        shown = _read_until(master, b"as a pull request?", 120)
        assert b"as a pull request?" in shown, shown.decode("utf-8", "replace")
        assert len(lore_refs(checkout)) == 1  # the proposal's branch exists while it asks
        process.send_signal(signum)
        if signum == signal.SIGHUP:
            os.close(master)  # the terminal is gone, as when its window closes
            master = -1
        code = process.wait(timeout=60)
    finally:
        if master != -1:
            os.close(master)
        if process.poll() is None:
            process.kill()
    assert code == 128 + signum
    assert lore_refs(checkout) == []
    assert git(checkout, "worktree", "list", "--porcelain").count("worktree ") == 1
    listed = run("proposals", "--json", "--vault", str(checkout))
    assert json.loads(listed.stdout)["vaults"][0]["proposals"] == [], listed.stdout


def test_discard_removes_a_proposal_that_was_never_written(
    checkout: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """What an older lore left after a closed terminal: a branch and a worktree with no
    note. `lore proposals` offers to discard it (not a resume that dead-ends)."""
    from lore.team.proposals.note import start_proposal

    data = NoteInput(title=TITLE, type="gotcha", tags=["tool/nginx"], what=WHAT)
    proposal = start_proposal(checkout, data)  # the branch and worktree, no note written
    note_id = proposal.note.id
    assert main(["proposals", "--json", "--vault", str(checkout)]) == 0
    (row,) = json.loads(capsys.readouterr().out)["vaults"][0]["proposals"]
    assert row["next"] == f"never written: remove it with `lore proposals discard {note_id}`"
    assert main(["proposals", "discard", note_id, "--vault", str(checkout)]) == 0
    assert f"Discarded the proposal {note_id}." in capsys.readouterr().out
    assert lore_refs(checkout) == []
    assert not (proposal.worktree and proposal.worktree.exists())
    assert main(["proposals", "discard", note_id, "--vault", str(checkout)]) == 2
    assert "no local proposal" in capsys.readouterr().err


def test_discard_keeps_a_copy_of_a_note_it_removes(
    checkout: Path, isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from lore.team.proposals.note import start_proposal

    data = NoteInput(title=TITLE, type="gotcha", tags=["tool/nginx"], what=WHAT)
    proposal = start_proposal(checkout, data)
    assert proposal.worktree is not None
    written = proposal.worktree / proposal.note.path
    written.parent.mkdir(parents=True, exist_ok=True)
    written.write_text(proposal.text, encoding="utf-8")
    assert main(["proposals", "discard", proposal.note.id, "--vault", str(checkout)]) == 0
    copy = isolated_home / "lore-home" / "discarded" / f"{proposal.note.id}.md"
    assert f"A copy of the note is kept in {copy}." in capsys.readouterr().err
    assert copy.read_text(encoding="utf-8") == proposal.text


# ---- what remember just printed works: proposals, review ----


def test_a_pushed_proposal_is_listed_once_with_its_title_and_reviewed_by_its_branch(
    checkout: Path, remote: Remote, capsys: pytest.CaptureFixture[str]
) -> None:
    # A remote that is not GitHub (the bare repository itself): remember pushes the
    # branch, keeps no local one, and prints the branch to open a merge request from.
    git(checkout, "remote", "set-url", "origin", str(remote.bare))
    code = main(["remember", *FLAGS, "--yes", "--json", "--vault", str(checkout)])
    outcome = json.loads(capsys.readouterr().out)
    assert code == 0 and outcome["status"] == "pushed", outcome
    branch = f"lore/{outcome['id']}"
    assert outcome["branch"] == branch
    assert git(checkout, "branch", "--list", branch) == ""  # only origin has it
    assert main(["proposals", "--json", "--vault", str(checkout)]) == 0
    rows = json.loads(capsys.readouterr().out)["vaults"][0]["proposals"]
    assert [(row["id"], row["title"]) for row in rows] == [(outcome["id"], TITLE)]
    assert main(["proposals", "--vault", str(checkout)]) == 0
    table = capsys.readouterr().out.splitlines()
    assert sum(line.strip().startswith(TITLE) for line in table) == 1
    assert sum(line.strip().startswith(outcome["id"]) for line in table) == 1  # not twice
    assert main(["review", branch, "--vault", str(checkout), "--json"]) == 0
    reviewed = json.loads(capsys.readouterr().out)
    assert reviewed["target"] == f"origin/{branch}"
    assert [note["path"] for note in reviewed["notes"]] == [f"notes/{outcome['id']}.md"]


# ---- what remember fills in ----


def test_no_tag_is_refused_with_the_tags_the_taxonomy_suggests(
    checkout: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    flags = [flag for flag in FLAGS if flag not in ("--tag", "tool/nginx")]
    code = main(["remember", *flags, "--dry-run", "--json", "--vault", str(checkout)])
    draft = json.loads(capsys.readouterr().out)
    assert code == 1
    assert "tags: []" in draft["text"]
    (finding,) = [f for f in draft["findings"] if f["rule"] == "frontmatter/missing-field"]
    assert finding["severity"] == "error" and "'tags' is empty" in finding["message"]
    assert "tool/nginx" in finding["suggestion"] and "--tag tool/nginx" in finding["suggestion"]


def test_repo_defaults_to_the_code_repository_you_are_in(checkout: Path, tmp_path: Path) -> None:
    code = tmp_path / "src" / "payments-api"
    code.mkdir(parents=True)
    git(code, "init", "-q")
    git(code, "remote", "add", "origin", "https://github.com/acme/payments-api.git")
    done = run("remember", *FLAGS, "--dry-run", "--json", "--vault", str(checkout), cwd=code)
    draft = json.loads(done.stdout)
    assert "\nrepo: payments-api\n" in draft["text"], draft["text"]
    assert draft["id"].startswith("payments-api--")
    assert any("the repository you are in" in notice for notice in draft["notices"])
    unlisted = tmp_path / "src" / "side-project"
    unlisted.mkdir()
    git(unlisted, "init", "-q")
    other = run("remember", *FLAGS, "--dry-run", "--json", "--vault", str(checkout), cwd=unlisted)
    draft = json.loads(other.stdout)
    assert "repo:" not in draft["text"]
    assert any("does not list under ## Repos" in notice for notice in draft["notices"])


# ---- ids and words in any script ----


@pytest.mark.parametrize(
    ("title", "repo", "expected"),
    [
        # Chinese: no ASCII words, so the type and a stable hash of the title.
        (
            "支付服务的重试必须使用指数退避",
            "payments-api",
            "payments-api--gotcha-642f61e9--2026-11-02",
        ),
        # Japanese with a few ASCII words: they stay, the hash keeps ids apart.
        ("ログインのセッションは30分で切れる", "web-app", None),
        # A cut never ends on an article: not `…-nginx-closed-a`.
        (
            "Upstream timeouts happen because our nginx closed a keep-alive connection",
            "",
            "nginx--upstream-timeouts-happen-because-our-nginx-closed--2026-11-02",
        ),
    ],
)
def test_ids_for_any_title(title: str, repo: str, expected: str | None) -> None:
    note = build_note(
        NoteInput(
            title=title, type="gotcha", tags=["tool/nginx"], what=WHAT, repo=[repo] if repo else []
        ),
        author=None,
    )
    if expected is not None:
        assert note.id == expected
    again = build_note(
        NoteInput(
            title=title, type="gotcha", tags=["tool/nginx"], what=WHAT, repo=[repo] if repo else []
        ),
        author=None,
    )
    assert note.id == again.id  # stable
    from lore.note.ids import is_valid_id

    assert is_valid_id(note.id)


def test_a_chinese_what_is_not_too_short(
    checkout: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        ["remember", "--title", "支付服务的重试必须使用指数退避", "--type", "gotcha",
         "--tag", "service/billing", "--what", "支付服务调用外部接口失败时，必须使用带抖动的指数退避重试。",
         "--dry-run", "--json", "--vault", str(checkout)]
    )  # fmt: skip
    draft = json.loads(capsys.readouterr().out)
    assert code == 0, draft["findings"]
    assert not [f for f in draft["findings"] if "too short" in f["message"]], draft["findings"]
    from lore.text.words import count_words

    assert count_words("支付服务调用外部接口失败") == 6
    assert count_words("Nginx の設定") == 3
