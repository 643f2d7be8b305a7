"""A note as the judgement reads it: its fields, and its prose without code or links.

`JudgedNote` is the shape the judgement needs (the curator's `NoteView` has it, and
so does anything with the same attributes). Its prose is read by `lore.text.prose`
(the sentences a person wrote, section by section). `Profile` is a note's terms and
subject, computed once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from lore.note.records import record_number
from lore.text.choices import NO_CHOICE, Choice, choice_of
from lore.text.prose import WHAT, prose_sections
from lore.text.words import content_terms, tokens


class JudgedNote(Protocol):
    """The fields the judgement reads (read-only, so frozen dataclasses fit)."""

    @property
    def id(self) -> str: ...
    @property
    def title(self) -> str | None: ...
    @property
    def body(self) -> str: ...
    @property
    def tags(self) -> tuple[str, ...]: ...
    @property
    def repo(self) -> tuple[str, ...]: ...
    @property
    def services(self) -> tuple[str, ...]: ...
    @property
    def files_touched(self) -> tuple[str, ...]: ...
    @property
    def source(self) -> str | None: ...


@dataclass(frozen=True)
class Profile:
    """What two notes are compared on to tell whether they hold the same lesson."""

    id: str
    title: frozenset[str]  # the title's content terms
    summary: frozenset[str]  # the title's and `## What`'s
    terms: frozenset[str]  # every content term of the title and the prose
    tags: frozenset[str]
    repos: frozenset[str]
    services: frozenset[str]
    files: frozenset[str]
    title_numbers: frozenset[str] = frozenset()  # the numbers its title writes ("Python 3")
    choice: Choice = NO_CHOICE  # what its title chooses, and what for (`choices.choice_of`)
    title_only: frozenset[str] = frozenset()  # title terms its prose never uses
    number: int | None = None  # the record it stands for (`records.record_number`)


def profile(note: JudgedNote) -> Profile:
    title = content_terms(note.title or "")
    parts = [(name, content_terms(text)) for name, text in prose_sections(note.body)]
    what = next((terms for name, terms in parts if name == WHAT), parts[0][1] if parts else [])
    prose = frozenset().union(*(terms for _, terms in parts))
    every = prose | frozenset(title)
    return Profile(
        id=note.id,
        title=frozenset(title),
        summary=frozenset(title + what),
        terms=every,
        tags=frozenset(tag.lower() for tag in note.tags),
        repos=frozenset(repo.lower() for repo in note.repo),
        services=frozenset(service.lower() for service in note.services),
        files=frozenset(note.files_touched),
        title_numbers=frozenset(token for token in tokens(note.title or "") if token.isdigit()),
        choice=choice_of(note.title or ""),
        title_only=frozenset(title) - prose,
        number=record_number(note.id, note.source),
    )
