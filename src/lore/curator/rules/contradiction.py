"""`contradiction/`: a note that says the opposite of an active note on the same subject.

The notes are compared clause by clause (`lore.text.clauses` reads them,
`lore.curator.judgement.claims` compares): the same quantity with a different value once
units are converted (10 messages against 100; 5 s against 10000 ms), the same claim with
opposite polarity (always/never, must/must not, enabled/disabled, required/optional), or
"A, not B" in one note against B asserted in the other. Two notes are on the same
subject when nothing sets them apart (different repositories or services), a file, tag
or repository joins them and their whole notes are alike
(`judgement.verdict.CONTRADICTION_FLOOR`): notes that share a few words in two clauses
but are about different things never contradict. When the new note says it replaces the
other, the replacement is reported instead (`lifecycle/may-supersede`). Each finding
quotes both clauses, names both notes (the other as a note of the same change when it is
one) and points at the line of the new note's clause; it is always a warning, because a
person decides which note is right.

Notes that supersede one another are not compared, and an inactive note (superseded,
expired or stale) is not contradicted. Which notes are judged is
`lore.curator.context.candidates`' decision.
"""

from __future__ import annotations

from collections.abc import Callable

from lore.curator.context.candidates import Entry, NoteCorpus, corpus_of
from lore.curator.context.model import CuratorContext
from lore.curator.finding import WARNING, Finding
from lore.curator.judgement.claims import Conflict
from lore.curator.judgement.verdict import CONTRADICTION
from lore.curator.rules.pairs import Pairs, active_before, pairs_of
from lore.curator.rules.quoting import line_of, summary_line
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
    active = active_before(context)
    pairs = pairs_of(context)
    findings: list[Finding] = []
    for index in reviewed:
        findings += check_note(corpus, pairs, index, active)
    return findings


def check_note(
    corpus: NoteCorpus, pairs: Pairs, index: int, eligible: Callable[[int], bool]
) -> list[Finding]:
    """The contradictions of note `index`; `eligible` is `active_before(context)`."""
    entry = corpus.entries[index]
    findings: list[Finding] = []
    for other in pairs.candidates(index, eligible):
        verdict = pairs.verdict(index, other)
        if verdict.kind != CONTRADICTION or verdict.conflict is None:
            continue
        theirs = corpus.entries[other]
        findings.append(_finding(entry, theirs.view.id, theirs.reviewed, verdict.conflict))
        if len(findings) == MAX_PER_NOTE:
            break
    return findings


def _finding(entry: Entry, other_id: str, in_change: bool, conflict: Conflict) -> Finding:
    which = "another note of this change" if in_change else "an active note on the same subject"
    return Finding(
        _RULE_OF[conflict.kind],
        WARNING,
        entry.display,
        line_of(entry.view, conflict.mine) or summary_line(entry.view),
        f"this note {_VERB_OF[conflict.kind]} {other_id}, {which}: "
        f'"{quote(conflict.mine, 100)}" against "{quote(conflict.theirs, 100)}" '
        f"({conflict.detail})",
        f"If this note is right, add `supersedes: [{other_id}]`; if not, fix one of them.",
        about=other_id,
    )
