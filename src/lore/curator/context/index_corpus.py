"""`IndexCorpus`: the notes the duplicate and contradiction rules judge, asked of the index.

Only the notes under review are analysed up front. For each of them the index is
asked (`lore.index.queries`):

- candidates: the note's title and `## What` (their content words, the rarest first,
  without words in more than a tenth of the vault or in no other note) as an OR query
  ranked by BM25, with
  its `files_touched` paths as phrases; the best `RERANK` times `limit` are read, a
  shared tag or the same repository adds a little, and the best eligible ones are
  judged. Ties go to the lower note id, so every index of the same notes answers
  alike;
- a word-for-word copy: the notes holding all of the body's rarest words, compared
  word by word;
- the same title: the notes holding the title's words as a phrase, compared;
- term weights: BM25's IDF from the index's own document frequencies (an `fts5vocab`
  table over title, tags, body and paths) and note count.

The index holds the notes under review too (`lore.curator.context.vault_index` puts them in),
so the statistics are those of the vault the change would make. Notes read from the
index become entries as they are needed.
"""

from __future__ import annotations

import heapq
import sqlite3
from collections.abc import Callable, Iterable, Iterator, Mapping

from lore.curator.context.corpus import MAX_CANDIDATES, Entry, related, title_key, words_of
from lore.curator.context.model import CuratorContext, IndexView, NoteView, view_of_note
from lore.curator.judgement.terms import Idf, idf_from_counts, weights
from lore.index import queries
from lore.note.records import record_number
from lore.text.clauses import Claims, claims
from lore.text.prose import what_of
from lore.text.words import is_content, stem, tokens

WEIGHTS = (2.0, 1.0, 1.0, 2.0)  # BM25 column weights: title, tags, body, files_touched
QUERY_TERMS = 16  # a note's heaviest title and summary terms that look for candidates
COMMON_SHARE = 0.1  # a term in more than this share of the notes does not look
MIN_COMMON = 100  # ... unless it is in at most this many
TAG_WEIGHT = 0.5  # each shared tag, and the same repository (ranking only)
RERANK = 3  # how many times `limit` of the best BM25 matches are read and re-ranked
COPY_WORDS = 8  # the rarest body words a word-for-word copy must hold


def _subject(view: NoteView) -> tuple[frozenset[str], frozenset[str]]:
    """A note's tags and repositories, as `Profile` has them (ranking only)."""
    return frozenset(t.lower() for t in view.tags), frozenset(r.lower() for r in view.repo)


