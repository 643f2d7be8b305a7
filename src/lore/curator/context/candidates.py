"""Which pairs of notes the curator judges, and the term weights it judges them with.

`corpus_of(context)` gives the rules their `NoteCorpus` (`lore.curator.context.corpus`), built
once per run. When the context reads the vault through the index (`context.index`: a
pull request, a draft, files checked against a vault) that is `IndexCorpus`, which asks
the index for candidates and term statistics. Otherwise (a full audit, where every note
is under review anyway, or a Python without FTS5) it is `ParsedCorpus`, here.

`ParsedCorpus` holds every note of a curator run once: the notes already in the vault
(not touched by the change) first, by id, then the notes under review in the order
the rules report them (by date in a full audit). Each has its `Profile`; its `Claims`
are read when a pair needs them. Its `idf` weighs a term by how many of these notes
use it (BM25's IDF), and its `candidates` picks, for one note, the few notes worth
judging: those sharing its rarest terms (terms used by at most `MAX_POSTING` notes;
boilerplate shared by more cannot make two notes alike) or one of its files, ranked by
the weight they share, with a little extra for shared tags and repositories.

A full audit builds its `ParsedCorpus` itself (`lore.curator.audit`, `use_corpus`) from
entries whose text it let go (`Entry.release`): each note's text is read again for the
batch being judged, and `forget` drops what was kept for a note once it is judged.
"""

from __future__ import annotations

import heapq
from array import array
from bisect import bisect_left
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import replace
from itertools import islice
from sys import intern
from typing import Any

from lore.curator.context.corpus import (
    MAX_CANDIDATES,
    Entry,
    NoteCorpus,
    related,
    title_key,
    words_of,
)
from lore.curator.context.index_corpus import IndexCorpus
from lore.curator.context.model import CuratorContext, view_of_note
from lore.curator.judgement.terms import idf_from_counts, weights
from lore.note.records import record_number
from lore.text.clauses import Claims, claims

__all__ = [
    "MAX_CANDIDATES",
    "Corpus",
    "Entry",
    "NoteCorpus",
    "ParsedCorpus",
    "candidates",
    "corpus_of",
    "related",
]

MAX_POSTING = 100  # a term used by more notes than this does not propose candidates
QUERY_TERMS = 16  # a note's heaviest terms that look for candidates
FILE_WEIGHT = 4.0  # a shared files_touched path, in IDF units
TAG_WEIGHT = 0.5  # each shared tag, and the same repository (ranking only)
RERANK = 3  # how many times `limit` of the best-scored notes are checked and re-ranked
_MEMO = "_lore_judgement_corpus"
_PROGRESS = "_lore_note_progress"


class NoteProgress:
    """Where a long run reports how far the rules are through the notes under review:
    `report(done, total)`, switched by the runner as each rule family starts."""

    def __init__(self) -> None:
        self.report: Callable[[int, int], None] | None = None


def note_progress(context: CuratorContext) -> NoteProgress:
    """The context's progress reporter (one per run), read by the corpus as notes are judged."""
    found = vars(context).get(_PROGRESS)
    if found is None:
        found = vars(context)[_PROGRESS] = NoteProgress()
    assert isinstance(found, NoteProgress)
    return found


