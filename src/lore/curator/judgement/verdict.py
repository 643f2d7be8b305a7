"""What the curator reports about one pair of notes: a near duplicate, a contradiction, or nothing.

One place decides, for the rules and for the judged public set (eval/curator):
- a contradiction needs notes on the same subject (`similarity.Subject.same`) and at
  least one pair of conflicting clauses (`claims.conflicts`); it is always a warning;
- a near duplicate needs a likeness at or above the vault's `near_duplicate_threshold`
  and no contradiction: two notes that disagree are not one lesson told twice, and
  the contradiction is the finding worth reading.
"""

from __future__ import annotations

from dataclasses import dataclass

from lore.curator.judgement.claims import Claims, Conflict, conflicts
from lore.curator.judgement.notes import Profile
from lore.curator.judgement.similarity import Likeness, likeness, subject
from lore.curator.judgement.terms import Idf


@dataclass(frozen=True)
class Verdict:
    likeness: Likeness
    conflict: Conflict | None  # the strongest conflict, when the subjects are the same

    def is_near_duplicate(self, threshold: float) -> bool:
        return self.conflict is None and self.likeness.score >= threshold


def contradiction(
    mine: Profile, my_claims: Claims, theirs: Profile, their_claims: Claims, idf: Idf
) -> Conflict | None:
    """The strongest conflict between two notes on the same subject, if any."""
    if not subject(mine, theirs).same:
        return None
    found = conflicts(my_claims, their_claims, idf)
    return found[0] if found else None


def judge(
    mine: Profile, my_claims: Claims, theirs: Profile, their_claims: Claims, idf: Idf
) -> Verdict:
    return Verdict(
        likeness(mine, theirs, idf), contradiction(mine, my_claims, theirs, their_claims, idf)
    )
