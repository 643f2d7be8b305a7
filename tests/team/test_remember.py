"""`lore remember`: inputs, checks, the proposal, and every failure keeping what was written."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from lore.cli.main import main
from lore.paths import state_dir
from lore.team.drafts.draft import NoteInput, build_note, editor_template, input_from_note_file
from lore.team.proposals.listing import curator_status
from tests.support import Vault, git, note_text, proposal_worktree
from tests.team.conftest import PR_URL, FakeGh, Remote, snapshot

SECRET = "ghp_" + "R8fK2mQ9vX4tL7wN3pZ6yB1cH5jD0sG8aE2u"
NOTE_ID = "payments-api--retries-use-jittered-backoff--2026-11-02"
BASE_FLAGS = [
    "--title", "Retries use jittered backoff",
    "--type", "convention",
    "--tag", "pattern/retries",
    "--repo", "payments-api",
    "--confidence", "high",
    "--what", "Outbound HTTP retries use exponential backoff with full jitter.",
]  # fmt: skip


def remember(vault: Path, *flags: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["remember", "--vault", str(vault), *flags])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def lore_branches(root: Path) -> list[str]:
    return git(root, "for-each-ref", "--format=%(refname:short)", "refs/heads/lore/").split()


def pr_creates(fake_gh: FakeGh) -> list[list[str]]:
    return fake_gh.calls_to("pr", "create")


@pytest.fixture
def checkout(remote: Remote, clone_of: Callable[..., Path]) -> Path:
    return clone_of()


def test_taxonomy_has_the_tags_used_here(checkout: Path) -> None:
    text = (checkout / "_taxonomy.md").read_text()
    assert "`pattern/retries`" in text and "`payments-api`" in text


def test_flags_make_a_note_and_ids_stay_unique(
    checkout: Path, remote: Remote, fake_gh: FakeGh, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = remember(checkout, *BASE_FLAGS, "--yes", "--json", capsys=capsys)
    assert code == 0, err
    first = json.loads(out)
    assert first == {
        "version": 1,
        "id": NOTE_ID,
        "path": f"notes/{NOTE_ID}.md",
        "branch": f"lore/{NOTE_ID}",
        "status": "opened",
        "pull_request": PR_URL,
        "next": [],
        "notices": [],
        "findings": [],
    }
    pushed = git(remote.bare, "show", f"lore/{NOTE_ID}:notes/{NOTE_ID}.md")
    assert pushed == (
        "---\ntitle: Retries use jittered backoff\ntype: convention\ntags: [pattern/retries]\n"
        "confidence: high\ndate: 2026-11-02\nrepo: payments-api\nauthor: octocat\n---\n"
        "## What\nOutbound HTTP retries use exponential backoff with full jitter."
    )
    # The same title again, while the first is still open: a new id, not a clash.
    code, out, _ = remember(checkout, *BASE_FLAGS, "--yes", "--json", capsys=capsys)
    assert code == 0
    assert json.loads(out)["id"] == "payments-api--retries-use-jittered-backoff-2--2026-11-02"
    # An id the user chose that is taken is an error, not a silent rename.
    code, _, err = remember(checkout, *BASE_FLAGS, "--id", NOTE_ID, "--yes", capsys=capsys)
    assert code == 2 and "already used" in err


def test_json_on_stdin_for_agents(
    checkout: Path,
    fake_gh: FakeGh,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    payload = {
        "version": 1,
        "title": "ECONNRESET from stale keep-alive sockets",
        "type": "gotcha",
        "tags": ["tool/nodejs"],
        "confidence": "medium",
        "repo": "web-app",
        "what": "Idle keep-alive sockets are closed by the load balancer after 60 s.",
        "why": "The ALB idle timeout is 60 s; Node keeps sockets for 5 minutes.",
        "files_touched": ["src/http/agent.ts"],
        "agent": "claude-code",
    }
    monkeypatch.setattr(sys, "stdin", io.StringIO(json.dumps(payload)))
    code, out, err = remember(checkout, "--stdin", "--yes", "--json", capsys=capsys)
    assert code == 0, err
    assert json.loads(out)["id"] == "web-app--econnreset-from-stale-keep-alive-sockets--2026-11-02"
    create = pr_creates(fake_gh)[0]
    assert create[-4:] == ["--label", "lore", "--label", "agent-authored"]
    body = create[create.index("--body") + 1]
    assert "by an agent (claude-code)" in body
    assert "files_touched: [src/http/agent.ts]" in body


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        ({"title": "x", "tgas": ["a/b"]}, "unknown key 'tgas'"),
        ({"title": "x", "tags": "tool/x", "what": 3}, "'what' must be a string"),
        ({"title": "x", "tags": [1]}, "'tags' must be a list of strings"),
        ({"title": "x", "tags": "tool/x"}, "'tags' must be a list of strings"),
        ({"title": "x", "supersedes": "a--b--2026-01-01"}, "'supersedes' must be a list"),
        ([1, 2], "must be an object"),
    ],
)
def test_bad_json_is_bad_input(
    checkout: Path,
    payload: object,
    message: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(json.dumps(payload)))
    code, _, err = remember(checkout, "--stdin", "--yes", capsys=capsys)
    assert code == 2
    assert message in err
    assert lore_branches(checkout) == []


def test_stdin_needs_yes(checkout: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = remember(checkout, "--stdin", capsys=capsys)
    assert code == 2 and "--yes" in err


def test_from_file_keeps_the_file_id_and_fills_the_author(
    checkout: Path, tmp_path: Path, fake_gh: FakeGh, capsys: pytest.CaptureFixture[str]
) -> None:
    draft = tmp_path / "billing--invoices-are-immutable--2026-10-30.md"
    draft.write_text(
        note_text(
            "Invoices are immutable once issued",
            type="decision",
            tags="[service/billing]",
            date="2026-10-30",
            body="## What\nAn issued invoice is never edited; a credit note corrects it.\n",
        )
    )
    code, out, err = remember(checkout, "--from-file", str(draft), "--yes", "--json", capsys=capsys)
    assert code == 0, err
    assert json.loads(out)["id"] == "billing--invoices-are-immutable--2026-10-30"
    body = pr_creates(fake_gh)[0]
    assert "author: octocat" in body[body.index("--body") + 1]


def test_dry_run_proposes_nothing(
    checkout: Path, remote: Remote, fake_gh: FakeGh, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = remember(checkout, *BASE_FLAGS, "--dry-run", "--json", capsys=capsys)
    assert code == 0
    draft = json.loads(out)
    assert draft["status"] == "draft" and draft["findings"] == []
    assert draft["text"].startswith("---\ntitle: Retries use jittered backoff\n")
    assert "## What" in draft["preview"]
    assert lore_branches(checkout) == []
    assert not (proposal_worktree(checkout, NOTE_ID)).exists()
    assert remote.branches() == ["main"]
    assert pr_creates(fake_gh) == []


def test_curator_errors_block_unless_forced(
    checkout: Path, remote: Remote, fake_gh: FakeGh, capsys: pytest.CaptureFixture[str]
) -> None:
    flags = [*BASE_FLAGS[:2], "--type", "musing", *BASE_FLAGS[4:]]
    code, out, err = remember(checkout, *flags, "--yes", capsys=capsys)
    assert code == 1
    assert "taxonomy/" in out  # the finding is shown with its rule
    assert "nothing was proposed" in err and "--force" in err
    assert remote.branches() == ["main"]
    assert lore_branches(checkout) == []
    code, out, err = remember(checkout, *flags, "--yes", "--force", "--json", capsys=capsys)
    assert code == 0, err
    body = pr_creates(fake_gh)[0]
    assert "proposed anyway with `--force`" in body[body.index("--body") + 1]


def test_a_secret_is_never_committed_or_pushed(
    checkout: Path, remote: Remote, fake_gh: FakeGh, capsys: pytest.CaptureFixture[str]
) -> None:
    before = snapshot(checkout)
    flags = [*BASE_FLAGS[:-1], f"Use the token {SECRET} for the sandbox."]
    code, out, err = remember(checkout, *flags, "--yes", "--force", capsys=capsys)
    assert code == 1
    assert "secret/github-token" in err and "cannot be overridden" in err
    assert SECRET not in out + err  # findings mask it; the draft is not echoed unmasked
    assert remote.branches() == ["main"]
    assert lore_branches(checkout) == []
    objects = git(checkout, "rev-list", "--all", "--objects")
    assert "notes/" not in objects.replace("notes/.gitkeep", "")
    assert not any((state_dir(checkout) / "proposals").glob("*/notes/*.md"))
    assert snapshot(checkout) == before
    assert pr_creates(fake_gh) == []


def test_push_rejected_keeps_the_branch_then_resume(
    checkout: Path, remote: Remote, fake_gh: FakeGh, capsys: pytest.CaptureFixture[str]
) -> None:
    hook = remote.bare / "hooks" / "pre-receive"
    hook.parent.mkdir(exist_ok=True)
    hook.write_text("#!/bin/sh\necho 'branch protection: no lore/ branches today' >&2\nexit 1\n")
    hook.chmod(0o755)
    before = snapshot(checkout)
    code, _, err = remember(checkout, *BASE_FLAGS, "--yes", capsys=capsys)
    assert code == 1
    assert "push to origin failed" in err and f"lore remember --resume {NOTE_ID}" in err
    assert "refused" in err  # says it was a rejection, not a network problem
    kept = proposal_worktree(checkout, NOTE_ID) / "notes" / f"{NOTE_ID}.md"
    assert kept.read_text().startswith("---\ntitle: Retries use jittered backoff")
    assert lore_branches(checkout) == [f"lore/{NOTE_ID}"]
    assert snapshot(checkout) == before
    assert remote.branches() == ["main"]
    assert main(["proposals", "--vault", str(checkout), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["vaults"][0]["proposals"]
    assert [(row["id"], row["state"]) for row in rows] == [(NOTE_ID, "unfinished")]
    assert "--resume" in rows[0]["next"]

    hook.unlink()
    shutil.rmtree(state_dir(checkout))  # derived state may be deleted: the branch has the note
    code, out, err = remember(checkout, "--resume", NOTE_ID, "--json", capsys=capsys)
    assert code == 0, err
    assert json.loads(out)["pull_request"] == PR_URL
    assert f"lore/{NOTE_ID}" in remote.branches()
    assert not kept.exists()
    assert lore_branches(checkout) == []
    assert snapshot(checkout) == before


def test_remote_unreachable_keeps_everything(
    checkout: Path, remote: Remote, fake_gh: FakeGh, capsys: pytest.CaptureFixture[str]
) -> None:
    away = remote.bare.with_name("moved-away.git")
    remote.bare.rename(away)
    code, _, err = remember(checkout, *BASE_FLAGS, "--yes", "--timeout", "20", capsys=capsys)
    assert code == 1
    assert "Could not fetch origin" in err  # it went on from the last fetched main
    assert "could not be reached" in err and "--resume" in err
    kept = proposal_worktree(checkout, NOTE_ID) / "notes" / f"{NOTE_ID}.md"
    assert kept.is_file()
    away.rename(remote.bare)
    code, _, err = remember(checkout, "--resume", NOTE_ID, capsys=capsys)
    assert code == 0, err
    assert f"lore/{NOTE_ID}" in remote.branches()


def test_gh_missing_keeps_the_pushed_branch(
    checkout: Path, remote: Remote, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = remember(checkout, *BASE_FLAGS, "--yes", capsys=capsys)
    assert code == 1
    assert "GitHub CLI (gh) is not installed" in err
    assert f"https://github.com/acme/team-vault/compare/main...lore/{NOTE_ID}?expand=1" in err
    assert f"lore/{NOTE_ID}" in remote.branches()  # pushed
    kept = proposal_worktree(checkout, NOTE_ID) / "notes" / f"{NOTE_ID}.md"
    assert kept.is_file()
    # gh could not say who is proposing, and git's user.name ("Test User") is not a
    # GitHub handle: the note records the name, and lore says where a handle comes from.
    assert "\nauthor: Test User\n" in kept.read_text()
    assert "The author is recorded as your git name, 'Test User'" in err
    assert "`git config --global github.user HANDLE`" in err


def test_resume_checks_an_edited_note_again(
    checkout: Path, remote: Remote, fake_gh: FakeGh, capsys: pytest.CaptureFixture[str]
) -> None:
    fake_gh.mode("pr-fails")
    code, _, err = remember(checkout, *BASE_FLAGS, "--yes", capsys=capsys)
    assert code == 1 and "Something went wrong" in err and "--resume" in err
    kept = proposal_worktree(checkout, NOTE_ID) / "notes" / f"{NOTE_ID}.md"
    fake_gh.mode("")
    original = kept.read_text()
    kept.write_text(original + f"\nThe sandbox token is {SECRET}.\n")
    code, _, err = remember(checkout, "--resume", NOTE_ID, capsys=capsys)
    assert code == 1 and "secret/github-token" in err
    assert f"The note is kept in {kept}" in err
    assert SECRET not in git(remote.bare, "log", "-p", "--all")
    kept.write_text(original + "\n## Why\nThe payment provider rate-limits retries.\n")
    code, out, err = remember(checkout, "--resume", NOTE_ID, "--json", capsys=capsys)
    assert code == 0, err
    assert json.loads(out)["status"] == "opened"
    assert "rate-limits retries" in git(remote.bare, "show", f"lore/{NOTE_ID}:notes/{NOTE_ID}.md")
    code, _, err = remember(checkout, "--resume", NOTE_ID, capsys=capsys)
    assert code == 0, err  # already pushed: the open pull request is found again
    assert (
        main(["remember", "--vault", str(checkout), "--resume", "nothing--here--2026-01-01"]) == 2
    )
    assert "no unfinished proposal" in capsys.readouterr().err


def test_gh_not_signed_in(
    checkout: Path, remote: Remote, fake_gh: FakeGh, capsys: pytest.CaptureFixture[str]
) -> None:
    fake_gh.mode("unauthenticated")
    code, _, err = remember(checkout, *BASE_FLAGS, "--yes", capsys=capsys)
    assert code == 1
    assert "not signed in" in err and "gh auth login" in err
    assert lore_branches(checkout) == [f"lore/{NOTE_ID}"]
    fake_gh.mode("")
    code, out, err = remember(checkout, "--resume", NOTE_ID, "--json", capsys=capsys)
    assert code == 0, err
    assert json.loads(out)["status"] == "opened"


def test_pull_request_without_labels_when_the_repository_has_none(
    checkout: Path, fake_gh: FakeGh, capsys: pytest.CaptureFixture[str]
) -> None:
    fake_gh.mode("no-labels")
    code, _, err = remember(checkout, *BASE_FLAGS, "--yes", capsys=capsys)
    assert code == 0, err
    first, second = pr_creates(fake_gh)
    assert "--label" in first and "--label" not in second


def test_dirty_checkout_is_left_alone(
    checkout: Path, fake_gh: FakeGh, capsys: pytest.CaptureFixture[str]
) -> None:
    (checkout / "README.md").write_text("my local edit\n")
    (checkout / "notes" / "draft--by-hand--2026-11-01.md").write_text("half a note\n")
    git(checkout, "add", "README.md")
    (checkout / "_conventions.md").write_text("unstaged edit\n")
    before = snapshot(checkout)
    code, _, err = remember(checkout, *BASE_FLAGS, "--yes", capsys=capsys)
    assert code == 0, err
    assert snapshot(checkout) == before


def test_diverged_checkout_proposes_from_the_remote(
    checkout: Path, remote: Remote, fake_gh: FakeGh, capsys: pytest.CaptureFixture[str]
) -> None:
    upstream = remote.commit_note("org--upstream-note--2026-11-01", note_text("Upstream note"))
    (checkout / "local.txt").write_text("a local commit\n")
    git(checkout, "add", "local.txt")
    git(checkout, "commit", "-q", "-m", "local work")
    before = snapshot(checkout)
    code, _, err = remember(checkout, *BASE_FLAGS, "--yes", capsys=capsys)
    assert code == 0, err
    assert git(remote.bare, "rev-parse", f"lore/{NOTE_ID}^") == upstream
    assert snapshot(checkout) == before


def test_two_runs_at_once(checkout: Path, remote: Remote, fake_gh: FakeGh) -> None:
    command = [sys.executable, "-m", "lore", "remember", "--vault", str(checkout)]
    runs = [
        subprocess.Popen(
            [*command, *BASE_FLAGS, "--yes", "--json"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=os.environ.copy(),
        )
        for _ in range(2)
    ]
    results = [run.communicate(timeout=120) for run in runs]
    assert [run.returncode for run in runs] == [0, 0], results
    ids = sorted(json.loads(out)["id"] for out, _ in results)
    assert ids == [
        "payments-api--retries-use-jittered-backoff--2026-11-02",
        "payments-api--retries-use-jittered-backoff-2--2026-11-02",
    ]
    assert sorted(remote.branches()) == sorted(["main", *(f"lore/{i}" for i in ids)])
    assert git(checkout, "worktree", "list").count("\n") == 0  # only the user's own


def test_a_remote_that_is_not_github(
    make_vault: Callable[..., Vault], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    vault = make_vault()
    bare = tmp_path / "elsewhere.git"
    git(tmp_path, "init", "-q", "--bare", str(bare))
    git(vault.root, "remote", "add", "origin", str(bare))
    git(vault.root, "push", "-q", "origin", "HEAD:main")
    git(vault.root, "fetch", "-q", "origin")
    code, out, err = remember(vault.root, *BASE_FLAGS, "--yes", "--json", capsys=capsys)
    assert code == 0, err
    outcome = json.loads(out)
    assert outcome["status"] == "pushed" and outcome["pull_request"] is None
    assert "merge request" in " ".join(outcome["next"])
    assert f"lore/{NOTE_ID}" in git(bare, "branch", "--list")
    assert main(["proposals", "--vault", str(vault.root), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["vaults"][0]["proposals"]
    assert [(row["id"], row["state"]) for row in rows] == [(NOTE_ID, "pushed")]


def test_a_vault_without_a_remote_keeps_a_local_branch(
    make_vault: Callable[..., Vault], capsys: pytest.CaptureFixture[str]
) -> None:
    vault = make_vault()
    code, out, err = remember(vault.root, *BASE_FLAGS, "--yes", "--json", capsys=capsys)
    assert code == 0, err
    assert json.loads(out)["status"] == "committed"
    assert git(vault.root, "log", "--format=%s", f"lore/{NOTE_ID}", "-1") == (
        "lore: Retries use jittered backoff"
    )


def test_a_folder_that_is_not_git_cannot_propose(
    make_vault: Callable[..., Vault], capsys: pytest.CaptureFixture[str]
) -> None:
    vault = make_vault(use_git=False)
    code, _, err = remember(vault.root, *BASE_FLAGS, "--yes", capsys=capsys)
    assert code == 2 and "not a git repository" in err


def test_proposals_lists_pull_requests_with_the_curator_state(
    checkout: Path,
    fake_gh: FakeGh,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    pulls = [
        {
            "number": 7,
            "title": "lore: Retries use jittered backoff",
            "url": PR_URL,
            "headRefName": f"lore/{NOTE_ID}",
            "author": {"login": "octocat"},
            "statusCheckRollup": [
                {"__typename": "CheckRun", "name": "curate / curate", "conclusion": "FAILURE"}
            ],
        },
        {"number": 8, "title": "Update README", "headRefName": "docs", "url": "x"},
    ]
    monkeypatch.setenv("FAKE_GH_PR_LIST", json.dumps(pulls))
    assert main(["proposals", "--vault", str(checkout), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["vaults"][0]["proposals"]
    assert rows == [
        {
            "id": NOTE_ID,
            "branch": f"lore/{NOTE_ID}",
            "state": "open",
            "title": "lore: Retries use jittered backoff",
            "url": PR_URL,
            "author": "octocat",
            "curator": "failed",
            "next": None,
        }
    ]
    assert fake_gh.calls_to("pr", "list")[0][:7] == [
        "pr", "list", "--repo", "acme/team-vault", "--state", "open", "--limit",
    ]  # fmt: skip
    assert main(["proposals", "--vault", str(checkout)]) == 0
    assert "failed" in capsys.readouterr().out


def test_curator_status() -> None:
    assert curator_status(None) == "no check"
    assert curator_status([{"name": "curate / curate", "conclusion": "SUCCESS"}]) == "passed"
    assert curator_status([{"name": "curate / curate", "status": "IN_PROGRESS"}]) == "running"
    assert curator_status([{"context": "lore curator", "state": "ERROR"}]) == "failed"


def test_editor_template_round_trip() -> None:
    text = editor_template(["gotcha", "decision"])
    assert "# type: one of gotcha, decision" in text
    filled = text.replace("title: \n", "title: Kafka consumers commit after processing\n")
    filled = filled.replace("type: \n", "type: gotcha\n").replace("tags: []", "tags: [tool/kafka]")
    filled = filled.replace("## What\n\n", "## What\nOffsets are committed after the handler.\n")
    data = input_from_note_file(filled.encode(), "draft.md")
    note = build_note(data, author="octocat")
    assert note.id == "kafka--consumers-commit-after-processing--2026-11-02"
    assert note.body.startswith("## What\nOffsets are committed after the handler.")


def test_scope_defaults() -> None:
    note = build_note(NoteInput(title="Do X", what="X.", tags=["tool/redis"]), author=None)
    assert note.id == "redis--do-x--2026-11-02"
    note = build_note(NoteInput(title="Do X", what="X.", services=["billing"]), author=None)
    assert note.id == "billing--do-x--2026-11-02"
    note = build_note(NoteInput(title="Do X", what="X."), author=None)
    assert note.id == "org--do-x--2026-11-02"


@pytest.mark.parametrize("date_line", ["", "date:\n", "date: \n"])
def test_a_note_file_without_a_date_gets_today(date_line: str) -> None:
    text = (
        "---\ntitle: Kafka consumers commit after processing\ntype: gotcha\n"
        f"tags: [tool/kafka]\nconfidence: high\n{date_line}---\n"
        "## What\nOffsets are committed after the handler.\n"
    )
    data = input_from_note_file(text.encode(), "draft.md")
    note = build_note(data, author="octocat")
    assert note.date == "2026-11-02" and note.id.endswith("--2026-11-02")


def test_a_note_file_keeps_its_own_date() -> None:
    text = (
        "---\ntitle: Kafka consumers commit after processing\ntype: gotcha\n"
        "tags: [tool/kafka]\nconfidence: high\ndate: 2025-01-31\n---\n## What\nOffsets.\n"
    )
    assert build_note(input_from_note_file(text.encode(), "d.md"), author=None).date == "2025-01-31"


def test_the_author_fallback_is_a_github_handle_or_the_git_name(checkout: Path) -> None:
    from lore.team.proposals.note import author_notice, find_author, find_handle

    git(checkout, "config", "user.name", "Ada Lovelace")  # a name, not a handle
    assert find_handle(checkout, None) is None
    assert find_author(checkout, None) == "Ada Lovelace"
    said = author_notice("Ada Lovelace")
    assert said is not None and "`gh auth login`" in said and "github.user" in said
    assert author_notice("ada-l") is None
    git(checkout, "config", "user.name", "ada-l")
    assert find_author(checkout, None) == "ada-l"
    git(checkout, "config", "github.user", "adalovelace")
    assert find_author(checkout, None) == "adalovelace"


# ---- a repository or tag the vocabulary lacks: listed in the same pull request ----

NEW_REPO_FLAGS = [
    "--title", "Ledger workers retry with backoff",
    "--type", "convention",
    "--tag", "pattern/retries,tool/flyway",
    "--repo", "ledger-worker",
    "--what", "Ledger workers retry failed writes with exponential backoff and jitter.",
]  # fmt: skip
NEW_REPO_NOTE = "ledger-worker--ledger-workers-retry-with-backoff--2026-11-02"


def test_an_unlisted_repository_and_tag_are_added_in_the_same_pull_request(
    checkout: Path, remote: Remote, fake_gh: FakeGh, capsys: pytest.CaptureFixture[str]
) -> None:
    """What `lore import` does for the repositories it meets: the `_taxonomy.md` line goes
    in the note's own pull request, and that pull request passes the curator."""
    from lore.curator.run import curate
    from lore.curator.target import Range

    code, out, err = remember(checkout, *NEW_REPO_FLAGS, "--yes", capsys=capsys)
    assert code == 1, out + err  # refused as it was, and told how
    said = " ".join(err.split())
    assert "the repository 'ledger-worker' and the tag 'tool/flyway'" in said.lower(), said
    assert "--add-to-taxonomy" in said and lore_branches(checkout) == []

    code, out, err = remember(
        checkout, *NEW_REPO_FLAGS, "--yes", "--add-to-taxonomy", capsys=capsys
    )
    assert code == 0, out + err
    branch = f"lore/{NEW_REPO_NOTE}"
    changed = git(remote.bare, "diff", "--name-only", "main", branch).split()
    assert changed == ["_taxonomy.md", f"notes/{NEW_REPO_NOTE}.md"]
    taxonomy = git(remote.bare, "show", f"{branch}:_taxonomy.md")
    assert "- `ledger-worker` — The ledger-worker repository (added by `lore remember`)." in (
        taxonomy
    )
    tool = taxonomy.split("\n## tool\n", 1)[1].split("\n## ", 1)[0]
    assert "- `tool/flyway` — flyway (added by `lore remember`; say what it covers)." in tool
    git(checkout, "fetch", "-q")
    review = curate(checkout, Range("origin/main", f"origin/{branch}"))
    assert [f.rule for f in review.findings if f.is_error] == [], review.findings
    (request,) = pr_creates(fake_gh)
    assert "_taxonomy.md" in request[request.index("--body") + 1]


