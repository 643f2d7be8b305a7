"""Whether two notes hold the same lesson: a score from their words and their subject.

`whole_note` is the plain view every pair judgement is gated on: the cosine of the two
notes' whole-note term sets, each term weighted by its IDF (so a note's rare words
dominate). Two notes about different things share few rare words, whatever common
vocabulary they use; measured on 27 real supersessions in public ADRs, the replaced
note was among the new note's three nearest by this figure in 25 (eval/README.md).

Three views of the text, each an IDF-weighted Jaccard of content terms (so `kafka`
and `offset` count and `use` hardly does): the titles, the summaries (title and
`## What`) and the whole prose. The score leans on the best of the three views,
since a reworded duplicate often keeps one of them close, and on the mean, since a
duplicate is close on all. The subject gates it: notes about different repositories
or services (both name theirs, and none is shared) are different lessons however
alike their words, because teams keep one note per service on purpose (the same
pool settings in two services). A shared file, tag or repository adds a little.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from lore.curator.judgement.notes import Profile
from lore.curator.judgement.terms import Idf, weight, weighted_overlap, weights
from lore.text.words import is_weak

SERVICE_TAG = "service/"
MAX_SHARED_SHOWN = 5


@dataclass(frozen=True)
class Subject:
    """How two notes' frontmatter relates them."""

    different: str  # why they are about different things ("" when they are not)
    shared_tags: tuple[str, ...]
    shared_files: tuple[str, ...]
    same_repo: bool

    @property
    def same(self) -> bool:
        """Same subject: nothing sets them apart, and a file, tag or repository joins them."""
        return not self.different and bool(self.shared_files or self.shared_tags or self.same_repo)


def _apart(name: str, one: frozenset[str], other: frozenset[str]) -> str:
    if one and other and not one & other:
        return f"{name} {', '.join(sorted(one))} against {', '.join(sorted(other))}"
    return ""


def subject(one: Profile, other: Profile) -> Subject:
    services = frozenset(tag for tag in one.tags if tag.startswith(SERVICE_TAG))
    other_services = frozenset(tag for tag in other.tags if tag.startswith(SERVICE_TAG))
    different = (
        _apart("repo", one.repos, other.repos)
        or _apart("services", one.services, other.services)
        or _apart("tags", services, other_services)
    )
    return Subject(
        different,
        tuple(sorted(one.tags & other.tags)),
        tuple(sorted(one.files & other.files)),
        bool(one.repos & other.repos),
    )


@dataclass(frozen=True)
class Likeness:
    """The duplicate verdict on a pair, with what it rests on."""

    score: float  # 0..1; compare with `near_duplicate_threshold`
    title: float
    summary: float
    prose: float
    subject: Subject
    in_both: frozenset[str]  # the terms both notes use

    def explain(self) -> str:
        return (
            f"titles {self.title:.0%}, summaries {self.summary:.0%}, whole notes "
            f"{self.prose:.0%} alike by weighted terms"
        )

    def shared(self, idf: Idf, limit: int = MAX_SHARED_SHOWN) -> list[str]:
        """The heaviest terms both notes use, heaviest first (for a message)."""
        salient = (term for term in self.in_both if not is_weak(term))
        return sorted(salient, key=lambda term: (-weight(term, idf), term))[:limit]


TITLE_WEIGHT, SUMMARY_WEIGHT, PROSE_WEIGHT = 0.3, 0.4, 0.3
BEST_SHARE = 0.5  # how much of the score is the best single view (the rest is the mean)
SUBJECT_BONUS = 0.05  # each of: a shared file, a shared tag, the same repository


def likeness(one: Profile, other: Profile, idf: Idf) -> Likeness:
    """How far `one` and `other` hold the same lesson (0 when their subjects differ)."""
    related = subject(one, other)
    in_both = one.terms & other.terms
    if related.different:
        return Likeness(0.0, 0.0, 0.0, 0.0, related, in_both)
    title, _ = weighted_overlap(one.title, other.title, idf)
    summary, _ = weighted_overlap(one.summary, other.summary, idf)
    prose, _ = weighted_overlap(one.terms, other.terms, idf)
    mean = TITLE_WEIGHT * title + SUMMARY_WEIGHT * summary + PROSE_WEIGHT * prose
    best = max(summary, prose)
    bonus = SUBJECT_BONUS * (
        bool(related.shared_files) + bool(related.shared_tags) + related.same_repo
    )
    score = min(1.0, BEST_SHARE * best + (1 - BEST_SHARE) * mean + bonus)
    return Likeness(score, title, summary, prose, related, in_both)


def siblings(one: Profile, other: Profile) -> bool:
    """Two notes written from one frame about two things ("Library for the forms",
    "Library for the views"): each title names a telling word that its own prose uses too
    (what it is about, not a turn of phrase: "stays at 31 GB") and the other note never
    uses, so they are two lessons, however alike the rest of their words."""
    mine = [t for t in one.title - other.title if not is_weak(t) and t not in one.title_only]
    theirs = [t for t in other.title - one.title if not is_weak(t) and t not in other.title_only]
    return (
        bool(mine and theirs)
        and not any(term in other.terms for term in mine)
        and not any(term in one.terms for term in theirs)
    )


def whole_note(one: Profile, other: Profile, idf: Idf) -> float:
    """The IDF-weighted cosine of two notes' whole-note terms (0..1)."""
    shared = one.terms & other.terms
    if not shared:
        return 0.0
    table = weights(idf)
    common = math.fsum(table(term) ** 2 for term in shared)
    size_one = table.squares(one.terms)
    size_two = table.squares(other.terms)
    return common / math.sqrt(size_one * size_two) if size_one and size_two else 0.0
