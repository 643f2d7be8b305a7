"""Where a cue or a claim is read, each case in prose written here (issue 20).

Every test below failed before the rule it checks. A replacement cue or a claim counts
only where the note itself states it: not in a list that weighs an option, not in words
the author struck through, not in a list item that is only a label, not in a move said
of something else or of what the decision makes possible, not in a move that starts
from nothing, and "update to" only of a decision.
"""

from __future__ import annotations

from lore.curator.judgement.claims import conflicts
from lore.text.clauses import claims
from lore.text.cue_sentences import cues
from lore.text.cues import REFERENCE
from tests.curator.judged import Note, flat, replaced_how

QUEUE = Note(
    "ops--adr-003-use-the-job-queue--2024-01-01",
    "Use the job queue",
    "## What\nReports are built by workers that read the job queue.\n",
)


judged = replaced_how


def kinds(body: str) -> list[str]:
    found = cues(Note("ops--reports--2026-01-01", "Reports", body))
    return [cue.kind for cue in found if cue.kind != REFERENCE]


# ---- lists that weigh an option replace nothing ----


def test_a_pro_or_a_risk_that_says_instead_replaces_nothing() -> None:
    marked = (
        "## What\nReports are built nightly.\n\n"
        "* Good, because the reports reuse [[ops--adr-003-use-the-job-queue--2024-01-01]] "
        "instead of a second scheduler.\n"
    )
    assert judged(Note("ops--adr-009-nightly--2025-01-01", "Nightly", marked), QUEUE) is None
    risks = "## What\nReports are built nightly.\n\n### Risks\n\n- Slow when built by hand instead of the job queue.\n"
    assert kinds(risks) == []
    drawbacks = "## What\nReports are built nightly.\n\n**Drawbacks:**\n\n* Reports are built instead of the job queue.\n"
    assert kinds(drawbacks) == []
    decided = "## What\nReports are built by cron instead of the job queue.\n"
    assert kinds(decided) == ["switch"]  # said as the decision: a cue
    assert judged(Note("ops--adr-009-nightly--2025-01-01", "Nightly", decided), QUEUE) == "subject"


# ---- words struck through, and list items that are labels ----


def test_struck_through_words_are_withdrawn() -> None:
    retry = Note(
        "ops--adr-004-retries--2024-01-01",
        "Retries",
        "## What\nA failed report is retried on another worker.\n",
    )
    struck = Note(
        "ops--adr-008-retry-hosts--2025-01-01",
        "Retry hosts",
        "## What\nRetries pick a host.\n\n"
        "~~* A failed report is retried on another worker~~ (we never need this)\n",
    )
    assert conflicts(claims(struck), claims(retry), flat) == []
    kept = Note(
        struck.id, struck.title, "## What\nA failed report is never retried on another worker.\n"
    )
    assert conflicts(claims(kept), claims(retry), flat)  # unstruck, it is a denial
    assert kinds("## What\n~~We stopped using the job queue.~~ Reports are built nightly.\n") == []


def test_a_list_item_of_a_word_or_two_is_a_label() -> None:
    fields = Note(
        "api--adr-010-order-fields--2025-01-01",
        "Order fields",
        "## What\nOrders carry these fields.\n\n* **owner**\n  * Type: text\n  * Required field\n",
    )
    others = Note(
        "api--adr-011-invoice-fields--2025-02-01",
        "Invoice fields",
        "## What\nInvoices carry these fields.\n\n* **owner**\n  * Type: text\n  * Optional field\n",
    )
    assert conflicts(claims(others), claims(fields), flat) == []
    said = Note(others.id, others.title, "## What\nThe owner field is optional.\n")
    plain = Note(fields.id, fields.title, "## What\nThe owner field is required.\n")
    assert conflicts(claims(said), claims(plain), flat)  # a sentence still claims


# ---- a move said of something else, or from nothing ----


def test_a_move_of_something_else_or_a_way_to_move_is_no_decision_to_move() -> None:
    assert kinds("## What\nThis holds for teams that migrate from the job queue too.\n") == []
    assert kinds("## What\nThe goal is to give a way to switch from the job queue.\n") == []
    assert kinds("## What\nThe tool allows operators to move from the job queue.\n") == []
    assert kinds("## What\nWe migrate from the job queue to cron.\n") == ["switch"]


def test_a_move_from_nothing_or_from_one_thing_to_another_replaces_nothing() -> None:
    assert kinds("## What\nIt covers the switch from not having a queue to a queue.\n") == []
    assert kinds("## What\nJobs can be moved from one queue to another.\n") == []
    assert kinds("## What\nWe are moving from the job queue to cron.\n") == ["switch"]


def test_update_to_is_a_cue_only_of_a_decision() -> None:
    link = "[[ops--adr-003-use-the-job-queue--2024-01-01]]"
    built = (
        f"## What\nThe image is built from {link} and then, once built, updated to add a field.\n"
    )
    assert judged(Note("ops--adr-009-image--2025-01-01", "Image", built), QUEUE) is None
    revised = f"## What\nThis record is an update to {link}.\n"
    assert judged(Note("ops--adr-009-image--2025-01-01", "Image", revised), QUEUE) == "links"


def test_a_replacement_hoped_for_or_made_possible_is_not_decided() -> None:
    assert kinds("## What\nOthers propose possibly deprecating the job queue.\n") == []
    assert kinds("## What\nThis will enable us to retire the job queue later.\n") == []
    assert kinds("## What\nWe retire the job queue.\n") == ["replace"]


def test_a_status_line_says_what_became_of_the_record_itself() -> None:
    assert kinds("## What\nStatus: superseded\n\nReports are built nightly.\n") == []
    assert kinds("## What\nThis supersedes the nightly build.\n") == ["supersede"]


def test_a_struck_list_item_goes_with_the_remark_after_it() -> None:
    listed = Note(
        "ops--adr-012-retry-rules--2025-03-01",
        "Retry rules",
        "## What\nRetries follow these rules:\n\n* retry on a fresh worker\n"
        "~~* retry on a spare worker~~ (not worth doing for us)\n",
    )
    plain = Note(
        "ops--adr-005-retry-workers--2024-02-01",
        "Retry workers",
        "## What\nA retry runs on a fresh worker.\n",
    )
    assert all("worth" not in clause.text for clause in claims(listed).clauses)
    assert conflicts(claims(listed), claims(plain), flat) == []
