"""An import batch proposed through a local bare remote, then checked by the vault's trusted
curator workflow, its jobs run by tests/workflow_runner.py (GitHub's runner stands in).

`lore import adr` pushes its branch to the vault's remote — a bare repository in
`tmp_path`, reached by its path, so no pull request API is involved and lore says the
branch was pushed; the test then makes the refs GitHub makes for a pull request
(`refs/pull/N/head` and `refs/pull/N/merge`, https://docs.github.com/en/rest/pulls/pulls)
and runs the `pull_request_target` run of the vault's own template on it, against the
stand-in API of tests/workflows/fake_github.py, as tests/workflows/test_trusted_curator.py
does for a hand-made pull request.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from lore.cli.main import main
from tests.support import GIT_IDENTITY, git
from tests.workflows.support import TODAY, TrustedCurator, pull_request_of

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "import"


def test_an_imported_batch_passes_the_curator_workflow(
    tmp_path: Path,
    trusted: TrustedCurator,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    for key, value in GIT_IDENTITY.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("LORE_TODAY", TODAY)
    checkout = tmp_path / "checkout"
    git(tmp_path, "clone", "-q", str(trusted.bare), str(checkout))
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
    changed = git(trusted.bare, "diff", "--name-only", f"main...{branch}").split()
    assert "_taxonomy.md" in changed and len(changed) == len(result["notes"]) + 1

    pull = pull_request_of(trusted.work, branch, number=12)
    trusted.github.add_pull(pull.event)
    run = trusted.run(pull)
    assert run["curate"].conclusion == "success", run.log
    assert run["comment"].conclusion == "success", run.log
    found = trusted.findings(run)
    assert not [item for item in found["findings"] if item["severity"] == "error"], found
    (comment,) = trusted.github.load()["comments"]
    for note in result["notes"]:
        assert note["id"] in comment["body"]
    # The repository is new to the taxonomy: the curator read it from the pull request's head.
    assert "unknown-repo" not in comment["body"]
