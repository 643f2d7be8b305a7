"""The workflows' own steps, run against real local pull requests, pushes and schedules.

Each workflow under `.github/workflows/`, `vault-template/.github/workflows/` and
`docs/workflows/` is run by `tests.workflow_runner` (GitHub's runner stands in: see its
docstring), so a step that calls a command, flag or package that does not exist fails
here. Git is real; the "GitHub" repositories are local ones; the one thing faked is
GitHub's web API (`gh`), which cannot be reached from a test.

lore's action installs lore for real from a copy of this repository: its locked
dependencies come from the wheelhouse `.ci/run` downloads (`pip download
--require-hashes`), with pip kept off every index. That install runs once, in the
gh-lore workflow `set-up-lore.yml`; the other runs reuse the environment it made (their
action's install step only puts it on PATH), which keeps this file to a few tens of
seconds. Without the wheelhouse those runs use the test's own lore, and the tests of
the install itself skip, saying why.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from lore import __version__
from lore.vault.seed import seed_files, write_files
from tests.support import git, note_text
from tests.team.conftest import FAKE_GH, PR_URL
from tests.workflow_expressions import ExpressionError, evaluate
from tests.workflow_runner import GitHubContext, JobResult, WorkflowRunner

ROOT = Path(__file__).resolve().parent.parent
WHEELHOUSE = ROOT / ".ci" / "wheelhouse"
VAULT_WORKFLOWS = ROOT / "vault-template" / ".github" / "workflows"
TODAY = "2026-11-02"
GOOD_NOTE = "billing--integration-tests-use-httpx--2026-11-02"
OFFLINE_PIP = {
    "PIP_CONFIG_FILE": os.devnull,  # no machine or user configuration: no other index
    "PIP_NO_INDEX": "1",
    "PIP_FIND_LINKS": str(WHEELHOUSE),
    "PIP_DISABLE_PIP_VERSION_CHECK": "1",
}
NO_WHEELHOUSE = (
    f"{WHEELHOUSE.relative_to(ROOT)} is missing: .ci/run downloads the action's locked "
    "dependencies there (pip download --require-hashes -r requirements/action.txt)"
)


def run_git(cwd: Path, *args: str) -> str:
    return git(cwd, *args)


@dataclass
class LoreSource:
    """This repository as GitHub would serve it: a git repository, and the action's files."""

    repo: Path  # a git repository of the working tree's files, one commit
    action: Path  # the same files without .git, as the runner downloads an action


@pytest.fixture(scope="session")
def lore_source(tmp_path_factory: pytest.TempPathFactory) -> LoreSource:
    if not (ROOT / ".git").exists():
        pytest.skip("the workflow runs copy this repository with git; this copy has no .git")
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT, capture_output=True, check=True,
    ).stdout.decode().split("\0")  # fmt: skip
    repo = tmp_path_factory.mktemp("gh-lore")
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():
            (repo / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, repo / name)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "gh-lore as it is in this checkout")
    action = tmp_path_factory.mktemp("gh-lore-action")
    archive = subprocess.run(["git", "archive", "HEAD"], cwd=repo, capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(action)], input=archive.stdout, check=True)
    return LoreSource(repo, action)


@dataclass
class InstalledLore:
    step_scripts: dict[str, str]  # the action's install step, for every later run
    setup_run: JobResult | None  # the real install, when the wheelhouse is there


@pytest.fixture(scope="session")
def installed_lore(
    lore_source: LoreSource, tmp_path_factory: pytest.TempPathFactory
) -> InstalledLore:
    """Run gh-lore's own workflow once: the action really installs lore, offline."""
    if not WHEELHOUSE.is_dir():
        shim = tmp_path_factory.mktemp("test-lore") / "bin"
        shim.mkdir()
        (shim / "lore").write_text(f'#!/bin/sh\nexec "{sys.executable}" -m lore "$@"\n')
        (shim / "lore").chmod(0o755)
        return InstalledLore({"install": f'echo "{shim}" >> "$GITHUB_PATH"'}, None)
    scratch = tmp_path_factory.mktemp("set-up-lore")
    sha = git(lore_source.repo, "rev-parse", "HEAD")
    runner = WorkflowRunner(
        scratch,
        GitHubContext("push", {"before": "0" * 40, "after": sha}, "OWNER/gh-lore", sha),
        repositories={"OWNER/gh-lore": lore_source.repo},
        env={**OFFLINE_PIP, "LORE_TODAY": TODAY},
    )
    result = runner.run_job(ROOT / ".github" / "workflows" / "set-up-lore.yml")
    venv_bin = scratch / "runner-temp" / "lore-venv" / "bin"
    return InstalledLore({"install": f'echo "{venv_bin}" >> "$GITHUB_PATH"'}, result)


