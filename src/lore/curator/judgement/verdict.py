"""What the curator reports about one pair of notes: a near duplicate, a contradiction, or nothing.

One place decides, for the rules and for the judged public set (eval/curator):
- a contradiction needs notes on the same subject (`similarity.Subject.same`) and at
  least one pair of conflicting clauses (`claims.conflicts`); it is always a warning;
- a near duplicate needs a likeness at or above the vault's `near_duplicate_threshold`
  and no contradiction: two notes that disagree are not one lesson told twice, and
  the contradiction is the finding worth reading.

Clauses are read only when a pair needs them (`ClaimsOf` is called lazily), because a
full audit judges tens of thousands of pairs and most are settled by their terms.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from lore.curator.judgement.claims import Claims, Conflict, conflicts
from lore.curator.judgement.notes import Profile
from lore.curator.judgement.similarity import Likeness, likeness, subject
from lore.curator.judgement.terms import Idf

ClaimsOf = Callable[[], Claims]


@dataclass(frozen=True)
class Verdict:
    likeness: Likeness
    conflict: Conflict | None  # the strongest conflict, when it was looked for and found
    threshold: float

    @property
    def near_duplicate(self) -> bool:
        return self.conflict is None and self.likeness.score >= self.threshold


def contradiction(
    mine: Profile, my_claims: ClaimsOf, theirs: Profile, their_claims: ClaimsOf, idf: Idf
) -> Conflict | None:
    """The strongest conflict between two notes on the same subject, if any."""
    if not subject(mine, theirs).same:
        return None
    found = conflicts(my_claims(), their_claims(), idf)
    return found[0] if found else None


def near_duplicate(  # noqa: PLR0917 - the pair, its two readers, the weights and the bar
    mine: Profile,
    my_claims: ClaimsOf,
    theirs: Profile,
    their_claims: ClaimsOf,
    idf: Idf,
    threshold: float,
) -> Verdict:
    """The duplicate verdict: clauses are compared only for a pair alike enough to report."""
    alike = likeness(mine, theirs, idf)
    conflict = None
    if alike.score >= threshold:
        conflict = contradiction(mine, my_claims, theirs, their_claims, idf)
    return Verdict(alike, conflict, threshold)


def judge(  # noqa: PLR0917 - as near_duplicate
    mine: Profile,
    my_claims: ClaimsOf,
    theirs: Profile,
    their_claims: ClaimsOf,
    idf: Idf,
    threshold: float,
) -> Verdict:
    """Both verdicts on a pair: its likeness, and its strongest conflict if any."""
    return Verdict(
        likeness(mine, theirs, idf),
        contradiction(mine, my_claims, theirs, their_claims, idf),
        threshold,
    )
