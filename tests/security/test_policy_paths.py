"""The `policy/` rules: a pull request cannot change what reviews it, nor commit `.lore`.

Each test opens a real pull-request branch in a real vault and reviews it as the
trusted workflow does (`lore curate --base --head`). On main before this work, every
one of these pull requests got "no problems": nothing looked at paths outside notes/.
"""

from __future__ import annotations

import pytest

from tests.security.curator_pr import by_rule, curate_json, lore, open_pull_request, review
from tests.support import Vault, git

WEAKENED_WORKFLOW = """\
name: lore curator
on: pull_request
jobs:
  curate:
    name: curate
    runs-on: ubuntu-latest
    steps:
      - run: lore curate --base origin/main --head HEAD || true
"""


def test_a_pull_request_that_weakens_its_workflow_and_codeowners_fails(vault: Vault) -> None:
    open_pull_request(
        vault,
        {".github/workflows/lore-curator.yml": WEAKENED_WORKFLOW, "CODEOWNERS": "* @attacker\n"},
    )
    code, findings = curate_json(vault)
    assert code == 1
    errors = by_rule(f for f in findings if f["severity"] == "error")
    assert sorted(f["path"] for f in errors["policy/protected-path"]) == [
        ".github/workflows/lore-curator.yml",
        "CODEOWNERS",
    ]
    messages = " ".join(f["message"] for f in errors["policy/protected-path"])
    assert "a workflow" in messages and "CODEOWNERS" in messages


@pytest.mark.parametrize(
    "path",
    [
        ".github/CODEOWNERS",
        "docs/CODEOWNERS",
        ".github/dependabot.yml",
        ".gitattributes",
        "notes/.gitattributes",  # `linguist-generated` would fold the notes' diffs away
        ".gitmodules",
        ".GitHub/workflows/x.yml",  # a case-insensitive checkout writes .github/
    ],
)
def test_every_protected_path_is_an_error(vault: Vault, path: str) -> None:
    open_pull_request(vault, {path: "* @attacker\n"})
    result = review(vault)
    assert [f.path for f in result.findings if f.rule == "policy/protected-path"] == [path]
    assert result.exit_code == 1


def test_deleting_codeowners_is_a_change_to_the_review(vault: Vault) -> None:
    (vault.root / ".github").mkdir(exist_ok=True)
    (vault.root / ".github" / "CODEOWNERS").write_text("* @acme/maintainers\n")
    vault.commit("code owners")
    git(vault.root, "checkout", "-q", "-b", "pr")
    git(vault.root, "rm", "-q", ".github/CODEOWNERS")
    git(vault.root, "commit", "-q", "-m", "drop the owners")
    result = review(vault)
    (finding,) = [f for f in result.findings if f.rule == "policy/protected-path"]
    assert "deletes CODEOWNERS" in finding.message and finding.is_error


@pytest.mark.parametrize(
    ("files", "name"),
    [
        ({".lore/index.db": b"SQLite format 3\x00forged rows"}, ".lore"),
        ({".lore": "a file where the folder belongs\n"}, ".lore"),
        ({".LORE/index.db": b"forged"}, ".LORE"),  # the same folder on macOS and Windows
    ],
)
def test_a_committed_lore_folder_is_an_error(
    vault: Vault, files: dict[str, str | bytes], name: str
) -> None:
    open_pull_request(vault, files)
    code, findings = curate_json(vault)
    assert code == 1
    (finding,) = by_rule(findings)["policy/lore-folder"]
    assert finding["severity"] == "error" and finding["path"] == name


def test_a_lore_symlink_is_an_error(vault: Vault) -> None:
    git(vault.root, "checkout", "-q", "-b", "pr")
    (vault.root / ".lore").symlink_to("/tmp")
    git(vault.root, "add", "-f", ".lore")
    git(vault.root, "commit", "-q", "-m", "a link out of the vault")
    (finding,) = [f for f in review(vault).findings if f.rule == "policy/lore-folder"]
    assert "symbolic link" in finding.message and finding.is_error