# ---- gh-lore's own workflow: the action installs exactly this commit, from the lock ----


def test_the_action_installs_this_commit_offline_from_the_lock(
    installed_lore: InstalledLore,
) -> None:
    """The composite action runs its own steps with GITHUB_ACTION_PATH set, as documented:
    https://docs.github.com/en/actions/reference/workflows-and-actions/contexts#github-context
    (`github.action_path`, only in composite actions)."""
    if installed_lore.setup_run is None:
        pytest.skip(NO_WHEELHOUSE)
    result = installed_lore.setup_run
    assert result.conclusion == "success", result.log
    assert result.step("install").outcome == "success"
    assert result.step("version").outputs == {"version": __version__}
    assert "Successfully installed gh-lore" in result.step("install").output
    assert result.step("Create a vault and curate it with the installed lore").outcome == "success"


def test_the_action_refuses_a_dependency_whose_hash_differs(
    lore_source: LoreSource, tmp_path: Path
) -> None:
    if not WHEELHOUSE.is_dir():
        pytest.skip(NO_WHEELHOUSE)
    action = tmp_path / "tampered-action"
    shutil.copytree(lore_source.action, action)
    lock = action / "requirements" / "action.txt"
    text = lock.read_text(encoding="utf-8")
    start = text.index("pyyaml==")
    block_end = text.index("\n    # via", start)
    block = text[start:block_end]
    lock.write_text(text.replace(block, _wrong_hashes(block)), encoding="utf-8")
    runner = WorkflowRunner(
        tmp_path / "run",
        GitHubContext("push", {}, "acme/anything", "0" * 40),
        repositories={},
        env=OFFLINE_PIP,
        extra_path=[Path(sys.base_prefix) / "bin"],
    )
    result = runner.run_action(
        action, {"python": f"python{sys.version_info.major}.{sys.version_info.minor}"}
    )
    assert result.conclusion == "failure"
    assert "DO NOT MATCH THE HASHES" in result.step("install").output
    assert not (tmp_path / "run" / "runner-temp" / "lore-venv" / "bin" / "lore").exists()


def _wrong_hashes(block: str) -> str:
    lines = block.splitlines()
    return "\n".join(
        line.split("--hash=sha256:")[0]
        + "--hash=sha256:"
        + "0" * 64
        + (" \\" if line.endswith("\\") else "")
        if "--hash=sha256:" in line
        else line
        for line in lines
    )


# ---- a vault on "GitHub", and its pull requests ----


def vault_on_github(tmp_path: Path, notes: dict[str, str] | None = None) -> tuple[Path, Path]:
    """A vault from the seed (repos payments-api and web-app) as a bare repository, and a
    work clone to make commits and pull requests in."""
    seed = tmp_path / "vault-seed"
    seed.mkdir()
    write_files(seed, seed_files())
    taxonomy = seed / "_taxonomy.md"
    taxonomy.write_text(
        taxonomy.read_text(encoding="utf-8").replace(
            "- `example-service` — Replace with your repositories.",
            "- `payments-api` — The billing API.\n- `web-app` — The web application.",
        ),
        encoding="utf-8",
    )
    for note_id, text in (notes or {}).items():
        (seed / "notes" / f"{note_id}.md").write_text(text, encoding="utf-8")
    git(seed, "init", "-q", "-b", "main")
    git(seed, "add", "-A")
    git(seed, "commit", "-q", "-m", "Create the team vault")
    bare = tmp_path / "team-vault.git"
    git(tmp_path, "clone", "-q", "--bare", str(seed), str(bare))
    work = tmp_path / "vault-work"
    git(tmp_path, "clone", "-q", str(bare), str(work))
    return bare, work


