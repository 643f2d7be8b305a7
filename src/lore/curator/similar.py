"""The notes most like each note under review, with the curator's judgement on each pair.

`lore review` and the pull-request comment show them beside a memory pull request. They
are the candidates the duplicate, contradiction and replacement rules judge
(`NoteCorpus.candidates`, and the notes a replacement cue names), among the vault's
active notes, judged the same way (`lore.curator.rules.pairs`): a likely replacement,
duplicate or contradiction is marked as the rules report it, with the sentence or the
clauses behind it. Each pair has one figure, its whole-note likeness
(`judgement.similarity.whole_note`), and the list is ordered by it after the flagged
notes. A note that is neither is shown only when its likeness (`similarity.likeness`,
the duplicate rule's figure) makes it worth a look (`SHOWN_FROM`), so a note that shares
only common words with the new one is left out.

When the curator flags no replacement or duplicate for a note, its list is the question
"does this replace one of these?" (`asks_replacement`): in 25 of 27 real supersessions
in public ADRs the replaced note was among the new note's three nearest by this figure
(eval/README.md), so a reviewer who glances at three notes catches most of what the
rules cannot.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from lore.curator.context.candidates import corpus_of
from lore.curator.context.model import CuratorContext
from lore.curator.finding import Finding
from lore.curator.judgement.verdict import CONTRADICTION, DUPLICATE, REPLACEMENT
from lore.curator.rules.pairs import active_before, pairs_of
from lore.curator.rules.quoting import spelled
from lore.curator.rules.supersession import RULE as REPLACEMENT_RULE
from lore.curator.rules.supersession import suggested_line
from lore.note.model import what_summary
from lore.sanitize.secret_scan import mask_secrets, scan_secrets

# The likeness (`similarity.likeness`, 0..1) a note that is neither verdict needs to be
# shown. On the public eval vault (eval/, as one pull request) the hard negatives — same
# subject, another lesson — score 0.2-0.4, while half of the other candidates, alike in
# everyday words, score under 0.18; in a vault of a few notes, two shared everyday words
# already make a whole-note likeness of 0.24, so that figure orders the list but does
# not filter it.
SHOWN_FROM = 0.2
SHOWN = 3  # notes listed per note under review (`lore review`, the PR comment)
__all__ = [
    "CONTRADICTION",
    "DUPLICATE",
    "REPLACEMENT",
    "SHOWN",
    "SimilarNote",
    "asks_replacement",
    "similar_notes",
]


@dataclass(frozen=True)
class SimilarNote:
    """An active note like one under review, and what the curator makes of the pair."""

    id: str
    title: str
    summary: str
    score: float  # the whole-note likeness, 0..1: the one figure shown for the pair
    verdict: str = ""  # REPLACEMENT, DUPLICATE, CONTRADICTION, or "" when it is neither
    mine: str = ""  # a contradiction's clause of the note under review; a replacement's cue
    theirs: str = ""  # a contradiction's clause of this note
    detail: str = ""  # how: "100 messages against 10 messages", the words both use, why
    # the new note may replace this one
    suggestion: str = ""  # for a replacement: the `supersedes:` line to add

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
        elif self.verdict == REPLACEMENT:
            data["replacement"] = {
                "sentence": self.mine or None,
                "detail": self.detail,
                "suggestion": self.suggestion,
            }
        return data


def asks_replacement(findings: Iterable[Finding], path: str) -> bool:
    """True when the curator flags no replacement or duplicate of the note at `path`: its
    similar notes are then asked about ("does this replace one of these?")."""
    return not any(
        finding.path == path
        and (finding.rule == REPLACEMENT_RULE or finding.rule.startswith("duplicate/"))
        for finding in findings
    )


def similar_notes(context: CuratorContext, limit: int) -> dict[str, list[SimilarNote]]:
    """For each note under review (by the path findings name): up to `limit` notes, the
    ones the curator flags first, then by whole-note likeness."""
    corpus = corpus_of(context)
    pairs = pairs_of(context)
    active = active_before(context)
    inactive = context.statuses_before
    found: dict[str, list[SimilarNote]] = {}
    for index in corpus.reviewed():
        entry = corpus.entries[index]

        def eligible(other: int) -> bool:
            theirs = corpus.entries[other]
            return not theirs.reviewed and theirs.view.id not in inactive

        replaced = {o: r for o, r in pairs.replacements(index, active) if eligible(o)}
        chosen = [*pairs.candidates(index, eligible), *replaced]
        shown = []
        for other in dict.fromkeys(chosen):
            theirs = corpus.entries[other]
            verdict = pairs.verdict(index, other)
            score = round(verdict.similarity, 2)
            kind = verdict.kind
            if kind == REPLACEMENT and other not in replaced:
                kind = ""  # judged so, but past the rule's limit: not reported
            base = (
                theirs.view.id,
                mask_secrets(theirs.view.title or ""),
                mask_secrets(what_summary(theirs.view.body) or ""),
            )
            if other in replaced:
                replacement = replaced[other]
                cue = replacement.cue.text if replacement.cue is not None else ""
                line = suggested_line(entry, theirs.view.id)
                note = SimilarNote(
                    *base,
                    score,
                    REPLACEMENT,
                    mask_secrets(cue),
                    detail=replacement.reason(),
                    suggestion=line,
                )
            elif kind == CONTRADICTION and verdict.conflict is not None:
                conflict = verdict.conflict
                note = SimilarNote(
                    *base,
                    score,
                    CONTRADICTION,
                    mask_secrets(conflict.mine),
                    mask_secrets(conflict.theirs),
                    mask_secrets(conflict.detail),
                )
            elif kind == DUPLICATE:
                words = _not_secret(
                    entry.view.text, spelled(entry.view, verdict.likeness.shared(corpus.idf, 4))
                )
                note = SimilarNote(*base, score, DUPLICATE, detail=f"both say {', '.join(words)}")
            elif verdict.likeness.score >= SHOWN_FROM:
                note = SimilarNote(*base, score)
            else:
                continue
            shown.append(note)
        shown.sort(key=lambda note: (not note.verdict, -note.score, note.id))
        found[entry.display] = shown[:limit]
    return found


def _not_secret(text: str, words: list[str]) -> list[str]:
    """The shared words a person may be shown: none that is part of a secret in `text`
    (the words come lower-cased from the index, where the scan no longer knows them)."""
    secrets = [match.value.lower() for match in scan_secrets(text)]
    return [word for word in words if not any(word.lower() in value for value in secrets)]
