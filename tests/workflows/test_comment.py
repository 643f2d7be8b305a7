"""The comment workflow posts the curator's report, and edits only its own comment.

It runs after a real curator run (tests/workflows/conftest.py) with a fake
`gh` standing in for GitHub's API, which cannot be reached from a test; the fake acts
as the workflow token's user, github-actions[bot], and runs the real jq for `--jq`.
"""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support import note_text
from tests.workflow_runner import GitHubContext, JobResult, WorkflowRunner
from tests.workflows.support import (
    GOOD_NOTE,
    VAULT_WORKFLOWS,
)

FAKE_API_GH = """\
#!{python}
# A stand-in for the GitHub CLI: GitHub's API cannot be reached from a test. It serves
# the calls lore-comment.yml makes from a JSON state file, acting as github-actions[bot]
# (the workflow token's user), and runs jq for --jq as gh does.
import json, os, re, shutil, subprocess, sys
state_path = os.environ["FAKE_GITHUB_STATE"]
with open(state_path, encoding="utf-8") as handle:
    state = json.load(handle)
args = sys.argv[1:]
state["calls"].append(args)

def option(name, default=None):
    return args[args.index(name) + 1] if name in args else default

def emit(value):
    query = option("--jq")
    if query is None:
        print(json.dumps(value))
        return
    done = subprocess.run(["jq", "-r", query], input=json.dumps(value), text=True,
                          capture_output=True)
    if done.returncode:
        sys.stderr.write(done.stderr)
        sys.exit(1)
    sys.stdout.write(done.stdout)

def save():
    with open(state_path, "w", encoding="utf-8") as handle:
        json.dump(state, handle)

if args[:2] == ["run", "download"]:
    source = os.path.join(state["artifacts"], option("--name"))
    if args[2] != state["run_id"] or not os.path.isdir(source):
        save()
        sys.stderr.write("no valid artifacts found to download\\n")
        sys.exit(1)
    shutil.copytree(source, option("--dir"), dirs_exist_ok=True)
elif args[:2] == ["pr", "comment"]:  # gh's --edit-last: the token user's last comment
    with open(option("--body-file"), encoding="utf-8") as handle:
        body = handle.read()
    mine = [c for c in state["comments"] if c["user"]["login"] == "github-actions[bot]"]
    if "--edit-last" in args and mine:
        mine[-1]["body"] = body
    else:
        state["comments"].append({{"id": 100 + len(state["comments"]),
                                   "user": {{"login": "github-actions[bot]"}}, "body": body}})
elif args[:1] == ["api"]:
    method = option("--method", "GET")
    skip = {{"--method", "--jq", "--input"}}
    path = next(a for i, a in enumerate(args[1:], 1)
                if not a.startswith("-") and args[i - 1] not in skip)
    comments = state["comments"]
    if re.fullmatch(r"repos/[^/]+/[^/]+/actions/runs/\\d+/artifacts", path):
        found = path.split("/")[5] == state["run_id"] and os.path.isdir(state["artifacts"])
        names = sorted(os.listdir(state["artifacts"])) if found else []
        emit({{"total_count": len(names), "artifacts": [{{"name": n}} for n in names]}})
    elif re.fullmatch(r"repos/[^/]+/[^/]+/commits/[0-9a-f]+/pulls", path):
        emit([{{"number": n}} for n in state["pulls"].get(path.split("/")[4], [])])
    elif re.fullmatch(r"repos/[^/]+/[^/]+/issues/\\d+/comments", path) and method == "GET":
        pages = [comments[i:i + 2] for i in range(0, len(comments), 2)] or [[]]
        for page in pages if "--paginate" in args else pages[:1]:
            emit(page)
    elif re.fullmatch(r"repos/[^/]+/[^/]+/issues/\\d+/comments", path) and method == "POST":
        with open(option("--input"), encoding="utf-8") as handle:
            body = json.load(handle)["body"]
        comment = {{"id": 100 + len(comments), "user": {{"login": "github-actions[bot]"}},
                   "body": body}}
        comments.append(comment)
        emit(comment)
    elif re.fullmatch(r"repos/[^/]+/[^/]+/issues/comments/\\d+", path) and method == "PATCH":
        (comment,) = [c for c in comments if c["id"] == int(path.rsplit("/", 1)[1])]
        if comment["user"]["login"] != "github-actions[bot]":
            save()
            sys.stderr.write("gh: Resource not accessible by integration (HTTP 403)\\n")
            sys.exit(1)
        with open(option("--input"), encoding="utf-8") as handle:
            comment["body"] = json.load(handle)["body"]
        emit(comment)
    else:
        save()
        sys.stderr.write("fake gh: unexpected API call " + " ".join(args) + "\\n")
        sys.exit(1)
else:
    save()
    sys.stderr.write("fake gh: unexpected command " + " ".join(args) + "\\n")
    sys.exit(1)
save()
"""

