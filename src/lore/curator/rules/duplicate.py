"""`duplicate/`: a note that repeats one the vault already has.

- `duplicate/exact` (error): the body, as lower-case words with headings dropped, is
  word for word the body of another note.
- `duplicate/near` (warning): the two notes hold the same lesson in other words: their
  likeness (`lore.curator.judgement.similarity`: titles, summaries and whole notes
  compared by IDF-weighted terms, gated by subject and whole-note likeness) reaches
  `near_duplicate_threshold`, they do not contradict each other and the new note does
  not say it replaces the other (those are reported instead: `Verdict.kind`). The
  warning names the other note and the words both use, points at the `## What`
  summary, and suggests `supersedes` or an edit.
- `duplicate/same-title` (warning): another note has the same title (unless the
  replacement rule already names it).

A note is never compared with the notes it supersedes or that supersede it. In a pull
request each new note is compared with the notes at the base and with the notes
before it in the same change; in a full audit each pair is reported once, on the
newer note. Which notes are judged is `lore.curator.context.candidates`' decision.
"""

from __future__ import annotations

from collections.abc import Callable

from lore.curator.context.candidates import corpus_of
from lore.curator.context.corpus import NoteCorpus, title_key, words_of
from lore.curator.context.model import CuratorContext
from lore.curator.finding import ERROR, WARNING, Finding
from lore.curator.judgement.verdict import DUPLICATE
from lore.curator.rules.pairs import active_before, pairs_of
from lore.curator.rules.quoting import spelled, summary_line

NAME = "duplicate"
RULES = {
    "duplicate/exact": "the body repeats an existing note word for word",
    "duplicate/near": "the note holds the same lesson as an existing note, in other words "
    "(warning)",
    "duplicate/same-title": "the title is the same as an existing note's (warning)",
}

MAX_NEAR_PER_NOTE = 3

__all__ = ["NAME", "RULES", "check", "check_note", "same_title", "title_key", "words_of"]


def check(context: CuratorContext) -> list[Finding]:
    corpus = corpus_of(context)
    reviewed = [i for i in corpus.reviewed() if corpus.entries[i].has_body]
    if not reviewed:
        return []
    findings: list[Finding] = []
    for index in reviewed:
        findings += check_note(context, corpus, index)
    active = active_before(context)
    for index in corpus.reviewed():
        findings += same_title(context, corpus, index, active)
    return findings


def check_note(context: CuratorContext, corpus: NoteCorpus, index: int) -> list[Finding]:
    """`duplicate/exact` and `duplicate/near` for note `index` (one with a body)."""
    entry = corpus.entries[index]
    findings: list[Finding] = []
    copy = corpus.exact_copy(index)
    if copy is not None:
        other_id = corpus.entries[copy].view.id
        findings.append(
            Finding(
                "duplicate/exact",
                ERROR,
                entry.display,
                summary_line(entry.view),
                f"the body is the same as {other_id}'s",
                f"Drop this note, or make it supersede {other_id} if it replaces it.",
                about=other_id,
            )
        )
    pairs = pairs_of(context)
    near = 0
    for other in pairs.candidates(index, lambda candidate: True):
        if other == copy or not corpus.entries[other].has_body:
            continue
        verdict = pairs.verdict(index, other)
        if verdict.kind != DUPLICATE:
            continue
        theirs = corpus.entries[other]
        likeness = verdict.likeness
        shared = ", ".join(spelled(entry.view, likeness.shared(corpus.idf, 4)))
        where = " (also in this change)" if theirs.reviewed else ""
        findings.append(
            Finding(
                "duplicate/near",
                WARNING,
                entry.display,
                summary_line(entry.view),
                f"this note holds the same lesson as {theirs.view.id}{where} "
                f"({likeness.explain()}; both say {shared})",
                f"If this replaces it, add `supersedes: [{theirs.view.id}]`; if it adds to it, "
                f"link [[{theirs.view.id}]] and keep only what is new.",
                about=theirs.view.id,
            )
        )
        near += 1
        if near == MAX_NEAR_PER_NOTE:
            break
    return findings


def same_title(
    context: CuratorContext, corpus: NoteCorpus, index: int, active: Callable[[int], bool]
) -> list[Finding]:
    """`duplicate/same-title` for note `index`; `active` is `active_before(context)`."""
    entry = corpus.entries[index]
    other = corpus.same_title(index)
    replaced = {corpus.entries[i].id for i, _ in pairs_of(context).replacements(index, active)}
    if other is None or other in replaced:  # a replacement says it better
        return []
    return [
        Finding(
            "duplicate/same-title",
            WARNING,
            entry.display,
            entry.view.line_of_key("title"),
            f"{other} has the same title",
            "Make the title state what is different, or supersede the older note.",
            about=other,
        )
    ]
