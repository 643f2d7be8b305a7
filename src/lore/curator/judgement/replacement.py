"""Replacement: a new note that takes the place of an existing one.

The new note's cue sentences are read by `lore.text.cue_sentences`. A cue is about
another note when

- it links it (`[[id]]`), or names its number ("ADR 15") against the leading number of
  the other note's topic (`adr-015-…`, `0002-…`, or after a date: `2023-04-26-023-…`)
  or the record its `source:` names, as imported ADRs are named (`links`, `number`);
- it names what the other note is about: the other note's title holds `OBJECT_COVER`
  of the weight of what the sentence says is replaced, and the whole notes are alike
  (`similarity.whole_note` at least `SUBJECT_FLOOR`, or `HISTORY_FLOOR` for the weak
  cues); a number in what is replaced ("instead of 403 responses") must be in that title
  too (`subject`);
- it re-decides and names no note itself, and the note links or numbers the other note
  elsewhere, and at most `MAX_REFERENCED` notes in all (`referenced`);
- or it says `supersede` and names nothing ("this supersedes all prior decisions
  regarding UEI"): then a note that is alike (`UNNAMED_FLOOR`) and shares a salient word
  with the sentence (`unnamed`; the rules keep the closest few).

A cue that names what the other note itself replaced ("our decision to replace
Terraform Cloud", about the note that decided it) recalls that note, and one that names
what the other note rules out ("instead of the parsed JSON" against "the raw body, not
the parsed JSON") agrees with it: neither replaces anything (`RESTATED`, `agrees`).

A note also replaces another when it takes the same decision again: nearly the same
title (one title's terms all but contained in the other's, `RETAKEN_CONTAINED`, and a
weighted Jaccard of at least `RETAKEN_TITLE`) and whole notes alike (`RETAKEN_FLOOR`, or
`RETAKEN_NAMED_FLOOR` when it also links the old note or names its number anywhere: a
second version under the old title that says which record it follows) (`retaken`); or
when its title makes another choice for the same purpose ("Use Heroku for hosting",
then "Use the PaaS for hosting": `choices.rechosen`, `RECHOSEN_FLOOR`) (`rechosen`).

Pure functions over two notes' cues and `Profile`s: no I/O. Which notes are judged,
and what is reported, is the rules' decision (`lore.curator.rules.pairs`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from lore.curator.judgement.notes import Profile
from lore.curator.judgement.terms import Idf, weighted_overlap, weights
from lore.note.records import number_of
from lore.text.choices import rechosen
from lore.text.cue_sentences import NOT_OBJECT, Cue
from lore.text.cues import HISTORY, REFERENCE, REVISE, SUPERSEDE
from lore.text.words import is_weak

RESTATED = 0.5  # of what a cue replaces, replaced by a cue of the other note: it recalls it
OBJECT_COVER = 0.6  # of what a sentence replaces, found in the other note's title
SUBJECT_FLOOR = 0.12  # whole-note likeness a cue naming a note's subject needs
HISTORY_FLOOR = 0.2  # ...when the cue is a weak one ("previously", "any more")
UNNAMED_FLOOR = 0.15  # ...for "this supersedes ..." naming nothing
RETAKEN_TITLE = 0.6  # title likeness of the same decision taken again
RETAKEN_CONTAINED = 0.9  # ...the shorter title's weight found in the longer one
RETAKEN_FLOOR = 0.2  # ...and its whole-note likeness
RETAKEN_NAMED_FLOOR = 0.1  # ...when the new note also links the old one or names its number
RECHOSEN_FLOOR = 0.1  # whole-note likeness for another choice for the same purpose
REFERENCED_FLOOR = 0.12  # whole-note likeness for a re-deciding cue and a note named elsewhere
MAX_REFERENCED = 2  # ...of at most this many notes the re-deciding note names


@dataclass(frozen=True)
class Replacement:
    """Why a note may take another's place."""

    other: str  # the id of the note it may replace
    how: str  # "links", "number", "subject", "referenced", "unnamed", "retaken", "rechosen"
    cue: Cue | None  # the sentence that says so (None when the title says it)
    similarity: float  # the whole-note likeness of the two

    def reason(self) -> str:
        """What the finding says, after "this note may replace <id>": why."""
        if self.how == "rechosen":
            return "its title makes another choice for the same purpose"
        if self.cue is None:
            return "it takes the same decision again under nearly the same title"
        if self.how == "links":
            return "it links that note where it says it replaces something"
        if self.how == "number":
            return "it names that note's number where it says it replaces something"
        if self.how == "unnamed":
            return "it says it supersedes earlier decisions, and that one is the most alike"
        if self.how == "referenced":
            return "it says it takes a decision again, and names that note elsewhere"
        return "it says it replaces what that note is about"


