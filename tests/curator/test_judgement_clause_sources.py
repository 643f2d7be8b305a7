"""Which clauses two notes' opposite claims are read from, read from held-out-4.

Every test below failed before the rule it checks. A new note contradicts what an older
note decided, not the situation the older note's `## Why` described then (the new note's
own `## Why` may still say the old decision no longer holds). And "before"/"after" are
opposite only when both clauses order against the same thing: "invoked after parsing"
and "invoked before the model call" are two orders, not one denied.
"""

from __future__ import annotations

from lore.curator.judgement.claims import conflicts
from lore.text.clauses import claims
from tests.curator.judged import Note, flat


def test_the_situation_an_older_note_described_is_not_what_it_decided() -> None:
    older = Note(
        "docs--adr-004-page-years--2024-01-01",
        "Page years",
        "## What\nPages show the year of their citation.\n\n"
        "## Why\nMany pages in the archive do not have a citation year.\n",
    )
    newer = Note(
        "docs--adr-009-page-years--2025-01-01",
        "Year of a page",
        "## What\nMany pages in the archive have a citation year, where extracted.\n",
    )
    assert conflicts(claims(newer), claims(older), flat) == []  # its Why is the past
    denied = Note(
        newer.id,
        newer.title,
        "## What\nPages show a year.\n\n## Why\nPages cannot show the year of their citation.\n",
    )
    assert conflicts(claims(denied), claims(older), flat)  # what it decided is denied


def test_before_and_after_are_opposite_only_against_the_same_thing() -> None:
    after = Note(
        "agents--adr-010-tools--2025-01-01",
        "Tool calls",
        "## What\nThe agent runs tool invocation after parsing the tool calls.\n",
    )
    other = Note(
        "agents--adr-004-tools--2024-01-01",
        "Tool calls",
        "## What\nThe agent runs tool invocation before the model reads the tool calls.\n",
    )
    assert conflicts(claims(after), claims(other), flat) == []
    same = Note(
        other.id,
        other.title,
        "## What\nThe agent runs tool invocation before parsing the tool calls.\n",
    )
    assert conflicts(claims(after), claims(same), flat)  # the same thing, in the other order
