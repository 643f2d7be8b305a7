"""`lore sync`: fast-forward only; every state it must not touch is left as it was."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from lore.cli.main import main
from lore.files import FileLock
from lore.paths import state_dir
from lore.team.sync import sync_vault
from tests.held import gave_up, held_program, started
from tests.support import Vault, git, note_text
from tests.team.conftest import Remote, snapshot

NEW_NOTE = "billing--invoices-are-immutable--2026-10-30"


def sync(vault: Path, capsys: pytest.CaptureFixture[str], *flags: str) -> tuple[int, Any]:
    code = main(["sync", "--vault", str(vault), "--json", *flags])
    out = capsys.readouterr().out
    return code, json.loads(out)["vaults"][0] if out else None


def recall_ids(vault: Path, query: str, capsys: pytest.CaptureFixture[str]) -> list[str]:
    assert main(["recall", query, "--vault", str(vault), "--json"]) == 0
    return [hit["id"] for hit in json.loads(capsys.readouterr().out)["results"]]


@pytest.fixture
def checkout(remote: Remote, clone_of: Callable[..., Path]) -> Path:
    return clone_of()


def add_upstream_note(remote: Remote) -> str:
    return remote.commit_note(
        NEW_NOTE,
        note_text(
            "Invoices are immutable once issued",
            tags="[service/billing]",
            body="## What\nAn issued invoice is never edited; a credit note corrects it.\n",
        ),
    )


def test_fast_forward_and_index(
    checkout: Path, remote: Remote, capsys: pytest.CaptureFixture[str]
) -> None:
    code, result = sync(checkout, capsys)
    assert code == 0 and result["status"] == "current"
    new = add_upstream_note(remote)
    code, result = sync(checkout, capsys)
    assert code == 0
    assert result["status"] == "updated" and result["after"] == new
    assert result["changed_notes"] == 1 and result["index"] in ("updated", "rebuilt")
    assert recall_ids(checkout, "invoice credit note", capsys) == [NEW_NOTE]
    assert main(["sync", "--vault", str(checkout)]) == 0
    assert "Up to date" in capsys.readouterr().out


def test_sync_does_not_import_gitpython(checkout: Path, remote: Remote) -> None:
    """The hooks start `lore sync` in the background: plain git, no GitPython import."""
    add_upstream_note(remote)
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "lore", "sync", "--vault", str(checkout)],
        capture_output=True,
        text=True,
        env=os.environ.copy(),
        check=True,
    )
    assert "Fast-forwarded" in result.stdout
    loaded = {line.split("|")[-1].strip() for line in result.stderr.splitlines() if "|" in line}
    assert {m for m in loaded if m.split(".")[0] == "git"} == set()


def test_dirty_tree_changes_nothing(
    checkout: Path, remote: Remote, capsys: pytest.CaptureFixture[str]
) -> None:
    add_upstream_note(remote)
    (checkout / "_taxonomy.md").write_text("my edit\n")
    before = snapshot(checkout)
    code, result = sync(checkout, capsys)
    assert code == 1
    assert result["status"] == "blocked"
    assert "uncommitted changes (_taxonomy.md)" in result["message"]
    assert "stash" in result["fix"]
    assert snapshot(checkout) == before


def test_untracked_files_do_not_block(
    checkout: Path, remote: Remote, capsys: pytest.CaptureFixture[str]
) -> None:
    add_upstream_note(remote)
    (checkout / "scratch.txt").write_text("mine\n")
    code, result = sync(checkout, capsys)
    assert code == 0 and result["status"] == "updated"
    assert (checkout / "scratch.txt").read_text() == "mine\n"


def test_diverged_changes_nothing(
    checkout: Path, remote: Remote, capsys: pytest.CaptureFixture[str]
) -> None:
    add_upstream_note(remote)
    (checkout / "local.txt").write_text("local\n")
    git(checkout, "add", "local.txt")
    git(checkout, "commit", "-q", "-m", "local work")
    before = snapshot(checkout)
    code, result = sync(checkout, capsys)
    assert code == 1
    assert result["status"] == "blocked" and "diverged" in result["message"]
    assert "rebase" in result["fix"]
    assert snapshot(checkout) == before


def test_local_commits_only_is_fine(
    checkout: Path, remote: Remote, capsys: pytest.CaptureFixture[str]
) -> None:
    (checkout / "local.txt").write_text("local\n")
    git(checkout, "add", "local.txt")
    git(checkout, "commit", "-q", "-m", "local work")
    code, result = sync(checkout, capsys)
    assert code == 0 and result["status"] == "ahead"
    assert "1 commit(s) that are not on origin/main" in result["message"]


def test_detached_head_changes_nothing(
    checkout: Path, remote: Remote, capsys: pytest.CaptureFixture[str]
) -> None:
    add_upstream_note(remote)
    git(checkout, "checkout", "-q", "--detach", "HEAD")
    before = snapshot(checkout)
    code, result = sync(checkout, capsys)
    assert code == 1 and result["status"] == "blocked"
    assert "detached" in result["message"] and "switch main" in result["fix"]
    assert snapshot(checkout) == before


def test_merge_in_progress_changes_nothing(
    checkout: Path, remote: Remote, capsys: pytest.CaptureFixture[str]
) -> None:
    add_upstream_note(remote)
    git(checkout, "switch", "-q", "-c", "side")
    (checkout / "side.txt").write_text("side\n")
    git(checkout, "add", "side.txt")
    git(checkout, "commit", "-q", "-m", "side")
    git(checkout, "switch", "-q", "main")
    git(checkout, "merge", "-q", "--no-ff", "--no-commit", "side")
    merge_head = (checkout / ".git" / "MERGE_HEAD").read_text()
    before = snapshot(checkout)
    code, result = sync(checkout, capsys)
    assert code == 1 and result["status"] == "blocked"
    assert result["message"].startswith("A merge is in progress")
    assert "git merge --abort" in result["fix"]
    assert snapshot(checkout) == before
    assert (checkout / ".git" / "MERGE_HEAD").read_text() == merge_head


def test_rebase_in_progress_changes_nothing(
    checkout: Path, remote: Remote, capsys: pytest.CaptureFixture[str]
) -> None:
    git(checkout, "switch", "-q", "-c", "side")
    (checkout / "README.md").write_text("side version\n")
    git(checkout, "commit", "-q", "-am", "side")
    git(checkout, "switch", "-q", "main")
    (checkout / "README.md").write_text("main version\n")
    git(checkout, "commit", "-q", "-am", "main")
    git(checkout, "switch", "-q", "side")
    with pytest.raises(subprocess.CalledProcessError):  # the conflict stops the rebase
        git(checkout, "rebase", "main")
    assert (checkout / ".git" / "rebase-merge").is_dir()
    before = snapshot(checkout)
    code, result = sync(checkout, capsys)
    assert code == 1 and result["message"].startswith("A rebase is in progress")
    assert "git rebase --abort" in result["fix"]
    assert snapshot(checkout) == before


def test_upstream_history_rewrite_changes_nothing(
    checkout: Path, remote: Remote, capsys: pytest.CaptureFixture[str]
) -> None:
    first = add_upstream_note(remote)
    code, _ = sync(checkout, capsys)
    assert code == 0
    work = remote.work()
    git(work, "reset", "-q", "--hard", "HEAD~1")
    (work / "README.md").write_text("history rewritten\n")
    git(work, "commit", "-q", "-am", "rewrite")
    git(work, "push", "-q", "--force", "origin", "main")
    before = snapshot(checkout)
    code, result = sync(checkout, capsys)
    assert code == 1 and result["status"] == "blocked"
    assert "rewritten (force-pushed)" in result["message"] and first[:12] in result["message"]
    assert "reset --keep" in result["fix"]
    assert snapshot(checkout) == before
    # Agents are served the remote's main as it now is: the rewrite dropped the note.
    assert result["after"] == git(checkout, "rev-parse", "origin/main") != first
    assert recall_ids(checkout, "invoice credit note", capsys) == []


def test_offline_keeps_serving_the_last_index(
    checkout: Path, remote: Remote, capsys: pytest.CaptureFixture[str]
) -> None:
    add_upstream_note(remote)
    assert sync(checkout, capsys)[0] == 0
    remote.bare.rename(remote.bare.with_name("gone.git"))
    before = snapshot(checkout)
    code, result = sync(checkout, capsys)
    assert code == 1 and result["status"] == "offline"
    assert "could not be reached" in result["message"]
    assert "last synced just now (" in result["message"]
    assert result["last_success"] is not None
    assert snapshot(checkout) == before
    assert recall_ids(checkout, "invoice credit note", capsys) == [NEW_NOTE]
    assert main(["vaults", "--json"]) == 0  # not registered: an empty list, not an error
    capsys.readouterr()


def test_offline_before_any_sync_says_never(
    checkout: Path, remote: Remote, capsys: pytest.CaptureFixture[str]
) -> None:
    remote.bare.rename(remote.bare.with_name("gone.git"))
    code, result = sync(checkout, capsys)
    assert code == 1 and "last synced never" in result["message"]


def test_a_remote_that_does_not_answer_times_out(
    checkout: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    release = tmp_path / "release"  # an ssh to a server that answers only when released
    hang = held_program(tmp_path / "hang.sh", release)
    git(checkout, "remote", "set-url", "origin", "ssh://git@vault.example.invalid/team.git")
    git(checkout, "config", "core.sshCommand", str(hang))
    code, result = sync(checkout, capsys, "--timeout", "1")
    assert started(release) and not gave_up(release)  # sync ended while ssh still waited
    assert code == 1 and result["status"] == "offline"
    assert "did not answer in time" in result["message"]


def test_quiet_with_a_lock_for_hooks(
    checkout: Path, remote: Remote, capsys: pytest.CaptureFixture[str]
) -> None:
    add_upstream_note(remote)
    head = git(checkout, "rev-parse", "HEAD")
    with FileLock(state_dir(checkout) / "sync.lock", timeout=1):
        result = sync_vault("team", checkout, wait=False)
        assert result.status == "busy" and result.ok
        assert main(["sync", "--quiet", "--vault", str(checkout)]) == 0
        assert capsys.readouterr() == ("", "")
        assert git(checkout, "rev-parse", "HEAD") == head
    assert main(["sync", "--quiet", "--vault", str(checkout)]) == 0
    assert capsys.readouterr() == ("", "")
    assert git(checkout, "rev-parse", "HEAD") != head


def test_every_registered_vault(
    checkout: Path,
    remote: Remote,
    make_vault: Callable[..., Vault],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    isolated_home: Path,
) -> None:
    local = make_vault(use_git=False)
    (isolated_home / "config.toml").write_text(
        f'default = "team"\n[vaults.team]\npath = "{checkout}"\n'
        f'[vaults.notes]\npath = "{local.root}"\n'
        f'[vaults.lost]\npath = "{tmp_path / "nowhere"}"\n',
        encoding="utf-8",
    )
    add_upstream_note(remote)
    assert main(["sync", "--json"]) == 1
    results = {r["name"]: r for r in json.loads(capsys.readouterr().out)["vaults"]}
    assert results["team"]["status"] == "updated"
    assert results["notes"]["status"] == "local"
    assert results["lost"]["status"] == "error" and "does not exist" in results["lost"]["message"]
    assert main(["sync", "team", "--json"]) == 0
    assert [r["name"] for r in json.loads(capsys.readouterr().out)["vaults"]] == ["team"]
    assert main(["sync", "nosuch"]) == 2
    assert "No vault is registered as 'nosuch'" in capsys.readouterr().err


def test_quiet_without_any_vault_says_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sync", "--quiet"]) == 2
    assert capsys.readouterr() == ("", "")
    assert main(["sync"]) == 2
    assert "No vault is registered" in capsys.readouterr().err
