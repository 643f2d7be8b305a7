"""The drafts inbox: `lore remember --draft`, `lore drafts …` and MCP `remember` with draft.

Real components throughout: the vault is a clone of a local bare repository reached
through its GitHub URL (tests/team/conftest.py), the inbox is real files under
`$LORE_HOME`, the editor is a real program run through `$EDITOR`. Only GitHub's API
is a stand-in (the fake `gh` of conftest.py, which plays `gh pr create` and
`gh api user` as https://cli.github.com/manual/gh_pr_create documents them).
"""

from __future__ import annotations

import io
import json
import os
import stat
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from lore.cli.main import main
from lore.paths import drafts_dir
from tests.support import git, note_text
from tests.team.conftest import PR_URL, FakeGh, Remote, snapshot

SECRET = "ghp_" + "R8fK2mQ9vX4tL7wN3pZ6yB1cH5jD0sG8aE2u"
RETRIES = "payments-api--retries-use-jittered-backoff--2026-11-02"
KEEPALIVE = "web-app--econnreset-from-stale-keep-alive-sockets--2026-11-02"
RETRY_FLAGS = [
    "--title", "Retries use jittered backoff",
    "--type", "convention",
    "--tag", "pattern/retries",
    "--repo", "payments-api",
    "--confidence", "high",
    "--what", "Outbound HTTP retries use exponential backoff with full jitter.",
]  # fmt: skip
KEEPALIVE_JSON = {
    "title": "ECONNRESET from stale keep-alive sockets",
    "type": "gotcha",
    "tags": ["tool/nodejs"],
    "repo": "web-app",
    "what": "Idle keep-alive sockets are closed by the load balancer after 60 s.",
    "why": "The ALB idle timeout is 60 s; Node keeps sockets for 5 minutes.",
    "agent": "claude-code",
}


