"""`lore.text.cues`: every cue kind and every reason a cue is not the note's own, shown by
at least three examples from unrelated sources.

A source names where a sentence comes from: "ADR" rows quote (or closely follow) a public
decision record read by the real-ADR eval; the others are written for this table in the
voice of another kind of document (a runbook, an API changelog, a style guide …), so
that no reason rests on one document's sentence. Each reason's examples must need it:
with that reason left out, the cue would be kept.
"""

from __future__ import annotations

import pytest

from lore.text.cues import (
    HISTORY,
    REPLACE,
    REVISE,
    SUPERSEDE,
    SWITCH,
    UNSAID,
    cue_words,
)

# (kind, sentence, the cue word, source): a cue the note speaks for.
KEPT = [
    (SUPERSEDE, "This decision supersedes ADR 12.", "supersedes", "ADR"),
    (
        SUPERSEDE,
        "The retention policy below supersedes the one agreed in March.",
        "supersedes",
        "team note",
    ),
    (SUPERSEDE, "This amends ADR 4: alerts page the secondary first.", "amends", "on-call runbook"),
    (REPLACE, "We replace Jenkins with GitHub Actions.", "replace", "ADR"),
    (REPLACE, "The v1 endpoints are deprecated.", "deprecated", "API changelog"),
    (REPLACE, "We retire the legacy billing worker.", "retire", "team note"),
    (REVISE, "This overrides the timeout set in ADR 7.", "overrides", "ADR"),
    (REVISE, "An update to the earlier decision on caching.", "update to", "team note"),
    (REVISE, "This is a revision of the logging guideline.", "revision of", "style guide"),
    (SWITCH, "Use Postgres instead of MySQL.", "instead of", "team note"),
    (SWITCH, "We no longer run nightly builds.", "no longer", "CI handbook"),
    (SWITCH, "We are moving away from Heroku.", "moving away from", "ADR"),
    (HISTORY, "Previously each service kept its own config.", "Previously", "ADR"),
    (HISTORY, "From now on every change needs a review.", "From now on", "contributing guide"),
    (HISTORY, "We used to deploy by hand.", "used to", "runbook"),
]

# (reason, sentence, the cue word, source): a cue that does not speak for the note.
UNSAID_EXAMPLES = [
    (
        "aside",
        "See [Replace the signer](https://example.org/adr/14) for background.",
        "Replace",
        "ADR",
    ),
    (
        "aside",
        "Some tools (for example, the deprecated v1 CLI) still print warnings.",
        "deprecated",
        "runbook",
    ),
    (
        "aside",
        "Clients may still send old fields, e.g. the superseded user_name.",
        "superseded",
        "API changelog",
    ),
    ("negated", "We will not replace the message broker this year.", "replace", "team note"),
    ("negated", "It does not revisit ADR 39.", "revisit", "ADR"),
    ("negated", "The new API ships without replacing the old one.", "replacing", "API changelog"),
    (
        "conditional",
        "Return 409 if a later submission has already superseded it.",
        "superseded",
        "ADR",
    ),
    (
        "conditional",
        "Rotate the key if the vendor deprecates the old algorithm.",
        "deprecates",
        "security runbook",
    ),
    (
        "conditional",
        "Ask the owner whether the new page replaces the old one.",
        "replaces",
        "style guide",
    ),
    ("own-text", "This addendum supersedes earlier references in this ADR.", "supersedes", "ADR"),
    (
        "own-text",
        "The table below replaces the list of ports in this document.",
        "replaces",
        "network policy",
    ),
    ("own-text", "Section 4 is replaced by the text of this page.", "replaced", "handbook"),
    ("purpose", "The token is used to sign requests.", "used to", "API reference"),
    ("purpose", "Redis can be used to share sessions.", "used to", "ADR"),
    ("purpose", "This flag was used to gate the beta.", "used to", "release notes"),
    ("moved-text", "The contents of this record were moved from ADR 8.", "moved from", "ADR"),
    ("moved-text", "This section was moved from the README.", "moved from", "docs site"),
    ("moved-text", "The wording is moved from the old onboarding page.", "moved from", "wiki"),
    ("hoped", "This will enable us to retire the legacy queue.", "retire", "ADR"),
    ("hoped", "We might deprecate the XML export next year.", "deprecate", "roadmap"),
    ("hoped", "Possibly replacing the cron jobs with a scheduler.", "replacing", "RFC"),
    (
        "hoped",
        "The importer allows users to switch from CSV to JSON.",
        "switch from",
        "product docs",
    ),
    ("hoped", "This page explains how to migrate from the v1 SDK.", "migrate from", "SDK docs"),
    ("status-line", "Status: superseded by ADR 20", "superseded", "ADR (Nygard template)"),
    ("status-line", "Status — Deprecated", "Deprecated", "ADR (MADR template)"),
    ("status-line", "STATUS: Replaced", "Replaced", "RFC header"),
    (
        "not-ours",
        "Chains that transition from the old client must re-register.",
        "transition from",
        "ADR",
    ),
    (
        "not-ours",
        "Teams who migrate from Jenkins keep their pipelines.",
        "migrate from",
        "migration guide",
    ),
    ("not-ours", "The move from no cache to a cache halved latency.", "move from", "postmortem"),
    ("amends-a-thing", "Agents may fetch or amend data in the ledger.", "amend", "ADR"),
    ("amends-a-thing", "The script is updated to add a field.", "updated to", "changelog"),
    ("amends-a-thing", "Reviewers amend the changelog before release.", "amend", "release runbook"),
    ("dated-edit", "Amended: 2020-12-01 - clarified the scope.", "Amended", "ADR"),
    ("dated-edit", "Updated to 2021-03 after the audit.", "Updated to", "policy page"),
    ("dated-edit", "amended 12/05/2024 to fix a typo", "amended", "wiki"),
]


def _cues(sentence: str, unsaid=UNSAID) -> list[str]:
    return [text for _, _, _, text in cue_words(sentence, False, unsaid)]


@pytest.mark.parametrize(("kind", "sentence", "cue", "source"), KEPT)
def test_a_cue_the_note_speaks_for_is_kept(kind: str, sentence: str, cue: str, source: str) -> None:
    found = [(k, text) for k, _, _, text in cue_words(sentence, False)]
    assert (kind, cue) in found, source


@pytest.mark.parametrize(("reason", "sentence", "cue", "source"), UNSAID_EXAMPLES)
def test_a_cue_that_is_not_the_notes_is_dropped_and_needs_its_reason(
    reason: str, sentence: str, cue: str, source: str
) -> None:
    assert cue not in _cues(sentence), source
    without = [u for u in UNSAID if u.name != reason]
    assert cue in _cues(sentence, without), f"{reason} is not what drops it"


def test_every_cue_kind_and_reason_has_three_examples_from_three_sources() -> None:
    for kind in (SUPERSEDE, REPLACE, REVISE, SWITCH, HISTORY):
        sources = [source for k, _, _, source in KEPT if k == kind]
        assert len(sources) >= 3 and len(set(sources)) >= 3, kind
    for reason in UNSAID:
        sources = [source for r, _, _, source in UNSAID_EXAMPLES if r == reason.name]
        assert len(sources) >= 3 and len(set(sources)) >= 3, reason.name
        assert reason.principle.count(". ") == 0 and reason.principle.endswith("."), reason.name


def test_a_title_that_removes_something_is_a_cue_in_a_title_only() -> None:
    for title in ("Remove the export proxy", "Drop IPsec", "Get rid of the shared cache"):
        assert [k for k, *_ in cue_words(title, True)] == [REPLACE], title
        assert cue_words(title, False) == [], title
