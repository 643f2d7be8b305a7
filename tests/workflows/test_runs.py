"""The workflows' own steps, run against real local pull requests, pushes and schedules.

Each workflow under `.github/workflows/`, `vault-template/.github/workflows/` and
`docs/workflows/` is run by `tests.workflow_runner` (GitHub's runner stands in: see its
docstring), so a step that calls a command, flag or package that does not exist fails
here. Git is real; the "GitHub" repositories are local ones; the one thing faked is
GitHub's web API (`gh`), which cannot be reached from a test. How lore gets installed
in these runs: tests/workflows/conftest.py. The comment workflow: test_comment.py.
"""

from __future__ import annotations

import importlib
import json
import shutil
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from lore import __version__
from tests.support import git, note_text
from tests.workflow_expressions import ExpressionError, evaluate
from tests.workflow_runner import GitHubContext, JobResult, WorkflowRunner
from tests.workflows.fake_github import FakeGitHub
from tests.workflows.support import (
    GOOD_NOTE,
    NO_WHEELHOUSE,
    OFFLINE_PIP,
    ROOT,
    TODAY,
    VAULT_WORKFLOWS,
    WHEELHOUSE,
    InstalledLore,
    LoreSource,
    fake_lore_gh,
    gh_calls,
    vault_on_github,
    vault_runner,
)

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


def test_the_curator_passes_a_good_note(curate_run: Callable[[dict[str, str]], JobResult]) -> None:
    result = curate_run({f"notes/{GOOD_NOTE}.md": note_text()})
    assert result.job == "curate"  # the check branch protection requires
    assert result.conclusion == "success", result.log
    assert result.step("Set up lore").outcome == "success"
    curate = result.step("Curate the pull request (read as data; nothing of it runs)")
    assert curate.outcome == "success"
    report = json.loads((result.artifacts / "lore-findings" / "findings.json").read_text())
    assert report["kind"] == "lore-curator-report" and report["findings"] == []
    assert [preview["path"] for preview in report["previews"]] == [f"notes/{GOOD_NOTE}.md"]
    assert "lore curator: no problems in 1 file." in result.summary  # the job summary


def test_the_curator_fails_a_bad_note_and_still_keeps_the_findings(
    curate_run: Callable[[dict[str, str]], JobResult],
) -> None:
    bad = note_text(tags="[service/billing, tool/no-such-tool]")
    result = curate_run({f"notes/{GOOD_NOTE}.md": bad})
    assert result.conclusion == "failure"
    curate = result.step("Curate the pull request (read as data; nothing of it runs)")
    assert curate.outcome == "failure" and curate.exit_code == 1
    assert "::error" in curate.output and "taxonomy/unknown-tag" in curate.output
    report = json.loads((result.artifacts / "lore-findings" / "findings.json").read_text())
    assert report["summary"]["errors"] == 1


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


def test_jobs_run_in_the_order_of_needs_with_the_permissions_they_name(tmp_path: Path) -> None:
    """A job whose need failed is skipped unless its `if:` says otherwise (`!cancelled()`),
    outputs pass through `needs`, and the fake API refuses a write the job's token may not
    make (https://docs.github.com/en/actions/reference/workflows-and-actions/workflow-syntax#jobsjob_idneeds)."""
    workflow = tmp_path / "needs.yml"
    workflow.write_text(
        "on: pull_request_target\npermissions: {}\njobs:\n"
        "  first:\n    runs-on: ubuntu-latest\n    permissions:\n      pull-requests: read\n"
        "    outputs:\n      said: ${{ steps.say.outputs.said }}\n    steps:\n"
        '      - id: say\n        run: echo said=hello >> "$GITHUB_OUTPUT"\n'
        "      - run: gh api --method POST repos/acme/x/issues/1/comments --input /dev/null\n"
        "  skipped:\n    needs: first\n    runs-on: ubuntu-latest\n    steps:\n"
        "      - run: echo never\n"
        "  after:\n    needs: first\n    if: ${{ !cancelled() }}\n    runs-on: ubuntu-latest\n"
        "    steps:\n      - env:\n          SAID: ${{ needs.first.outputs.said }}\n"
        "          RESULT: ${{ needs.first.result }}\n"
        '        run: test "$SAID/$RESULT" = hello/failure\n',
        encoding="utf-8",
    )
    github = FakeGitHub(tmp_path, "acme/x")
    runner = WorkflowRunner(
        tmp_path / "run",
        GitHubContext.pull_request_target({"number": 1}, "acme/x", "0" * 40),
        repositories={},
        env=github.env,
        extra_path=[github.bin],
    )
    run = runner.run_workflow(workflow)
    assert run["first"].conclusion == "failure"
    assert "Resource not accessible by integration (HTTP 403)" in run["first"].log
    assert run["skipped"].conclusion == "skipped"
    assert run["after"].conclusion == "success", run.log


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
        ("contains(github.event.labels.*.name, 'B')", True),  # an object filter
        ("join(github.event.labels.*.name, '+')", "a+b"),
    ],
)
def test_expressions_follow_githubs_rules(expression: str, expected: object) -> None:
    """https://docs.github.com/en/actions/reference/workflows-and-actions/expressions"""
    context = {
        "steps": {"changes": {"outputs": {"curate": "true"}}},
        "github": {
            "event": {"flag": "yes", "labels": [{"name": "a"}, {"name": "b"}]},
            "token": "ghs_fake",
        },
        "secrets": {},
    }
    assert evaluate(expression, context) == expected


# Which test runs each workflow: a new workflow fails here until a test runs its steps.
RUNS = {
    ".github/workflows/set-up-lore.yml": "test_runs::test_the_action_installs_this_commit_offline_from_the_lock",
    "vault-template/.github/workflows/lore-curator.yml": "test_trusted_curator::test_a_pull_request_that_edits_the_workflow_is_checked_by_the_bases_definition",
    "vault-template/.github/workflows/lore-garden.yml": "test_runs::test_the_gardener_proposes_its_cleanup",
    "docs/workflows/lore-drift.yml": "test_runs::test_drift_marks_the_notes_of_changed_files",
    "vault-template/.github/workflows/lore-site.yml": "test_site::test_a_public_vault_is_built_from_the_merge_and_deployed",
}


def test_every_workflow_is_run_by_a_test() -> None:
    found = {
        path.relative_to(ROOT).as_posix()
        for folder in (".github/workflows", "vault-template/.github/workflows", "docs/workflows")
        for path in (ROOT / folder).glob("*.y*ml")
    }
    assert found == set(RUNS)
    for test in RUNS.values():
        module, name = test.split("::")
        assert callable(getattr(importlib.import_module(f"tests.workflows.{module}"), name, None))
