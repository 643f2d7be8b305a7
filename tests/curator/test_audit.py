"""A full audit reads the vault a batch of notes at a time (`lore.curator.audit`).

The observable is the parsed notes themselves: every note the audit reads goes through
`UnreadNotes.read`, and a weak reference to each parsed note says how many are still
alive when the next is read. With batches of 4, an audit of 40 notes must never hold
more than two batches (the one being read, the one just checked) and the findings must
be those of one batch holding every note, which is what the audit did before (with the
claims of only two notes kept, so that the others' are read again when asked).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from pathlib import Path

import pytest

from lore.curator import audit
from lore.curator.context.model import CheckedFile, UnreadNotes
from lore.curator.finding import Finding
from lore.curator.rules import contradiction
from lore.curator.run import curate
from lore.curator.target import WholeVault
from tests.curator.conftest import TODAY
from tests.support import Vault, note_text

SMALL = 4


def _notes() -> dict[str, str]:
    """40 notes holding duplicates, contradictions, replacements and lifecycle slips."""
    notes: dict[str, str] = {}
    for number in range(12):
        day = f"2025-0{1 + number % 9}-{10 + number:02d}"
        size = 10 if number % 2 else 25
        notes[f"postgres--pool-size-{number}--{day}"] = note_text(
            f"The billing service pool holds {size} connections",
            tags="[service/billing, tool/postgres]",
            date=day,
            body=f"## What\nThe billing service's Postgres pool holds {size} connections "
            f"in production.\n\n## Why\nMore than {size} exhausted the primary.\n",
        )
    for number in range(12):
        day = f"2025-1{number % 3}-{10 + number:02d}"
        notes[f"kafka--consumer-retries-{number}--{day}"] = note_text(
            "Consumers retry a message three times before parking it",
            tags="[tool/kafka, pattern/retries]",
            date=day,
            body="## What\nThe consumers retry a failed message three times with backoff, "
            "then park it in the dead-letter topic.\n",
        )
    notes["kafka--consumer-retries-new--2026-02-01"] = note_text(
        "Consumers now retry five times",
        tags="[tool/kafka, pattern/retries]",
        date="2026-02-01",
        body="## What\nInstead of [[kafka--consumer-retries-0--2025-10-10]], consumers "
        "retry a failed message five times before parking it.\n",
    )
    for number in range(13):
        day = f"2024-0{1 + number % 9}-{10 + number:02d}"
        extra = {"expires": "2025-01-01"} if number % 4 == 0 else {}
        if number % 5 == 1:
            extra["supersedes"] = f"[web--note-{number - 1}--2024-0{number % 9}-{9 + number:02d}]"
        notes[f"web--note-{number}--{day}"] = note_text(
            f"Web note {number} on cache headers",
            tags="[tool/nginx]",
            date=day,
            body=f"## What\nStatic asset {number} is served with a one-year max-age.\n",
            **extra,
        )
    notes["web--broken--2024-03-03"] = "---\ntitle: [unclosed\n---\n## What\nBroken.\n"
    return notes


def _audit(root: Path) -> list[Finding]:
    return curate(root, WholeVault(), today=TODAY).findings


def test_an_audit_holds_a_batch_of_parsed_notes_and_finds_the_same(
    make_vault: Callable[..., Vault], monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = make_vault(_notes())
    whole = _audit(vault.root)  # one batch holds every note: the audit as it was
    rules = {finding.rule.split("/")[0] for finding in whole}
    assert {"duplicate", "contradiction", "lifecycle", "frontmatter"} <= rules
    assert any(finding.rule == "lifecycle/may-supersede" for finding in whole)

    alive: list[weakref.ref[object]] = []
    most = [0]
    read = UnreadNotes.read

    def counted(self: UnreadNotes, path: str, mode: str = "100644") -> CheckedFile | None:
        most[0] = max(most[0], sum(ref() is not None for ref in alive))
        checked = read(self, path, mode)
        if checked is not None and checked.view is not None:
            alive.append(weakref.ref(checked.view))
        return checked

    monkeypatch.setattr(UnreadNotes, "read", counted)
    monkeypatch.setattr(audit, "BATCH", SMALL)
    monkeypatch.setattr(audit, "CLAIMS_KEPT", 2)  # the others' claims read again when asked
    assert _audit(vault.root) == whole
    notes = len(list((vault.root / "notes").glob("*.md")))
    assert notes > 4 * SMALL
    assert len(alive) > notes  # each note read for each pass, not held in between
    assert 0 < most[0] <= 2 * SMALL


def test_a_rule_that_fails_in_a_batched_audit_leaves_its_error_only(
    make_vault: Callable[..., Vault], monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = make_vault(_notes())
    monkeypatch.setattr(audit, "BATCH", SMALL)
    judged: list[int] = []

    def broken(*args: object, **kwargs: object) -> list[Finding]:
        judged.append(1)
        if len(judged) == 3:  # after two notes' findings
            raise ValueError("broken")
        return contradiction_check(*args, **kwargs)  # type: ignore[arg-type]

    contradiction_check = contradiction.check_note
    monkeypatch.setattr(contradiction, "check_note", broken)
    findings = _audit(vault.root)
    rules = [finding.rule for finding in findings]
    assert rules.count("contradiction/internal-error") == 1
    assert not [rule for rule in rules if rule.startswith("contradiction/") and "error" not in rule]
    assert any(rule.startswith("duplicate/") for rule in rules)
    assert len(judged) == 3  # not run again once it failed
