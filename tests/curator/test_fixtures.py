"""The fixture corpora: every bad note is caught by its rule; no good look-alike is an error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lore.curator.report.formats import to_github, to_json, to_markdown
from lore.curator.rules.registry import all_rules
from lore.curator.target import WholeVault
from tests.curator.conftest import (
    FIXTURES,
    check_bytes,
    check_fixture,
    expand_secrets,
    load_manifest,
    secret_values,
)
from tests.support import Vault

MANIFEST = load_manifest()
GOOD = sorted((FIXTURES / "good").glob("*.md"))


def test_the_corpora_are_big_enough_and_listed() -> None:
    bad_files = {p.name for p in (FIXTURES / "bad").iterdir() if p.name != "manifest.toml"}
    assert bad_files == set(MANIFEST)
    assert len(MANIFEST) >= 40
    assert len(GOOD) >= 20
    rules = all_rules()
    assert {entry["rule"] for entry in MANIFEST.values()} <= set(rules)


@pytest.mark.parametrize("name", sorted(MANIFEST))
def test_bad_note_is_caught_by_its_rule(name: str, curator_vault: Vault) -> None:
    entry = MANIFEST[name]
    raw = (FIXTURES / "bad" / name).read_bytes()
    result = check_fixture(curator_vault, entry, expand_secrets(raw))
    rules = {finding.rule for finding in result.findings}
    assert entry["rule"] in rules, f"{name}: expected {entry['rule']}, got {sorted(rules)}"
    assert not any(rule.endswith("/internal-error") for rule in rules)
    expected = next(f for f in result.findings if f.rule == entry["rule"])
    if expected.is_error:
        assert result.exit_code == 1
    outputs = [
        json.dumps(to_json(result)),
        "\n".join(to_github(result)),
        to_markdown(result),
    ]
    for value in secret_values(raw):
        for output in outputs:
            assert value not in output, f"{name}: the secret leaked into an output"


@pytest.mark.parametrize("path", GOOD, ids=[p.stem.split("--")[1] for p in GOOD])
def test_good_look_alike_has_no_error(path: Path, curator_vault: Vault) -> None:
    result = check_bytes(curator_vault, f"notes/{path.name}", path.read_bytes())
    errors = [f"{f.rule} line {f.line}: {f.message}" for f in result.findings if f.is_error]
    assert errors == []
    flagged = [f.rule for f in result.findings if f.family in ("secret", "injection")]
    assert flagged == []
    assert result.exit_code == 0


def test_good_notes_pass_together_as_an_audit(curator_vault: Vault) -> None:
    """All good notes in one vault: no duplicates, contradictions or collisions among them."""
    for path in GOOD:
        (curator_vault.root / "notes" / path.name).write_bytes(path.read_bytes())
    from lore.curator.run import curate

    result = curate(curator_vault.root, WholeVault(), today="2026-02-02")
    errors = [f"{f.path}: {f.rule}" for f in result.findings if f.is_error]
    assert errors == []
