"""What a decision's title chooses and what for, and another choice for the same purpose
(issue 20: "the same decision taken differently on the same subject")."""

from __future__ import annotations

from lore.curator.judgement.notes import profile
from lore.curator.judgement.replacement import replacement
from lore.text.choices import NO_CHOICE, choice_of, rechosen
from lore.text.cue_sentences import cues
from tests.curator.judged import Note, flat


def test_the_two_title_shapes_name_a_choice_and_its_purpose() -> None:
    assert choice_of("Use Mailgun for receipts") == (frozenset({"receipt"}), frozenset({"mailgun"}))
    assert choice_of("use-mailgun-for-receipts") == choice_of("Use Mailgun for receipts")
    assert choice_of("Receipts via Mailgun") == (frozenset({"receipt"}), frozenset({"mailgun"}))
    assert choice_of("Front-end testing") == NO_CHOICE


def test_another_choice_for_the_same_purpose() -> None:
    mailgun = choice_of("Use Mailgun for receipts")
    assert rechosen(choice_of("Use Amazon SES for receipts"), mailgun)
    assert not rechosen(choice_of("Use Mailgun for alerts"), mailgun)  # another purpose
    assert not rechosen(choice_of("Use Mailgun templates for receipts"), mailgun)  # the same
    assert not rechosen(choice_of("Receipts"), mailgun)


def test_a_title_making_another_choice_replaces_the_first() -> None:
    old = Note("shop--adr-003--2023-01-01", "Use Mailgun for receipts", "## What\nMailgun.\n")
    new = Note("shop--adr-011--2025-01-01", "Use Amazon SES for receipts", "## What\nSES.\n")
    found = replacement(cues(new), profile(old), 0.2, flat, profile(new))
    assert found is not None and found.how == "rechosen" and found.cue is None
    assert replacement(cues(new), profile(old), 0.05, flat, profile(new)) is None  # unalike
