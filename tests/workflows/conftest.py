"""Fixtures for the workflow runs: this repository as GitHub serves it, lore installed by
its action, and a curator run on a pull request to a vault on a local "GitHub".

lore's action installs lore for real from a copy of this repository: its locked
dependencies come from the wheelhouse `.ci/run` downloads (`pip download
--require-hashes`), with pip kept off every index. That install runs once a session, in
gh-lore's own workflow `set-up-lore.yml`; later runs reuse the environment it made (the
action's install step then only puts it on PATH), which keeps the workflow tests to a
few tens of seconds. Without the wheelhouse those runs use the test's own lore, and the
tests of the install itself skip, saying why.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support import git
from tests.workflow_runner import GitHubContext, JobResult, WorkflowRunner
from tests.workflows.support import (
    OFFLINE_PIP,
    ROOT,
    TODAY,
    WHEELHOUSE,
    InstalledLore,
    LoreSource,
    TrustedCurator,
)


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


# ---- a vault on "GitHub", and its pull requests ----


@pytest.fixture
def trusted(
    tmp_path: Path, lore_source: LoreSource, installed_lore: InstalledLore
) -> TrustedCurator:
    """A vault on "GitHub" whose pull requests run the trusted curator (tests/workflows/support.py)."""
    return TrustedCurator(tmp_path, lore_source, installed_lore)


@pytest.fixture
def curate_run(trusted: TrustedCurator) -> Callable[[dict[str, str]], JobResult]:
    """The `curate` job (the required check) of a pull request that writes `files`."""

    def run(files: dict[str, str]) -> JobResult:
        return trusted.run(trusted.open(dict(files)))["curate"]

    return run
