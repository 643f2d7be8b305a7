"""A note as the judgement reads it (the `JudgedNote` protocol), for the judgement's tests,
and a flat weight for every term."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Note:
    id: str
    title: str | None
    body: str
    tags: tuple[str, ...] = ()
    repo: tuple[str, ...] = ()
    services: tuple[str, ...] = ()
    files_touched: tuple[str, ...] = ()
    source: str | None = None


def flat(term: str) -> float:
    return 2.0


def replaced_how(new: Note, old: Note, similarity: float = 0.3) -> str | None:
    """How `new` replaces `old` ("links", "number", ...) at this whole-note likeness, or None."""
    from lore.curator.judgement.notes import profile
    from lore.curator.judgement.replacement import replacement
    from lore.text.cue_sentences import cues

    found = replacement(cues(new), profile(old), similarity, flat, profile(new), cues(old))
    return None if found is None else found.how
