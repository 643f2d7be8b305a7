"""`lore review`: a local branch shows the curator's findings and the most similar notes.

Real git and a real index; the fake `gh` (tests/team/conftest.py) stands in for
GitHub's API when listing pull requests and approving or merging one.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from lore.cli.main import main
from lore.team.review import review_branch
from tests.support import git, note_text
from tests.team.conftest import FakeGh, Remote, snapshot

EXISTING = "billing--integration-tests-use-httpx--2026-10-01"
OTHER = "web--deploys-on-friday--2026-10-02"
DRAFT = "billing--integration-tests-hit-the-container--2026-11-01"
BRANCH = f"lore/{DRAFT}"


@pytest.fixture
def checkout(remote: Remote, clone_of: Callable[..., Path]) -> Path:
    remote.commit_note(
        EXISTING,
        note_text(
            "Billing integration tests use httpx against the running container",
            date="2026-10-01",
            body="## What\nBilling integration tests call the running container with httpx.\n",
        ),
    )
    remote.commit_note(
        OTHER,
        note_text(
            "The web app never deploys on a Friday",
            tags="[service/web]",
            date="2026-10-02",
            body="## What\nNo deploys of the web app after Thursday noon.\n",
        ),
    )
    root = clone_of()
    git(root, "switch", "-q", "-c", BRANCH)
    (root / "notes" / f"{DRAFT}.md").write_text(
        note_text(
            "Billing integration tests call the container over httpx",
            tags="[service/billing, tool/httpx, tool/no-such-tool]",
            date="2026-11-01",
            body="## What\nBilling integration tests call the running container over httpx.\n",
        ),
        encoding="utf-8",
    )
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "draft")
    git(root, "switch", "-q", "main")
    return root


def test_a_local_branch_shows_findings_and_similar_notes(checkout: Path) -> None:
    before = snapshot(checkout)
    review = review_branch(checkout, BRANCH)
    path = f"notes/{DRAFT}.md"
    assert [(f.rule, f.path) for f in review.findings if f.is_error] == [
        ("taxonomy/unknown-tag", path)
    ]
    (note,) = review.notes
    assert note.path == path and "tool/no-such-tool" in note.text
    assert note.preview.startswith("---") and "running container" in note.preview
    assert note.similar[0].id == EXISTING
    assert DRAFT not in [similar.id for similar in note.similar]
    assert snapshot(checkout) == before


def test_the_cli_review_of_a_branch(checkout: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["review", BRANCH, "--vault", str(checkout), "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["version"] == 1 and data["target"] == BRANCH
    assert data["notes"][0]["similar"][0]["id"] == EXISTING
    assert main(["review", BRANCH, "--vault", str(checkout)]) == 1
    out = capsys.readouterr().out
    assert "taxonomy/unknown-tag" in out and "An agent will see it exactly as above." in out


def test_an_unknown_branch_is_bad_usage(checkout: Path) -> None:
    assert main(["review", "no-such-branch", "--vault", str(checkout)]) == 2


def _pull(branch: str) -> str:
    return json.dumps(
        {
            "number": 7,
            "title": "lore: billing tests call the container",
            "url": "https://github.com/acme/team-vault/pull/7",
            "headRefName": branch,
            "baseRefName": "main",
            "author": {"login": "octocat"},
            "statusCheckRollup": [],
        }
    )


def test_a_pull_request_by_number_is_fetched_and_reviewed(
    checkout: Path,
    fake_gh: FakeGh,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    git(checkout, "push", "-q", "origin", BRANCH)
    git(checkout, "branch", "-q", "-D", BRANCH)  # the reviewer has only the remote's branch
    git(checkout, "update-ref", "-d", f"refs/remotes/origin/{BRANCH}")
    monkeypatch.setenv("FAKE_GH_PR_VIEW", _pull(BRANCH))
    before = snapshot(checkout)
    assert main(["review", "#7", "--vault", str(checkout), "--json"]) == 1  # an unknown tag
    data = json.loads(capsys.readouterr().out)
    assert (data["number"], data["target"]) == (7, "#7")
    assert data["url"] == "https://github.com/acme/team-vault/pull/7"
    assert data["notes"][0]["path"] == f"notes/{DRAFT}.md"
    assert data["notes"][0]["similar"][0]["id"] == EXISTING
    assert [f["rule"] for f in data["findings"] if f["severity"] == "error"] == [
        "taxonomy/unknown-tag"
    ]
    (call,) = fake_gh.calls_to("pr", "view")
    assert call[:5] == ["pr", "view", "7", "--repo", "acme/team-vault"]
    assert fake_gh.calls_to("pr", "review") == []  # --json never acts
    assert snapshot(checkout) == before  # fetched, nothing checked out or changed

    assert main(["review", "7", "--vault", str(checkout), "--approve"]) == 1
    assert fake_gh.calls_to("pr", "review") == [
        ["pr", "review", "7", "--repo", "acme/team-vault", "--approve"]
    ]


def test_a_pull_request_from_a_fork_or_unknown_is_bad_usage(
    checkout: Path,
    fake_gh: FakeGh,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("FAKE_GH_PR_VIEW", _pull("someone:patch-1"))
    assert main(["review", "7", "--vault", str(checkout)]) == 2
    assert "e.g. a fork" in capsys.readouterr().err
    monkeypatch.delenv("FAKE_GH_PR_VIEW")
    code = main(["review", "8", "--vault", str(checkout)])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err
    assert "Could not resolve to a PullRequest with the number of 8" in err


def test_the_list_asks_gh_for_the_lore_label(
    checkout: Path,
    fake_gh: FakeGh,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    pulls = [
        {
            "number": 7,
            "title": "lore: a note",
            "url": "https://github.com/acme/team-vault/pull/7",
            "headRefName": BRANCH,
            "author": {"login": "octocat"},
            "statusCheckRollup": [{"name": "lore curator / curate", "conclusion": "FAILURE"}],
        }
    ]
    monkeypatch.setenv("FAKE_GH_PR_LIST", json.dumps(pulls))
    assert main(["review", "--vault", str(checkout), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["pull_requests"] == [
        {
            "number": 7,
            "title": "lore: a note",
            "url": "https://github.com/acme/team-vault/pull/7",
            "branch": BRANCH,
            "author": "octocat",
            "curator": "failed",
        }
    ]
    (call,) = fake_gh.calls_to("pr", "list")
    assert call[call.index("--label") + 1] == "lore"


def test_actions_go_through_gh(checkout: Path, fake_gh: FakeGh) -> None:
    from lore.team.review import act

    act(checkout, 7, "approve")
    act(checkout, 7, "request-changes", "Say why.")
    act(checkout, 7, "merge")
    assert fake_gh.calls_to("pr", "review") == [
        ["pr", "review", "7", "--repo", "acme/team-vault", "--approve"],
        [
            "pr",
            "review",
            "7",
            "--repo",
            "acme/team-vault",
            "--request-changes",
            "--body",
            "Say why.",
        ],
    ]
    assert fake_gh.calls_to("pr", "merge") == [
        ["pr", "merge", "7", "--repo", "acme/team-vault", "--merge", "--delete-branch"]
    ]


# ---- the "most similar" panel: the curator's candidates and judgement ----

UNRELATED = "ops--incident-count-every-morning--2026-10-03"
ALERTS = "billing--dead-letter-alerts-after-ten--2026-10-04"
NEW_ALERTS = "billing--dead-letter-alert-threshold--2026-11-02"
JUDGED = "lore/judged"


@pytest.fixture
def judged(remote: Remote, clone_of: Callable[..., Path]) -> Path:
    """A vault with a note the draft repeats, one it contradicts and one it shares only
    common words with; a branch adds the draft and the contradicting note."""
    remote.commit_note(
        EXISTING,
        note_text(
            "Billing integration tests use httpx against the running container",
            date="2026-10-01",
            body="## What\nBilling integration tests call the running container with httpx.\n",
        ),
    )
    remote.commit_note(
        UNRELATED,
        note_text(
            "The running total of open incidents is posted every morning",
            tags="[service/web]",
            date="2026-10-03",
            body="## What\nThe on-call posts the running total of open incidents each morning.\n",
        ),
    )
    remote.commit_note(
        ALERTS,
        note_text(
            "Dead-letter topics alert after 10 messages",
            tags="[service/billing]",
            date="2026-10-04",
            repo="payments-api",
            body="## What\nThe billing dead-letter topic alerts once 10 messages are waiting.\n",
        ),
    )
    root = clone_of()
    git(root, "switch", "-q", "-c", JUDGED)
    (root / "notes" / f"{DRAFT}.md").write_text(
        note_text(
            "Billing integration tests call the container over httpx",
            date="2026-11-01",
            body="## What\nBilling integration tests call the running container over httpx.\n",
        ),
        encoding="utf-8",
    )
    (root / "notes" / f"{NEW_ALERTS}.md").write_text(
        note_text(
            "The dead-letter alert threshold for billing",
            tags="[service/billing]",
            date="2026-11-02",
            repo="payments-api",
            body="## What\nThe billing dead-letter alert fires once 100 messages are waiting.\n",
        ),
        encoding="utf-8",
    )
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "two notes")
    git(root, "switch", "-q", "main")
    return root


def test_the_panel_marks_what_the_curator_flags_and_hides_unrelated_notes(judged: Path) -> None:
    review = review_branch(judged, JUDGED)
    similar = {note.path: note.similar for note in review.notes}
    draft = similar[f"notes/{DRAFT}.md"]
    assert [(s.id, s.verdict) for s in draft][:1] == [(EXISTING, "duplicate")]
    assert UNRELATED not in [s.id for s in draft]  # alike only in "running" and "call"
    alerts = {s.id: s for s in similar[f"notes/{NEW_ALERTS}.md"]}
    assert UNRELATED not in alerts
    flagged = alerts[ALERTS]
    assert flagged.verdict == "contradiction"
    assert "100 messages" in flagged.mine and "10 messages" in flagged.theirs
    assert flagged.detail == "100 messages against 10 messages"
    rules = {(f.rule, f.path) for f in review.findings}
    assert ("duplicate/near", f"notes/{DRAFT}.md") in rules  # the same judgement as CI's
    assert ("contradiction/different-number", f"notes/{NEW_ALERTS}.md") in rules


def test_the_panel_in_json_and_text(
    judged: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert main(["review", JUDGED, "--vault", str(judged), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    by_path = {note["path"]: note["similar"] for note in data["notes"]}
    (alerts,) = [s for s in by_path[f"notes/{NEW_ALERTS}.md"] if s["id"] == ALERTS]
    assert alerts["verdict"] == "contradiction"
    assert alerts["clauses"]["detail"] == "100 messages against 10 messages"
    assert by_path[f"notes/{DRAFT}.md"][0]["verdict"] == "duplicate"
    assert by_path[f"notes/{DRAFT}.md"][0]["detail"].startswith("both say ")
    assert 0 < by_path[f"notes/{DRAFT}.md"][0]["score"] <= 1
    monkeypatch.setenv("COLUMNS", "400")  # the three panels side by side, lines unbroken
    assert main(["review", JUDGED, "--vault", str(judged)]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "likely duplicate" in out and "likely contradiction" in out
    assert "100 messages against 10 messages" in out
    assert UNRELATED not in out


def test_the_review_layout_says_each_thing_once(
    judged: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The note once, its agent view only where it differs, one similarity figure per
    pair, each finding with its fix, and headings that are never cut (output not on a
    terminal is never wrapped either)."""
    hidden = "## What\nThe billing dead-letter alert fires once 100 messages are waiting.\n"
    note = judged / "notes" / f"{NEW_ALERTS}.md"
    git(judged, "switch", "-q", JUDGED)
    note.write_text(
        note.read_text(encoding="utf-8").replace(hidden, hidden + "Ask <!-- hidden -->me.\n"),
        encoding="utf-8",
    )
    git(judged, "commit", "-q", "-am", "a comment an agent will not see")
    git(judged, "switch", "-q", "main")
    assert main(["review", JUDGED, "--vault", str(judged)]) == 1
    out = capsys.readouterr().out
    for path in (f"notes/{DRAFT}.md", f"notes/{NEW_ALERTS}.md"):
        assert f"\n{path} as it will be merged\n" in out, out  # a whole line, not cut
    assert out.count("Billing integration tests call the running container over httpx.") == 1
    assert out.count("An agent will see it exactly as above.") == 1  # the draft
    assert "What an agent will see differs" in out  # the note with the comment
    assert "-Ask <!-- hidden -->me." in out
    similar = "".join(part.split("\n\n", 1)[0] for part in out.split("Most similar")[1:])
    pairs = [line for line in similar.splitlines() if " alike" in line]
    assert pairs and all(len(re.findall(r"\d+%", line)) == 1 for line in pairs), pairs
    assert "alike by weighted terms" not in similar  # one figure for the pair, not four
    findings = out.split("\n\n", 1)[0]
    assert "    fix: " in findings  # each finding says how to fix it


def test_the_review_opens_with_the_verdict_and_lists_errors_first(
    checkout: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """As the pull-request comment does (`reading_order`): the verdict and the count on the
    first line, then every error before any warning."""
    assert main(["review", BRANCH, "--vault", str(checkout)]) == 1
    out = capsys.readouterr().out
    review = review_branch(checkout, BRANCH)
    errors, warnings = review.errors, review.warnings
    assert errors and warnings, review.findings  # both kinds, to see their order
    first = out.splitlines()[0]
    assert first.startswith(f"Blocked: lore curator: {errors} error"), first
    assert f"{warnings} warning" in first and "block the merge" in first, first
    listed = [line.split()[0] for line in out.splitlines() if line.startswith("  ")]
    severities = [word for word in listed if word in ("error", "warning")]
    assert severities == ["error"] * errors + ["warning"] * warnings, out
