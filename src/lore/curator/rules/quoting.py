"""Where a judgement finding points, and the words it shows: for the pair rules.

A duplicate, contradiction or replacement finding is read beside the diff, so it names
the line of the sentence it quotes (`line_of`): the quoted clause is found again in the
note's body by its first words, whatever markup lies between them, else in the title.
A near duplicate quotes nothing and points at the `## What` summary (`summary_line`).
Terms are stems (`deploi` for "deploy"); a message shows the words as the note spells
them (`spelled`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from lore.curator.context.model import NoteView
from lore.text.markdown import sections
from lore.text.prose import WHAT
from lore.text.words import identifier_parts, stem, tokens

FIRST_WORDS = 6  # of a quoted clause, to find it again


def _words(text: str) -> list[str]:
    return identifier_parts(text)[:FIRST_WORDS]


def line_of(view: NoteView, quoted: str) -> int | None:
    """The file line where the note says `quoted` (a clause as the judgement read it)."""
    words = _words(quoted)
    if not words:
        return None
    pattern = re.compile(r"\W+".join(re.escape(word) for word in words), re.IGNORECASE)
    found = pattern.search(view.body)
    if found is not None:
        return view.body_line_at(found.start())
    if view.title and pattern.search(view.title):
        return view.line_of_key("title")
    return None


def summary_line(view: NoteView) -> int:
    """The line of the first sentence under `## What` (the title's line without one)."""
    what = next((s for s in sections(view.body) if s.level == 2 and s.title.lower() == WHAT), None)
    if what is None:
        return view.line_of_key("title")
    rest = view.body[what.content_start :]
    offset = what.content_start + (len(rest) - len(rest.lstrip()))
    return view.body_line_at(min(offset, len(view.body)))


def spelled(view: NoteView, terms: Iterable[str]) -> list[str]:
    """Each term (a stem) as the note first writes it: `deploy` for `deploi`."""
    written: dict[str, str] = {}
    for token in tokens(f"{view.title or ''}\n{view.body}"):
        written.setdefault(stem(token), token)
    return [written.get(term, term) for term in terms]
