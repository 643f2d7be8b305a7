"""`contradiction/`: a note that says the opposite of an active note on the same subject.

The notes are compared clause by clause (`lore.curator.judgement.claims`): the same
quantity with a different value once units are converted (10 messages against 100;
5 s against 10000 ms), the same claim with opposite polarity (always/never,
must/must not, enabled/disabled, required/optional), or "A, not B" in one note
against B asserted in the other. Two notes are on the same subject when nothing sets
them apart (different repositories or services) and a file, tag or repository joins
them. Each finding quotes both clauses and names both notes; it is always a warning,
because a person decides which note is right.

Notes that supersede one another are not compared, and an inactive note (superseded,
expired or stale) is not contradicted. Which notes are judged is
`lore.curator.context.candidates`' decision.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from lore.curator.context.candidates import NoteCorpus, candidates, corpus_of
from lore.curator.context.model import CuratorContext
from lore.curator.finding import WARNING, Finding
from lore.curator.judgement.claims import Conflict
from lore.curator.judgement.verdict import contradiction
from lore.curator.rules.text import quote

NAME = "contradiction"
RULES = {
    "contradiction/opposite-claim": "a clause says the opposite of one in an active note on "
    "the same subject, or asserts what it rules out (warning)",
    "contradiction/different-number": "a clause gives a different number for the same "
    "quantity than an active note on the same subject (warning)",
}

MAX_PER_NOTE = 5
_RULE_OF = {
    "number": "contradiction/different-number",
    "polarity": "contradiction/opposite-claim",
    "alternative": "contradiction/opposite-claim",
}
_VERB_OF = {
    "number": "gives a different number than",
    "polarity": "says the opposite of",
    "alternative": "says the opposite of",
}


def check(context: CuratorContext) -> list[Finding]:
    corpus = corpus_of(context)
    reviewed = corpus.reviewed()
    if not reviewed:
        return []
    inactive = context.statuses_after if context.audit else context.statuses_before

    def active(other: int) -> bool:
        """A note of the vault active before the change; any note under review before this
        one (in an audit, an active one)."""
        entry = corpus.entries[other]
        if entry.reviewed and not context.audit:
            return True
        return entry.view.id not in inactive

    findings: list[Finding] = []
    for index in reviewed:
        findings += _check_note(corpus, index, active)
    return findings


def _check_note(corpus: NoteCorpus, index: int, eligible: Callable[[int], bool]) -> list[Finding]:
    entry = corpus.entries[index]
    findings: list[Finding] = []
    for other in candidates(corpus, index, eligible):
        theirs = corpus.entries[other]
        found = contradiction(
            entry.profile,
            partial(corpus.claims, index),
            theirs.profile,
            partial(corpus.claims, other),
            corpus.idf,
        )
        if found is None:
            continue
        findings.append(_finding(entry.display, theirs.view.id, found))
        if len(findings) == MAX_PER_NOTE:
            break
    return findings


def _finding(path: str, other_id: str, conflict: Conflict) -> Finding:
    return Finding(
        _RULE_OF[conflict.kind],
        WARNING,
        path,
        None,
        f"this note {_VERB_OF[conflict.kind]} {other_id}, an active note on the same subject: "
        f'"{quote(conflict.mine, 100)}" against "{quote(conflict.theirs, 100)}" '
        f"({conflict.detail})",
        f"If this note is right, add `supersedes: [{other_id}]`; if not, fix one of them.",
    )