class Frequencies(Mapping[str, int]):
    """Document frequencies, read from the index as terms are asked for."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self.known: dict[str, int] = {}

    def prefetch(self, terms: Iterable[str]) -> None:
        wanted = {term for term in terms if term not in self.known}
        if wanted:
            found = queries.document_frequencies(self.conn, wanted)
            self.known.update({term: found.get(term, 0) for term in wanted})

    def __getitem__(self, term: str) -> int:
        if term not in self.known:
            self.prefetch([term])
        return self.known[term]

    def __iter__(self) -> Iterator[str]:
        return iter(self.known)

    def __len__(self) -> int:
        return len(self.known)


class IndexCorpus:
    """The notes under review, and the vault's notes the index found for them."""

    def __init__(self, context: CuratorContext, index: IndexView) -> None:
        self.conn = index.conn
        self.total = queries.count_notes(self.conn)
        self.frequencies = Frequencies(self.conn)
        self.idf: Idf = idf_from_counts(self.frequencies, self.total)
        self.entries: list[Entry] = []
        self._order: list[tuple[int, str]] = []  # the vault's notes by id, then the review's
        self._entry_of_rowid: dict[int, int] = {}
        for position, (checked, rowid) in enumerate(
            zip(context.notes, index.reviewed, strict=True)
        ):
            assert checked.view is not None
            entry = Entry(checked.view, checked.display, True)
            self._add(rowid, entry, (1, f"{position:09d}"))
        self._reviewed_rowids = index.reviewed
        self._claims: dict[int, Claims] = {}
        self._hits: dict[int, list[tuple[int, float]]] = {}
        self.frequencies.prefetch(t for entry in self.entries for t in entry.profile.terms)

    # ---- entries ----

    def _add(self, rowid: int, entry: Entry, order: tuple[int, str]) -> int:
        self.entries.append(entry)
        self._order.append(order)
        self._entry_of_rowid[rowid] = len(self.entries) - 1
        return len(self.entries) - 1

    def _entries_for(self, rowids: Iterable[int]) -> dict[int, int]:
        """rowid -> entry index, reading the notes not read yet."""
        rowids = list(rowids)
        wanted = [rowid for rowid in rowids if rowid not in self._entry_of_rowid]
        rows = queries.rows_by_rowid(self.conn, wanted)
        for rowid in wanted:
            if rowid in rows:
                view = view_of_note(queries.note_from_row(rows[rowid]))
                self._add(rowid, Entry(view, "", False), (0, view.id))
        return {r: self._entry_of_rowid[r] for r in rowids if r in self._entry_of_rowid}

    def _judged(self, chosen: list[int]) -> list[int]:
        """`chosen` notes, about to be judged: the weights of all their terms read at once."""
        self.frequencies.prefetch(t for i in chosen for t in self.entries[i].profile.terms)
        return chosen

    def _after(self, index: int) -> set[int]:
        """The rowids of the note under review `index` and of those after it."""
        return set(self._reviewed_rowids[index:])

    def claims(self, index: int) -> Claims:
        found = self._claims.get(index)
        if found is None:
            found = self._claims[index] = claims(self.entries[index].view)
        return found

    def reviewed(self) -> list[int]:
        return list(range(len(self._reviewed_rowids)))

    # ---- the three questions ----

    def candidates(
        self, index: int, eligible: Callable[[int], bool], limit: int = MAX_CANDIDATES
    ) -> list[int]:
        view = self.entries[index].view
        tags, repos = _subject(view)
        hits = self._search(index, limit * RERANK)
        found = self._entries_for(rowid for rowid, _ in hits)
        ranked = []
        for rowid, score in hits:
            other = found[rowid]
            theirs = self.entries[other].view
            if not eligible(other) or related(view, theirs):
                continue
            their_tags, their_repos = _subject(theirs)
            shared = len(tags & their_tags) + bool(repos & their_repos)
            ranked.append((-(score + TAG_WEIGHT * shared), self._order[other], other))
        return self._judged([other for *_, other in heapq.nsmallest(limit, ranked)])

    def _search(self, index: int, size: int) -> list[tuple[int, float]]:
        """The `size` best BM25 matches of note `index` (both rule families ask for them)."""
        known = self._hits.get(index)
        if known is not None and len(known) >= size:
            return known[:size]
        view = self.entries[index].view
        clauses = []
        words = self._query_words(f"{view.title or ''}\n{what_of(view.body)}")
        if words:
            clauses.append("{title body} : (" + queries.any_of(words) + ")")
        for path in view.files_touched:
            parts = tokens(path)
            if parts:
                clauses.append("files_touched : " + queries.phrase(parts))
        if not clauses:
            return []
        skip = self._after(index)
        matches = queries.search(self.conn, " OR ".join(clauses), WEIGHTS, limit=size + len(skip))
        hits = [(rowid, score) for rowid, score in matches if rowid not in skip][:size]
        self._hits[index] = hits
        return hits

    def _query_words(self, text: str) -> list[str]:
        """A word for each of the text's heaviest content terms that is not too common, nor
        so rare that only the note itself has it (the index holds the notes under review:
        a long note's rarest words would otherwise find nothing but the note)."""
        by_term: dict[str, str] = {}
        for token in tokens(text):
            if is_content(token):
                by_term.setdefault(stem(token), token)
        self.frequencies.prefetch(by_term)
        common = max(MIN_COMMON, COMMON_SHARE * self.total)
        table = weights(self.idf)
        terms = heapq.nlargest(
            QUERY_TERMS,
            (term for term in by_term if 1 < self.frequencies[term] <= common),
            key=lambda term: (table(term), term),
        )
        return [by_term[term] for term in terms]

    def exact_copy(self, index: int) -> int | None:
        view = self.entries[index].view
        words = words_of(view.body)
        skip = self._after(index)
        if words:
            distinct = list(dict.fromkeys(words))
            self.frequencies.prefetch(stem(word) for word in distinct)
            rare = sorted(distinct, key=lambda word: (self.frequencies[stem(word)], word))
            match = "body : (" + " AND ".join(queries.phrase([w]) for w in rare[:COPY_WORDS]) + ")"
            rowids = [r for r in queries.matching(self.conn, match) if r not in skip]
        else:  # no words to look for (rare): every note is compared
            rowids = [r for _, r in queries.ids_and_rowids(self.conn) if r not in skip]
        rows = queries.rows_by_rowid(self.conn, rowids)
        same = [
            rowid
            for rowid, row in rows.items()
            if str(row[16]).strip() and words_of(str(row[16])) == words
        ]
        return self._first(same, lambda other: not related(view, self.entries[other].view))

    def same_title(self, index: int) -> str | None:
        view = self.entries[index].view
        key = title_key(view.title)
        if not key:
            return None
        skip = self._after(index)
        match = "title : " + queries.phrase(key.split())
        rowids = [r for r in queries.matching(self.conn, match) if r not in skip]
        rows = queries.rows_by_rowid(self.conn, rowids)
        same = [rowid for rowid, row in rows.items() if title_key(str(row[3])) == key]
        first = self._first(same, lambda other: True)
        if first is None:
            return None
        other = self.entries[first].view.id
        return None if other in view.supersedes else other

    def forget(self, index: int) -> None:
        self._hits.pop(index, None)

    def find(self, index: int, ids: Iterable[str], numbers: Iterable[int]) -> list[int]:
        view = self.entries[index].view
        wanted = set(numbers)
        rowids = set(queries.rowids_of_ids(self.conn, ids).values())
        if wanted:
            rowids |= {
                rowid
                for nid, rowid, source in queries.numbered_notes(self.conn)
                if record_number(nid, source) in wanted
            }
        found = self._entries_for(rowids - self._after(index))
        chosen = [i for i in found.values() if not related(view, self.entries[i].view)]
        return self._judged(sorted(chosen, key=lambda i: self._order[i]))

    def sharing_files(self, index: int) -> list[int]:
        view = self.entries[index].view
        wanted = set(view.files_touched)
        rowids: set[int] = set()
        for path in wanted:
            parts = tokens(path)
            if parts:
                rowids |= set(
                    queries.matching(self.conn, "files_touched : " + queries.phrase(parts))
                )
        found = self._entries_for(rowids - self._after(index))
        chosen = [
            i
            for i in found.values()
            if wanted & set(self.entries[i].view.files_touched)
            and not related(view, self.entries[i].view)
        ]
        return self._judged(sorted(chosen, key=lambda i: self._order[i]))

    def _first(self, rowids: list[int], accept: Callable[[int], bool]) -> int | None:
        """The first of these notes (the vault's by id, then the review's) that `accept`s."""
        found = self._entries_for(rowids)
        for other in sorted(found.values(), key=lambda i: self._order[i]):
            if accept(other):
                return other
        return None
