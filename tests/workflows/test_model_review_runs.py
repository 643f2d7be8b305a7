"""The github model review through the vault's trusted curator workflow, against a stand-in.

The trusted curator runs as in tests/workflows/test_trusted_curator.py
(`tests.workflow_runner` stands in for GitHub's runner, tests/workflows/fake_github.py
for its web API; git and the "GitHub" repositories are local and real). GitHub Models
cannot be reached from a test, so the stand-in server of tests/curator/test_github_models.py
plays it, with GitHub's documented request and error shapes (cited there). The vault's
lore.toml, at the base, turns the github provider on; the runner's own user config
(`$LORE_CONFIG`) points it at the stand-in in place of GitHub's public endpoint, which
a real runner needs no config for: lore sends a key to another endpoint only when the
user's config names it, never because a vault file does.

The curate job holds `permissions: models: read` and passes its own `GITHUB_TOKEN` (what
https://docs.github.com/en/github-models/use-github-models/prototyping-with-ai-models
documents for Actions) to the review step for the vault's own branches only, as it does
the secret: GitHub gives `pull_request_target` runs of a fork's pull request the
repository's token and secrets too
(https://docs.github.com/en/actions/writing-workflows/choosing-when-your-workflow-runs/events-that-trigger-workflows#pull_request_target),
and a stranger's pull request should not spend the team's model budget. Every run
passes: the model never fails the check.
"""

from __future__ import annotations

import json
from typing import Any

from lore.curator.review.pairs import ANSWER_SCHEMA
from tests.curator.test_github_models import GitHubModels, models
from tests.curator.test_semantic import KAFKA, NEW, VAULT_NOTES, new_note
from tests.workflow_runner import WorkflowRun
from tests.workflows.support import TrustedCurator, open_pull_request

__all__ = ["models"]  # the stand-in's fixture
WORKFLOW_TOKEN = "ghs_fake-token-for-tests"  # what the runner's github.token holds


def turn_on(trusted: TrustedCurator, **settings: Any) -> None:
    """Merge the notes the new one is judged against and lore.toml's model review; the
    stand-in's endpoint goes in the runner's user config."""
    endpoint = settings.pop("endpoint")
    config = trusted.tmp_path / "runner-config.toml"
    config.write_text(f"[curator.semantic]\nendpoint = {json.dumps(endpoint)}\n")
    trusted.env["LORE_CONFIG"] = str(config)
    lore_toml = (trusted.work / "lore.toml").read_text(encoding="utf-8")
    values = "".join(f"{key} = {json.dumps(value)}\n" for key, value in settings.items())
    trusted.merge(
        {
            **{f"notes/{name}.md": text for name, text in VAULT_NOTES.items()},
            "lore.toml": f"{lore_toml}\n[curator.semantic]\n{values}",
        }
    )


def run_curator(
    trusted: TrustedCurator,
    secrets: dict[str, str] | None = None,
    *,
    number: int = 7,
    fork: str | None = None,
) -> tuple[WorkflowRun, str]:
    """One pull request proposing the new note (from `fork`'s repository when given), the
    trusted run, and the comment its comment job posted."""
    pull = open_pull_request(trusted.work, {f"notes/{NEW}.md": new_note()}, number)
    if fork is not None:
        pull.event["pull_request"]["head"]["repo"] = {"full_name": fork}
    trusted.github.add_pull(pull.event)
    run = trusted.run(pull, secrets)
    assert run["curate"].conclusion == "success", run.log
    # The fake lists every pull request's comments as one issue's, so a second run updates
    # the first run's comment (the job edits its own comment): the last one is this run's.
    comments = trusted.github.load()["comments"]
    return run, str(comments[-1]["body"])


def test_a_token_in_the_secret_works(trusted: TrustedCurator, models: GitHubModels) -> None:
    """A PAT with models:read in the secret LORE_SEMANTIC_API_KEY, as before GitHub Models."""
    turn_on(trusted, enabled=True, provider="github", endpoint=models.endpoint(),
            api_key_env="LORE_SEMANTIC_API_KEY")  # fmt: skip
    pat = "github_pat_modelsReadOnly0123456789"
    run, comment = run_curator(trusted, {"LORE_SEMANTIC_API_KEY": pat})
    (request,) = models.requests  # one call for the one note
    assert request["headers"]["authorization"] == f"Bearer {pat}"
    assert request["body"]["response_format"]["json_schema"]["schema"] == ANSWER_SCHEMA
    assert "convention/semantic-duplicate" in comment and KAFKA in comment
    assert (
        "**Model review:** Model review (github openai/gpt-4.1-mini, advisory): judged 1 note"
        in (comment.replace("\\", ""))
    )
    assert "Model review (github openai/gpt-4.1-mini, advisory)" in run["curate"].summary
    assert pat not in comment + run["curate"].summary + run.log


def test_the_jobs_own_token_needs_no_secret_and_a_403_passes(
    trusted: TrustedCurator, models: GitHubModels
) -> None:
    turn_on(trusted, enabled=True, provider="github", endpoint=models.endpoint())
    _, comment = run_curator(trusted)
    (request,) = models.requests
    assert request["headers"]["authorization"] == f"Bearer {WORKFLOW_TOKEN}"
    assert "convention/semantic-duplicate" in comment

    # An organisation without GitHub Models: 403 with an empty body. The check passes.
    models.refusal = (403, {}, b"")
    refused, comment = run_curator(trusted, number=8)
    assert len(models.requests) == 2
    for shown in (comment.replace("\\", ""), refused["curate"].summary.replace("\\", "")):
        assert "Model review (github openai/gpt-4.1-mini) skipped: GitHub Models refused" in shown
        assert "models: read" in shown
    assert "semantic-duplicate" not in comment


def test_a_forks_pull_request_gets_no_token(trusted: TrustedCurator, models: GitHubModels) -> None:
    turn_on(trusted, enabled=True, provider="github", endpoint=models.endpoint())
    run, comment = run_curator(trusted, fork="mallory/vault")
    assert models.requests == []  # nothing was sent to the model
    for shown in (comment.replace("\\", ""), run["curate"].summary.replace("\\", "")):
        assert "Model review (github openai/gpt-4.1-mini) skipped: no token: $GITHUB_TOKEN" in (
            shown
        )
    assert WORKFLOW_TOKEN not in run.log
