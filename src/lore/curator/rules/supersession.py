"""`lifecycle/may-supersede`: a new note that takes an active note's place without saying
so in `supersedes`.

The note says it replaces the other ("instead of X", "replaces X", "we supersede ADR
12", "no longer X", "X is deprecated in favour of Y": a sentence that links the other
note, names its number or names what it is about), or takes the same decision again
under nearly the same title (`lore.curator.judgement.replacement`). The warning names
the old note, quotes the sentence and points at its line, and suggests the exact
`supersedes:` line: a person decides, because a note may build on an older one rather
than replace it.

The rule id sits in the `lifecycle/` family: what it asks for is a lifecycle field, and
what it decides is whether the old note stays in recall; `duplicate/` says a note is
told twice, which a replacement is not. A note already listed in `supersedes`, or
inactive, is never named; nor is a note under review named more than `MAX_REPLACED`
times' worth (`lore.curator.rules.pairs`).
"""

from __future__ import annotations

from collections.abc import Callable

from lore.curator.context.candidates import corpus_of
from lore.curator.context.corpus import Entry, NoteCorpus
from lore.curator.context.model import CuratorContext
from lore.curator.finding import WARNING, Finding
from lore.curator.judgement.replacement import Replacement
from lore.curator.rules.pairs import Pairs, active_before, pairs_of
from lore.curator.rules.quoting import summary_line
from lore.curator.rules.text import quote

RULE = "lifecycle/may-supersede"
DESCRIPTION = (
    "the note says it replaces an active note (or takes its decision again) but does "
    "not list it in `supersedes` (warning)"
)


def check(context: CuratorContext) -> list[Finding]:
    corpus = corpus_of(context)
    reviewed = corpus.reviewed()
    if not reviewed:
        return []
    pairs = pairs_of(context)
    active = active_before(context)
    findings: list[Finding] = []
    for index in reviewed:
        findings += check_note(corpus, pairs, index, active)
    return findings


def check_note(
    corpus: NoteCorpus, pairs: Pairs, index: int, active: Callable[[int], bool]
) -> list[Finding]:
    """The notes note `index` may replace; `active` is `active_before(context)`."""
    entry = corpus.entries[index]
    return [
        _finding(entry, corpus.entries[other], replaced)
        for other, replaced in pairs.replacements(index, active)
    ]


def suggested_line(entry: Entry, other_id: str) -> str:
    """The `supersedes:` line the note should carry: its own ids, then the new one."""
    ids = [*entry.view.supersedes, other_id]
    return f"supersedes: [{', '.join(dict.fromkeys(ids))}]"


def _finding(entry: Entry, theirs: Entry, replaced: Replacement) -> Finding:
    view = entry.view
    cue = replaced.cue
    if cue is None:
        line = view.line_of_key("title")
        said = f'its title "{quote(view.title or "", 100)}" is nearly {theirs.view.id}\'s'
        if replaced.how == "rechosen":
            said = (
                f'"{quote(view.title or "", 100)}" against "{quote(theirs.view.title or "", 100)}"'
            )
    else:
        line = view.line_of_key("title") if cue.offset < 0 else view.body_line_at(cue.offset)
        said = f'"{quote(cue.text, 160)}"'
    which = "another note of this change" if theirs.reviewed else "an active note"
    return Finding(
        RULE,
        WARNING,
        entry.display,
        line or summary_line(view),
        f"this note may replace {theirs.view.id}, {which} "
        f"({quote(theirs.view.title or '', 80)}): {replaced.reason()}: {said}",
        f"If it replaces it, add `{suggested_line(entry, theirs.view.id)}` to the "
        f"frontmatter; if it only builds on it, link `[[{theirs.view.id}]]` instead.",
        about=theirs.view.id,
    )