class ParsedCorpus:
    """The notes of one curator run, every one parsed and analysed once."""

    def __init__(
        self,
        entries: list[Entry],
        progress: NoteProgress | None = None,
        claims_kept: int | None = None,
    ) -> None:
        """`claims_kept`: keep the claims of at most that many notes, those read last (a
        full audit: the others are read again when asked, from the note's file)."""
        self.entries = entries
        self.progress = progress or NoteProgress()
        # the vault's notes come first, then those under review (see the docstring)
        self.first_reviewed = next(
            (index for index, entry in enumerate(entries) if entry.reviewed), len(entries)
        )
        self.position = {entry.id: index for index, entry in enumerate(entries)}
        frequency: Counter[str] = Counter()
        for entry in entries:
            frequency.update(entry.profile.terms)
        self.idf = idf_from_counts(frequency, len(entries))
        # arrays, not lists: a list holds an int object per note number (most past 256)
        postings: defaultdict[str, array[int]] = defaultdict(_numbers)
        by_file: defaultdict[str, array[int]] = defaultdict(_numbers)
        for index, entry in enumerate(entries):
            for term in entry.profile.terms:
                if frequency[term] <= MAX_POSTING:
                    postings[term].append(index)
            for path in entry.profile.files:
                by_file[path].append(index)
        self.postings: dict[str, array[int]] = dict(postings)
        self.by_file: dict[str, array[int]] = dict(by_file)
        self._claims: dict[int, Claims] = {}  # by when last asked for, when `claims_kept`
        self._claims_kept = claims_kept
        # Each note's best-scored notes, asked for by both rule families: kept as two
        # compact arrays (a list of tuples per note was a tenth of a full audit's memory).
        self._best: dict[tuple[int, int], array[int]] = {}  # each note's ranked candidates
        self._limits: set[int] = set()  # the `limit`s `_best` was asked with
        self._copies: dict[bytes, list[int]] | None = None
        self._titles: dict[str, int] | None = None

    def claims(self, index: int) -> Claims:
        found = self._claims.get(index)
        if found is None:
            found = self._claims[index] = _compact(claims(self.entries[index].view))
            if self._claims_kept is not None and len(self._claims) > self._claims_kept:
                del self._claims[next(iter(self._claims))]  # the one asked for least lately
        elif self._claims_kept is not None:
            self._claims[index] = self._claims.pop(index)
        return found

    def reviewed(self) -> list[int]:
        return [index for index, entry in enumerate(self.entries) if entry.reviewed]

    def candidates(
        self, index: int, eligible: Callable[[int], bool], limit: int = MAX_CANDIDATES
    ) -> list[int]:
        report = self.progress.report
        if report is not None and self.entries[index].reviewed:
            report(index - self.first_reviewed + 1, len(self.entries) - self.first_reviewed)
        return _candidates(self, index, eligible, limit)

    def forget(self, index: int) -> None:
        """Drop what was kept to answer note `index`'s rules (a full audit judges each note
        once, in one pass of every pair rule: nothing asks again)."""
        for limit in self._limits:
            self._best.pop((index, limit), None)

    def exact_copy(self, index: int) -> int | None:
        if self._copies is None:
            self._copies = {}
            for number, entry in enumerate(self.entries):
                if entry.digest is not None:
                    self._copies.setdefault(entry.digest, []).append(number)
        mine = self.entries[index]
        digest = mine.digest
        earlier = [o for o in self._copies.get(digest, []) if o < index] if digest else []
        if not earlier:
            return None
        words = words_of(mine.view.body)
        return next(
            (
                other
                for other in earlier
                if not related(mine, self.entries[other])
                and words_of(self.entries[other].view.body) == words  # never a collision
            ),
            None,
        )

    def same_title(self, index: int) -> str | None:
        if self._titles is None:
            self._titles = {}
            for number, entry in enumerate(self.entries):
                key = title_key(entry.title)
                if key:
                    self._titles.setdefault(key, number)
        mine = self.entries[index]
        key = title_key(mine.title)
        first = self._titles.get(key) if key else None
        if first is None or first >= index:
            return None
        other = self.entries[first].id
        return None if other in mine.supersedes else other

    def find(self, index: int, ids: Iterable[str], numbers: Iterable[int]) -> list[int]:
        mine = self.entries[index]
        wanted = set(numbers)
        found = [self.position[nid] for nid in ids if nid in self.position]
        if wanted:
            found += [
                i for i, e in enumerate(self.entries) if record_number(e.id, e.source) in wanted
            ]
        return sorted({i for i in found if i < index and not related(mine, self.entries[i])})

    def sharing_files(self, index: int) -> list[int]:
        mine = self.entries[index]
        found = {
            other
            for path in mine.profile.files
            for other in self.by_file.get(path, _NONE)
            if other < index
        }
        return sorted(o for o in found if not related(mine, self.entries[o]))


