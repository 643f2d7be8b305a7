"""An import batch proposed through a local bare remote, then checked by the vault's curator
workflow, its steps run by tests/workflow_runner.py (GitHub's runner stands in).

`lore import adr` pushes its branch to the vault's remote — a bare repository in
`tmp_path`, reached by its path, so no pull request API is involved and lore says the
branch was pushed; the test then makes the merge ref GitHub makes for a pull request
(`refs/pull/N/merge`, https://docs.github.com/en/rest/pulls/pulls: "the merge commit
… `refs/pull/:number/merge`") and runs the curator workflow of the vault's own template
on it, as tests/workflows/test_runs.py does for a hand-made pull request.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from lore.cli.main import main
from tests.support import GIT_IDENTITY, git
from tests.workflow_runner import GitHubContext
from tests.workflows.support import (
    TODAY,
    VAULT_WORKFLOWS,
    InstalledLore,
    LoreSource,
    vault_on_github,
    vault_runner,
)

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "import"


def merge_ref(work: Path, branch: str, number: int) -> GitHubContext:
    """GitHub's merge ref for a pull request from `branch`, and the event it sends."""
    git(work, "fetch", "-q", "origin")
    base = git(work, "rev-parse", "origin/main")
    head = git(work, "rev-parse", f"origin/{branch}")
    git(work, "checkout", "-q", "--detach", base)
    git(work, "merge", "-q", "--no-ff", "-m", f"Merge {head} into {base}", head)
    merge = git(work, "rev-parse", "HEAD")
    git(work, "push", "-q", "origin", f"HEAD:refs/pull/{number}/merge")
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


def test_an_imported_batch_passes_the_curator_workflow(
    tmp_path: Path,
    lore_source: LoreSource,
    installed_lore: InstalledLore,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    for key, value in GIT_IDENTITY.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("LORE_TODAY", TODAY)
    bare, work = vault_on_github(tmp_path)
    checkout = tmp_path / "checkout"
    git(tmp_path, "clone", "-q", str(bare), str(checkout))
    code_repo = tmp_path / "ledger-service"
    shutil.copytree(FIXTURES / "adr" / "nygard", code_repo)
    git(code_repo, "init", "-q", "-b", "main")
    git(code_repo, "remote", "add", "origin", "https://github.com/acme/ledger-service.git")
    git(code_repo, "add", "-A")
    git(code_repo, "commit", "-q", "-m", "ADRs")
    code = main(
        ["import", "adr", str(code_repo / "doc" / "adr"), "--vault", str(checkout),
         "--yes", "--json", "--tag", "team/payments"]
    )  # fmt: skip
    result = json.loads(capsys.readouterr().out)
    assert code == 0, result
    [proposal] = result["proposals"]
    assert proposal["status"] == "pushed"  # a remote that is not on GitHub
    branch = proposal["branch"]
    changed = git(bare, "diff", "--name-only", f"main...{branch}").split()
    assert "_taxonomy.md" in changed and len(changed) == len(result["notes"]) + 1

    github = merge_ref(work, branch, number=12)
    run = vault_runner(tmp_path, github, bare, lore_source, installed_lore)
    job = run.run_job(VAULT_WORKFLOWS / "lore-curator.yml")
    assert job.conclusion == "success", job.log
    assert job.step("changes").outputs == {"curate": "true"}
    curate = job.step("Curate the notes this pull request adds or changes")
    assert curate.outcome == "success", job.log
    report = (job.artifacts / "lore-curator-report" / "comment.md").read_text(encoding="utf-8")
    for note in result["notes"]:
        assert note["id"] in report
    # The repository is new to the taxonomy: the curator read it from the pull request's head.
    assert "unknown-repo" not in report
