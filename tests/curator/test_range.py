"""Pull-request mode (`--base/--head`) on real git repositories."""

from __future__ import annotations

import json
from pathlib import Path

from lore.curator.run import curate
from lore.curator.target import Range
from tests.curator.conftest import TODAY, fake_secret
from tests.curator.test_curate_cli import run_lore
from tests.support import Vault, git, note_text

NEW = "billing--retries-use-full-jitter--2026-02-01"


def branch(vault: Vault, name: str = "proposal") -> None:
    git(vault.root, "checkout", "-q", "-b", name)


def rules_of(vault: Vault, base: str = "main", head: str = "proposal") -> dict[str, list[str]]:
    result = curate(vault.root, Range(base, head), today=TODAY)
    found: dict[str, list[str]] = {}
    for finding in result.findings:
        found.setdefault(finding.path, []).append(finding.rule)
    return found


def test_a_secret_added_then_removed_still_fails_the_pull_request(curator_vault: Vault) -> None:
    branch(curator_vault)
    token = fake_secret("github-token")
    leaky = note_text(body=f"## What\nThe deploy bot uses {token} to tag releases.\n")
    curator_vault.write(NEW, leaky)
    first = curator_vault.commit("add a note")
    curator_vault.write(NEW, note_text(body="## What\nThe deploy bot's token is in Vault.\n"))
    curator_vault.commit("oops, remove the token")

    result = curate(curator_vault.root, Range("main", "proposal"), today=TODAY)
    secret = [f for f in result.findings if f.rule == "secret/github-token"]
    assert len(secret) == 1
    assert secret[0].is_error
    assert secret[0].path == f"notes/{NEW}.md"
    assert first[:12] in secret[0].message
    assert "git history" in secret[0].message
    assert result.exit_code == 1

    cli = run_lore("curate", "--vault", str(curator_vault.root), "--base", "main", "--head",
                   "proposal", "--format", "json")  # fmt: skip
    assert cli.returncode == 1
    assert token not in cli.stdout + cli.stderr
    assert "secret/github-token" in {f["rule"] for f in json.loads(cli.stdout)["findings"]}


def test_only_the_changed_notes_are_checked_against_the_base(curator_vault: Vault) -> None:
    # A broken note already on main is not this pull request's problem.
    (curator_vault.root / "notes" / "old--broken--2025-01-01.md").write_text("no frontmatter\n")
    curator_vault.commit("a broken note slipped in")
    branch(curator_vault)
    curator_vault.write(NEW, note_text(type="lesson"))
    curator_vault.remove("deploy--black-friday-change-freeze--2025-11-10")
    curator_vault.write(
        "billing--links-a-deleted-note--2026-02-01",
        note_text(
            title="Billing freeze rules",
            body="## What\nBilling follows the freeze rules.\n\n## Related\n"
            "[[deploy--black-friday-change-freeze--2025-11-10]]\n",
        ),
    )
    curator_vault.commit("propose")
    result = curate(curator_vault.root, Range("main", "proposal"), today=TODAY)
    assert sorted(result.checked) == [
        "notes/billing--links-a-deleted-note--2026-02-01.md",
        f"notes/{NEW}.md",
    ]
    by_path = {f.path: f for f in result.findings}
    assert "notes/old--broken--2025-01-01.md" not in by_path
    link = next(f for f in result.findings if f.rule == "link/unresolved")
    assert "deletes" in link.message


def test_policy_comes_from_the_base_and_taxonomy_from_the_head(curator_vault: Vault) -> None:
    branch(curator_vault)
    settings = curator_vault.root / "lore.toml"
    settings.write_text(
        settings.read_text(encoding="utf-8").replace(
            'allowed_link_domains = ["github.com"]',
            'allowed_link_domains = ["github.com", "evil.example"]',
        ),
        encoding="utf-8",
    )
    taxonomy = curator_vault.root / "_taxonomy.md"
    taxonomy.write_text(
        taxonomy.read_text(encoding="utf-8").replace(
            "## tool\n",
            "## tool\n- `tool/vcr` — VCR cassettes for HTTP tests. Aliases: cassettes\n",
        )
        + "- `tool/misplaced` — A tool listed under the wrong heading.\n",
        encoding="utf-8",
    )
    curator_vault.write(
        NEW,
        note_text(
            tags="[service/billing, tool/vcr]",
            body="## What\nSee [the guide](https://evil.example/retries?session=s3cr3tvalue) "
            "for the settings.\n",
        ),
    )
    curator_vault.commit("propose with a policy change")
    found = rules_of(curator_vault)
    assert "injection/link-domain" in found[f"notes/{NEW}.md"]
    assert "taxonomy/unknown-tag" not in found[f"notes/{NEW}.md"]
    assert sorted(found["lore.toml"]) == ["convention/policy-changed", "policy/policy-file"]
    assert sorted(found["_taxonomy.md"]) == ["policy/policy-file", "taxonomy/wrong-dimension"]


