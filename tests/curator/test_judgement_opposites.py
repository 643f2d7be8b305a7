"""The opposite words the judgement reads as a denial (`claims.OPPOSITES`, `SAME_AS`),
each with an example pair of claims it opposes, from unrelated kinds of engineering
notes. A word added to the lists without an example here fails the coverage test."""

from __future__ import annotations

import pytest

from lore.curator.judgement.claims import conflicts
from lore.text.clauses import OPPOSITES, SAME_AS, claims
from lore.text.words import stem
from tests.curator.judged import Note, flat

# (the word, a claim, the same claim with its opposite, the kind of note it comes from)
EXAMPLES = [
    ("enable", "Request tracing is enabled in the payments API.",
     "Request tracing is disabled in the payments API.", "observability note"),
    ("allow", "The gateway allows uploads from partner accounts.",
     "The gateway blocks uploads from partner accounts.", "API policy"),
    ("permitted", "Direct pushes to main are permitted for release managers.",
     "Direct pushes to main are prohibited for release managers.", "repository rules"),
    ("accept", "The webhook endpoint accepts unsigned events.",
     "The webhook endpoint rejects unsigned events.", "security decision"),
    ("include", "The nightly backup includes the audit tables.",
     "The nightly backup excludes the audit tables.", "runbook"),
    ("required", "A ticket number is required in every commit message.",
     "A ticket number is optional in every commit message.", "contributing guide"),
    ("mandatory", "Code review is mandatory for infrastructure changes.",
     "Code review is optional for infrastructure changes.", "team convention"),
    ("compulsory", "Two-factor sign-in is compulsory for contractors.",
     "Two-factor sign-in is optional for contractors.", "access policy"),
    ("sync", "The invoice export runs as a sync job.",
     "The invoice export runs as an async job.", "billing ADR"),
    ("synchronous", "Search indexing is synchronous on save.",
     "Search indexing is asynchronous on save.", "search ADR"),
    ("use", "The mobile app uses the GraphQL gateway for profile reads.",
     "The mobile app avoids the GraphQL gateway for profile reads.", "mobile gotcha"),
    ("valid", "Tokens from the staging issuer are valid in production.",
     "Tokens from the staging issuer are invalid in production.", "auth gotcha"),
    ("supported", "Python 3.9 is supported by the deploy tooling.",
     "Python 3.9 is unsupported by the deploy tooling.", "tooling note"),
    ("safe", "Retrying the refund call is safe.",
     "Retrying the refund call is unsafe.", "payments gotcha"),
    ("secure", "The legacy TLS profile is secure for internal traffic.",
     "The legacy TLS profile is insecure for internal traffic.", "network decision"),
    ("stateful", "The session service is stateful.",
     "The session service is stateless.", "architecture note"),
]  # fmt: skip


def _note(n: int, text: str) -> Note:
    return Note(f"team--claim-{n}--2025-01-0{n}", text, f"## What\n{text}\n")


@pytest.mark.parametrize(("word", "claim", "opposite", "source"), EXAMPLES)
def test_each_opposite_pair_is_read_as_a_denial(
    word: str, claim: str, opposite: str, source: str
) -> None:
    one, other = claims(_note(1, claim)), claims(_note(2, opposite))
    assert [c.kind for c in conflicts(one, other, flat)][:1] == ["polarity"], source
    assert conflicts(one, claims(_note(2, claim)), flat) == [], source  # the same claim agrees


def test_every_opposite_word_has_an_example() -> None:
    listed = {stem(word) for word in OPPOSITES} | {stem(word) for word in SAME_AS}
    shown = {stem(word) for word, *_ in EXAMPLES}
    assert listed - shown - {stem("true")} == set()  # "true" folds onto "enabled"
    assert len({source for *_, source in EXAMPLES}) >= 3
