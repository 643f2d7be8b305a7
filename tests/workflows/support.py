"""Helpers for the workflow runs: this repository as GitHub serves it, and vaults with
pull requests, pushes and schedules on a "GitHub" made of local repositories.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from lore.vault.seed import seed_files, write_files
from tests.support import git
from tests.team.conftest import FAKE_GH, PR_URL
from tests.workflow_runner import GitHubContext, JobResult, WorkflowRun, WorkflowRunner
from tests.workflows.fake_github import FakeGitHub

ROOT = Path(__file__).resolve().parents[2]
WHEELHOUSE = ROOT / ".ci" / "wheelhouse"
VAULT_WORKFLOWS = ROOT / "vault-template" / ".github" / "workflows"
TODAY = "2026-11-02"
GOOD_NOTE = "billing--integration-tests-use-httpx--2026-11-02"
VAULT_REPO = "acme/team-vault"
CURATOR = ".github/workflows/lore-curator.yml"
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


@dataclass
class LoreSource:
    """This repository as GitHub would serve it: a git repository, and the action's files."""

    repo: Path  # a git repository of the working tree's files, one commit
    action: Path  # the same files without .git, as the runner downloads an action


@dataclass
class InstalledLore:
    step_scripts: dict[str, str]  # the action's install step, for every later run
    setup_run: JobResult | None  # the real install, when the wheelhouse is there


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


@dataclass
class PullRequest:
    """A pull request on the local "GitHub": its refs are pushed, `event` is GitHub's payload."""

    number: int
    base: str  # the base branch's tip when it was opened
    head: str
    merge: str  # GitHub's test merge commit (refs/pull/N/merge)
    branch: str
    event: dict[str, Any]

    def trusted(self) -> GitHubContext:
        """The run GitHub starts for `pull_request_target`: the base's tip and branch."""
        return GitHubContext.pull_request_target(self.event, VAULT_REPO, self.base)

    def untrusted(self) -> GitHubContext:
        """The run GitHub starts for `pull_request`: the merge commit, the PR's own files."""
        return GitHubContext(
            "pull_request", self.event, VAULT_REPO, self.merge, f"refs/pull/{self.number}/merge"
        )

    def labeled(self, label: str, sender: str) -> PullRequest:
        """The same pull request, as the `labeled` event GitHub sends when `sender` adds it."""
        event = json.loads(json.dumps(self.event))
        event.update(action="labeled", label={"name": label}, sender={"login": sender})
        names = [item["name"] for item in event["pull_request"]["labels"]]
        if label not in names:
            event["pull_request"]["labels"].append({"name": label})
        return replace(self, event=event)


def open_pull_request(
    work: Path,
    files: dict[str, str | None],
    number: int = 7,
    *,
    action: str = "opened",
    labels: tuple[str, ...] = (),
    sender: str = "mallory",
) -> PullRequest:
    """Push a branch that writes `files` (None deletes one), GitHub's refs/pull/N/head and
    refs/pull/N/merge for it; the event is the payload GitHub sends
    (https://docs.github.com/en/webhooks/webhook-events-and-payloads#pull_request)."""
    branch = f"lore/proposal-{number}"
    git(work, "checkout", "-q", "-B", branch, "main")
    for name, text in files.items():
        if text is None:
            (work / name).unlink()
            continue
        (work / name).parent.mkdir(parents=True, exist_ok=True)
        (work / name).write_text(text, encoding="utf-8")
    git(work, "add", "-A")
    git(work, "commit", "-q", "-m", "Propose a change")
    git(work, "push", "-q", "-f", "origin", branch)
    git(work, "checkout", "-q", "main")
    return pull_request_of(work, branch, number, action=action, labels=labels, sender=sender)