def pull_request(work: Path, files: dict[str, str], number: int = 7) -> GitHubContext:
    """Push a branch with `files` and GitHub's merge ref for it; the event GitHub sends."""
    base = git(work, "rev-parse", "main")
    branch = f"lore/proposal-{number}"
    git(work, "checkout", "-q", "-b", branch, "main")
    for name, text in files.items():
        (work / name).parent.mkdir(parents=True, exist_ok=True)
        (work / name).write_text(text, encoding="utf-8")
    git(work, "add", "-A")
    git(work, "commit", "-q", "-m", "Propose a change")
    head = git(work, "rev-parse", "HEAD")
    git(work, "checkout", "-q", "--detach", "main")
    git(work, "merge", "-q", "--no-ff", "-m", f"Merge {head} into {base}", branch)
    merge = git(work, "rev-parse", "HEAD")
    git(work, "push", "-q", "origin", branch, f"{merge}:refs/pull/{number}/merge")
    git(work, "checkout", "-q", "main")
    event = {
        "action": "opened",
        "number": number,
        "pull_request": {
            "number": number,
            "base": {"sha": base, "ref": "main"},
            "head": {"sha": head, "ref": branch},
        },
    }
    return GitHubContext(
        "pull_request", event, "acme/team-vault", merge, f"refs/pull/{number}/merge"
    )


def vault_runner(
    tmp_path: Path,
    github: GitHubContext,
    bare: Path,
    lore_source: LoreSource,
    installed: InstalledLore,
    **options: object,
) -> WorkflowRunner:
    return WorkflowRunner(
        tmp_path / "run",
        github,
        repositories={"acme/team-vault": bare, **options.pop("repositories", {})},  # type: ignore[dict-item]
        actions={"*/gh-lore": lore_source.action},
        step_scripts=installed.step_scripts,
        env={"LORE_TODAY": TODAY, **options.pop("env", {})},  # type: ignore[dict-item]
        **options,  # type: ignore[arg-type]
    )


@pytest.fixture
def curate_run(
    tmp_path: Path, lore_source: LoreSource, installed_lore: InstalledLore
) -> Callable[[dict[str, str]], JobResult]:
    def run(files: dict[str, str]) -> JobResult:
        bare, work = vault_on_github(tmp_path)
        github = pull_request(work, files)
        runner = vault_runner(tmp_path, github, bare, lore_source, installed_lore)
        return runner.run_job(VAULT_WORKFLOWS / "lore-curator.yml")

    return run


def test_the_curator_passes_a_good_note(curate_run: Callable[[dict[str, str]], JobResult]) -> None:
    result = curate_run({f"notes/{GOOD_NOTE}.md": note_text()})
    assert result.job == "curate"  # the check branch protection requires
    assert result.conclusion == "success", result.log
    assert result.step("changes").outputs == {"curate": "true"}
    assert result.step("Set up lore").outcome == "success"
    curate = result.step("Curate the notes this pull request adds or changes")
    assert curate.outcome == "success"
    report = (result.artifacts / "lore-curator-report" / "comment.md").read_text()
    assert report.startswith("<!-- lore-curator -->\n")
    assert GOOD_NOTE in report
    assert "lore curator: no problems in 1 file." in result.summary  # the job summary


def test_the_curator_fails_a_bad_note_and_still_uploads_the_report(
    curate_run: Callable[[dict[str, str]], JobResult],
) -> None:
    bad = note_text(tags="[service/billing, tool/no-such-tool]")
    result = curate_run({f"notes/{GOOD_NOTE}.md": bad})
    assert result.conclusion == "failure"
    curate = result.step("Curate the notes this pull request adds or changes")
    assert curate.outcome == "failure" and curate.exit_code == 1
    assert "::error" in curate.output and "taxonomy/unknown-tag" in curate.output
    assert (result.artifacts / "lore-curator-report" / "comment.md").is_file()


def test_a_pull_request_outside_the_notes_passes_without_installing(
    curate_run: Callable[[dict[str, str]], JobResult],
) -> None:
    """No `paths:` filter (a required check it skips blocks the merge for good:
    https://docs.github.com/en/pull-requests/collaborating-with-pull-requests/collaborating-on-repositories-with-code-quality-features/troubleshooting-required-status-checks#handling-skipped-but-required-checks);
    the job runs, reports success and skips the install."""
    result = curate_run({".github/CODEOWNERS": "* @acme/leads\n"})
    assert result.conclusion == "success", result.log
    assert result.step("changes").outputs == {"curate": "false"}
    skipped = [step.name for step in result.steps if step.outcome == "skipped"]
    assert skipped == [
        "Set up Python",
        "Set up lore",
        "Curate the notes this pull request adds or changes",
        "Upload the report for lore-comment.yml",
    ]
    assert "nothing for the curator to check" in result.summary


