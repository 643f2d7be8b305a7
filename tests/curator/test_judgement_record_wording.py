"""More wording of real decision records, each case in prose written here (issue 20).

Every test below failed before the rule it checks: a record that says in its own words
that it replaces another must be found, a sentence that only looks like a replacement
must give none, a list that weighs options must contradict nothing, and two notes from
one frame about two things are no duplicate.
"""

from __future__ import annotations

from lore.curator.judgement.claims import conflicts
from lore.curator.judgement.notes import profile
from lore.curator.judgement.similarity import siblings
from lore.curator.judgement.verdict import DUPLICATE_FLOOR, near_duplicate
from lore.note.records import number_of
from lore.text.clauses import claims
from lore.text.cue_sentences import cues
from lore.text.cues import REFERENCE
from tests.curator.judged import Note, flat, replaced_how

INVOICES = Note(
    "bill--adr-006-keep-invoices-in-the-ledger--2024-02-01",
    "Keep invoices in the ledger",
    "## What\nInvoices are rows of the ledger database.\n",
)


judged = replaced_how


def kinds(body: str, title: str = "Invoices") -> list[str]:
    found = cues(Note("bill--invoices--2026-01-01", title, body))
    return [cue.kind for cue in found if cue.kind != REFERENCE]


# ---- where a record names the one it replaces ----


def test_a_record_number_after_a_date_in_the_file_name_is_its_number() -> None:
    assert number_of("hr--2023-04-26-023-leave-policy--2023-04-26") == 23
    assert number_of("hr--2023-04-26-leave-policy--2023-04-26") is None  # a date only
    old = Note("hr--2022-01-10-018-leave-policy--2022-01-10", "Leave policy", "## What\nA.\n")
    new = Note(
        "hr--2023-04-26-023-leave-days--2023-04-26",
        "Leave days",
        "## What\nWe supersede ADR 18 with this record.\n",
    )
    assert judged(new, old, 0.0) == "number"


def test_a_decision_named_by_its_number_without_the_word_adr() -> None:
    new = Note(
        "bill--adr-012-queue-exports--2025-01-01",
        "Revert decision 0006 and queue the invoice exports",
        "## What\nExports go through a queue.\n",
    )
    assert judged(new, INVOICES, 0.0) == "number"
    listed = Note(new.id, "Exports", "## What\nDecision 6: exports go through a queue.\n")
    assert judged(listed, INVOICES, 0.0) is None  # "Decision 6:" labels a point of this note


def test_overrides_names_the_decision_it_overrides() -> None:
    new = Note(
        "bill--adr-014-invoice-store--2025-03-01",
        "Invoice store",
        "## What\nInvoices live in object storage.\n\n"
        "This record overrides our earlier decision from ADR 6 to keep invoices in the ledger.\n",
    )
    assert judged(new, INVOICES, 0.0) == "number"
    settings = Note(
        new.id,
        "Invoice settings",
        "## What\nEnvironment variables override keeping invoices in the ledger.\n",
    )
    assert judged(settings, INVOICES) is None  # a technical override names no note


def test_a_record_that_retakes_a_decision_it_names_elsewhere() -> None:
    """ "This record replaces our decision to ..." names no note in its sentence; the one
    note the record links elsewhere is that decision."""
    body = (
        f"## Why\nWe wrote down how invoices are stored in [[{INVOICES.id}]].\n\n"
        "## What\nInvoices move to object storage.\n\n"
        "This record replaces our decision to store them as database rows.\n"
    )
    new = Note("bill--adr-020-object-invoices--2025-06-01", "Object invoices", body)
    assert judged(new, INVOICES) == "referenced"
    planned = body.replace(
        "This record replaces our decision to store them as database rows.",
        "We will revisit the invoice layout next year.",
    )
    assert judged(Note(new.id, new.title, planned), INVOICES) is None  # a plan, not done
    revisited = planned.replace("We will revisit", "We are revisiting")
    assert judged(Note(new.id, new.title, revisited), INVOICES) == "referenced"
    step = planned.replace("We will revisit the invoice layout next year.", "Revert the rows.")
    assert judged(Note(new.id, new.title, step), INVOICES) is None  # an instruction


def test_revisiting_that_decision_is_about_the_one_named_just_before() -> None:
    """ "We are revisiting that decision" re-decides what the sentence before it names, not
    whatever the note links elsewhere."""
    elsewhere = (
        f"## Why\nThe ledger layout is in [[{INVOICES.id}]].\n\n"
        "## What\nAn outside report once passed on storing invoices as files. We are "
        "revisiting that decision here, since storage got cheaper.\n"
    )
    new = Note("bill--adr-021-invoice-files--2025-07-01", "Invoice files", elsewhere)
    assert judged(new, INVOICES) is None
    named = (
        f"## What\nIn [[{INVOICES.id}]] we passed on storing invoices as files. We are "
        "revisiting that decision here, since storage got cheaper.\n"
    )
    assert judged(Note(new.id, new.title, named), INVOICES) == "links"


def test_a_decision_not_to_use_what_the_other_note_chose() -> None:
    old = Note(
        "web--adr-003-sessions-in-signed-tokens--2024-01-01",
        "Keep sessions in signed tokens",
        "## What\nThe session lives in a signed token.\n",
    )
    new = Note(
        "web--adr-008-session-cookie--2025-01-01",
        "Session cookie",
        "## What\nThe session lives in an encrypted cookie.\n\n"
        "Not to use signed tokens, because:\n\n- they grow large\n",
    )
    assert judged(new, old) == "subject"


