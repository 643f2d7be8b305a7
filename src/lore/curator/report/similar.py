"""The notes most like each note under review, with the curator's judgement on each pair.

`lore review` shows them beside a memory pull request. They are the candidates the
duplicate and contradiction rules judge (`NoteCorpus.candidates`), among the vault's
active notes, judged the same way (`judgement.verdict.judge`): a likely duplicate or
contradiction is marked, with the clauses that conflict, and a note that is neither
is shown only when it is alike enough to be worth a look (`SHOWN_FROM`), so a note
that shares only common words with the new one is left out.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Any

from lore.curator.context.candidates import corpus_of
from lore.curator.context.corpus import MAX_CANDIDATES
from lore.curator.context.model import CuratorContext
from lore.curator.judgement.verdict import judge
from lore.note.model import what_summary

# The likeness (0..1) a note that is neither verdict needs to be shown. On the public eval
# vault (eval/, as one pull request) the hard negatives — same subject, another lesson —
# score 0.2-0.4, while half of the other candidates, alike in everyday words, score
# under 0.18.
SHOWN_FROM = 0.2
DUPLICATE = "duplicate"
CONTRADICTION = "contradiction"


@dataclass(frozen=True)
class SimilarNote:
    """An active note like one under review, and what the curator makes of the pair."""

    id: str
    title: str
    summary: str
    score: float  # the likeness, 0..1 (`near_duplicate_threshold` marks a duplicate)
    verdict: str = ""  # DUPLICATE, CONTRADICTION, or "" when it is neither
    mine: str = ""  # for a contradiction: the clause of the note under review...
    theirs: str = ""  # ...the clause of this note it conflicts with...
    detail: str = ""  # ...and how ("10 messages against 100 messages"); for a duplicate,
    # how alike the two are and the words both use

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": self.id,
            "title": self.title,
            "summary": self.summary,
            "score": self.score,
            "verdict": self.verdict or None,
        }
        if self.verdict == CONTRADICTION:
            data["clauses"] = {"mine": self.mine, "theirs": self.theirs, "detail": self.detail}
        elif self.verdict == DUPLICATE:
            data["detail"] = self.detail
        return data


def similar_notes(context: CuratorContext, limit: int) -> dict[str, list[SimilarNote]]:
    """For each note under review (by the path findings name): up to `limit` notes, the
    ones the curator flags first, then by likeness."""
    corpus = corpus_of(context)
    inactive = context.statuses_before
    threshold = context.settings.near_duplicate_threshold
    found: dict[str, list[SimilarNote]] = {}
    for index in corpus.reviewed():
        entry = corpus.entries[index]

        def eligible(other: int) -> bool:
            theirs = corpus.entries[other]
            return not theirs.reviewed and theirs.view.id not in inactive

        shown = []
        for other in corpus.candidates(index, eligible, MAX_CANDIDATES):
            theirs = corpus.entries[other]
            verdict = judge(
                entry.profile,
                partial(corpus.claims, index),
                theirs.profile,
                partial(corpus.claims, other),
                corpus.idf,
                threshold,
            )
            score = round(verdict.likeness.score, 2)
            conflict = verdict.conflict
            if conflict is not None:
                note = SimilarNote(
                    theirs.view.id,
                    theirs.view.title or "",
                    what_summary(theirs.view.body) or "",
                    score,
                    CONTRADICTION,
                    conflict.mine,
                    conflict.theirs,
                    conflict.detail,
                )
            elif verdict.near_duplicate or score >= SHOWN_FROM:
                kind, why = "", ""
                if verdict.near_duplicate:  # in the words of the `duplicate/near` warning
                    alike = verdict.likeness
                    shared = ", ".join(alike.shared(corpus.idf, 4))
                    kind, why = DUPLICATE, f"{alike.explain()}; both say {shared}"
                summary = what_summary(theirs.view.body) or ""
                note = SimilarNote(
                    theirs.view.id, theirs.view.title or "", summary, score, kind, detail=why
                )
            else:
                continue
            shown.append(note)
        shown.sort(key=lambda note: (not note.verdict, -note.score, note.id))
        found[entry.display] = shown[:limit]
    return found
