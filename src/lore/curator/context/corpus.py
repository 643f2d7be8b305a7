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

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cached_property
from typing import Protocol

from lore.curator.context.model import NoteView
from lore.curator.judgement.claims import Claims
from lore.curator.judgement.notes import Profile, profile
from lore.curator.judgement.terms import Idf

MAX_CANDIDATES = 8  # notes judged against each note under review

_WORDS = re.compile(r"[a-z0-9]+")
_HEADING_LINE = re.compile(r"^#{1,6}[ \t].*$", re.MULTILINE)


def words_of(body: str) -> tuple[str, ...]:
    """The body as lower-case words, headings dropped: what `duplicate/exact` compares."""
    return tuple(_WORDS.findall(_HEADING_LINE.sub(" ", body.lower())))


def body_digest(body: str) -> bytes:
    """A short digest of `words_of(body)`: what a full audit keeps per note to find
    word-for-word copies (the words themselves would be most of its memory)."""
    import hashlib

    text = " ".join(words_of(body)).encode("utf-8", "surrogatepass")
    return hashlib.blake2b(text, digest_size=16).digest()


def title_key(title: str | None) -> str:
    """A title as lower-case words: what `duplicate/same-title` compares."""
    return " ".join(_WORDS.findall((title or "").lower()))


@dataclass(frozen=True)
class Entry:
    """One note of the corpus; its `Profile` is read when a rule first asks for it."""

    view: NoteView
    display: str  # the path findings name ("" for a note that is not under review)
    reviewed: bool  # under review in this run

    @cached_property
    def profile(self) -> Profile:
        return profile(self.view)


def related(one: NoteView, other: NoteView) -> bool:
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

    def find(self, index: int, ids: Iterable[str], numbers: Iterable[int]) -> list[int]:
        """The notes before `index` (not related to it) that note `index` refers to: by id
        (a `[[link]]`), or by the number their topic starts with ("ADR 15" for
        `adr-015-…`), as `lore.curator.judgement.replacement` reads them."""
        ...
