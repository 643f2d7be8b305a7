"""The judgement on wording that real decision records use, each case in prose written here.

Every test below failed before the rule it checks (issue 20, real decisions): a sentence
that only looks like a replacement must give no cue, a replacement that a record states
in its own way must be found, and a clause that takes no side must contradict nothing.
"""

from __future__ import annotations

from lore.curator.judgement.claims import conflicts
from lore.curator.judgement.notes import profile
from lore.curator.judgement.replacement import replacement
from lore.text.clauses import claims
from lore.text.cue_sentences import cues
from lore.text.cues import REFERENCE, REPLACE
from tests.curator.judged import Note, flat


def kinds(body: str, title: str = "Payment retries") -> list[str]:
    found = cues(Note("pay--retries--2026-01-01", title, body))
    return [cue.kind for cue in found if cue.kind != REFERENCE]


# ---- sentences that only look like replacements ----


def test_a_quoted_user_story_is_someone_elses_words_not_a_cue() -> None:
    body = (
        "## What\nA treasurer can leave the role on their own.\n\n"
        "> As a treasurer who changed jobs, I want to retire from the role so that I no "
        "longer see the ledger.\n"
    )
    assert kinds(body) == []


def test_a_negated_replace_says_nothing_is_replaced() -> None:
    body = (
        "## What\nWe will not replace the card vault this year.\n\n"
        "Officers can be removed without requiring replacement signers.\n\n"
        "The ledger isn't deprecated.\n"
    )
    assert kinds(body) == []
    assert kinds("## What\nThe card vault replaces the token table.\n") == [REPLACE]


def test_a_cue_word_inside_a_link_names_the_linked_document() -> None:
    body = (
        "## What\nThis record assumes that [replacing the signer with a hardware key]"
        "(https://example.org/proposals/41) was accepted.\n\n"
        "It builds on [[pay--0014-replace-card-tokens--2025-02-01]] for the vault.\n"
    )
    assert kinds(body) == []


def test_an_example_is_not_the_decision() -> None:
    body = (
        "## Why\nMerchants are slow to act, so we give a long window (for example six "
        "months for the old API deprecation) and send reminders.\n\n"
        "Some changes need planning, e.g. the retirement of the ledger export.\n"
    )
    assert kinds(body) == []


def test_is_used_to_is_the_passive_of_use_not_history() -> None:
    body = "## What\nA new endpoint can be used to fetch the retry schedule.\n"
    assert kinds(body) == []
    assert kinds("## Why\nThe jobs used to run every night.\n") == ["history"]


def test_the_remaining_cues_still_name_what_they_replace() -> None:
    """A note whose first sentence only describes an endpoint "used to" fetch something
    still replaces the note whose subject its `retire` sentence names."""
    old = Note(
        "forms--adr-004-schemas-in-an-api--2022-02-18",
        "Store form schemas in an API",
        "## What\nForm schemas are served by a separate API app.\n",
    )
    new = Note(
        "forms--adr-045-drop-the-api--2025-08-19",
        "Serve form schemas from the admin app",
        "## What\nThe admin app gets endpoints that can be used to fetch form schemas.\n\n"
        "We will retire the form schemas API.\n",
    )
    found = replacement(cues(new), profile(old), 0.25, flat, profile(new))
    assert found is not None and found.how == "subject"
    assert found.cue is not None and "retire" in found.cue.text


# ---- clauses that take no side ----


def test_neither_nor_is_one_denial() -> None:
    """ "Neither A nor B signed it" denies, as "no one signed it" does: they agree."""
    one = Note(
        "pay--sign-off--2026-01-01", "Sign-off", "## What\nNo treasurer signed the refund.\n"
    )
    other = Note(
        "pay--refunds--2025-01-01",
        "Refunds",
        "## What\nNeither the clerk nor the treasurer signed the refund.\n",
    )
    assert conflicts(claims(one), claims(other), flat) == []
    signed = Note(
        "pay--signed--2025-02-01", "Signed", "## What\nThe treasurer signed the refund.\n"
    )
    assert conflicts(claims(signed), claims(other), flat)  # an assertion still clashes


def test_a_clause_naming_both_sides_of_an_opposite_takes_neither() -> None:
    listing = Note(
        "pay--fields--2025-01-01",
        "Fields",
        "## What\nEach schema lists its optional/required fields for the payout form.\n",
    )
    required = Note(
        "pay--payout--2026-01-01",
        "Payout",
        "## What\nThe schema lists the required fields for the payout form.\n",
    )
    assert conflicts(claims(required), claims(listing), flat) == []
    optional = Note(
        "pay--payout-optional--2026-01-01",
        "Payout",
        "## What\nThe schema lists the optional fields for the payout form.\n",
    )
    assert conflicts(claims(required), claims(optional), flat)  # one side each: a clash


# ---- replacements a record states in its own way ----

REFUNDS_OLD = Note(
    "pay--adr-007-refund-window--2024-03-01",
    "Refund window",
    "## What\nCustomers may ask for a refund within 30 days.\n",
)


def test_the_same_title_again_naming_the_old_record_is_a_replacement() -> None:
    """A second version under the old title that names the old record by number replaces
    it even when most of its words are new (its figures and reasons changed)."""
    again = Note(
        "pay--adr-019-refund-window-2--2025-06-01",
        "Refund window 2",
        "## Why\nWe have run the policy of ADR 7 for a year and chargebacks fell.\n\n"
        "## What\nCustomers may ask for a refund within 60 days of delivery.\n",
    )
    found = replacement(cues(again), profile(REFUNDS_OLD), 0.15, flat, profile(again))
    assert found is not None and found.how == "retaken"
    unnamed = Note(again.id, again.title, "## What\nRefunds within 60 days of delivery.\n")
    assert replacement(cues(unnamed), profile(REFUNDS_OLD), 0.15, flat, profile(unnamed)) is None