def pull_request_of(
    work: Path,
    branch: str,
    number: int,
    *,
    action: str = "opened",
    labels: tuple[str, ...] = (),
    sender: str = "mallory",
) -> PullRequest:
    """The pull request GitHub opens for `branch` (already on the remote, as `lore remember`
    or `lore import` push it): GitHub's refs/pull/N/head and refs/pull/N/merge, and the
    event (https://docs.github.com/en/webhooks/webhook-events-and-payloads#pull_request)."""
    git(work, "fetch", "-q", "origin")
    base = git(work, "rev-parse", "origin/main")
    head = git(work, "rev-parse", f"origin/{branch}")
    git(work, "checkout", "-q", "--detach", base)
    git(work, "merge", "-q", "--no-ff", "-m", f"Merge {head} into {base}", head)
    merge = git(work, "rev-parse", "HEAD")
    git(work, "push", "-q", "-f", "origin",
        f"{head}:refs/pull/{number}/head", f"{merge}:refs/pull/{number}/merge")  # fmt: skip
    git(work, "checkout", "-q", "main")
    repo = {"full_name": VAULT_REPO}
    event = {
        "action": action,
        "number": number,
        "pull_request": {
            "number": number,
            "state": "open",
            "base": {"sha": base, "ref": "main", "repo": repo},
            "head": {"sha": head, "ref": branch, "repo": repo},
            "labels": [{"name": label} for label in labels],
        },
        "sender": {"login": sender},
        "repository": repo,
    }
    return PullRequest(number, base, head, merge, branch, event)


def pull_request(work: Path, files: dict[str, str], number: int = 7) -> GitHubContext:
    """A pull request's `pull_request_target` run (see `open_pull_request`)."""
    return open_pull_request(work, dict(files), number).trusted()


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
        repositories={VAULT_REPO: bare, **options.pop("repositories", {})},  # type: ignore[dict-item]
        actions={"OWNER/gh-lore": lore_source.action},
        step_scripts=installed.step_scripts,
        env={"LORE_TODAY": TODAY, **options.pop("env", {})},  # type: ignore[dict-item]
        **options,  # type: ignore[arg-type]
    )


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


class TrustedCurator:
    """The vault's trusted curator workflow on "GitHub": a vault, its pull requests, and
    runs of the workflow file GitHub would run for them, against the fake API."""

    def __init__(self, tmp_path: Path, lore_source: LoreSource, installed: InstalledLore) -> None:
        self.tmp_path = tmp_path
        self.lore_source, self.installed = lore_source, installed
        self.bare, self.work = vault_on_github(tmp_path)
        self.github = FakeGitHub(tmp_path, VAULT_REPO)
        self.runs = 0
        self.env: dict[str, str] = {}  # more variables for every step (the runner's own)

    def open(self, files: dict[str, str | None], number: int = 7, **options: Any) -> PullRequest:
        pull = open_pull_request(self.work, files, number, **options)
        self.github.add_pull(pull.event)
        return pull

    def runner(
        self, context: GitHubContext, secrets: dict[str, str] | None = None
    ) -> WorkflowRunner:
        self.runs += 1
        return vault_runner(
            self.tmp_path / f"run-{self.runs}",
            context,
            self.bare,
            self.lore_source,
            self.installed,
            env={**self.github.env, **self.env},
            extra_path=[self.github.bin],
            secrets=secrets,
        )

    def run(self, pull: PullRequest, secrets: dict[str, str] | None = None) -> WorkflowRun:
        """The `pull_request_target` run: the base's definition of the workflow, all jobs
        (`secrets`: the repository's secrets, which GitHub gives this trigger's jobs)."""
        runner = self.runner(pull.trusted(), secrets)
        return runner.run_workflow(runner.definition(CURATOR))

    def findings(self, run: WorkflowRun) -> dict[str, Any]:
        report = run["curate"].artifacts / "lore-findings" / "findings.json"
        found: dict[str, Any] = json.loads(report.read_text(encoding="utf-8"))
        return found

    def merge(self, files: dict[str, str]) -> str:
        """Commit `files` to main on "GitHub", as a merged pull request would."""
        git(self.work, "checkout", "-q", "main")
        for name, text in files.items():
            (self.work / name).parent.mkdir(parents=True, exist_ok=True)
            (self.work / name).write_text(text, encoding="utf-8")
        git(self.work, "add", "-A")
        git(self.work, "commit", "-q", "-m", "Merge a pull request")
        git(self.work, "push", "-q", "origin", "main")
        return git(self.work, "rev-parse", "HEAD")
