"""A replacing note through the vault's curator workflow: the PR comment names the old
note, quotes the sentence and gives the `supersedes:` line; with nothing flagged, it
asks whether the note replaces one of its nearest notes.

The workflow runs as in tests/workflows/test_runs.py (`tests.workflow_runner` stands in
for GitHub's runner; git and the "GitHub" repositories are local and real).
"""

from __future__ import annotations

from pathlib import Path

from tests.support import note_text
from tests.workflows.support import (
    VAULT_WORKFLOWS,
    InstalledLore,
    LoreSource,
    pull_request,
    vault_on_github,
    vault_runner,
)

OLD = "billing--integration-tests-use-testclient--2026-03-14"
OLD_NOTE = note_text(
    "Integration tests use FastAPI's TestClient",
    date="2026-03-14",
    body=(
        "## What\nBilling integration tests call the app in-process with FastAPI's TestClient.\n"
        "\n## Why\nTestClient needs no container and runs in a second.\n"
    ),
)
NEW = "billing--integration-tests-use-httpx--2026-11-02"
NEW_NOTE = note_text(
    body=(
        "## What\nBilling integration tests call the running container over HTTP with httpx.\n"
        "\n## Why\nWe call the container with httpx instead of FastAPI's TestClient, because "
        "start-up checks only run in the real container.\n"
    ),
)


def _comment(
    tmp_path: Path, lore_source: LoreSource, installed: InstalledLore, note: str, text: str
) -> str:
    bare, work = vault_on_github(tmp_path, {OLD: OLD_NOTE})
    github = pull_request(work, {f"notes/{note}.md": text})
    runner = vault_runner(tmp_path, github, bare, lore_source, installed)
    result = runner.run_job(VAULT_WORKFLOWS / "lore-curator.yml")
    assert result.conclusion == "success", result.log  # warnings never fail the check
    report = result.artifacts / "lore-curator-report" / "comment.md"
    return report.read_text(encoding="utf-8").replace("\\", "")  # markdown escapes aside


def test_the_comment_shows_the_replacement_and_its_supersedes_line(
    tmp_path: Path, lore_source: LoreSource, installed_lore: InstalledLore
) -> None:
    comment = _comment(tmp_path, lore_source, installed_lore, NEW, NEW_NOTE)
    assert "lifecycle/may-supersede" in comment, comment
    assert f"this note may replace {OLD}" in comment
    assert "instead of FastAPI's TestClient" in comment  # the sentence that says so
    assert f"supersedes: [{OLD}]" in comment
    assert "replace one of these?" not in comment  # the warning already asks


def test_with_nothing_flagged_the_comment_asks_about_the_nearest_notes(
    tmp_path: Path, lore_source: LoreSource, installed_lore: InstalledLore
) -> None:
    other = "billing--integration-tests-seed-data--2026-11-02"
    text = note_text(
        "Integration tests seed their own billing data",
        body=(
            "## What\nEach billing integration test creates its own customers and invoices "
            "through the API and deletes them afterwards.\n"
        ),
    )
    comment = _comment(tmp_path, lore_source, installed_lore, other, text)
    assert "lifecycle/may-supersede" not in comment
    assert f"Does notes/{other}.md replace one of these?" in comment
    assert OLD in comment