def test_a_title_that_merges_something_into_another_replaces_it() -> None:
    old = Note(
        "bill--adr-002-invoice-worker--2023-01-01",
        "Run a separate invoice worker",
        "## What\nA worker renders invoices.\n",
    )
    merged = Note(
        "bill--adr-009-merge-worker--2024-01-01",
        "Merge the invoice worker into the billing API",
        "## What\nThe billing API renders invoices itself.\n",
    )
    assert judged(merged, old) == "subject"
    after = Note(
        "bill--adr-010-billing-code--2024-05-01",
        "Billing code",
        "## What\nThe code moves so that we can retire the invoice worker.\n",
    )
    assert judged(after, merged) is None  # it carries out what the merge decided


# ---- sentences that only look like replacements ----


def test_amend_needs_a_decision_to_amend() -> None:
    assert kinds("## What\nCalls that fetch or amend invoices need a token.\n") == []
    assert kinds("## What\nThis amends ADR 4 for refunds.\n") == ["supersede"]
    assert kinds("## What\nIt amends the earlier decision on refunds.\n") == ["supersede"]


def test_a_record_named_as_the_reason_is_not_replaced() -> None:
    signing = Note(
        "bill--adr-008-one-signature--2024-01-01", "One signature", "## What\nOne signs.\n"
    )
    new = Note(
        "bill--adr-011-signing-flow--2024-06-01",
        "Signing flow",
        "## What\nWith the introduction of ADR 8, a clerk no longer signs each invoice twice.\n",
    )
    assert judged(new, signing, 0.0) is None
    plain = Note(new.id, new.title, "## What\nA clerk no longer signs ADR 8's invoices twice.\n")
    assert judged(plain, signing, 0.0) == "number"


def test_a_number_in_what_is_replaced_must_be_in_the_title() -> None:
    new = Note(
        "api--adr-013-missing-invoices--2025-01-01",
        "Missing invoices",
        "## What\nReturn 410 responses instead of 404 responses for deleted invoices.\n",
    )
    json = Note("api--adr-004-json--2023-01-01", "Always return JSON responses", "## What\nA.\n")
    assert judged(new, json) is None
    codes = Note("api--adr-005-404s--2023-02-01", "Return 404 responses", "## What\nB.\n")
    assert judged(new, codes) == "subject"


# ---- lists that weigh options, and acronyms both notes write ----


def test_pros_and_cons_are_no_claims() -> None:
    weighed = Note(
        "ci--adr-007-runner--2025-01-01",
        "CI runner",
        "## What\nWe run the hosted runner.\n\nHosted runner.\n\n"
        "- + no build step is needed\n- - more moving parts\n\n"
        "Pros:\n\n- no build step is needed\n\n* Good, because no build step is needed\n",
    )
    stated = Note(
        "ci--adr-002-build--2024-01-01",
        "Build step",
        "## What\nA build step is needed before every deploy.\n",
    )
    assert all("build step" not in clause.text for clause in claims(weighed).clauses)
    assert conflicts(claims(weighed), claims(stated), flat) == []
    said = Note(weighed.id, weighed.title, "## What\nNo build step is needed before a deploy.\n")
    assert conflicts(claims(said), claims(stated), flat)  # stated as the decision: a clash


def test_an_acronym_both_notes_write_is_not_guessed_from_other_words() -> None:
    """ "API" in both notes is the same word; reading it as the initials of "alpha phase"
    once made a denial about an API deny a sentence about the alpha phase."""
    phase = Note(
        "web--adr-004-screens--2024-01-01",
        "Screens",
        "## What\nWe prototyped the screens during the alpha phase.\n\nThe API serves them.\n",
    )
    denial = Note(
        "web--adr-005-api-style--2024-02-01",
        "API style",
        "## What\nWe did not prototype a REST API.\n",
    )
    assert conflicts(claims(denial), claims(phase), flat) == []


def test_only_restricts_and_agrees_with_a_denial_of_something_else() -> None:
    kit = Note(
        "web--adr-006-design-kit--2024-01-01",
        "Design kit",
        "## What\nThe design kit only ships markup and styles for its parts.\n",
    )
    react = Note(
        "web--adr-009-react-parts--2025-01-01",
        "React parts",
        "## What\nThe design kit does not ship React parts.\n",
    )
    assert conflicts(claims(react), claims(kit), flat) == []
    styles = Note(react.id, react.title, "## What\nThe design kit does not ship styles.\n")
    assert conflicts(claims(styles), claims(kit), flat)  # it denies what "only" names


def test_two_notes_from_one_frame_about_two_things_are_no_duplicate() -> None:
    """Each title names what its own note is about, and the other note never uses it."""
    forms = Note(
        "web--adr-015-form-library--2024-01-01",
        "Library for the forms",
        "## What\nWe will use one library to build the forms of the service.\n",
    )
    views = Note(
        "web--adr-014-view-library--2024-01-01",
        "Library for the views",
        "## What\nWe will use one library to build the views of the service.\n",
    )
    assert siblings(profile(forms), profile(views))
    worded = Note(
        "web--adr-016-templates--2024-02-01",
        "Library stays for the views",
        "## What\nWe will use one library to build the views of the service.\n",
    )
    assert not siblings(profile(worded), profile(views))  # "stays" is a turn of phrase
    verdict = near_duplicate(
        profile(forms), lambda: claims(forms), profile(views), lambda: claims(views), flat, 0.3
    )
    assert verdict.similarity >= DUPLICATE_FLOOR and not verdict.near_duplicate