# ---- the comment workflow: GitHub's API is the one stand-in ----

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


# ---- the gardener and drift: pushes and pull requests through lore ----


def fake_lore_gh(tmp_path: Path) -> tuple[Path, Path]:
    """The fake `gh` of tests/team/conftest.py (GitHub's API only), and its call log."""
    folder = tmp_path / "fake-lore-gh"
    folder.mkdir()
    (folder / "gh").write_text(
        FAKE_GH.format(python=sys.executable, pr_url=PR_URL), encoding="utf-8"
    )
    (folder / "gh").chmod(0o755)
    return folder, tmp_path / "gh-calls.jsonl"


def gh_calls(log: Path) -> list[list[str]]:
    return (
        [json.loads(line)["args"] for line in log.read_text().splitlines()] if log.exists() else []
    )


def test_the_gardener_proposes_its_cleanup(
    tmp_path: Path, lore_source: LoreSource, installed_lore: InstalledLore
) -> None:
    expired = "billing--old-refund-flag--2026-01-01"
    text = note_text("Refunds go through the old flag", date="2026-01-01", expires="2026-06-01")
    bare, _ = vault_on_github(tmp_path, {expired: text})
    main = git(bare, "rev-parse", "main")
    fake, log = fake_lore_gh(tmp_path)
    runner = vault_runner(
        tmp_path,
        GitHubContext("schedule", {"schedule": "17 6 * * 1"}, "acme/team-vault", main),
        bare,
        lore_source,
        installed_lore,
        env={"FAKE_GH_LOG": str(log)},
        extra_path=[fake],
    )
    result = runner.run_job(VAULT_WORKFLOWS / "lore-garden.yml")
    assert result.conclusion == "success", result.log
    branch = f"lore/garden-{TODAY}"
    assert git(bare, "diff", "--name-status", "-M", "main", branch).splitlines() == [
        f"R100\tnotes/{expired}.md\tarchive/{expired}.md"
    ]
    (create,) = [call for call in gh_calls(log) if call[:2] == ["pr", "create"]]
    assert create[create.index("--head") + 1] == branch
    assert git(bare, "log", "-1", "--format=%an", branch) == "github-actions[bot]"


def test_drift_marks_the_notes_of_changed_files(
    tmp_path: Path, lore_source: LoreSource, installed_lore: InstalledLore
) -> None:
    note = "payments-api--ledger-writes-go-through-the-service--2026-10-10"
    text = note_text(
        "Ledger writes go through the service",
        date="2026-10-10",
        repo="payments-api",
        files_touched="[src/ledger.py]",
    )
    bare, _ = vault_on_github(tmp_path, {note: text})
    code = tmp_path / "payments-api"
    (code / "src").mkdir(parents=True)
    (code / "src" / "ledger.py").write_text("# writes\n", encoding="utf-8")
    git(code, "init", "-q", "-b", "main")
    git(code, "add", "-A")
    git(code, "commit", "-q", "-m", "Create")
    before = git(code, "rev-parse", "HEAD")
    (code / "src" / "ledger.py").write_text("# writes, batched\n", encoding="utf-8")
    git(code, "commit", "-q", "-am", "Batch the ledger writes")
    after = git(code, "rev-parse", "HEAD")
    fake, log = fake_lore_gh(tmp_path)
    runner = vault_runner(
        tmp_path,
        GitHubContext("push", {"before": before, "after": after}, "acme/payments-api", after),
        bare,
        lore_source,
        installed_lore,
        repositories={"acme/payments-api": code},
        secrets={"LORE_VAULT_TOKEN": "ghp_fake-vault-token"},
        env={"FAKE_GH_LOG": str(log)},
        extra_path=[fake],
    )
    result = runner.run_job(ROOT / "docs" / "workflows" / "lore-drift.yml")
    assert result.conclusion == "success", result.log
    branch = f"lore/drift-payments-api-{after[:8]}"
    assert git(bare, "diff", "--name-only", "main", branch) == f"notes/{note}.md"
    (create,) = [call for call in gh_calls(log) if call[:2] == ["pr", "create"]]
    assert create[create.index("--head") + 1] == branch


