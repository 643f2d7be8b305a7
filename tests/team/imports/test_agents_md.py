"""`lore import agents-md`: agent-instruction files split into notes, and what never gets in.

The two repositories are tests/fixtures/import/agents (see its README for the public
styles they follow). What cannot be committed there is added here: a symbolic link,
a zero-width character, and a token-shaped secret built at run time.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from lore.team.imports.agent_rules import judge, judge_section
from tests.support import git
from tests.team.conftest import FakeGh, Remote
from tests.team.imports.conftest import frontmatter, note_by_source, run_import, skip_reason

SECRET = "ghp_" + "Q7rT2mW9xV4kL8nB3pZ6yC1dH5jF0sG8aE2u"
ZERO_WIDTH = "\u200b"


@pytest.fixture
def repos(code_repo: Callable[..., Path]) -> tuple[Path, Path]:
    payments = code_repo("agents/payments-api", "payments-api")
    agents = payments / "AGENTS.md"
    text = agents.read_text()
    text = text.replace("never as floats", f"never as fl{ZERO_WIDTH}oats")
    text = text.replace(
        "## Communication",
        f"- Deploys use the token {SECRET} from the vault.\n\n## Communication",
    )
    agents.write_text(text)
    git(payments, "commit", "-q", "-am", "a secret and a hidden character")
    web = code_repo("agents/web-app", "web-app")
    (web / "CLAUDE.md").symlink_to("AGENTS.md")
    git(web, "add", "-A")
    git(web, "commit", "-q", "-m", "CLAUDE.md is AGENTS.md")
    return payments, web


def dry_run(
    capsys: pytest.CaptureFixture[str], checkout: Path, *paths: Path
) -> tuple[dict[str, Any], str]:
    code, data, out, err = run_import(
        capsys, "agents-md", *map(str, paths), "--vault", str(checkout), "--dry-run", "--json"
    )
    assert data is not None, (code, out, err)
    return data, out


def test_conventions_are_kept_in_their_own_words_and_agent_talk_is_dropped(
    repos: tuple[Path, Path], checkout: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data, _ = dry_run(capsys, checkout, *repos)
    pnpm = note_by_source(data, "payments-api/AGENTS.md:17")
    assert pnpm["text"].endswith("## What\nUse pnpm for the admin frontend, never npm or yarn.\n")
    fields = frontmatter(pnpm["text"])
    assert (
        fields["type"] == "convention"
        and fields["title"] == "Use pnpm for the admin frontend, never npm or yarn"
    )
    # The same line in web-app/AGENTS.md: one note, for both repositories.
    assert fields["repo"] == "[payments-api, web-app]"
    assert "(its repository is added to that note)" in skip_reason(data, "web-app/AGENTS.md:5")
    commit = git(repos[0], "rev-parse", "HEAD")
    assert fields["source"] == f"https://github.com/acme/payments-api/blob/{commit}/AGENTS.md#L17"
    tests_first = note_by_source(data, "payments-api/AGENTS.md:18")
    assert "Run the tests before committing: `make test` must pass locally." in tests_first["text"]
    gotcha = note_by_source(data, "payments-api/AGENTS.md:32")
    assert frontmatter(gotcha["text"])["type"] == "gotcha"
    release = note_by_source(data, "payments-api/AGENTS.md:37")
    assert frontmatter(release["text"])["type"] == "runbook"
    assert "- Tag the commit `vX.Y.Z` and push the tag." in release["text"]
    commands = note_by_source(data, "payments-api/AGENTS.md:11")
    assert frontmatter(commands["text"])["type"] == "howto"
    assert "- `make test` - run the unit and integration tests" in commands["text"]
    mdc = note_by_source(data, ".cursor/rules/testing.mdc:8")
    assert "globs" not in mdc["text"] and "alwaysApply" not in mdc["text"]
    reasons = {s["source"]: s["reason"] for s in data["skipped"]}
    assert reasons["payments-api/AGENTS.md:5"].startswith("about the agent, not the team (persona")
    assert reasons["payments-api/AGENTS.md:3"].startswith(
        "about the agent, not the team (about-instructions"
    )
    assert "(conversation" in reasons["payments-api/AGENTS.md:27"]  # "Be concise."
    assert "(conversation" in reasons["payments-api/.github/copilot-instructions.md:5"]
    assert "(agent-tooling" in reasons["payments-api/.github/copilot-instructions.md:12"]
    assert "(persona" in reasons["payments-api/.cursorrules:1"]
    assert "(conversation" in reasons["web-app/AGENTS.md:10"]  # a "Response style" section


def test_pointer_files_are_followed_once(
    repos: tuple[Path, Path], checkout: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    payments, web = repos
    data, _ = dry_run(capsys, checkout, payments, web)
    assert (
        skip_reason(data, "payments-api/CLAUDE.md")
        == "only points to payments-api/AGENTS.md: read there"
    )
    assert (
        skip_reason(data, "payments-api/GEMINI.md")
        == "only points to payments-api/AGENTS.md: read there"
    )
    assert (
        skip_reason(data, "web-app/CLAUDE.md") == "a link to web-app/AGENTS.md, which is read once"
    )
    sources = [n["source"] for n in data["notes"]]
    assert not any("CLAUDE.md" in s or "GEMINI.md" in s for s in sources)
    # A pointer to a file that is not there, and a link that leaves the repository.
    (payments / "AGENTS.md").unlink()
    outside = tmp_path / "elsewhere.md"
    outside.write_text("- Always deploy on Fridays.\n")
    (payments / ".github" / "copilot-instructions.md").unlink()
    (payments / ".github" / "copilot-instructions.md").symlink_to(outside)
    data, _ = dry_run(capsys, checkout, payments)
    assert (
        skip_reason(data, "CLAUDE.md")
        == "only points to AGENTS.md, which is not in this repository"
    )
    assert skip_reason(data, ".github/copilot-instructions.md") == (
        "a link to a file outside the repository: not followed"
    )
    assert "Fridays" not in json.dumps(data)


def test_hidden_text_and_secrets_never_reach_a_candidate(
    repos: tuple[Path, Path], checkout: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data, out = dry_run(capsys, checkout, *repos)
    assert "push straight to main" not in out  # an HTML comment
    assert "production database password" not in out  # a <span hidden>
    assert ZERO_WIDTH not in out and "never as floats" in out
    assert SECRET not in out
    reason = skip_reason(data, "payments-api/AGENTS.md:23")
    assert reason.startswith("contains what looks like a secret (secret/github-token")
    migrations = note_by_source(data, "payments-api/AGENTS.md:20")
    assert migrations["text"].endswith(
        "Database migrations are written with Alembic and must set `lock_timeout` before any DDL.\n"
    )


def test_agent_files_are_not_imported_twice(
    repos: tuple[Path, Path],
    checkout: Path,
    remote: Remote,
    fake_gh: FakeGh,
    capsys: pytest.CaptureFixture[str],
) -> None:
    payments, _ = repos
    args = ("agents-md", str(payments), "--vault", str(checkout), "--tag", "team/payments")
    code, first, _, err = run_import(capsys, *args, "--yes", "--json")
    assert code == 0 and first is not None, err
    assert first["notes"]
    code, again, _, err = run_import(capsys, *args, "--dry-run", "--json")
    assert again is not None and again["notes"] == [], [n["source"] for n in again["notes"]]
    assert all(
        s["reason"].startswith("already imported")
        for s in again["skipped"]
        if s["source"] in {n["source"] for n in first["notes"]}
    )


@pytest.mark.parametrize(
    "text",
    [
        "Use pnpm, never npm or yarn.",
        "Run the tests before committing.",
        "Never edit files under `generated/`; run `make codegen` instead.",
        "When you submit a PR, include the PR template and the issue it closes.",
        "Money is stored as integer minor units.",
        "Follow the React hooks rules (no conditional hooks).",
    ],
)
def test_team_knowledge_is_kept(text: str) -> None:
    assert judge(text).keep


@pytest.mark.parametrize(
    ("text", "family"),
    [
        ("You are an expert in TypeScript and React.", "persona"),
        ("Be concise.", "conversation"),
        ("Stop apologising if corrected, just provide the code.", "conversation"),
        ("Ask the user before deleting files.", "conversation"),
        ("Include the commands you ran in your final summary.", "conversation"),
        ("Always include `src/types.ts` in the context when you write math code.", "agent-tooling"),
        ("Never add yourself as a co-author on commits.", "agent-tooling"),
        ("Use the `docs-writer` skill for documentation.", "agent-tooling"),
        ("This file provides guidance to Claude Code.", "about-instructions"),
        ("[Brief description of your project]", "no-claim"),
        ("Code Style and Structure:", "no-claim"),
        ("See CONTRIBUTING.md.", "no-claim"),
    ],
)
def test_what_only_steers_the_agent_is_dropped(text: str, family: str) -> None:
    verdict = judge(text)
    assert not verdict.keep and verdict.family == family


def test_a_whole_section_about_talking_is_dropped() -> None:
    assert not judge_section("Generic Communication Guidelines").keep
    assert not judge_section("Response style").keep
    assert judge_section("Python Guidelines").keep
