"""The gardener spares a young vault: the template's taxonomy and entries added recently stay.

Real git with dated commits (the day an entry was added is read from the history of
`_taxonomy.md` on the default branch), a local bare repository as the remote, and
`LORE_TODAY` pinned to 2026-11-02 (tests/team/conftest.py).
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from lore.cli.main import main
from lore.taxonomy import parse_taxonomy
from lore.team.garden import audit
from lore.vault.seed import seed_files, write_files
from tests.support import GIT_IDENTITY, git, note_text
from tests.team.conftest import GITHUB_URL, map_github_url


def git_on(day: str, cwd: Path, *args: str) -> None:
    """git with the author and committer dates set to `day`."""
    stamp = f"{day}T12:00:00+00:00"
    env = {**os.environ, **GIT_IDENTITY, "GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp}
    subprocess.run(
        ["git", "-c", "commit.gpgsign=false", *args],
        cwd=cwd,
        env=env,
        check=True,
        capture_output=True,
    )


def add_entries(work: Path, *lines: str) -> None:
    taxonomy = work / "_taxonomy.md"
    text = taxonomy.read_text(encoding="utf-8").replace(
        "\n## pattern\n", "\n" + "\n".join(lines) + "\n\n## pattern\n"
    )
    taxonomy.write_text(text, encoding="utf-8")


def publish(tmp_path: Path, home: Path, work: Path) -> None:
    bare = tmp_path / "team-vault.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(bare))
    git(work, "push", "-q", str(bare), "main")
    map_github_url(home, GITHUB_URL, bare)


def unused_removed(plan_items: list[object]) -> set[str]:
    return {item.target for item in plan_items if item.kind == "unused-taxonomy"}  # type: ignore[attr-defined]


def test_a_vault_created_today_keeps_its_starter_taxonomy(
    tmp_path: Path,
    team_env: Path,
    clone_of: Callable[..., Path],
    capsys: pytest.CaptureFixture[str],
) -> None:
    vault = tmp_path / "new-vault"
    assert main(["init", str(vault), "--no-register"]) == 0
    publish(tmp_path, team_env, vault)
    checkout = clone_of()
    capsys.readouterr()
    assert main(["garden", "--vault", str(checkout), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["items"] == []

    # With the rule turned off, the same vault loses most of its vocabulary at once.
    (checkout / "lore.toml").write_text(
        "[garden]\nkeep_template_taxonomy = false\nkeep_new_taxonomy_days = 0\n", encoding="utf-8"
    )
    git(checkout, "commit", "-q", "-am", "no spare")
    git(checkout, "push", "-q", "origin", "main")
    assert len(unused_removed(audit(checkout).items)) >= 50


@pytest.fixture
def aged_vault(tmp_path: Path, team_env: Path, clone_of: Callable[..., Path]) -> Path:
    """A vault created on 2026-01-01; the team added tags in March, by a merge, and in October."""
    work = tmp_path / "work"
    work.mkdir()
    write_files(work, seed_files())
    git_on("2026-01-01", work, "init", "-q", "-b", "main")
    git_on("2026-01-01", work, "add", "-A")
    git_on("2026-01-01", work, "commit", "-q", "-m", "Create the team vault")
    add_entries(
        work,
        "- `tool/old-unused` — Added in March, used by no note.",
        "- `tool/old-used` — Added in March, used by a note.",
    )
    (work / "notes" / "infra--uses-old-tool--2026-03-01.md").write_text(
        note_text("A note about the old tool", tags="[tool/old-used]", date="2026-03-01"),
        encoding="utf-8",
    )
    git_on("2026-03-01", work, "add", "-A")
    git_on("2026-03-01", work, "commit", "-q", "-m", "March tags")
    # Written in March on a branch, merged on 2026-10-25: the merge is when it arrived.
    git_on("2026-03-02", work, "checkout", "-q", "-b", "side")
    add_entries(work, "- `tool/merged-late` — Written in March, merged in October.")
    git_on("2026-03-02", work, "commit", "-q", "-am", "a tag on a branch")
    git_on("2026-03-02", work, "checkout", "-q", "main")
    git_on("2026-10-25", work, "merge", "-q", "--no-ff", "-m", "Merge side", "side")
    add_entries(work, "- `tool/new-unused` — Added in October.")
    git_on("2026-10-20", work, "commit", "-q", "-am", "October tag")
    publish(tmp_path, team_env, work)
    return clone_of()


def set_garden(checkout: Path, settings: str) -> None:
    (checkout / "lore.toml").write_text(f"[garden]\n{settings}\n", encoding="utf-8")
    git(checkout, "add", "lore.toml")
    git(checkout, "commit", "-q", "-m", "garden settings")
    git(checkout, "push", "-q", "origin", "main")


def test_only_old_entries_the_team_added_are_proposed(aged_vault: Path) -> None:
    plan = audit(aged_vault)
    assert unused_removed(plan.items) == {"tool/old-unused"}
    kept = parse_taxonomy(plan.writes["_taxonomy.md"].decode("utf-8"))
    assert {"tool/new-unused", "tool/merged-late", "tool/old-used", "tool/postgres"} <= set(
        kept.tags
    )
    assert "example-service" in kept.repos  # the template's, though no note names it


def test_the_age_is_configurable(aged_vault: Path) -> None:
    set_garden(aged_vault, "keep_new_taxonomy_days = 5")
    assert unused_removed(audit(aged_vault).items) == {
        "tool/old-unused",
        "tool/new-unused",  # 13 days old
        "tool/merged-late",  # merged 8 days ago
    }


def test_the_template_rule_can_be_turned_off(aged_vault: Path) -> None:
    set_garden(aged_vault, "keep_template_taxonomy = false")
    removed = unused_removed(audit(aged_vault).items)
    assert {"tool/old-unused", "tool/postgres", "example-service"} <= removed
    assert not removed & {"tool/new-unused", "tool/merged-late", "tool/old-used"}


def test_an_entry_removed_and_added_again_is_new_again(aged_vault: Path) -> None:
    taxonomy = aged_vault / "_taxonomy.md"
    line = "- `tool/old-unused` — Added in March, used by no note.\n"
    text = taxonomy.read_text(encoding="utf-8")
    taxonomy.write_text(text.replace(line, ""), encoding="utf-8")
    git_on("2026-10-01", aged_vault, "commit", "-q", "-am", "drop it")
    taxonomy.write_text(text, encoding="utf-8")
    git_on("2026-10-30", aged_vault, "commit", "-q", "-am", "bring it back")
    git(aged_vault, "push", "-q", "origin", "main")
    assert unused_removed(audit(aged_vault).items) == set()
