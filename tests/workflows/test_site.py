"""The vault template's site workflow (lore-site.yml): off until turned on; refuses a vault
that is not public unless the reviewed lore.toml says so; builds and deploys otherwise.

GitHub Actions and Pages cannot run here; each test says which documented behaviour its
stand-in takes the place of:

- `vars.LORE_SITE_PUBLISH` is a repository variable, an Actions configuration variable a
  maintainer sets in the repository's settings; until one is set the `vars` context has
  no such key and the expression is false, so both jobs are skipped ("Store information
  in variables", docs.github.com/en/actions/how-tos/write-workflows/choose-what-workflows-do/use-variables).
- `github.event.repository.visibility` is the `visibility` of the repository object in
  the `push` event's payload: `public`, `private` or `internal` ("Webhook events and
  payloads", the repository object).
- A Pages site is public on every plan unless an organisation on GitHub Enterprise Cloud
  publishes it privately, to people with read access to the repository ("Changing the
  visibility of your GitHub Pages site"; "About GitHub Pages" for the plans): so a
  private or internal repository's vault must be refused by default.
- `actions/upload-pages-artifact` and `actions/deploy-pages` are replaced by what their
  READMEs document (tests/workflow_runner.py): a tar of the folder, and a deployment that
  needs `pages: write` and `id-token: write` on the deploying job.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from tests.support import git, note_text
from tests.workflow_runner import GitHubContext, WorkflowRun
from tests.workflows.support import (
    VAULT_REPO,
    VAULT_WORKFLOWS,
    InstalledLore,
    LoreSource,
    vault_on_github,
    vault_runner,
)

SITE = VAULT_WORKFLOWS / "lore-site.yml"
NOTE = "billing--refunds-go-through-the-ledger--2026-10-01"
BUILD_STEP = "Build the site (refused for a repository that is not public, unless allowed)"


def _push_event(bare: Path, visibility: str) -> GitHubContext:
    main = git(bare, "rev-parse", "main")
    owner, name = VAULT_REPO.split("/")
    event = {
        "ref": "refs/heads/main",
        "after": main,
        "repository": {
            "name": name,
            "full_name": VAULT_REPO,
            "owner": {"login": owner},
            "private": visibility != "public",
            "visibility": visibility,
            "default_branch": "main",
        },
    }
    return GitHubContext("push", event, VAULT_REPO, main)


def _run(
    tmp_path: Path,
    source: LoreSource,
    installed: InstalledLore,
    *,
    visibility: str,
    variables: dict[str, str],
    lore_toml: str | None = None,
) -> tuple[WorkflowRun, Path]:
    tmp_path.mkdir(parents=True, exist_ok=True)
    bare, work = vault_on_github(tmp_path, {NOTE: note_text("Refunds go through the ledger")})
    if lore_toml is not None:
        (work / "lore.toml").write_text(lore_toml, encoding="utf-8")
        git(work, "commit", "-q", "-am", "Publish the site although the repository is private")
        git(work, "push", "-q", "origin", "main")
    runner = vault_runner(
        tmp_path, _push_event(bare, visibility), bare, source, installed, variables=variables
    )
    return runner.run_workflow(SITE), runner.pages


def test_the_site_workflow_is_off_until_a_maintainer_turns_it_on(
    tmp_path: Path, lore_source: LoreSource, installed_lore: InstalledLore
) -> None:
    run, pages = _run(tmp_path, lore_source, installed_lore, visibility="public", variables={})
    assert run["build"].conclusion == "skipped" and run["deploy"].conclusion == "skipped"
    assert not pages.exists()


def test_a_public_vault_is_built_from_the_merge_and_deployed(
    tmp_path: Path, lore_source: LoreSource, installed_lore: InstalledLore
) -> None:
    variables = {"LORE_SITE_PUBLISH": "true"}
    run, pages = _run(
        tmp_path, lore_source, installed_lore, visibility="public", variables=variables
    )
    assert run["build"].conclusion == "success", run["build"].log
    assert run["deploy"].conclusion == "success", run["deploy"].log
    assert (pages / "index.html").is_file() and (pages / "notes" / f"{NOTE}.html").is_file()
    assert not (pages / ".lore-site").exists()  # hidden files stay out of the artifact
    page = (pages / "notes" / f"{NOTE}.html").read_text(encoding="utf-8")
    assert "https://github.com/acme/team-vault/blob/" in page  # the vault's own remote
    assert "origin/main" in (pages / "index.html").read_text(encoding="utf-8")


def test_a_private_vault_is_refused_unless_the_reviewed_lore_toml_allows_it(
    tmp_path: Path, lore_source: LoreSource, installed_lore: InstalledLore
) -> None:
    variables = {"LORE_SITE_PUBLISH": "true"}
    run, pages = _run(
        tmp_path / "refused", lore_source, installed_lore, visibility="private",
        variables=variables,
    )  # fmt: skip
    assert run["build"].conclusion == "failure"
    step = run["build"].step(BUILD_STEP)
    assert (
        step.exit_code == 2 and "Not publishing: the vault's repository is private" in step.output
    )
    assert run["deploy"].conclusion == "skipped" and not pages.exists()
    run, pages = _run(
        tmp_path / "allowed", lore_source, installed_lore, visibility="internal",
        variables=variables, lore_toml="[site]\npublish_private = true\n",
    )  # fmt: skip
    assert run["deploy"].conclusion == "success", run["build"].log
    assert (pages / "index.html").is_file()


def test_the_site_workflow_grants_each_job_only_what_it_needs() -> None:
    """Least privilege: the build reads the repository and nothing else; only the deploy
    job may write to Pages, with the OIDC token deploy-pages documents it needs."""
    workflow = yaml.safe_load(SITE.read_text(encoding="utf-8"))
    assert workflow["permissions"] == {}
    build, deploy = workflow["jobs"]["build"], workflow["jobs"]["deploy"]
    assert build["permissions"] == {"contents": "read"}
    assert deploy["permissions"] == {"pages": "write", "id-token": "write"}
    assert deploy["needs"] == "build" and deploy["environment"]["name"] == "github-pages"
    assert "steps" in deploy and all("run" not in step for step in deploy["steps"])
    assert build["if"] == "vars.LORE_SITE_PUBLISH == 'true'"
    assert workflow[True]["push"] == {"branches": ["main"]}  # YAML 1.1 reads `on` as true
    for step in build["steps"]:
        assert "${{" not in step.get("run", ""), step["name"]