def test_a_title_that_removes_the_old_subject_is_a_replacement() -> None:
    old = Note(
        "pay--adr-003-use-a-card-proxy--2023-01-10",
        "Route card payments through a card proxy",
        "## What\nCard details reach the processor through our own card proxy.\n",
    )
    new = Note(
        "pay--adr-021-remove-the-card-proxy--2025-09-02",
        "Remove the card proxy",
        "## What\nThe checkout posts card details to the processor's hosted fields.\n",
    )
    found = replacement(cues(new), profile(old), 0.2, flat, profile(new))
    assert found is not None and found.how == "subject" and found.cue is not None
    assert found.cue.offset == -1  # the title says it
    step = Note(new.id, "Card proxy upgrades", "## What\nRemove the card proxy's old TLS keys.\n")
    assert replacement(cues(step), profile(old), 0.2, flat, profile(step)) is None


def test_what_a_numbered_record_decided_will_now_be_something_else() -> None:
    """ "The layout of ADR 7 will now be:" changes what that record decided."""
    new = Note(
        "pay--adr-012-ledger-layout--2025-01-01",
        "Ledger file layout",
        "## What\nThe export part of ADR 7 will now be:\n\n- one file per merchant\n",
    )
    found = replacement(cues(new), profile(REFUNDS_OLD), 0.0, flat, profile(new))
    assert found is not None and found.how == "number"
    builds = Note(new.id, new.title, "## What\nThe export follows ADR 7 and adds a footer.\n")
    assert replacement(cues(builds), profile(REFUNDS_OLD), 0.0, flat, profile(builds)) is None


def test_a_negation_in_a_condition_does_not_deny_the_claim() -> None:
    setup = Note(
        "pay--payout-account--2025-01-01",
        "Payout accounts",
        "## What\nThe onboarding job creates the merchant's payout account.\n",
    )
    conditional = Note(
        "pay--onboarding--2026-01-01",
        "Onboarding",
        "## What\nThe onboarding job creates the merchant's payout account, if no such "
        "account exists yet.\n",
    )
    assert conflicts(claims(conditional), claims(setup), flat) == []
    denied = Note(
        "pay--onboarding-2--2026-01-01",
        "Onboarding",
        "## What\nThe onboarding job never creates the merchant's payout account.\n",
    )
    assert conflicts(claims(denied), claims(setup), flat)  # a denial of the claim clashes


def test_a_dotted_name_is_one_object_not_a_stop() -> None:
    """ "instead of ACME.IO Mailer" replaces the mailer, not every note that names ACME."""
    weight = {"mailer": 4.0, "payment": 4.0}

    def idf(term: str) -> float:
        return weight.get(term, 2.0)

    new = Note(
        "pay--adr-030-mail-provider--2026-01-01",
        "Pick a mail provider",
        "## What\nWe will choose a provider to use instead of ACME.IO Mailer.\n",
    )
    payments = Note("pay--adr-002-payments--2023-01-01", "Use ACME.IO Payments", "## What\nA.\n")
    mailer = Note("pay--adr-003-mailer--2023-01-01", "Use ACME.IO Mailer", "## What\nB.\n")
    assert replacement(cues(new), profile(payments), 0.3, idf, profile(new)) is None
    found = replacement(cues(new), profile(mailer), 0.3, idf, profile(new))
    assert found is not None and found.how == "subject"


def test_the_note_linked_after_in_favour_of_is_the_new_thing() -> None:
    hosted = Note("pay--adr-022-hosted-fields--2025-05-01", "Hosted card fields", "## What\nA.\n")
    new = Note(
        "pay--adr-031-checkout--2026-02-01",
        "One checkout",
        f"## What\nWe switched off the old card form in favour of [[{hosted.id}]].\n",
    )
    assert replacement(cues(new), profile(hosted), 0.3, flat, profile(new)) is None
    replaced = Note(
        new.id, new.title, f"## What\nThe [[{hosted.id}]] flow is deprecated in favour of links.\n"
    )
    found = replacement(cues(replaced), profile(hosted), 0.3, flat, profile(replaced))
    assert found is not None and found.how == "links"


def test_text_moved_from_another_record_is_where_it_comes_from() -> None:
    assert kinds("## What\nThe contents of this record were moved from ADR 8 for review.\n") == []
    assert kinds("## What\nThis section was moved from the onboarding note.\n") == []
    assert kinds("## What\nThe payment service was moved from Heroku to AWS.\n") == ["switch"]


def test_an_html_comment_is_no_claim() -> None:
    """A template's hint ("<!-- optional -->") is not shown to a reader and claims nothing:
    here it once read as the opposite of a note that says something is required."""
    hinted = Note(
        "web--adr-040-status-page--2026-03-01",
        "Status page",
        "## What\nBenefits of the hosted status page <!-- optional -->\n\n- Ships this week.\n",
    )
    plain = Note(
        "web--adr-012-status-page-host--2025-01-01",
        "Status page host",
        "## What\nBenefits of the hosted status page are required reading.\n",
    )
    assert all("optional" not in clause.text for clause in claims(hinted).clauses)
    assert conflicts(claims(hinted), claims(plain), flat) == []
