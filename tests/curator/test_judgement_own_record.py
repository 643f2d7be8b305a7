"""Cues and claims that speak of the record itself or of some case, read from held-out-4.

Every test below failed before the rule it checks. A cue word does not say that this
note replaces another when it is about this very record (an addendum that "supersedes
earlier references in this ADR", a line "Amended: 2020-12-01" telling when the record
was edited), when it sits inside a condition ("409 if a later request has superseded
it"), or when the reversal is denied ("it does not revisit ADR 39").
"""

from __future__ import annotations

from lore.text.cue_sentences import cues
from lore.text.cues import REFERENCE
from tests.curator.judged import Note, replaced_how

QUEUE = Note(
    "ops--adr-003-use-the-job-queue--2024-01-01",
    "Use the job queue",
    "## What\nReports are built by workers that read the job queue.\n",
)
LINK = "[[ops--adr-003-use-the-job-queue--2024-01-01]]"


def kinds(body: str) -> list[str]:
    found = cues(Note("ops--reports--2026-01-01", "Reports", body))
    return [cue.kind for cue in found if cue.kind != REFERENCE]


def test_a_supersession_of_this_records_own_text_replaces_no_other_note() -> None:
    addendum = (
        "## What\nThis addendum changes the hook signature and supersedes earlier "
        "mentions in this ADR where hooks received the whole job.\n"
    )
    assert kinds(addendum) == []
    note = Note("ops--adr-009-hooks--2025-01-01", "Hooks", addendum + f"\nSee {LINK}.\n")
    assert replaced_how(note, QUEUE) is None
    other = f"## What\nThis ADR supersedes {LINK} where hooks received the whole job.\n"
    assert kinds(other) == ["supersede"]
    assert replaced_how(Note(note.id, note.title, other), QUEUE) == "links"


def test_a_cue_inside_a_condition_is_not_decided() -> None:
    assert kinds("## What\nA job is refused with 409 if a later job has superseded it.\n") == []
    assert kinds("## What\nThe run stops unless a newer build replaced it meanwhile.\n") == []
    assert kinds("## What\nIf the queue is slow, we replace it with cron.\n") == ["replace"]


def test_a_denied_reversal_reverses_nothing() -> None:
    denied = "## What\nIt does not revisit ADR-0003 and its retry rules.\n"
    assert kinds(denied) == []
    note = Note("ops--adr-009-retries--2025-01-01", "Retries", denied)
    assert replaced_how(note, QUEUE) is None
    assert kinds("## What\nThis revisits ADR-0003 and its retry rules.\n") == ["switch"]


def test_a_dated_amendment_line_tells_when_the_record_was_edited() -> None:
    assert kinds("## What\nAmended: 2020-12-01 - wording made clearer.\n\nJobs run.\n") == []
    assert kinds("## What\nThis amends ADR 3: jobs run nightly.\n") == ["supersede"]
