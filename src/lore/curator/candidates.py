"""Which pairs of notes the curator judges, and the term weights it judges them with.

`Corpus` holds every note of a curator run once: the notes already in the vault (not
touched by the change) first, by id, then the notes under review in the order the
rules report them (by date in a full audit). Each has its `Profile`; its `Claims` are
read when a pair needs them. `Corpus.idf` weighs a term by how many of these notes
use it (BM25's IDF), and `candidates` picks, for one note, the few notes worth
judging: those sharing its rarest terms (terms used by at most `MAX_POSTING` notes;
boilerplate shared by more cannot make two notes alike) or one of its files, ranked
by the weight they share, with a little extra for shared tags and repositories.

`candidates` and `Corpus.idf` are the seam to the recall index: an index query (the
note's title and `## What` as a BM25 query, plus shared tags, repository and
files_touched) can replace `candidates`, and the index's document frequencies can
replace the counts behind `idf`, without changing the rules or the judgement.
"""

from __future__ import annotations

import heapq
from bisect import bisect_left
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass

from lore.curator.context import CuratorContext, NoteView, view_of_note
from lore.curator.judgement.claims import Claims, claims
from lore.curator.judgement.notes import Profile, profile
from lore.curator.judgement.terms import idf_from_counts, weights

MAX_POSTING = 100  # a term used by more notes than this does not propose candidates
QUERY_TERMS = 16  # a note's heaviest terms that look for candidates
MAX_CANDIDATES = 8  # notes judged against each note under review
FILE_WEIGHT = 4.0  # a shared files_touched path, in IDF units
TAG_WEIGHT = 0.5  # each shared tag, and the same repository (ranking only)
RERANK = 3  # how many times `limit` of the best-scored notes are checked and re-ranked
_MEMO = "_lore_judgement_corpus"


@dataclass(frozen=True)
class Entry:
    """One note of the corpus."""

    view: NoteView
    profile: Profile
    display: str  # the path findings name ("" for a note that is not under review)
    reviewed: bool  # under review in this run


class Corpus:
    """The notes of one curator run, analysed once for both rule families."""

    def __init__(self, entries: list[Entry]) -> None:
        self.entries = entries
        self.position = {entry.view.id: index for index, entry in enumerate(entries)}
        frequency: Counter[str] = Counter()
        for entry in entries:
            frequency.update(entry.profile.terms)
        self.idf = idf_from_counts(frequency, len(entries))
        self.postings: dict[str, list[int]] = defaultdict(list)
        self.by_file: dict[str, list[int]] = defaultdict(list)
        for index, entry in enumerate(entries):
            for term in entry.profile.terms:
                if frequency[term] <= MAX_POSTING:
                    self.postings[term].append(index)
            for path in entry.profile.files:
                self.by_file[path].append(index)
        self._claims: dict[int, Claims] = {}

    def claims(self, index: int) -> Claims:
        found = self._claims.get(index)
        if found is None:
            found = self._claims[index] = claims(self.entries[index].view)
        return found

    def reviewed(self) -> list[int]:
        return [index for index, entry in enumerate(self.entries) if entry.reviewed]


def corpus_of(context: CuratorContext) -> Corpus:
    """The corpus of a context, built once however many rules ask for it."""
    memo = vars(context)
    found = memo.get(_MEMO)
    if not isinstance(found, Corpus):
        found = memo[_MEMO] = _build(context)
    return found


def _build(context: CuratorContext) -> Corpus:
    entries = [
        Entry(view, profile(view), "", reviewed=False)
        for nid, note in sorted(context.existing.items())
        if nid not in context.checked_ids
        for view in (view_of_note(note),)
    ]
    reviewed = [checked for checked in context.notes if checked.view is not None]
    if context.audit:
        reviewed.sort(key=lambda c: (c.view.date or "", c.view.id) if c.view else ("", ""))
    for checked in reviewed:
        assert checked.view is not None
        entries.append(Entry(checked.view, profile(checked.view), checked.display, True))
    return Corpus(entries)


def related(one: NoteView, other: NoteView) -> bool:
    """The same note, or one supersedes the other: never judged as a pair."""
    return one.id == other.id or other.id in one.supersedes or one.id in other.supersedes


def candidates(
    corpus: Corpus, index: int, eligible: Callable[[int], bool], limit: int = MAX_CANDIDATES
) -> list[int]:
    """The notes to judge note `index` against: the `limit` best eligible notes before it
    (the vault's notes, then the notes reviewed earlier in the run)."""
    entry = corpus.entries[index]
    mine = entry.profile
    table = weights(corpus.idf)
    query = heapq.nlargest(
        QUERY_TERMS,
        (term for term in mine.terms if term in corpus.postings),
        key=lambda term: (table(term), term),
    )
    scores: dict[int, float] = defaultdict(float)
    for term in query:
        share = table(term)
        postings = corpus.postings[term]
        for other in postings[: bisect_left(postings, index)]:
            scores[other] += share
    for path in mine.files:
        postings = corpus.by_file[path]
        for other in postings[: bisect_left(postings, index)]:
            scores[other] += FILE_WEIGHT
    # Rank by shared weight first; only the best few are checked and re-ranked with tags.
    best = heapq.nlargest(limit * RERANK, scores.items(), key=lambda item: (item[1], item[0]))
    ranked = []
    for other, score in best:
        theirs = corpus.entries[other]
        if not eligible(other) or related(entry.view, theirs.view):
            continue
        shared_tags = len(mine.tags & theirs.profile.tags)
        bonus = TAG_WEIGHT * (shared_tags + bool(mine.repos & theirs.profile.repos))
        ranked.append((score + bonus, other))
    return [other for _, other in heapq.nlargest(limit, ranked)]
