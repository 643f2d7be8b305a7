"""What the duplicate and contradiction rules ask of the notes they judge: `NoteCorpus`.

A corpus numbers the notes it has read (`entries`): the notes under review, and the
notes of the vault a rule asked about. `reviewed()` lists the notes under review in
the order the rules report them; each note may be compared with the vault's notes and
with the notes under review before it. `idf` weighs a term by how many notes use it;
`candidates` picks the few notes worth judging against one note; `exact_copy` and
`same_title` find the first note, in the vault's id order and then the review's,
whose body is word for word the same or whose title is the same.

Two corpora answer these: `lore.curator.context.candidates.ParsedCorpus` (every note parsed,
terms counted; a full audit) and `lore.curator.context.index_corpus.IndexCorpus` (the index
asked; a pull request or a draft).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Protocol

from lore.curator.context.model import NoteView
from lore.curator.judgement.notes import Profile, profile
from lore.curator.judgement.terms import Idf
from lore.text.clauses import Claims
from lore.text.headings import without_headings
from lore.text.words import tokens

MAX_CANDIDATES = 8  # notes judged against each note under review


def words_of(body: str) -> tuple[str, ...]:
    """The body as lower-case words, headings dropped: what `duplicate/exact` compares."""
    return tuple(tokens(without_headings(body)))


def body_digest(body: str) -> bytes:
    """A short digest of `words_of(body)`: what a full audit keeps per note to find
    word-for-word copies (the words themselves would be most of its memory)."""
    import hashlib

    text = " ".join(words_of(body)).encode("utf-8", "surrogatepass")
    return hashlib.blake2b(text, digest_size=16).digest()


def title_key(title: str | None) -> str:
    """A title as lower-case words: what `duplicate/same-title` compares."""
    return " ".join(tokens(title or ""))


class Entry:
    """One note of the corpus; its `Profile` is read when a rule first asks for it.

    What the pair rules ask of every note (`id`, `title`, `supersedes`, `has_body`,
    `digest`, the profile) is kept; the note itself (`view`) may be let go (`release`),
    as a full audit does once a batch of notes is done, and is then read again when asked.
    """

    __slots__ = (
        "_digest",
        "_load",
        "_profile",
        "_view",
        "display",
        "has_body",
        "id",
        "reviewed",
        "source",
        "supersedes",
        "title",
    )

    def __init__(self, view: NoteView, display: str, reviewed: bool) -> None:
        self._view: NoteView | None = view
        self._load: Callable[[], NoteView] | None = None
        self._profile: Profile | None = None
        self._digest: bytes | None = None
        self.display = display  # the path findings name ("" for a note not under review)
        self.reviewed = reviewed  # under review in this run
        self.id = view.id
        self.title = view.title
        self.supersedes = view.supersedes
        self.source = view.source
        self.has_body = bool(view.body.strip())

    @property
    def view(self) -> NoteView:
        if self._view is not None:
            return self._view
        assert self._load is not None
        return self._load()

    @property
    def profile(self) -> Profile:
        if self._profile is None:
            self._profile = profile(self.view)
        return self._profile

    @property
    def digest(self) -> bytes | None:
        """`body_digest` of the body; None when the body is blank."""
        if self._digest is None and self.has_body:
            self._digest = body_digest(self.view.body)
        return self._digest

    def hold(self, view: NoteView) -> None:
        """Keep the note's text again (a batch of a full audit is being judged)."""
        self._view = view

    def share_subject(self, shared: dict[frozenset[str], frozenset[str]]) -> None:
        """Hold the profile's tags, repositories, services and files as the one equal set
        in `shared` (most notes of a vault share them; the rules only intersect, count or
        sort them). A full audit keeps every note's profile: these were a tenth of it."""
        found = self.profile
        self._profile = replace(
            found,
            tags=shared.setdefault(found.tags, found.tags),
            repos=shared.setdefault(found.repos, found.repos),
            services=shared.setdefault(found.services, found.services),
            files=shared.setdefault(found.files, found.files),
        )

    def release(self, load: Callable[[], NoteView] | None = None) -> None:
        """Let the note's text go, its profile and digest read first; `view` then calls
        `load` (or the loader it was released with before) to read it again."""
        _ = self.profile, self.digest
        if load is not None:
            self._load = load
        assert self._load is not None
        self._view = None


class Linked(Protocol):
    """A note's id and what it supersedes (a `NoteView` or an `Entry`)."""

    @property
    def id(self) -> str: ...
    @property
    def supersedes(self) -> tuple[str, ...]: ...


def related(one: Linked, other: Linked) -> bool:
    """The same note, or one supersedes the other: never judged as a pair."""
    return one.id == other.id or other.id in one.supersedes or one.id in other.supersedes


class NoteCorpus(Protocol):
    """The notes of one curator run, read once for both rule families."""

    @property
    def entries(self) -> list[Entry]: ...

    @property
    def idf(self) -> Idf: ...

    def claims(self, index: int) -> Claims: ...

    def reviewed(self) -> list[int]: ...

    def candidates(
        self, index: int, eligible: Callable[[int], bool], limit: int = MAX_CANDIDATES
    ) -> list[int]:
        """The `limit` best eligible notes to judge note `index` against (never itself, a
        note it supersedes or that supersedes it, or a note under review after it)."""
        ...

    def exact_copy(self, index: int) -> int | None:
        """The first note before `index` whose body has the same words (not a related one)."""
        ...

    def same_title(self, index: int) -> str | None:
        """The id of the first note before `index` with the same title, unless `index`
        supersedes it; None when there is none."""
        ...

    def forget(self, index: int) -> None:
        """Drop what was kept only to answer note `index`'s rules."""
        ...

    def find(self, index: int, ids: Iterable[str], numbers: Iterable[int]) -> list[int]:
        """The notes before `index` (not related to it) that note `index` refers to: by id
        (a `[[link]]`), or by the number of the record they stand for ("ADR 15" for
        `adr-015-…`, or a note whose source is `…/0015-….md`: `lore.note.records`)."""
        ...

    def sharing_files(self, index: int) -> list[int]:
        """The notes before `index` (not related to it) that list one of its
        `files_touched`, in the vault's order."""
        ...