def lore(*args: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def lore_json(*args: str, capsys: pytest.CaptureFixture[str]) -> Any:
    code, out, err = lore(*args, "--json", capsys=capsys)
    assert code == 0, err
    return json.loads(out)


@pytest.fixture
def checkout(remote: Remote, clone_of: Callable[..., Path]) -> Path:
    return clone_of()


def inbox(checkout: Path) -> Path:
    return drafts_dir(checkout)


def save_retries(checkout: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> Any:
    return lore_json(
        "remember", "--vault", str(checkout), "--draft", *RETRY_FLAGS, *extra, capsys=capsys
    )


def save_keepalive(
    checkout: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> Any:
    monkeypatch.setattr(sys, "stdin", io.StringIO(json.dumps(KEEPALIVE_JSON)))
    # From stdin without --yes: a draft asks nothing, so an agent needs no flag for it.
    return lore_json("remember", "--vault", str(checkout), "--draft", "--stdin", capsys=capsys)


def lore_branches(root: Path) -> list[str]:
    return git(root, "for-each-ref", "--format=%(refname:short)", "refs/heads/lore/").split()


# ---- saving ----


def test_remember_draft_saves_a_checked_note_and_proposes_nothing(
    checkout: Path,
    remote: Remote,
    fake_gh: FakeGh,
    isolated_home: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    before = snapshot(checkout)
    saved = save_retries(checkout, capsys)
    assert saved["status"] == "drafted" and saved["id"] == RETRIES
    assert saved["findings"] == [] and saved["next"][-1] == f"lore drafts propose {RETRIES}"
    folder = inbox(checkout)
    assert folder.parent == isolated_home / "lore-home" / "drafts"
    assert folder.name.startswith(checkout.name + "-")
    file = folder / f"{RETRIES}.md"
    assert saved["file"] == str(file)
    assert file.read_text() == saved["text"]
    assert file.read_text().startswith("---\ntitle: Retries use jittered backoff\ntype: convention")
    assert stat.S_IMODE(file.stat().st_mode) == 0o600
    meta = json.loads((folder / f"{RETRIES}.json").read_text())
    assert meta["saved"] == "2026-11-02" and meta["origin"] == "remember"
    # Nothing reached git, the remote or GitHub.
    assert snapshot(checkout) == before
    assert lore_branches(checkout) == [] and remote.branches() == ["main"]
    assert fake_gh.calls_to("pr") == [] and fake_gh.calls_to("api") == []

    keepalive = save_keepalive(checkout, pytest.MonkeyPatch(), capsys)
    assert keepalive["id"] == KEEPALIVE
    listed = lore_json("drafts", "--vault", str(checkout), capsys=capsys)
    assert [row["id"] for row in listed["drafts"]] == [RETRIES, KEEPALIVE]
    row = listed["drafts"][1]
    assert row["origin"] == "remember" and row["agent"] == "claude-code"
    assert row["title"] == "ECONNRESET from stale keep-alive sockets"
    assert listed["expired"]["dropped"] == []
    # The same note again is a second draft, not an overwrite.
    again = save_retries(checkout, capsys)
    assert again["id"] == "payments-api--retries-use-jittered-backoff-2--2026-11-02"
    assert file.read_text() == saved["text"]


def test_a_draft_with_a_secret_is_refused_and_never_written(
    checkout: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    flags = [*RETRY_FLAGS[:-1], f"Use the token {SECRET} for the sandbox."]
    code, out, err = lore("remember", "--vault", str(checkout), "--draft", *flags, capsys=capsys)
    assert code == 1
    assert "secret/github-token" in err and "was not saved" in err
    assert "cannot be overridden" in err
    assert SECRET not in out + err
    code, out, err = lore(
        "remember", "--vault", str(checkout), "--draft", *flags, "--json", capsys=capsys
    )
    assert code == 1
    refused = json.loads(out)
    assert refused["status"] == "refused" and refused["findings"][0]["rule"].startswith("secret/")
    assert SECRET not in out + err
    folder = inbox(checkout)
    written = [p for p in folder.rglob("*") if p.is_file() and p.name != ".lock"]
    assert written == []
    assert not any(SECRET in p.read_text() for p in folder.parent.rglob("*") if p.is_file())


def test_curator_errors_are_kept_with_the_draft(
    checkout: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    flags = [*RETRY_FLAGS[:2], "--type", "musing", *RETRY_FLAGS[4:]]
    code, out, _ = lore(
        "remember", "--vault", str(checkout), "--draft", *flags, "--json", capsys=capsys
    )
    assert code == 1  # saved, and the command found problems
    saved = json.loads(out)
    assert saved["status"] == "drafted"
    assert [f["rule"] for f in saved["findings"]] == ["taxonomy/unknown-type"]
    listed = lore_json("drafts", "list", "--vault", str(checkout), capsys=capsys)
    assert listed["drafts"][0]["errors"] == 1
    code, out, _ = lore(
        "drafts", "show", "payments-api--retries", "--vault", str(checkout), capsys=capsys
    )
    assert code == 0
    assert "taxonomy/unknown-type" in out and "type: musing" in out


def test_draft_ids_by_prefix_and_bad_ones(
    checkout: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    save_retries(checkout, capsys)
    save_retries(checkout, capsys)
    shown = lore_json(
        "drafts",
        "show",
        "payments-api--retries-use-jittered-backoff-2",
        "--vault",
        str(checkout),
        capsys=capsys,
    )
    assert shown["id"] == "payments-api--retries-use-jittered-backoff-2--2026-11-02"
    code, _, err = lore("drafts", "show", "payments-api", "--vault", str(checkout), capsys=capsys)
    assert code == 2 and "names 2 drafts" in err
    code, _, err = lore("drafts", "show", "nope", "--vault", str(checkout), capsys=capsys)
    assert code == 2 and "No draft has the id 'nope'" in err
    # discard resolves every id before deleting any
    code, _, err = lore(
        "drafts", "discard", RETRIES, "nope", "--vault", str(checkout), capsys=capsys
    )
    assert code == 2
    assert (inbox(checkout) / f"{RETRIES}.md").exists()
    gone = lore_json("drafts", "discard", RETRIES, "--vault", str(checkout), capsys=capsys)
    assert gone["discarded"] == [RETRIES]
    assert not (inbox(checkout) / f"{RETRIES}.md").exists()
    assert not (inbox(checkout) / f"{RETRIES}.json").exists()


def test_a_folder_that_is_not_git_cannot_keep_drafts(
    make_vault: Callable[..., Any], capsys: pytest.CaptureFixture[str]
) -> None:
    vault = make_vault(use_git=False)
    code, _, err = lore(
        "remember", "--vault", str(vault.root), "--draft", *RETRY_FLAGS, capsys=capsys
    )
    assert code == 2 and "not a git repository" in err


def test_the_inbox_lock_is_honoured(
    checkout: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from lore.files import FileLock
    from lore.team.drafts import inbox as drafts

    monkeypatch.setattr(drafts, "LOCK_TIMEOUT", 0.2)
    inbox(checkout).mkdir(parents=True)
    with FileLock(inbox(checkout) / ".lock"):
        code, _, err = lore(
            "remember", "--vault", str(checkout), "--draft", *RETRY_FLAGS, capsys=capsys
        )
    assert code == 1 and "held the drafts inbox" in err
    assert list(inbox(checkout).glob("*.md")) == []


# ---- editing ----

EDITOR = """\
import pathlib, sys
path = pathlib.Path(sys.argv[1])
text = path.read_text()
log = pathlib.Path({log!r})
log.write_text(log.read_text() + "=== opened\\n" + text if log.exists() else "=== opened\\n" + text)
path.write_text({change})
"""


def use_editor(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, change: str) -> Path:
    """$EDITOR is a real program that logs what it opened and rewrites it with `change`."""
    log = tmp_path / "editor.log"
    script = tmp_path / f"editor{len(list(tmp_path.glob('editor*.py')))}.py"
    script.write_text(EDITOR.format(log=str(log), change=change))
    monkeypatch.setenv("EDITOR", f"{sys.executable} {script}")
    monkeypatch.delenv("VISUAL", raising=False)
    return log


def test_edit_checks_the_draft_again(
    checkout: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    save_retries(checkout, capsys)
    file = inbox(checkout) / f"{RETRIES}.md"
    # An edit that breaks the taxonomy: saved, with the finding, exit 1.
    use_editor(tmp_path, monkeypatch, 'text.replace("type: convention", "type: musing")')
    monkeypatch.setenv("LORE_TODAY", "2026-11-20")
    code, out, _ = lore(
        "drafts", "edit", RETRIES, "--vault", str(checkout), "--json", capsys=capsys
    )
    assert code == 1
    edited = json.loads(out)
    assert [f["rule"] for f in edited["findings"]] == ["taxonomy/unknown-type"]
    assert "type: musing" in file.read_text()
    meta = json.loads((inbox(checkout) / f"{RETRIES}.json").read_text())
    assert meta["saved"] == "2026-11-20"  # an edit makes the draft young again
    assert not (inbox(checkout) / f"{RETRIES}.edit.md").exists()
    # Fixing it clears the finding.
    use_editor(tmp_path, monkeypatch, 'text.replace("type: musing", "type: gotcha")')
    edited = lore_json("drafts", "edit", RETRIES, "--vault", str(checkout), capsys=capsys)
    assert edited["findings"] == []
    listed = lore_json("drafts", "--vault", str(checkout), capsys=capsys)
    assert listed["drafts"][0]["errors"] == 0
    # No change: nothing is written.
    use_editor(tmp_path, monkeypatch, "text")
    code, _, err = lore("drafts", "edit", RETRIES, "--vault", str(checkout), capsys=capsys)
    assert code == 0 and "unchanged" in err


def test_an_edit_with_a_secret_is_refused_and_kept_masked(
    checkout: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    save_retries(checkout, capsys)
    file = inbox(checkout) / f"{RETRIES}.md"
    before = file.read_text()
    log = use_editor(tmp_path, monkeypatch, f'text + "\\nThe sandbox token is {SECRET}.\\n"')
    code, out, err = lore("drafts", "edit", RETRIES, "--vault", str(checkout), capsys=capsys)
    assert code == 1
    assert "secret/github-token" in err and "The draft is as it was" in err
    assert SECRET not in out + err
    assert file.read_text() == before
    kept = inbox(checkout) / f"{RETRIES}.edit.md"
    assert f"your edit is kept in {kept}" in err
    assert SECRET not in kept.read_text() and "The sandbox token is" in kept.read_text()
    # The next edit opens the kept edit, not the old draft, so the work goes on.
    log.unlink()
    use_editor(tmp_path, monkeypatch, 'text.replace("The sandbox token is", "Ask ops for")')
    edited = lore_json("drafts", "edit", RETRIES, "--vault", str(checkout), capsys=capsys)
    assert "The sandbox token is" in log.read_text()
    assert "Ask ops for" in edited["text"] and not kept.exists()


# ---- proposing ----


def test_propose_several_drafts_as_one_pull_request(
    checkout: Path,
    remote: Remote,
    fake_gh: FakeGh,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    save_retries(checkout, capsys)
    save_keepalive(checkout, monkeypatch, capsys)
    # Since the draft was saved, a teammate merged a note under the same id.
    remote.commit_note(RETRIES, note_text("Retries are capped", tags="[pattern/retries]"))
    before = snapshot(checkout)
    done = lore_json(
        "drafts",
        "propose",
        "payments-api--retries",
        KEEPALIVE,
        "--yes",
        "--vault",
        str(checkout),
        capsys=capsys,
    )
    renamed = "payments-api--retries-use-jittered-backoff-2--2026-11-02"
    assert done["status"] == "opened" and done["pull_request"] == PR_URL
    assert done["branch"] == "lore/drafts-2026-11-02"
    assert done["notes"] == [
        {"draft": RETRIES, "id": renamed},
        {"draft": KEEPALIVE, "id": KEEPALIVE},
    ]
    assert any("proposed as " + renamed in notice for notice in done["notices"])
    # One branch with both notes, one pull request, the author filled in by gh.
    assert remote.branches() == ["lore/drafts-2026-11-02", "main"]
    files = git(remote.bare, "diff", "--name-only", "main", "lore/drafts-2026-11-02").split()
    assert files == [f"notes/{renamed}.md", f"notes/{KEEPALIVE}.md"]
    pushed = git(remote.bare, "show", f"lore/drafts-2026-11-02:notes/{KEEPALIVE}.md")
    assert "author: octocat" in pushed and "## Why\nThe ALB idle timeout" in pushed
    creates = fake_gh.calls_to("pr", "create")
    assert len(creates) == 1
    create = creates[0]
    assert create[create.index("--title") + 1] == "lore: 2 notes from the drafts inbox"
    body = create[create.index("--body") + 1]
    assert f"`notes/{renamed}.md`" in body and f"`notes/{KEEPALIVE}.md`" in body
    assert create[-4:] == ["--label", "lore", "--label", "agent-authored"]
    # The drafts left the inbox; the user's checkout was not touched.
    assert lore_json("drafts", "--vault", str(checkout), capsys=capsys)["drafts"] == []
    assert snapshot(checkout) == before


def test_propose_one_draft_reads_like_remember(
    checkout: Path, remote: Remote, fake_gh: FakeGh, capsys: pytest.CaptureFixture[str]
) -> None:
    save_retries(checkout, capsys)
    done = lore_json("drafts", "propose", RETRIES, "--yes", "--vault", str(checkout), capsys=capsys)
    assert done["branch"] == f"lore/{RETRIES}"
    create = fake_gh.calls_to("pr", "create")[0]
    assert create[create.index("--title") + 1] == "lore: Retries use jittered backoff"
    assert create[-2:] == ["--label", "lore"]
    assert "### What an agent will see" in create[create.index("--body") + 1]


def test_propose_refuses_errors_unless_forced_and_secrets_always(
    checkout: Path, remote: Remote, fake_gh: FakeGh, capsys: pytest.CaptureFixture[str]
) -> None:
    flags = [*RETRY_FLAGS[:2], "--type", "musing", *RETRY_FLAGS[4:]]
    lore("remember", "--vault", str(checkout), "--draft", *flags, capsys=capsys)
    code, out, err = lore(
        "drafts", "propose", RETRIES, "--dry-run", "--vault", str(checkout), capsys=capsys
    )
    assert code == 1 and "taxonomy/unknown-type" in out
    code, _, err = lore(
        "drafts", "propose", RETRIES, "--yes", "--vault", str(checkout), capsys=capsys
    )
    assert code == 1 and "every draft stays in the inbox" in err and "--force" in err
    assert remote.branches() == ["main"] and fake_gh.calls_to("pr", "create") == []
    assert (inbox(checkout) / f"{RETRIES}.md").exists()
    # A secret put into the draft's file by hand blocks it, --force or not.
    file = inbox(checkout) / f"{RETRIES}.md"
    file.write_text(file.read_text().replace("type: musing", "type: convention") + SECRET + "\n")
    code, out, err = lore(
        "drafts",
        "propose",
        RETRIES,
        "--yes",
        "--force",
        "--json",
        "--vault",
        str(checkout),
        capsys=capsys,
    )
    assert code == 1 and json.loads(out)["status"] == "blocked"
    assert "looks like a secret" in out and SECRET not in out + err
    assert remote.branches() == ["main"] and lore_branches(checkout) == []
    assert SECRET not in git(checkout, "log", "-p", "--all")


def test_propose_asks_first_and_needs_yes_off_a_terminal(
    checkout: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    save_retries(checkout, capsys)
    code, _, err = lore("drafts", "propose", RETRIES, "--vault", str(checkout), capsys=capsys)
    assert code == 2 and "--yes" in err
    code, _, err = lore("drafts", "propose", "--vault", str(checkout), capsys=capsys)
    assert code == 2 and "Name the drafts" in err


def test_propose_on_a_terminal_shows_the_drafts_and_asks(
    checkout: Path, remote: Remote, fake_gh: FakeGh, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.support import run_in_terminal

    save_retries(checkout, capsys)
    lore_cmd = [sys.executable, "-m", "lore", "drafts", "--vault", str(checkout), "propose"]
    code, shown = run_in_terminal(
        [*lore_cmd, "payments-api"], cwd=checkout, answers=[("as one pull request?", b"n\n")]
    )
    assert code == 0, shown
    assert f"notes/{RETRIES}.md" in shown and "found no problems" in shown
    assert "nothing was proposed" in shown
    assert remote.branches() == ["main"] and (inbox(checkout) / f"{RETRIES}.md").exists()
    code, shown = run_in_terminal(
        [*lore_cmd, "payments-api"], cwd=checkout, answers=[("as one pull request?", b"y\n")]
    )
    assert code == 0, shown
    assert f"Opened {PR_URL}" in shown
    assert f"lore/{RETRIES}" in remote.branches()


def test_a_failed_push_keeps_the_branch_and_resumes(
    checkout: Path, remote: Remote, fake_gh: FakeGh, capsys: pytest.CaptureFixture[str]
) -> None:
    save_retries(checkout, capsys)
    hook = remote.bare / "hooks" / "pre-receive"
    hook.parent.mkdir(exist_ok=True)
    hook.write_text("#!/bin/sh\necho 'no lore/ branches today' >&2\nexit 1\n")
    hook.chmod(0o755)
    code, _, err = lore(
        "drafts", "propose", RETRIES, "--yes", "--vault", str(checkout), capsys=capsys
    )
    assert code == 1
    assert f"lore drafts propose --resume {RETRIES}" in err
    assert f"the branch lore/{RETRIES} holds them" in err
    assert lore_branches(checkout) == [f"lore/{RETRIES}"]
    assert not (inbox(checkout) / f"{RETRIES}.md").exists()  # on the branch, not lost
    assert main(["proposals", "--vault", str(checkout), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["vaults"][0]["proposals"]
    assert f"lore drafts propose --resume {RETRIES}" in rows[0]["next"]
    hook.unlink()
    done = lore_json(
        "drafts", "propose", "--resume", RETRIES, "--vault", str(checkout), capsys=capsys
    )
    assert done["status"] == "opened"
    assert f"lore/{RETRIES}" in remote.branches()


# ---- expiry ----


def test_old_drafts_are_mentioned_once_then_dropped(
    checkout: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    save_retries(checkout, capsys)
    monkeypatch.setenv("LORE_TODAY", "2026-11-20")
    save_keepalive(checkout, monkeypatch, capsys)
    monkeypatch.setenv("LORE_TODAY", "2026-12-02")  # 30 days: not yet older than 30
    code, out, err = lore("drafts", "--vault", str(checkout), capsys=capsys)
    assert code == 0 and "moved out" not in err
    monkeypatch.setenv("LORE_TODAY", "2026-12-03")  # 31 days
    code, out, err = lore("drafts", "--vault", str(checkout), capsys=capsys)
    expired = inbox(checkout) / "expired"
    assert code == 0
    assert f"1 draft not edited for over 30 days was moved out of the inbox: {RETRIES}." in err
    assert f"kept in {expired} until 2027-01-02" in err and "lore drafts restore" in err
    assert RETRIES not in out and "ECONNRESET" in out
    assert (expired / f"{RETRIES}.md").read_text().startswith("---\ntitle: Retries")
    # Mentioned once: the next command says nothing more about it.
    listed = lore_json("drafts", "--vault", str(checkout), capsys=capsys)
    later = KEEPALIVE.replace("2026-11-02", "2026-11-20")
    assert listed["expired"]["dropped"] == [] and [d["id"] for d in listed["drafts"]] == [later]
    code, _, err = lore("drafts", "--vault", str(checkout), capsys=capsys)
    assert "moved out" not in err
    gone = lore_json("drafts", "list", "--expired", "--vault", str(checkout), capsys=capsys)
    assert [(d["id"], d["delete_after"]) for d in gone["drafts"]] == [(RETRIES, "2027-01-02")]
    # Until that day it can come back, its age counting afresh.
    restored = lore_json(
        "drafts", "restore", "payments-api", "--vault", str(checkout), capsys=capsys
    )
    assert restored["id"] == RETRIES and restored["saved"] == "2026-12-03"
    assert not (expired / f"{RETRIES}.md").exists()
    # Dropped again later, then deleted once its announced day has passed.
    monkeypatch.setenv("LORE_TODAY", "2027-01-10")
    code, _, err = lore("drafts", "--vault", str(checkout), capsys=capsys)
    assert "2 drafts not edited for over 30 days were moved out" in err
    assert "until 2027-02-09" in err
    monkeypatch.setenv("LORE_TODAY", "2027-02-09")
    assert lore_json("drafts", "--vault", str(checkout), capsys=capsys)["expired"]["deleted"] == []
    monkeypatch.setenv("LORE_TODAY", "2027-02-10")
    listed = lore_json("drafts", "--vault", str(checkout), capsys=capsys)
    assert sorted(listed["expired"]["deleted"]) == [RETRIES, later]
    assert list(expired.iterdir()) == []


def test_the_age_limit_comes_from_the_user_config_then_lore_toml(
    checkout: Path,
    isolated_home: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    save_retries(checkout, capsys)
    (checkout / "lore.toml").write_text("[drafts]\nmax_age_days = 10\n")
    monkeypatch.setenv("LORE_TODAY", "2026-11-12")
    assert lore_json("drafts", "--vault", str(checkout), capsys=capsys)["expired"]["dropped"] == []
    config = isolated_home / "config.toml"
    config.write_text("[drafts]\nmax_age_days = 5\n")
    dropped = lore_json("drafts", "--vault", str(checkout), capsys=capsys)["expired"]
    assert dropped["dropped"] == [RETRIES] and dropped["until"] == "2026-11-17"
    config.write_text('[drafts]\nmax_age_days = "soon"\n')
    code, _, err = lore("drafts", "--vault", str(checkout), capsys=capsys)
    assert code == 2
    assert f"{config}: drafts.max_age_days must be a whole number from 1 to 3650." in err


# ---- MCP: remember with draft: true ----


def test_mcp_remember_with_draft_true(
    checkout: Path, remote: Remote, fake_gh: FakeGh, tmp_path: Path
) -> None:
    pytest.importorskip("mcp", reason="the [mcp] extra is not installed")
    from mcp import ClientSession

    from tests.integrations.test_mcp import run_session
    from tests.support import Vault

    note = {
        "title": "Retries use jittered backoff",
        "type": "convention",
        "tags": ["pattern/retries"],
        "what": "Outbound HTTP retries use exponential backoff with full jitter.",
        "repo": "payments-api",
    }

    async def steps(session: ClientSession) -> dict[str, Any]:
        tools = (await session.list_tools()).tools
        return {
            "schema": next(t for t in tools if t.name == "remember").input_schema,
            "draft": await session.call_tool("remember", {**note, "draft": True}),
            "secret": await session.call_tool(
                "remember", {**note, "what": f"Use {SECRET} to deploy.", "draft": True}
            ),
            "string": await session.call_tool("remember", {**note, "draft": "yes"}),
        }

    before = snapshot(checkout)
    out = run_session(Vault(checkout), tmp_path, steps)
    assert out["schema"]["properties"]["draft"]["type"] == "boolean"
    assert "draft" not in out["schema"]["required"]
    drafted = out["draft"].structured_content
    assert not out["draft"].is_error
    assert drafted["status"] == "drafted" and drafted["id"] == RETRIES
    assert drafted["vault"] == checkout.name
    meta = json.loads((inbox(checkout) / f"{RETRIES}.json").read_text())
    assert meta["origin"] == "mcp" and meta["agent"] == "mcp"
    refused = out["secret"].structured_content
    assert out["secret"].is_error  # refused, as a blocked proposal is
    assert refused["status"] == "refused" and "secret/" in refused["findings"][0]["rule"]
    assert SECRET not in json.dumps(refused)
    assert out["string"].is_error and "draft" in out["string"].content[0].text
    assert sorted(p.name for p in inbox(checkout).glob("*.md")) == [f"{RETRIES}.md"]
    assert not any(SECRET in p.read_text() for p in inbox(checkout).iterdir() if p.is_file())
    # A draft is never a proposal: no branch, no push, no pull request.
    assert snapshot(checkout) == before
    assert remote.branches() == ["main"] and fake_gh.calls_to("pr") == []


def test_remember_draft_refuses_proposal_flags(
    checkout: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = lore(
        "remember", "--vault", str(checkout), "--draft", "--dry-run", *RETRY_FLAGS, capsys=capsys
    )
    assert code == 2 and "takes no --resume, --dry-run or --force" in err
    assert os.environ["LORE_TODAY"] == "2026-11-02"
