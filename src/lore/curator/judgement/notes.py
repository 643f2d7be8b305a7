"""A note as the judgement reads it: its fields, and its prose without code or links.

`JudgedNote` is the shape the judgement needs (the curator's `NoteView` has it, and
so does anything with the same attributes). `prose` keeps the sentences a person
wrote: the title, then the body without fenced code, headings, the `## Related`
section, block quotes (someone else's words, not the note's claims), `[[links]]` and
URLs; inline code keeps its text, without the backticks
(`pool_size=10` is a claim). `Profile` is a note's terms and subject, computed once.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Protocol

from lore.curator.judgement.choices import NO_CHOICE, Choice, choice_of
from lore.curator.judgement.records import record_number
from lore.curator.judgement.terms import content_terms, tokens
from lore.sanitize.markdown import code_ranges

_HEADING = re.compile(r"^[ \t]{0,3}#{1,6}[ \t]+(.*?)[ \t#]*$", re.MULTILINE)
_RELATED = re.compile(r"^##[ \t]+related\b.*?(?=^##[ \t]|\Z)", re.IGNORECASE | re.M | re.S)
_NOISE = re.compile(r"\[\[[^\]]*\]\]|https?://\S+|\]\([^)]*\)")
_QUOTED = re.compile(r"^[ \t]{0,3}>.*$", re.MULTILINE)
_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.DOTALL)  # unseen when rendered: a template's hints
# Struck through: words the author withdrew (a struck list item with the remark after it).
STRUCK = re.compile(r"^[ \t]*~~[^~\n]+~~.*$|~~[^~\n]+~~", re.MULTILINE)
_WHAT = "what"


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


def _without_fences(body: str) -> str:
    fences = [
        (start, end)
        for start, end in code_ranges(body)
        if body[start:end].lstrip(" ").startswith(("```", "~~~"))
    ]
    for start, end in reversed(fences):
        body = body[:start] + "\n\n" + body[end:]
    return body


def sections(body: str) -> list[tuple[str, str]]:
    """(lower-case heading, prose) of each section; text before any heading has heading ""."""
    body = _COMMENT.sub(" ", STRUCK.sub(" ", _without_fences(body)))
    body = _QUOTED.sub("", _RELATED.sub("", body))
    body = _NOISE.sub(" ", body).replace("`", "").replace("**", "").replace("__", "")
    found: list[tuple[str, str]] = []
    heading, start = "", 0
    for match in _HEADING.finditer(body):
        found.append((heading, body[start : match.start()]))
        heading, start = match[1].strip().lower(), match.end()
    found.append((heading, body[start:]))
    return [(name, text) for name, text in found if text.strip()]


def what_of(body: str) -> str:
    """The `## What` section's prose, or the body's first section when it has none."""
    parts = sections(body)
    return next((text for name, text in parts if name == _WHAT), parts[0][1] if parts else "")


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
    parts = [(name, content_terms(text)) for name, text in sections(note.body)]
    what = next((terms for name, terms in parts if name == _WHAT), parts[0][1] if parts else [])
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
