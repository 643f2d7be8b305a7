"""What the curator reports about one pair of notes: a replacement, a contradiction, a near
duplicate, or nothing.

One place decides, for the rules, for `lore review`'s similar notes and for the judged
sets (eval/curator):
- every verdict needs the two notes to be about the same thing: alike as whole notes
  (`similarity.whole_note`, IDF-weighted, at least `CONTRADICTION_FLOOR` for a
  contradiction and `DUPLICATE_FLOOR` for a near duplicate), not only sharing a few
  words in two clauses;
- a replacement (`replacement.replacement`): the new note says it replaces the other
  (a cue naming it, its number or its subject), or takes the same decision again under
  nearly the same title; it is a warning that suggests `supersedes`;
- a contradiction needs notes on the same subject (`similarity.Subject.same`) and at
  least one pair of conflicting clauses (`claims.conflicts`);
- a near duplicate needs a likeness at or above the vault's `near_duplicate_threshold`,
  titles that share something (`DUPLICATE_TITLE`) and no contradiction: two notes that
  disagree are not one lesson told twice; nor are two notes from one frame whose titles
  each name a word the other note never uses (`similarity.siblings`: "Library for the
  forms", "Library for the views").

`Verdict.kind` is what the rules report for the pair, one finding per pair: a
replacement the note states, else a contradiction, else a near duplicate, else a
replacement by a retaken title. Clauses are read only when a pair needs them
(`ClaimsOf` is called lazily), because a full audit judges tens of thousands of pairs
and most are settled by their terms.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from lore.curator.judgement.claims import Conflict, conflicts
from lore.curator.judgement.notes import Profile
from lore.curator.judgement.replacement import Replacement, agrees, replacement
from lore.curator.judgement.similarity import Likeness, likeness, siblings, subject, whole_note
from lore.curator.judgement.terms import Idf
from lore.text.clauses import Claims
from lore.text.cue_sentences import Cue

ClaimsOf = Callable[[], Claims]

# Whole-note likeness (IDF-weighted cosine) a verdict needs. On the public judged set
# the least alike contradiction scores 0.19 and the least alike duplicate 0.31; on real
# ADRs, most contradictions between notes about different things score under 0.17.
CONTRADICTION_FLOOR = 0.17
DUPLICATE_FLOOR = 0.25
# A lesson told twice is named alike too: every labelled duplicate of the public set
# shares at least 0.07 of its title weight; real ADRs alike only in pasted boilerplate
# share none.
DUPLICATE_TITLE = 0.05

REPLACEMENT, CONTRADICTION, DUPLICATE = "replacement", "contradiction", "duplicate"
EXPLICIT = frozenset({"links", "number", "referenced"})


@dataclass(frozen=True)
class Verdict:
    likeness: Likeness
    conflict: Conflict | None  # the strongest conflict, when it was looked for and found
    threshold: float
    similarity: float = 0.0  # the whole-note likeness (`similarity.whole_note`)
    replacement: Replacement | None = None
    siblings: bool = False  # two notes from one frame about two things (`similarity.siblings`)

    @property
    def near_duplicate(self) -> bool:
        return (
            self.conflict is None
            and not self.siblings
            and self.likeness.score >= self.threshold
            and self.similarity >= DUPLICATE_FLOOR
            and self.likeness.title >= DUPLICATE_TITLE
        )

    @property
    def kind(self) -> str:
        """What the rules report for the pair: REPLACEMENT, CONTRADICTION, DUPLICATE or ""."""
        stated = self.replacement is not None and self.replacement.cue is not None
        if stated:
            return REPLACEMENT
        if self.conflict is not None:
            return CONTRADICTION
        if self.near_duplicate:
            return DUPLICATE
        return REPLACEMENT if self.replacement is not None else ""


def contradiction(  # positional arguments: the pair, its two readers, the weights, the likeness
    mine: Profile,
    my_claims: ClaimsOf,
    theirs: Profile,
    their_claims: ClaimsOf,
    idf: Idf,
    similarity: float | None = None,
) -> Conflict | None:
    """The strongest conflict between two notes on the same subject, if any."""
    if not subject(mine, theirs).same:
        return None
    alike = whole_note(mine, theirs, idf) if similarity is None else similarity
    if alike < CONTRADICTION_FLOOR:
        return None
    found = conflicts(my_claims(), their_claims(), idf)
    return found[0] if found else None


def near_duplicate(  # positional arguments: the pair, its two readers, the weights and the bar
    mine: Profile,
    my_claims: ClaimsOf,
    theirs: Profile,
    their_claims: ClaimsOf,
    idf: Idf,
    threshold: float,
) -> Verdict:
    """The duplicate verdict: clauses are compared only for a pair alike enough to report."""
    alike = likeness(mine, theirs, idf)
    similarity = whole_note(mine, theirs, idf)
    conflict = None
    if alike.score >= threshold and similarity >= DUPLICATE_FLOOR:
        conflict = contradiction(mine, my_claims, theirs, their_claims, idf, similarity)
    return Verdict(alike, conflict, threshold, similarity, siblings=siblings(mine, theirs))


def judge(  # positional arguments: as near_duplicate, and both notes' replacement cues
    mine: Profile,
    my_claims: ClaimsOf,
    theirs: Profile,
    their_claims: ClaimsOf,
    idf: Idf,
    threshold: float,
    cues: tuple[Cue, ...] = (),
    their_cues: tuple[Cue, ...] = (),
) -> Verdict:
    """Every verdict on a pair: likeness, strongest conflict and replacement, if any."""
    similarity = whole_note(mine, theirs, idf)
    replaced = replacement(cues, theirs, similarity, idf, mine, their_cues)
    if replaced is not None and replaced.how == "subject" and replaced.cue is not None:
        ruled_out = frozenset().union(*(clause.focus for clause in their_claims().clauses))
        if agrees(replaced.cue, ruled_out, idf):
            replaced = None
    if replaced is not None and replaced.how not in EXPLICIT and subject(mine, theirs).different:
        replaced = None  # only a link or a number crosses repositories or services
    return Verdict(
        likeness(mine, theirs, idf),
        contradiction(mine, my_claims, theirs, their_claims, idf, similarity),
        threshold,
        similarity,
        replaced,
        siblings(mine, theirs),
    )