def test_a_tag_listed_under_another_dimension_is_not_offered(
    checkout: Path, fake_gh: FakeGh, capsys: pytest.CaptureFixture[str]
) -> None:
    flags = [*BASE_FLAGS[:4], "--tag", "service/retries", *BASE_FLAGS[6:]]  # pattern/retries
    code, out, err = remember(checkout, *flags, "--dry-run", "--add-to-taxonomy", capsys=capsys)
    assert code == 1
    assert "taxonomy/wrong-dimension" in out and "_taxonomy.md in the same" not in out + err


def test_a_taxonomy_line_whose_commit_failed_is_committed_by_resume(
    checkout: Path,
    remote: Remote,
    fake_gh: FakeGh,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The commit fails (a signing program that refuses, as commit.gpgSign makes git run
    it); `--resume` commits what was written, the taxonomy line first, so the note is
    checked with it, and opens the pull request with both."""
    for number, (key, value) in enumerate([("commit.gpgSign", "true"), ("gpg.program", "false")]):
        monkeypatch.setenv(f"GIT_CONFIG_KEY_{number}", key)
        monkeypatch.setenv(f"GIT_CONFIG_VALUE_{number}", value)
    monkeypatch.setenv("GIT_CONFIG_COUNT", "2")
    code, out, err = remember(
        checkout, *NEW_REPO_FLAGS, "--yes", "--add-to-taxonomy", capsys=capsys
    )
    assert code == 1 and "could not be committed" in " ".join(err.split()), out + err
    monkeypatch.setenv("GIT_CONFIG_COUNT", "0")
    code, out, err = remember(checkout, "--resume", NEW_REPO_NOTE, capsys=capsys)
    assert code == 0, out + err
    branch = f"lore/{NEW_REPO_NOTE}"
    changed = git(remote.bare, "diff", "--name-only", "main", branch).split()
    assert changed == ["_taxonomy.md", f"notes/{NEW_REPO_NOTE}.md"]
    assert len(pr_creates(fake_gh)) == 1
