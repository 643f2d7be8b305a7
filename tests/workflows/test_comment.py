"""The trusted workflow's comment: rendered from the checked findings, posted only to the
pull request the run is for, and only ever editing its own comment.

The comment job never reads the pull request: it renders the JSON report the curate job
wrote (`lore curate --from-report`), and GitHub's API is the stand-in of
tests/workflows/fake_github.py (acting as github-actions[bot], running the real jq).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.support import note_text
from tests.workflows.support import CURATOR, GOOD_NOTE, TrustedCurator

PERSON = {"id": 1, "user": {"login": "alice"}, "body": "Looks right to me."}
OTHER_WORKFLOW = {"id": 2, "user": {"login": "github-actions[bot]"}, "body": "Build passed."}
OTHER_BOT = {"id": 4, "user": {"login": "renovate[bot]"}, "body": "<!-- lore-curator -->\nnot ours"}
OURS = {"id": 3, "user": {"login": "github-actions[bot]"}, "body": "<!-- lore-curator -->\nold"}
EXISTING = "billing--integration-tests-use-httpx--2026-03-14"
NEW = "billing--tests-call-the-container-with-httpx--2026-11-02"

pytestmark = pytest.mark.skipif(
    shutil.which("jq") is None, reason="jq is not installed (GitHub's runners have it)"
)


def writes(trusted: TrustedCurator) -> list[list[str]]:
    return [c["args"] for c in trusted.github.calls() if "--method" in c["args"]]


def test_the_comment_updates_only_its_own(trusted: TrustedCurator) -> None:
    trusted.github.update(comments=[PERSON, OTHER_WORKFLOW, OURS, OTHER_BOT])
    run = trusted.run(trusted.open({f"notes/{GOOD_NOTE}.md": note_text()}))
    assert run["comment"].conclusion == "success", run.log
    comments = {c["id"]: c for c in trusted.github.load()["comments"]}
    assert comments[3]["body"].startswith("<!-- lore-curator -->\n### ✅ lore curator:")
    assert comments[1] == PERSON and comments[2] == OTHER_WORKFLOW and comments[4] == OTHER_BOT
    assert len(comments) == 4  # nothing new posted


def test_without_its_own_comment_it_posts_a_new_one(trusted: TrustedCurator) -> None:
    trusted.github.update(comments=[PERSON, OTHER_BOT, OTHER_WORKFLOW])
    trusted.run(trusted.open({f"notes/{GOOD_NOTE}.md": note_text()}))
    comments = trusted.github.load()["comments"]
    assert comments[:3] == [PERSON, OTHER_BOT, OTHER_WORKFLOW]
    (new,) = comments[3:]
    assert new["user"] == {"login": "github-actions[bot]"}
    assert new["body"].startswith("<!-- lore-curator -->\n")


@pytest.mark.parametrize("change", ["head-moved", "other-branch", "from-a-fork", "closed"])
def test_the_comment_goes_only_to_the_same_head_branch_and_repository(
    trusted: TrustedCurator, change: str
) -> None:
    pull = trusted.open({f"notes/{GOOD_NOTE}.md": note_text()})
    now = json.loads(json.dumps(pull.event))
    head = now["pull_request"]["head"]
    if change == "head-moved":
        head["sha"] = "e" * 40
    elif change == "other-branch":
        head["ref"] = "someone-else"
    elif change == "from-a-fork":
        head["repo"] = {"full_name": "mallory/team-vault"}
    else:
        now["pull_request"]["state"] = "closed"
    trusted.github.add_pull(now)
    run = trusted.run(pull)
    assert run["comment"].conclusion == "success", run.log
    assert trusted.github.load()["comments"] == [] and writes(trusted) == []
    assert "no longer open at" in run["comment"].step("Post or update the curator's comment").output


def test_the_comment_is_rendered_from_the_checked_findings(trusted: TrustedCurator) -> None:
    """Errors before warnings, by file, with line links to the head; the existing note a
    finding names links to the base branch."""
    trusted.merge({f"notes/{EXISTING}.md": note_text(date="2026-03-14")})
    bad = note_text(
        "Billing integration tests call the container with httpx",
        tags="[service/billing, tool/httpx, tool/no-such-tool]",
        body="## What\nBilling integration tests call the running container over HTTP with httpx.\n",
    )
    pull = trusted.open({f"notes/{NEW}.md": bad})
    run = trusted.run(pull)
    (comment,) = trusted.github.load()["comments"]
    body = comment["body"]
    head = f"https://github.com/acme/team-vault/blob/{pull.head}/notes/{NEW}.md"
    base = f"https://github.com/acme/team-vault/blob/{pull.base}/notes/{EXISTING}.md"
    assert body.index("#### ❌ Errors") < body.index("#### ⚠️ Warnings"), body
    assert f"({head}#L4) · `taxonomy/unknown-tag`" in body
    assert f"[{EXISTING}]({base})" in body, body
    rendered = run["comment"].step("Render the comment from the findings")
    assert rendered.outcome == "success"


def test_a_forged_report_is_never_posted(trusted: TrustedCurator, tmp_path: Path) -> None:
    """An artifact that is markdown, not the report, stops the comment job with lore's
    one sentence: what reaches the pull request is only ever rendered from findings."""
    pull = trusted.open({f"notes/{GOOD_NOTE}.md": note_text()})
    runner = trusted.runner(pull.trusted())
    forged = runner.artifacts / "lore-findings"
    forged.mkdir(parents=True)
    (forged / "findings.json").write_text("<!-- lore-curator -->\n### ✅ no problems\n")
    runner.needs = {"curate": {"result": "success", "outputs": {}}}
    result = runner.run_job(runner.definition(CURATOR), "comment")
    assert result.conclusion == "failure"
    step = result.step("Render the comment from the findings")
    assert "is not a curator report: it is not JSON" in step.output
    assert result.step("Post or update the curator's comment").outcome == "skipped"
    assert trusted.github.load()["comments"] == []


def test_a_check_that_did_not_finish_says_so(trusted: TrustedCurator) -> None:
    pull = trusted.open({f"notes/{GOOD_NOTE}.md": note_text()})
    pull.event["pull_request"]["head"]["sha"] = "d" * 40  # force-pushed away before the run
    trusted.github.add_pull(pull.event)
    run = trusted.run(pull)
    assert run["curate"].conclusion == "failure"
    fetch = run["curate"].step("Fetch the pull request's commits as data (no checkout)")
    assert "force-pushed since this run started" in fetch.output
    (comment,) = trusted.github.load()["comments"]
    assert "### ❌ lore curator: the check did not finish (failure)." in comment["body"]