def test_symlinks_and_submodules_in_the_change_are_errors(curator_vault: Vault) -> None:
    branch(curator_vault)
    (curator_vault.root / "notes" / "billing--link--2026-02-01.md").symlink_to("/etc/passwd")
    git(curator_vault.root, "add", "-A")
    commit = git(curator_vault.root, "rev-parse", "HEAD")
    git(curator_vault.root, "update-index", "--add", "--cacheinfo", f"160000,{commit},vendored")
    git(curator_vault.root, "commit", "-q", "-m", "links")
    found = rules_of(curator_vault)
    assert found["notes/billing--link--2026-02-01.md"] == ["filename/symlink"]
    assert found["vendored"] == ["filename/submodule"]


def test_files_outside_notes_are_scanned_for_secrets(curator_vault: Vault) -> None:
    branch(curator_vault)
    readme = curator_vault.root / "README.md"
    readme.write_text(readme.read_text() + f"\nSlack: {fake_secret('slack-token')}\n")
    (curator_vault.root / "stray-note.md").write_text(note_text())
    curator_vault.commit("readme")
    found = rules_of(curator_vault)
    assert sorted(found["README.md"]) == ["policy/policy-file", "secret/slack-token"]
    assert found["stray-note.md"] == ["filename/not-in-notes"]


def test_the_range_starts_at_the_merge_base(curator_vault: Vault) -> None:
    branch(curator_vault)
    curator_vault.write(NEW, note_text(title="Retries use full jitter"))
    curator_vault.commit("propose")
    git(curator_vault.root, "checkout", "-q", "main")
    curator_vault.write("web--added-on-main--2026-02-02", note_text(title="Added on main"))
    curator_vault.commit("main moves on")
    result = curate(curator_vault.root, Range("main", "proposal"), today=TODAY)
    assert result.checked == [f"notes/{NEW}.md"]


def test_an_empty_range_is_clean(curator_vault: Vault) -> None:
    result = curate(curator_vault.root, Range("main", "main"), today=TODAY)
    assert result.findings == []
    assert result.exit_code == 0


def test_a_pull_request_of_good_notes_passes(curator_vault: Vault, tmp_path: Path) -> None:
    branch(curator_vault)
    curator_vault.write(
        NEW,
        note_text(
            title="Billing retries Stripe calls three times with full jitter",
            tags="[service/billing, pattern/retries]",
            body="## What\nBilling retries a failed Stripe call three times with full jitter.\n\n"
            "## Related\n[[billing--stripe-idempotency-keys--2026-01-05]]\n",
        ),
    )
    curator_vault.commit("propose")
    result = run_lore("curate", "--vault", str(curator_vault.root), "--base", "main", "--head",
                      "proposal", "--format", "markdown")  # fmt: skip
    assert result.returncode == 0, result.stdout
    assert "✅" in result.stdout


def test_a_secret_kept_to_the_end_is_reported_once(curator_vault: Vault) -> None:
    branch(curator_vault)
    token = fake_secret("github-token")
    curator_vault.write(NEW, note_text(body=f"## What\nThe bot uses {token}.\n"))
    curator_vault.commit("one")
    curator_vault.write(NEW, note_text(body=f"## What\nThe release bot uses {token}.\n"))
    curator_vault.commit("two")
    result = curate(curator_vault.root, Range("main", "proposal"), today=TODAY)
    secret = [f for f in result.findings if f.family == "secret"]
    assert len(secret) == 1
    assert "git history" not in secret[0].message
    assert secret[0].line == 9


def test_a_note_moved_to_archive_is_not_an_error_and_links_to_it_resolve(tmp_path: Path) -> None:
    """The gardener moves superseded notes to archive/: the curator accepts the move."""
    from lore.vault.seed import seed_files, write_files

    root = tmp_path / "vault"
    root.mkdir()
    write_files(root, seed_files())
    vault = Vault(root)
    vault.set_repos("payments-api")
    old = "billing--old-tests--2026-01-10"
    new = "billing--new-tests--2026-03-10"
    vault.write(old, note_text("Old test setup", date="2026-01-10", tags="[service/billing]"))
    vault.write(
        new,
        note_text(
            "New test setup",
            date="2026-03-10",
            tags="[service/billing]",
            supersedes=f"[{old}]",
            body=f"## What\nThe new setup.\n\n## Related\n[[{old}]]\n",
        ),
    )
    git(root, "init", "-q")
    base = vault.commit("base")
    git(root, "switch", "-q", "-c", "garden")
    (root / "archive").mkdir()
    git(root, "mv", f"notes/{old}.md", f"archive/{old}.md")
    git(root, "commit", "-q", "-m", "archive the superseded note")
    result = run_lore(
        "curate", "--vault", str(root), "--base", base, "--head", "HEAD", "--format", "json"
    )
    findings = json.loads(result.stdout)["findings"]
    assert result.returncode == 0, findings
    assert not [f for f in findings if f["severity"] == "error"]
    # Editing the note that links to the archived one later still resolves the link.
    edited = (
        (root / "notes" / f"{new}.md").read_text().replace("The new setup.", "The new setup, v2.")
    )
    (root / "notes" / f"{new}.md").write_text(edited)
    git(root, "commit", "-q", "-am", "edit")
    result = run_lore(
        "curate", "--vault", str(root), "--base", "garden~1", "--head", "HEAD", "--format", "json"
    )
    rules = {f["rule"] for f in json.loads(result.stdout)["findings"]}
    assert not {r for r in rules if r.startswith("link/")}, rules