# ---- the runner fails what GitHub would fail ----


def test_a_step_calling_a_flag_that_does_not_exist_fails(
    tmp_path: Path, lore_source: LoreSource, installed_lore: InstalledLore
) -> None:
    workflow = tmp_path / "broken.yml"
    workflow.write_text(
        "on: push\njobs:\n  broken:\n    runs-on: ubuntu-latest\n    steps:\n"
        "      - uses: OWNER/gh-lore@" + "0" * 40 + "\n"
        "      - run: lore curate --no-such-flag\n"
        "      - run: echo never\n",
        encoding="utf-8",
    )
    bare, _ = vault_on_github(tmp_path)
    github = GitHubContext("push", {}, "acme/team-vault", git(bare, "rev-parse", "main"))
    result = vault_runner(tmp_path, github, bare, lore_source, installed_lore).run_job(workflow)
    assert result.conclusion == "failure"
    assert result.step("lore curate --no-such-flag").exit_code == 2
    assert result.step("echo never").outcome == "skipped"


def test_the_runner_refuses_what_it_cannot_stand_in_for(tmp_path: Path) -> None:
    runner = WorkflowRunner(
        tmp_path, GitHubContext("push", {}, "acme/x", "0" * 40), repositories={}
    )
    unknown_action = tmp_path / "unknown.yml"
    unknown_action.write_text(
        "on: push\njobs:\n  j:\n    runs-on: ubuntu-latest\n    steps:\n"
        "      - uses: someone/else@" + "1" * 40 + "\n",
        encoding="utf-8",
    )
    with pytest.raises(NotImplementedError, match="someone/else"):
        runner.run_job(unknown_action)
    typo = tmp_path / "typo.yml"
    typo.write_text(
        "on: push\njobs:\n  j:\n    runs-on: ubuntu-latest\n    steps:\n"
        "      - run: echo hi\n        env:\n          X: ${{ github.event.x || nosuch.y }}\n",
        encoding="utf-8",
    )
    with pytest.raises(ExpressionError, match="nosuch"):
        runner.run_job(typo)


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("steps.changes.outputs.curate == 'TRUE'", True),  # strings compare case-insensitively
        ("always() && steps.changes.outputs.curate == 'true'", True),
        ("github.event.missing.deeper", None),  # a missing property is null
        ("secrets.NOPE || github.token", "ghs_fake"),  # || returns an operand
        ("!github.event.flag", False),
        ("1 == '1' && null == 0 && true == 1", True),  # loose equality coerces to numbers
        ("contains(fromJSON('[\"a\",\"b\"]'), 'B') && startsWith('Refs/x', 'refs/')", True),
        ("format('{0}-{1}', 'a', 2)", "a-2"),
    ],
)
def test_expressions_follow_githubs_rules(expression: str, expected: object) -> None:
    """https://docs.github.com/en/actions/reference/workflows-and-actions/expressions"""
    context = {
        "steps": {"changes": {"outputs": {"curate": "true"}}},
        "github": {"event": {"flag": "yes"}, "token": "ghs_fake"},
        "secrets": {},
    }
    assert evaluate(expression, context) == expected


# Which test runs each workflow: a new workflow fails here until a test runs its steps.
RUNS = {
    ".github/workflows/set-up-lore.yml": test_the_action_installs_this_commit_offline_from_the_lock,
    "vault-template/.github/workflows/lore-curator.yml": test_the_curator_passes_a_good_note,
    "vault-template/.github/workflows/lore-comment.yml": test_the_comment_updates_only_its_own,
    "vault-template/.github/workflows/lore-garden.yml": test_the_gardener_proposes_its_cleanup,
    "docs/workflows/lore-drift.yml": test_drift_marks_the_notes_of_changed_files,
}


def test_every_workflow_is_run_by_a_test() -> None:
    found = {
        path.relative_to(ROOT).as_posix()
        for folder in (".github/workflows", "vault-template/.github/workflows", "docs/workflows")
        for path in (ROOT / folder).glob("*.y*ml")
    }
    assert found == set(RUNS)
