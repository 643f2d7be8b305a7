"""Helpers for the workflow runs: this repository as GitHub serves it, and vaults with
pull requests, pushes and schedules on a "GitHub" made of local repositories.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path

from lore.vault.seed import seed_files, write_files
from tests.support import git
from tests.team.conftest import FAKE_GH, PR_URL
from tests.workflow_runner import GitHubContext, JobResult, WorkflowRunner

ROOT = Path(__file__).resolve().parents[2]
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
