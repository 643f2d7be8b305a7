"""A replacing note through the vault's curator workflow: the PR comment names the old
note, quotes the sentence and gives the `supersedes:` line; with nothing flagged, it
asks whether the note replaces one of its nearest notes.

The trusted curator runs as in tests/workflows/test_trusted_curator.py
(`tests.workflow_runner` stands in for GitHub's runner, tests/workflows/fake_github.py
for its web API; git and the "GitHub" repositories are local and real), and the comment
is the one its comment job posted.
"""

from __future__ import annotations

from tests.support import note_text
from tests.workflows.support import TrustedCurator

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


def _comment(trusted: TrustedCurator, note: str, text: str) -> str:
    trusted.merge({f"notes/{OLD}.md": OLD_NOTE})
    run = trusted.run(trusted.open({f"notes/{note}.md": text}))
    assert run["curate"].conclusion == "success", run.log  # warnings never fail the check
    (comment,) = trusted.github.load()["comments"]
    body: str = comment["body"]
    return body.replace("\\", "")  # markdown escapes aside


def test_the_comment_shows_the_replacement_and_its_supersedes_line(
    trusted: TrustedCurator,
) -> None:
    comment = _comment(trusted, NEW, NEW_NOTE)
    assert "lifecycle/may-supersede" in comment, comment
    # The old note is named, and linked to its file on the base branch.
    assert f"this note may replace [{OLD}](https://github.com/" in comment, comment
    assert "instead of FastAPI's TestClient" in comment  # the sentence that says so
    assert f"supersedes: [{OLD}]" in comment
    assert "replace one of these?" not in comment  # the warning already asks


def test_with_nothing_flagged_the_comment_asks_about_the_nearest_notes(
    trusted: TrustedCurator,
) -> None:
    other = "billing--integration-tests-seed-data--2026-11-02"
    text = note_text(
        "Integration tests seed their own billing data",
        body=(
            "## What\nEach billing integration test creates its own customers and invoices "
            "through the API and deletes them afterwards.\n"
        ),
    )
    comment = _comment(trusted, other, text)
    assert "lifecycle/may-supersede" not in comment
    assert f"Does notes/{other}.md replace one of these?" in comment
    assert OLD in comment