Corpus = NoteCorpus  # the name the semantic review types its corpus with
_NONE: array[int] = array("q")


def _numbers() -> array[int]:
    return array("q")


_EMPTY: frozenset[str] = frozenset()


def _compact(found: Claims) -> Claims:
    """The same claims in half the memory, for keeping until the run ends: each word as
    one shared string, and every empty set of a clause as the one empty set (a note's
    kept claims were a fifth of a full audit's memory, most of it those copies)."""
    clauses = tuple(
        replace(clause, **empty) if (empty := _empty_sets(clause)) else clause
        for clause in found.clauses
    )
    return replace(found, words=tuple(map(intern, found.words)), clauses=clauses)


def _empty_sets(clause: object) -> dict[str, Any]:
    return {
        name: _EMPTY
        for name, value in vars(clause).items()
        if isinstance(value, frozenset) and not value and value is not _EMPTY
    }


def corpus_of(context: CuratorContext) -> NoteCorpus:
    """The corpus of a context, built once however many rules ask for it."""
    memo = vars(context)
    found = memo.get(_MEMO)
    if found is None:
        if context.index is not None:
            found = IndexCorpus(context, context.index)
        else:
            found = _build(context)
        memo[_MEMO] = found
    return found


def use_corpus(context: CuratorContext, corpus: ParsedCorpus) -> None:
    """Make `corpus` the one the context's rules read (a full audit builds its own, from
    the notes it read in batches: `lore.curator.audit`)."""
    vars(context)[_MEMO] = corpus


def _build(context: CuratorContext) -> ParsedCorpus:
    entries = [
        Entry(view, "", reviewed=False)
        for nid, note in sorted(context.existing.items())
        if nid not in context.checked_ids
        for view in (view_of_note(note),)
    ]
    reviewed = [checked for checked in context.notes if checked.view is not None]
    if context.audit:
        reviewed.sort(key=lambda c: (c.view.date or "", c.view.id) if c.view else ("", ""))
    for checked in reviewed:
        assert checked.view is not None
        entries.append(Entry(checked.view, checked.display, True))
    return ParsedCorpus(entries, note_progress(context))


def candidates(
    corpus: NoteCorpus, index: int, eligible: Callable[[int], bool], limit: int = MAX_CANDIDATES
) -> list[int]:
    """The notes to judge note `index` against: the `limit` best eligible notes before it
    (the vault's notes, then the notes reviewed earlier in the run)."""
    return corpus.candidates(index, eligible, limit)


def _candidates(
    corpus: ParsedCorpus, index: int, eligible: Callable[[int], bool], limit: int
) -> list[int]:
    entry = corpus.entries[index]
    mine = entry.profile
    # Every rule family asks for every note's candidates: rank them once per run (before
    # eligibility, which differs between rules), then keep the first `limit` eligible.
    ranked = corpus._best.get((index, limit))
    if ranked is None:
        corpus._limits.add(limit)
        scored = []
        for other, score in _best_scored(corpus, index, limit):
            theirs = corpus.entries[other]
            if related(entry, theirs):
                continue
            shared_tags = len(mine.tags & theirs.profile.tags)
            bonus = TAG_WEIGHT * (shared_tags + bool(mine.repos & theirs.profile.repos))
            scored.append((score + bonus, other))
        scored.sort(reverse=True)  # the order heapq.nlargest gives
        ranked = corpus._best[(index, limit)] = array("q", (other for _, other in scored))
    return list(islice((other for other in ranked if eligible(other)), limit))


def _best_scored(corpus: ParsedCorpus, index: int, limit: int) -> list[tuple[int, float]]:
    """The notes before `index` that share the most weight with it, before eligibility."""
    mine = corpus.entries[index].profile
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
        postings = corpus.by_file.get(path, _NONE)
        for other in postings[: bisect_left(postings, index)]:
            scores[other] += FILE_WEIGHT
    # Rank by shared weight first; only the best few are checked and re-ranked with tags.
    return heapq.nlargest(limit * RERANK, scores.items(), key=lambda item: (item[1], item[0]))
