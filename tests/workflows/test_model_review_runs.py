"""The github model review through the curator workflow's own steps, against a stand-in.

`tests.workflow_runner` runs vault-template/.github/workflows/lore-curator.yml on a
real local pull request (see test_runs.py); GitHub Models cannot be reached from a
test, so the stand-in server of tests/curator/test_github_models.py plays it, with
GitHub's documented request and error shapes (cited there). The vault's lore.toml, at
the base, points the github provider at the stand-in (plain http to 127.0.0.1 is
accepted only as an explicit endpoint).

Three runs: today's workflow with a token in the secret it already passes; the two
lines the trusted curator job must add for the workflow's own token (`permissions:
models: read` on the job, `GITHUB_TOKEN: ${{ github.token }}` in the curate step's
env), including GitHub's 403 for an organisation without GitHub Models; and today's
workflow without those lines, where the review is skipped and says why. Every run
passes: the model never fails the check.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from lore.curator.review.pairs import ANSWER_SCHEMA
from tests.curator.test_github_models import GitHubModels, models
from tests.curator.test_semantic import KAFKA, NEW, VAULT_NOTES, new_note
from tests.support import git
from tests.workflow_runner import JobResult
from tests.workflows.support import (
    VAULT_WORKFLOWS,
    InstalledLore,
    LoreSource,
    pull_request,
    vault_on_github,
    vault_runner,
)

__all__ = ["models"]  # the stand-in's fixture
WORKFLOW_TOKEN = "ghs_fake-token-for-tests"  # what the runner's github.token holds
STEP_ENV_ANCHOR = "          LORE_SEMANTIC_API_KEY: ${{ secrets.LORE_SEMANTIC_API_KEY }}\n"
JOB_PERMISSIONS = "    permissions:\n      contents: read\n"


def with_models_token(workflow: str) -> str:
    """The curator workflow with the two lines its trusted job needs for GitHub Models."""
    assert STEP_ENV_ANCHOR in workflow and JOB_PERMISSIONS in workflow
    workflow = workflow.replace(
        JOB_PERMISSIONS, "    permissions:\n      contents: read\n      models: read\n", 1
    )
    return workflow.replace(
        STEP_ENV_ANCHOR, "          GITHUB_TOKEN: ${{ github.token }}\n" + STEP_ENV_ANCHOR, 1
    )


def run_curator(
    tmp_path: Path,
    lore_source: LoreSource,
    installed_lore: InstalledLore,
    settings: dict[str, Any],
    *,
    workflow: Path = VAULT_WORKFLOWS / "lore-curator.yml",
    secrets: dict[str, str] | None = None,
) -> JobResult:
    tmp_path.mkdir(parents=True, exist_ok=True)
    bare, work = vault_on_github(tmp_path, VAULT_NOTES)
    lore_toml = work / "lore.toml"
    values = "".join(f"{key} = {json.dumps(value)}\n" for key, value in settings.items())
    lore_toml.write_text(
        lore_toml.read_text(encoding="utf-8") + f"\n[curator.semantic]\n{values}",
        encoding="utf-8",
    )
    git(work, "commit", "-q", "-am", "Turn the model review on")
    git(work, "push", "-q", "origin", "main")
    github = pull_request(work, {f"notes/{NEW}.md": new_note()})
    runner = vault_runner(tmp_path, github, bare, lore_source, installed_lore, secrets=secrets)
    return runner.run_job(workflow)


def comment_of(result: JobResult) -> str:
    return (result.artifacts / "lore-curator-report" / "comment.md").read_text(encoding="utf-8")


def test_todays_workflow_with_a_token_in_its_secret(
    tmp_path: Path, lore_source: LoreSource, installed_lore: InstalledLore, models: GitHubModels
) -> None:
    """A PAT with models:read in the secret the workflow already passes works unchanged."""
    settings = {"enabled": True, "provider": "github", "endpoint": models.endpoint(),
                "api_key_env": "LORE_SEMANTIC_API_KEY"}  # fmt: skip
    pat = "github_pat_modelsReadOnly0123456789"
    result = run_curator(
        tmp_path, lore_source, installed_lore, settings, secrets={"LORE_SEMANTIC_API_KEY": pat}
    )
    assert result.conclusion == "success", result.log
    (request,) = models.requests  # one call for the one note
    assert request["headers"]["authorization"] == f"Bearer {pat}"
    assert request["body"]["response_format"]["json_schema"]["schema"] == ANSWER_SCHEMA
    comment = comment_of(result)
    assert "convention/semantic-duplicate" in comment and KAFKA in comment
    assert (
        "**Model review:** Model review (github openai/gpt-4.1-mini, advisory): judged 1 note"
        in (comment)
    )
    assert "Model review (github openai/gpt-4.1-mini, advisory)" in result.summary
    assert pat not in comment + result.summary + result.log


def test_the_trusted_jobs_two_lines_give_the_workflow_token_and_a_403_passes(
    tmp_path: Path,
    lore_source: LoreSource,
    installed_lore: InstalledLore,
    models: GitHubModels,
) -> None:
    workflow = tmp_path / "lore-curator.yml"
    workflow.write_text(
        with_models_token((VAULT_WORKFLOWS / "lore-curator.yml").read_text(encoding="utf-8")),
        encoding="utf-8",
    )
    settings = {"enabled": True, "provider": "github", "endpoint": models.endpoint()}
    result = run_curator(tmp_path / "ok", lore_source, installed_lore, settings, workflow=workflow)
    assert result.conclusion == "success", result.log
    (request,) = models.requests
    assert request["headers"]["authorization"] == f"Bearer {WORKFLOW_TOKEN}"
    assert "convention/semantic-duplicate" in comment_of(result)

    # An organisation without GitHub Models: 403 with an empty body. The check passes.
    models.refusal = (403, {}, b"")
    refused = run_curator(
        tmp_path / "refused", lore_source, installed_lore, settings, workflow=workflow
    )
    assert refused.conclusion == "success", refused.log
    assert len(models.requests) == 2
    for shown in (comment_of(refused), refused.summary):
        assert "Model review (github openai/gpt-4.1-mini) skipped: GitHub Models refused" in shown
        assert "models: read" in shown
    assert "semantic-duplicate" not in comment_of(refused)


def test_todays_workflow_without_the_token_says_the_review_was_skipped(
    tmp_path: Path, lore_source: LoreSource, installed_lore: InstalledLore, models: GitHubModels
) -> None:
    settings = {"enabled": True, "provider": "github", "endpoint": models.endpoint()}
    result = run_curator(tmp_path, lore_source, installed_lore, settings)
    assert result.conclusion == "success", result.log
    assert models.requests == []
    for shown in (comment_of(result), result.summary):
        assert (
            "Model review (github openai/gpt-4.1-mini) skipped: no token: $GITHUB\\_TOKEN is "
            "not set"
        ) in shown