PERSON = {"id": 1, "user": {"login": "alice"}, "body": "Looks right to me."}
OTHER_WORKFLOW = {"id": 2, "user": {"login": "github-actions[bot]"}, "body": "Build passed."}
OTHER_BOT = {"id": 4, "user": {"login": "renovate[bot]"}, "body": "<!-- lore-curator -->\nnot ours"}


@pytest.fixture
def comment_run(
    tmp_path: Path, curate_run: Callable[[dict[str, str]], JobResult]
) -> Callable[..., dict[str, object]]:
    if shutil.which("jq") is None:
        pytest.skip("jq is not installed (GitHub's runners have it; the workflow uses it)")
    curated = curate_run({f"notes/{GOOD_NOTE}.md": note_text()})
    head = "ab" * 20  # the pull request's head commit, as the workflow_run event names it

    def run(comments: list[dict[str, object]], artifacts: Path | None = None) -> dict[str, object]:
        fake = tmp_path / "fake-gh"
        fake.mkdir(exist_ok=True)
        (fake / "gh").write_text(FAKE_API_GH.format(python=sys.executable), encoding="utf-8")
        (fake / "gh").chmod(0o755)
        state_file = tmp_path / "github-state.json"
        reports = artifacts or curated.artifacts
        state = {"run_id": "9001", "artifacts": str(reports), "pulls": {head: [7]},
                 "comments": json.loads(json.dumps(comments)), "calls": []}  # fmt: skip
        state_file.write_text(json.dumps(state), encoding="utf-8")
        event = {"workflow_run": {"id": 9001, "event": "pull_request", "head_sha": head}}
        runner = WorkflowRunner(
            tmp_path / f"comment-{len(list(tmp_path.glob('comment-*')))}",
            GitHubContext("workflow_run", event, "acme/team-vault", "cd" * 20),
            repositories={},
            env={"FAKE_GITHUB_STATE": str(state_file)},
            extra_path=[fake],
        )
        result = runner.run_job(VAULT_WORKFLOWS / "lore-comment.yml")
        assert result.conclusion == "success", result.log
        final: dict[str, object] = json.loads(state_file.read_text(encoding="utf-8"))
        final["log"] = result.log
        report = reports / "lore-curator-report" / "comment.md"
        final["report"] = report.read_text() if report.is_file() else None
        return final

    return run


def test_the_comment_updates_only_its_own(
    comment_run: Callable[..., dict[str, object]],
) -> None:
    ours = {"id": 3, "user": {"login": "github-actions[bot]"}, "body": "<!-- lore-curator -->\nold"}
    state = comment_run([PERSON, OTHER_WORKFLOW, ours, OTHER_BOT])
    comments = {c["id"]: c for c in state["comments"]}  # type: ignore[attr-defined,index]
    assert comments[3]["body"] == state["report"], (state["log"], state["calls"])
    assert comments[1] == PERSON and comments[2] == OTHER_WORKFLOW and comments[4] == OTHER_BOT
    assert len(comments) == 4  # nothing new posted


def test_without_its_own_comment_it_posts_a_new_one(
    comment_run: Callable[..., dict[str, object]],
) -> None:
    state = comment_run([PERSON, OTHER_BOT, OTHER_WORKFLOW])  # another bot's comment is last
    comments = state["comments"]
    assert comments[:3] == [PERSON, OTHER_BOT, OTHER_WORKFLOW]  # type: ignore[index]
    (new,) = comments[3:]  # type: ignore[index]
    assert new["user"] == {"login": "github-actions[bot]"} and new["body"] == state["report"]
    assert not [call for call in state["calls"] if call[:2] == ["pr", "comment"]]  # type: ignore[union-attr]


def test_no_report_no_comment(
    comment_run: Callable[..., dict[str, object]], tmp_path: Path
) -> None:
    """The curator skipped (nothing it checks changed): it uploaded nothing, so nothing is posted."""
    empty = tmp_path / "no-artifacts"
    empty.mkdir()
    state = comment_run([PERSON], artifacts=empty)
    assert state["comments"] == [PERSON]
    assert [call[:2] for call in state["calls"]] == [
        ["api", "repos/acme/team-vault/actions/runs/9001/artifacts"]
    ]  # type: ignore[union-attr]
