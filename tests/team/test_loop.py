"""The whole team loop with real git: init, connect, remember, merge, sync, recall.

The remote is a local bare repository that git reaches under its GitHub URL; the one
stand-in is the fake `gh` (see conftest), whose exact arguments are asserted.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lore.cli.main import main
from tests.support import git
from tests.team.conftest import GITHUB_URL, PR_URL, FakeGh, map_github_url

NOTE_ID = "alembic--migrations-set-a-5-s-lock-timeout--2026-11-02"


def test_init_connect_remember_merge_sync_recall(
    tmp_path: Path,
    team_env: Path,
    fake_gh: FakeGh,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    bare = tmp_path / "team-vault.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(bare))
    map_github_url(team_env, GITHUB_URL, bare)

    # 1. The team lead creates the vault on "GitHub".
    lead_config = tmp_path / "lead.toml"
    monkeypatch.setenv("LORE_CONFIG", str(lead_config))
    vault = tmp_path / "team-vault"
    code = main(["init", str(vault), "--github", "acme/team-vault", "--reviewers", "@acme/leads"])
    assert code == 0, capsys.readouterr().err
    out = capsys.readouterr().out
    assert "status check 'curate'" in out  # the recommended protection names the curator check
    assert fake_gh.calls() == [
        ["auth", "status", "--hostname", "github.com"],
        [
            "repo",
            "create",
            "acme/team-vault",
            "--private",
            "--description",
            "Our team's reviewed memory for AI coding agents (managed with lore)",
        ],
        [
            "label", "create", "lore", "--repo", "acme/team-vault", "--color", "5319e7",
            "--description", "A note proposed to the team's memory with lore", "--force",
        ],
        [
            "label", "create", "agent-authored", "--repo", "acme/team-vault", "--color",
            "fbca04", "--description", "Proposed by an AI coding agent through lore", "--force",
        ],
    ]  # fmt: skip
    assert git(bare, "log", "--format=%s", "main") == "Create the team vault (lore init)"
    assert "* @acme/leads" in (vault / ".github" / "CODEOWNERS").read_text()
    assert git(vault, "rev-parse", "--abbrev-ref", "main@{upstream}") == "origin/main"
    assert f'remote = "{GITHUB_URL}"' in lead_config.read_text()

    # 2. A teammate connects a second clone (their own config).
    mate_config = tmp_path / "mate.toml"
    monkeypatch.setenv("LORE_CONFIG", str(mate_config))
    assert main(["connect", "acme/team-vault", "--name", "team", "--json"]) == 0
    connected = json.loads(capsys.readouterr().out)
    assert connected["cloned"] is True and connected["default"] is True
    mate_vault = Path(connected["path"])
    assert mate_vault == team_env / "lore-home" / "vaults" / "team"

    # 3. The lead proposes a note; their checkout is not touched.
    monkeypatch.setenv("LORE_CONFIG", str(lead_config))
    before = git(vault, "rev-parse", "HEAD")
    fake_gh.clear()
    code = main(
        [
            "remember",
            "--title", "Alembic migrations set a 5 s lock timeout",
            "--type", "convention",
            "--tag", "tool/alembic,tool/postgres",
            "--what", "Every migration sets lock_timeout = '5s' before any DDL.",
            "--why", "A blocked ALTER TABLE queued every write behind it.",
            "--yes",
            "--json",
        ]
    )  # fmt: skip
    assert code == 0, capsys.readouterr()
    outcome = json.loads(capsys.readouterr().out)
    assert outcome["status"] == "opened"
    assert outcome["pull_request"] == PR_URL
    assert outcome["id"] == NOTE_ID
    calls = fake_gh.calls()
    assert calls[0] == ["api", "--hostname", "github.com", "user", "--jq", ".login"]
    create = calls[1]
    body = create[create.index("--body") + 1]
    assert create == [
        "pr", "create", "--repo", "acme/team-vault", "--base", "main",
        "--head", f"lore/{NOTE_ID}",
        "--title", "lore: Alembic migrations set a 5 s lock timeout",
        "--body", body,
        "--label", "lore",
    ]  # fmt: skip
    assert len(calls) == 2
    assert "author: octocat" in body and "### What an agent will see" in body
    assert git(vault, "rev-parse", "HEAD") == before
    assert git(vault, "status", "--porcelain") == ""
    assert f"lore/{NOTE_ID}" in git(bare, "branch", "--list")
    assert git(vault, "branch", "--list", "lore/*") == ""  # finished: nothing left behind

    # 4. A reviewer merges it on "GitHub".
    merge_work = tmp_path / "merge"
    git(tmp_path, "clone", "-q", str(bare), "merge")
    git(merge_work, "merge", "-q", "--no-ff", "-m", "Merge", f"origin/lore/{NOTE_ID}")
    git(merge_work, "push", "-q", "origin", "main")

    # 5. The teammate syncs and recalls the new note.
    monkeypatch.setenv("LORE_CONFIG", str(mate_config))
    assert main(["sync", "--json"]) == 0
    synced = json.loads(capsys.readouterr().out)["vaults"][0]
    assert synced["status"] == "updated" and synced["changed_notes"] == 1
    assert main(["recall", "lock timeout migrations", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["results"][0]["id"] == NOTE_ID
    assert result["results"][0]["vault"] == "team"
    assert result["results"][0]["author"] == "octocat"