def _covered(part: frozenset[str], whole: frozenset[str], idf: Idf) -> float:
    """The share of `whole`'s weight that `part` holds (0 when no salient term is shared)."""
    shared = part & whole
    if not shared or all(is_weak(term) for term in shared):
        return 0.0
    table = weights(idf)
    total = table.total(whole)
    return math.fsum(table(term) for term in shared) / total if total else 0.0


def _restates(cue: Cue, their_cues: tuple[Cue, ...], idf: Idf) -> bool:
    """The other note replaced what this cue replaces already ("our decision to replace
    Terraform Cloud", about the note that decided it): this note recalls it."""
    return bool(cue.objects) and any(
        _covered(theirs.objects, cue.objects, idf) >= RESTATED for theirs in their_cues
    )


def _names_subject(cue: Cue, theirs: Profile, idf: Idf) -> bool:
    """What the cue says is replaced lies mostly in the other note's title ("instead of
    Notify" against "Use GOV.UK Notify"): a long object that merely mentions the title's
    word ("instead of writing the verbose configuration data" against "Configuration")
    names something else, and so does one with a number the title lacks ("instead of
    403 responses" against "JSON responses")."""
    if cue.numerals - theirs.title_numbers:
        return False
    return _covered(theirs.title, cue.objects, idf) >= OBJECT_COVER


def agrees(cue: Cue, ruled_out: frozenset[str], idf: Idf) -> bool:
    """The other note already rules out what this cue replaces ("raw body, not the parsed
    JSON" against "the raw bytes instead of the parsed JSON"): the two agree, and the new
    note replaces nothing of it."""
    return bool(cue.objects) and _covered(ruled_out, cue.objects, idf) >= RESTATED


def _referenced(
    found: tuple[Cue, ...],
    theirs: Profile,
    number: int | None,
    similarity: float,
) -> Replacement | None:
    """A cue that re-decides and names no note ("This record replaces our decision to use
    X", "Revisiting the export") in a note that names `theirs` elsewhere, and at most
    `MAX_REFERENCED` notes in all: that is the decision it takes again."""
    reference = next((cue for cue in found if cue.kind == REFERENCE), None)
    if reference is None or similarity < REFERENCED_FLOOR:
        return None
    if theirs.id not in reference.links and (number is None or number not in reference.numbers):
        return None
    linked = {number_of(link) for link in reference.links}
    if len(reference.links) + len(set(reference.numbers) - linked) > MAX_REFERENCED:
        return None
    for cue in found:
        if cue.redecides and not (cue.links or cue.numbers):
            return Replacement(theirs.id, "referenced", cue, similarity)
    return None


def replacement(  # positional arguments: both notes' cues and profiles, their likeness, the weights
    found: tuple[Cue, ...],
    theirs: Profile,
    similarity: float,
    idf: Idf,
    mine: Profile,
    their_cues: tuple[Cue, ...] = (),
) -> Replacement | None:
    """Whether the note with `found` cues (and profile `mine`) may replace `theirs`."""
    number = theirs.number
    best: Replacement | None = None
    for cue in found:
        if cue.kind == REFERENCE or _restates(cue, their_cues, idf):
            continue
        if theirs.id in cue.links:
            return Replacement(theirs.id, "links", cue, similarity)
        if number is not None and number in cue.numbers:
            return Replacement(theirs.id, "number", cue, similarity)
        if best is not None or cue.kind == REVISE:  # "overrides" names a note, or nothing
            continue
        floor = HISTORY_FLOOR if cue.kind == HISTORY else SUBJECT_FLOOR
        if similarity >= floor and _names_subject(cue, theirs, idf):
            best = Replacement(theirs.id, "subject", cue, similarity)
    if best is not None:
        return best
    referenced = _referenced(found, theirs, number, similarity)
    if referenced is not None:
        return referenced
    title, contained = weighted_overlap(mine.title, theirs.title, idf)
    named = any(
        theirs.id in cue.links or (number is not None and number in cue.numbers) for cue in found
    )
    floor = RETAKEN_NAMED_FLOOR if named else RETAKEN_FLOOR
    if title >= RETAKEN_TITLE and contained >= RETAKEN_CONTAINED and similarity >= floor:
        return Replacement(theirs.id, "retaken", None, similarity)
    if similarity >= RECHOSEN_FLOOR and rechosen(mine.choice, theirs.choice):
        return Replacement(theirs.id, "rechosen", None, similarity)
    for cue in found:
        if cue.kind != SUPERSEDE or cue.links or cue.numbers or similarity < UNNAMED_FLOOR:
            continue
        if _restates(cue, their_cues, idf):
            continue
        if _covered(cue.terms - NOT_OBJECT, theirs.summary, idf) > 0:
            return Replacement(theirs.id, "unnamed", cue, similarity)
    return None
