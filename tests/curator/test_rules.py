"""Rule behaviour beyond the fixture corpora: the registry, settings, audits, precision."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from lore.curator.rules.registry import FAMILIES, all_rules
from lore.curator.run import curate
from lore.curator.target import Drafts, WholeVault
from tests.curator.conftest import TODAY, check_bytes
from tests.support import Vault, note_text

DOCS = Path(__file__).resolve().parents[2] / "docs"


def rules(result_findings: list) -> list[str]:  # type: ignore[type-arg]
    return [finding.rule for finding in result_findings]


def set_curator(vault: Vault, lines: str) -> None:
    """Replace the [curator] section (the template's last) with `lines`, committed: on a
    checkout the curator reads lore.toml as the reviewed branch has it."""
    settings = vault.root / "lore.toml"
    text = settings.read_text(encoding="utf-8").split("[curator]")[0]
    settings.write_text(f"{text}[curator]\n{lines}\n", encoding="utf-8")
    vault.commit("change the curator's policy")


def test_rule_ids_are_stable_and_start_with_their_family() -> None:
    names = [family.NAME for family in FAMILIES]
    assert names == [
        "frontmatter", "filename", "taxonomy", "link", "convention",
        "secret", "injection", "duplicate", "contradiction", "lifecycle", "policy",
    ]  # fmt: skip
    for family in FAMILIES:
        for rule in family.RULES:
            assert re.fullmatch(rf"{family.NAME}/[a-z0-9]+(?:-[a-z0-9]+)*", rule), rule


def test_every_rule_is_documented_with_an_example() -> None:
    text = (DOCS / "rules.md").read_text(encoding="utf-8")
    missing = [rule for rule in all_rules() if f"`{rule}`" not in text]
    assert missing == []


def test_extra_fields_are_warnings_when_the_vault_allows_them(curator_vault: Vault) -> None:
    data = note_text(priority="high").encode()
    strict = check_bytes(curator_vault, "notes/fixture--extra--2026-02-01.md", data)
    assert [f.severity for f in strict.findings if f.rule == "frontmatter/unknown-field"] == [
        "error"
    ]
    set_curator(curator_vault, "allow_extra_fields = true")
    lenient = check_bytes(curator_vault, "notes/fixture--extra--2026-02-01.md", data)
    assert [f.severity for f in lenient.findings if f.rule == "frontmatter/unknown-field"] == [
        "warning"
    ]
    assert lenient.exit_code == 0


def test_allowed_domains_and_placeholders_come_from_lore_toml(curator_vault: Vault) -> None:
    placeholder = "sk_live_" + "TeamRunbookValue7Kq2Wz9Lm4Np"
    body = (
        "## What\nRetry settings are in [the wiki](https://wiki.acme.example/retries) and "
        f"[docs](https://docs.acme.example/x); runbooks use {placeholder}.\n"
    )
    # A title of its own: under the default one (the vault's httpx note's title, nearly)
    # the note would take that note's decision again, which lifecycle/may-supersede says.
    data = note_text("Retry settings live in the wiki", body=body).encode()
    lenient = check_bytes(curator_vault, "notes/fixture--cfg--2026-02-01.md", data)
    assert "injection/link-domain" not in rules(lenient.findings)  # plain https links pass
    set_curator(curator_vault, "only_allowed_link_domains = true")
    before = check_bytes(curator_vault, "notes/fixture--cfg--2026-02-01.md", data)
    assert rules(before.findings).count("injection/link-domain") == 2
    assert "secret/stripe-key" in rules(before.findings)
    set_curator(
        curator_vault,
        f'allowed_link_domains = ["github.com", "acme.example"]\n'
        f"only_allowed_link_domains = true\n"
        f'allowed_placeholders = ["{placeholder}"]',
    )
    after = check_bytes(curator_vault, "notes/fixture--cfg--2026-02-01.md", data)
    assert rules(after.findings) == []


def test_limits_come_from_lore_toml(curator_vault: Vault) -> None:
    data = note_text(title="A title that is longer than twenty characters").encode()
    set_curator(curator_vault, "max_title_chars = 20\nmax_body_words = 5")
    found = rules(check_bytes(curator_vault, "notes/fixture--lim--2026-02-01.md", data).findings)
    assert "convention/title-too-long" in found
    assert "convention/body-too-long" in found


def test_bad_settings_are_findings_not_crashes(curator_vault: Vault) -> None:
    set_curator(curator_vault, 'max_body_words = "many"\nnew_knob = 1')
    result = check_bytes(curator_vault, "notes/fixture--s--2026-02-01.md", note_text().encode())
    settings = [f for f in result.findings if f.rule == "convention/invalid-settings"]
    assert [f.severity for f in settings] == ["error", "warning"]
    (curator_vault.root / "lore.toml").write_text("[curator\n", encoding="utf-8")
    curator_vault.commit("break lore.toml")
    result = check_bytes(curator_vault, "notes/fixture--s--2026-02-01.md", note_text().encode())
    assert "convention/invalid-settings" in rules(result.findings)


def test_taxonomy_suggestions_use_aliases(curator_vault: Vault) -> None:
    data = note_text(tags="[tool/pg, pattern/testing]", type="adr").encode()
    result = check_bytes(curator_vault, "notes/fixture--tx--2026-02-01.md", data)
    by_rule = {f.rule: f for f in result.findings}
    assert "tool/postgres" in (by_rule["taxonomy/unknown-tag"].suggestion or "")
    assert "decision" in (by_rule["taxonomy/unknown-type"].suggestion or "")


def test_filename_suggestion(curator_vault: Vault) -> None:
    result = check_bytes(
        curator_vault, "notes/Billing Retry Notes--2026-02-01.md", note_text().encode()
    )
    finding = next(f for f in result.findings if f.rule == "filename/invalid-id")
    assert "billing--retry-notes--2026-02-01.md" in (finding.suggestion or "")


def test_wikilinks_inside_code_are_not_links(curator_vault: Vault) -> None:
    body = "## What\nChecks use `[[ -f x ]]` in bash.\n\n```\n[[ -n $A ]] && echo\n```\n"
    result = check_bytes(
        curator_vault, "notes/fixture--code--2026-02-01.md", note_text(body=body).encode()
    )
    assert not [f for f in result.findings if f.family == "link"]


def test_drafts_are_checked_in_memory(curator_vault: Vault) -> None:
    result = curate(
        curator_vault.root,
        # Its own lesson: note_text's default body repeats a fixture note in other words,
        # which duplicate/near now reports.
        Drafts(
            {
                "notes/billing--draft--2026-02-01.md": note_text(
                    type="lesson",
                    title="Drafts are curated in memory",
                    body="## What\nA draft is checked before anything is written to the vault.\n",
                ).encode()
            }
        ),
        today=TODAY,
    )
    assert rules(result.findings) == ["taxonomy/unknown-type"]
    assert result.checked == ["notes/billing--draft--2026-02-01.md"]
    assert "notes/billing--draft--2026-02-01.md" in result.previews


def test_findings_carry_no_terminal_escapes(curator_vault: Vault) -> None:
    data = note_text(tags='["tool/\\u001b[31mred", pattern/testing]').encode()
    result = check_bytes(curator_vault, "notes/fixture--esc--2026-02-01.md", data)
    assert result.findings
    assert not any("\x1b" in f.message for f in result.findings)


# ---- duplicates and contradictions: precise, and once per pair in an audit ----


def test_an_audit_reports_each_duplicate_once_on_the_newer_note(curator_vault: Vault) -> None:
    body = "## What\nThe nightly export writes one parquet file per tenant to the bucket.\n"
    for day in ("01", "02", "03"):
        curator_vault.write(
            f"data--export-{day}--2026-03-{day}",
            note_text(title=f"Export {day}", date=f"2026-03-{day}", body=body),
        )
    result = curate(curator_vault.root, WholeVault(), today=TODAY)
    exact = [f.path for f in result.findings if f.rule == "duplicate/exact"]
    assert exact == [
        "notes/data--export-02--2026-03-02.md",
        "notes/data--export-03--2026-03-03.md",
    ]


@pytest.mark.parametrize(
    ("mine", "expected"),
    [
        ("Every Stripe call from billing never sends an idempotency key from the invoice id.",
         "contradiction/opposite-claim"),
        ("Stripe calls from the billing service must not send an idempotency key derived from "
         "the invoice id.", "contradiction/opposite-claim"),
        ("Every Stripe call from the billing service always sends an idempotency key derived "
         "from the invoice id.", None),  # agrees
        ("Every Stripe call from the billing service never uses the legacy v1 charges API.",
         None),  # a different claim
    ],
)  # fmt: skip
def test_contradictions_are_precise(curator_vault: Vault, mine: str, expected: str | None) -> None:
    data = note_text(
        title="Billing calls to Stripe",
        tags="[service/billing, tool/stripe]",
        body=f"## What\n{mine}\n",
        repo="payments-api",
    ).encode()
    result = check_bytes(curator_vault, "notes/billing--claim--2026-02-01.md", data)
    found = [f.rule for f in result.findings if f.family == "contradiction"]
    assert found == ([expected] if expected else [])


def test_no_contradiction_across_subjects_or_with_a_superseded_note(curator_vault: Vault) -> None:
    opposite = "## What\nEvery Stripe call from the billing service never sends an idempotency key."
    other_subject = note_text(tags="[service/web, tool/react]", body=opposite + "\n")
    result = check_bytes(curator_vault, "notes/web--x--2026-02-01.md", other_subject.encode())
    assert not [f for f in result.findings if f.family == "contradiction"]
    (curator_vault.root / "notes" / "web--x--2026-02-01.md").unlink()
    replacing = note_text(
        title="Stripe calls from billing never send an idempotency key",  # not the default,
        # whose httpx title restates a fixture note that duplicate/near now reports
        tags="[service/billing, tool/stripe]",
        repo="payments-api",
        supersedes="[billing--stripe-idempotency-keys--2026-01-05]",
        body=opposite + "\n",
    )
    result = check_bytes(curator_vault, "notes/billing--y--2026-02-01.md", replacing.encode())
    assert not [f for f in result.findings if f.family in ("contradiction", "duplicate")]


def test_an_audit_finds_expired_notes_as_warnings(curator_vault: Vault) -> None:
    result = curate(curator_vault.root, WholeVault(), today=TODAY)
    expired = [f for f in result.findings if f.rule == "lifecycle/expired"]
    assert [(f.path, f.severity) for f in expired] == [
        ("notes/deploy--black-friday-change-freeze--2025-11-10.md", "warning")
    ]
    assert result.exit_code == 0


def test_a_finding_reads_as_two_sentences_on_one_line() -> None:
    from lore.curator.finding import ERROR, Finding
    from lore.curator.report.formats import plain_line

    finding = Finding(
        "convention/title-too-long",
        ERROR,
        "notes/a--b--2026-01-01.md",
        2,
        "the title is 130 characters (at most 120)",
        "State the fact in fewer words",
    )
    assert plain_line(finding) == (
        "error notes/a--b--2026-01-01.md:2 convention/title-too-long: the title is 130 "
        "characters (at most 120). State the fact in fewer words."
    )
    assert finding.with_text("done.", None).sentences() == "done."


def test_an_audit_keeps_no_shared_terms_for_pairs_it_reports_nothing_about(
    curator_vault: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A pair's verdict is kept until every pair rule has judged the note (a full audit
    then drops it: `Pairs.forget`); the terms both notes use are read only for a
    finding's message, so a pair without one drops them at once (at 100,000 notes they
    were hundreds of MiB). The findings of a 10,000-note audit were the same before and
    after (docs/performance.md)."""
    from lore.curator.rules.pairs import Pairs, pairs_of
    from lore.curator.run import build_context, run_rules

    kept: dict[tuple[int, int], Any] = {}
    forget = Pairs.forget

    def remember_then_forget(self: Pairs, index: int) -> None:
        kept.update({(index, o): v for o, v in self._verdicts.get(index, {}).items()})
        forget(self, index)

    monkeypatch.setattr(Pairs, "forget", remember_then_forget)

    body = "## What\nThe nightly export writes one parquet file per tenant to the bucket.\n"
    for day, words in (("01", ""), ("02", " It runs at two."), ("03", " Kafka lag is unrelated.")):
        curator_vault.write(
            f"data--export-{day}--2026-03-{day}",
            note_text(title=f"Export {day}", date=f"2026-03-{day}", body=body + words),
        )
    context = build_context(curator_vault.root, WholeVault(), today=TODAY)
    findings = run_rules(context)
    assert pairs_of(context)._verdicts == {}  # each note's dropped once it was judged
    reported = [v for v in kept.values() if v.kind]
    quiet = [v for v in kept.values() if not v.kind]
    assert reported and quiet  # both kinds are judged in this vault
    assert all(v.likeness.in_both == frozenset() for v in quiet)
    assert all(v.likeness.in_both for v in reported if v.kind == "duplicate")
    assert any(f.rule.startswith("duplicate/") for f in findings)