def test_a_lore_folder_already_on_main_fails_every_pull_request_until_removed(
    vault: Vault,
) -> None:
    (vault.root / ".lore").mkdir(exist_ok=True)
    (vault.root / ".lore" / "index.db").write_bytes(b"forged")
    git(vault.root, "add", "-f", ".lore/index.db")
    vault.commit("slipped in before the rule existed")
    open_pull_request(vault, {"notes/x.txt": "unrelated\n"})
    assert "policy/lore-folder" in by_rule(review(vault).findings)
    git(vault.root, "checkout", "-q", "-b", "cleanup", "main")
    git(vault.root, "rm", "-q", "-r", "--cached", ".lore")
    git(vault.root, "commit", "-q", "-m", "remove the committed state")
    assert "policy/lore-folder" not in by_rule(review(vault, head="cleanup").findings)


@pytest.mark.parametrize("path", ["_taxonomy.md", "_conventions.md", "lore.toml", "README.md"])
def test_a_change_to_the_vault_policy_is_a_warning(vault: Vault, path: str) -> None:
    text = (vault.root / path).read_text(encoding="utf-8")
    open_pull_request(vault, {path: text + "\n"})
    result = review(vault)
    (finding,) = [f for f in result.findings if f.rule == "policy/policy-file"]
    assert finding.severity == "warning" and finding.path == path
    assert "the PR changes the vault's policy; review it on its own" in finding.message
    assert result.exit_code == 0


def test_an_approval_clears_the_errors_and_names_who_gave_it(vault: Vault) -> None:
    open_pull_request(
        vault,
        {".github/workflows/lore-curator.yml": WEAKENED_WORKFLOW, ".lore/index.db": b"x"},
    )
    code, findings = curate_json(vault, "--policy-approved-by", "octo-cat")
    assert code == 0
    policy = [f for f in findings if f["rule"].startswith("policy/")]
    assert {f["rule"] for f in policy} == {"policy/protected-path", "policy/lore-folder"}
    for finding in policy:
        assert finding["severity"] == "warning"
        assert finding["message"].endswith("cleared by @octo-cat")


def test_an_approval_never_clears_other_errors(vault: Vault) -> None:
    open_pull_request(
        vault,
        {".github/CODEOWNERS": "* @attacker\n", "_conventions.md": "Fine.\n<!-- hidden -->\n"},
    )
    result = review(vault, policy_approved_by="octocat")
    assert result.exit_code == 1
    assert [f.rule for f in result.findings if f.is_error] == ["injection/html-comment"]


@pytest.mark.parametrize(
    ("value", "args"),
    [
        ("octo cat", ["--base", "main", "--head", "pr"]),
        ("-octocat", ["--base", "main", "--head", "pr"]),
        ("octocat-", ["--base", "main", "--head", "pr"]),
        ("a" * 40, ["--base", "main", "--head", "pr"]),
        ("dependabot[bot]", ["--base", "main", "--head", "pr"]),
        ("octocat", ["--all"]),  # an approval is of a pull request
    ],
)
def test_a_bad_approval_is_a_usage_error(vault: Vault, value: str, args: list[str]) -> None:
    open_pull_request(vault, {".github/CODEOWNERS": "* @attacker\n"})
    result = lore("curate", *args, "--policy-approved-by", value, cwd=vault.root)
    assert result.returncode == 2, result.stdout
    assert "--policy-approved-by" in result.stderr and "Traceback" not in result.stderr


def test_a_pull_request_that_changes_only_policy_paths_is_reviewed(vault: Vault) -> None:
    """No note changed, yet the review runs every rule over what did change."""
    open_pull_request(vault, {".gitmodules": "[submodule]\n", "README.md": "Vault.\n\u200b\n"})
    result = review(vault)
    assert sorted(result.checked) == [".gitmodules", "README.md"]
    rules = by_rule(result.findings)
    assert {"policy/protected-path", "policy/policy-file", "injection/zero-width"} <= set(rules)
    assert result.exit_code == 1
