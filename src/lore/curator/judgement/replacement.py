"""Replacement: a new note that takes the place of an existing one.

A note's *cues* are its sentences (title first) that say something is being replaced:
`supersede` or `amend` (of a decision: "amend data" edits data); `replace`, `deprecate`,
`retire`, `decommission`, `obsolete`, "phase out"; "instead of", "in favour of", "in place
of", "no longer", "stop using", "not to use", "move / migrate / switch (away) from",
"revert", "revisit", "reconsider"; and, weaker, "previously", "used to", "any more",
"will now be", "from now on"; "overrides" and "an update to", which count only where they
name a note (`REVISE`: an override is as often technical); in the title only, a decision
to remove something ("Remove the card proxy", "Drop X", "Merge X into Y":
`_TITLE_VERB`). A cue is about another note when

- it links it (`[[id]]`) near a cue word (before "in favour of", whose link after is the
  new thing), or, for `supersede`/`amend`, anywhere in its sentence or paragraph
  (`links`);
- it names its number: "ADR 15", "ADRs 60 and 61", "ADR-0002", "decision 0003" (not
  "Decision 2:", a label) against the leading number of the other note's topic
  (`adr-015-…`, `0002-…`, or after a date: `2023-04-26-023-…`), as imported ADRs are
  named (`number`), unless the link or number sits in a leading "With ADR 8, ..." /
  "Since ..." phrase: that names why things changed (`_CAUSE`);
- it names what the other note is about: the other note's title holds `OBJECT_COVER`
  of the weight of what the sentence says is replaced (the words right after the cue
  word, up to a stop, and before it for "X is deprecated", "X in favour of Y"), and the
  whole notes are alike (`similarity.whole_note` at least `SUBJECT_FLOOR`, or
  `HISTORY_FLOOR` for the weak cues); a number in what is replaced ("instead of 403
  responses") must be in that title too (`subject`);
- it re-decides and names no note itself — "This record replaces our decision to ...",
  "This ADR overrides ...", a title "Revisiting X", "we are reconsidering ..." (done,
  not planned: not "we will revisit this") — and the note links or numbers the other
  note elsewhere, and at most `MAX_REFERENCED` notes in all (`referenced`); "we are
  revisiting that decision" re-decides what the sentence before it names (`_ANAPHORA`);
- or it says `supersede` and names nothing ("this supersedes all prior decisions
  regarding UEI"): then a note that is alike (`UNNAMED_FLOOR`) and shares a salient word
  with the sentence (`unnamed`; the rule keeps the closest few).

A cue word says nothing of this note inside a block quote (someone else's words), inside
brackets (a link's label or target names another document), in an example ("for
example", "e.g."), or right after a negation ("we will not replace", "without
replacement"); "can be used to" is the passive of `use`, not "used to"; and text that
"was moved from ADR 8" says where the words come from (`cue_words`).

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
`cues` ends with one `REFERENCE` cue holding every note the prose links or numbers;
it is no cue itself, and lets the rules judge the notes it names.

Pure functions over a note's text and two `Profile`s: no I/O. Which notes are judged,
and what is reported, is the rules' decision (`lore.curator.rules.pairs`).
"""

from __future__ import annotations

import math
import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass

from lore.curator.judgement.notes import JudgedNote, Profile
from lore.curator.judgement.records import number_of
from lore.curator.judgement.terms import Idf, is_weak, weighted_overlap, weights
from lore.text.choices import rechosen
from lore.text.cues import (
    CUE,
    HISTORY,
    REFERENCE,
    REPLACE,
    REVISE,
    SUPERSEDE,
    SWITCH,
    cue_words,
)
from lore.text.headings import heading
from lore.text.markdown import BULLET_MARKER, QUOTE_LINE, STRUCK, CodeMap
from lore.text.prose import is_related
from lore.text.weighing import weighed_lines
from lore.text.words import content_terms

# "With the introduction of ADR 8, users no longer sign twice": the record named in a
# leading "with / since / after / thanks to ..." phrase is why things changed, not what
# is replaced.
_CAUSE = re.compile(
    r"^\W*(?:with|since|after|following|thanks to|because of|due to|given|now that|as of)\b"
    r"[^,;]*,",
    re.IGNORECASE,
)
# A cue that re-decides: "this record replaces ...", "this ADR overrides ..." (its subject
# is the note itself), or a verb that takes a decision again ("revert", "revisit",
# "reconsider") in the title or with the team as its subject ("we are revisiting"; not
# an instruction: "manually revert the changes"); stated as done, not planned ("we will
# revisit this in a year", "this will replace ...").
_SELF = re.compile(
    r"^\W*this\s+(?:adr|decision|record|document|proposal|rfc|note|change)\b", re.IGNORECASE
)
_REDECIDE = re.compile(r"^re(?:vert|visit|consider)", re.IGNORECASE)
_WE = re.compile(r"\b(?:we|we['’](?:re|ve)|the team)\b(?:\W+\w+){0,3}?\W*$", re.IGNORECASE)
_MODAL = re.compile(
    r"\b(?:will|shall|may|might|could|should|can|must|would|to|plan|want|need)\W+(?:\w+\W+)?$",
    re.IGNORECASE,
)
# "We are revisiting that decision": what it re-decides is what the sentence before names.
_ANAPHORA = re.compile(
    r"^\W+(?:(?:that|this|these|those|the|our)\W+(?:\w+\W+)?(?:decisions?|choices?|approach|"
    r"adrs?|records?)\b|(?:it|them)\b)",
    re.IGNORECASE,
)
_NUMERAL = re.compile(r"\b\d+\b")
# Spans are bounded (an id, a label, a URL), so "[[[[…" in a hostile note reads in
# linear time: unbounded, 20,000 of "[[" in one line took 109 s.
_LINK = re.compile(r"\[\[([^\]|#\n]{1,300})(?:[|#][^\]\n]{0,300})?\]\]")
_MD_LINK = re.compile(r"(?<!!)\[([^\]\n]{0,500})\]\([^)\n]{0,2000}\)")
_URL = re.compile(r"https?://\S+")
_NUMBERS = re.compile(
    r"\b(?:ADRs?[-\s#:]*|decisions?(?: records?)?[-\s#]*)(\d{1,5})(?!\d|:)"
    r"((?:\s*(?:,|and|&|or)\s*(?:ADR[-\s#:]*)?\d{1,5}\b)*)",
    re.IGNORECASE,
)
_DIGITS = re.compile(r"\d{1,5}")
_SENTENCE_END = re.compile(r"(?<=[^.][.!?])\s+(?=\S)")
_WORDS = re.compile(r"\[\[[^\]\n]{0,300}\]\]|[^\W_]+(?:[-.][^\W_]+)*")
BEFORE, AFTER = 6, 8  # words around a cue word that name what is replaced
RESTATED = 0.5  # of what a cue replaces, replaced by a cue of the other note: it recalls it
OBJECT_CHARS = 60  # of the words right after a cue word, up to a stop
_STOP_CHARS = 10  # the longest stop (" because "), read beyond OBJECT_CHARS to find it
LOOK_AHEAD = 200  # characters after a cue word that say what it points back to
# A stop ends what a cue replaces; a dot or a colon inside a name ("GOV.UK", "Node.js",
# "v2.1", "std::io") is part of it.
_OBJECT_END = re.compile(
    r"[.:!?](?=\s|$)|[,;()\[\]]|\s(?:and|but|because|so|which|with|to|into|in|for)\s"
)
_CUE_TERMS = frozenset(
    content_terms(
        "supersede supersedes superseded amend amends replace replaces replaced replacing "
        "replacement deprecate deprecated deprecation retire retired decommission obsolete "
        "sunset phase instead favour favor place longer stop using move moving moved away "
        "migrate migrating migrated switch switching switched transition revert revisit "
        "reconsider previously until anymore adr adrs decision decisions decided decide "
        "record records note notes"
    )
)

# Words of a "this supersedes all prior decisions regarding X" sentence that are not X.
_NOT_OBJECT = frozenset(
    content_terms(
        "supersedes superseded amends replaces prior previous earlier former decisions "
        "decision records adrs adr notes note this these those all any regarding about"
    )
)
MAX_CUES = 50  # of a note: a note is meant to hold one idea
MAX_REFERENCES = 20  # notes a note's `REFERENCE` cue names (each is judged against it)

OBJECT_COVER = 0.6  # of what a sentence replaces, found in the other note's title
_PASSIVE = re.compile(r"(?:ed|ion|ions)$|favou?r of$", re.IGNORECASE)
_FAVOUR = re.compile(r"favou?r of$", re.IGNORECASE)
SUBJECT_FLOOR = 0.12  # whole-note likeness a cue naming a note's subject needs
HISTORY_FLOOR = 0.2  # ...when the cue is a weak one ("previously", "any more")
UNNAMED_FLOOR = 0.15  # ...for "this supersedes ..." naming nothing
RETAKEN_TITLE = 0.6  # title likeness of the same decision taken again
RETAKEN_CONTAINED = 0.9  # ...the shorter title's weight found in the longer one
RETAKEN_FLOOR = 0.2  # ...and its whole-note likeness
RETAKEN_NAMED_FLOOR = 0.1  # ...when the new note also links the old one or names its number
RECHOSEN_FLOOR = 0.1  # whole-note likeness for another choice for the same purpose
REDECIDES, POINTS_BACK = 1, 2  # a re-deciding cue; one whose "that decision" is named before
REFERENCED_FLOOR = 0.12  # whole-note likeness for a re-deciding cue and a note named elsewhere
MAX_REFERENCED = 2  # ...of at most this many notes the re-deciding note names


@dataclass(frozen=True)
class Cue:
    """One sentence of a note that says something is being replaced."""

    text: str  # the sentence as one line, links and markup dropped
    offset: int  # where it starts in the body; -1 for the title
    kind: str  # SUPERSEDE, REPLACE, SWITCH or HISTORY (the strongest cue word in it)
    terms: frozenset[str]  # the content terms of the words around its cue words
    links: tuple[str, ...]  # the note ids it (or, for SUPERSEDE, its paragraph) links
    numbers: tuple[int, ...]  # the decision numbers it names ("ADR 15")
    objects: frozenset[str] = frozenset()  # the terms right after its cue words, up to a
    # link or a stop ("replace Terraform Cloud" -> terraform, cloud): what it replaces
    numerals: frozenset[str] = frozenset()  # the numbers in what it replaces ("403 errors")
    redecides: bool = False  # "this record replaces ...", "we are revisiting ...": the
    # note takes a decision again, so a note it links or numbers anywhere is that decision


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


_STRENGTH = {SUPERSEDE: 3, REPLACE: 2, REVISE: 2, SWITCH: 1, HISTORY: 0, REFERENCE: -1}


def _numbers(sentence: str) -> tuple[int, ...]:
    found: list[int] = []
    for match in _NUMBERS.finditer(sentence):
        found.append(int(match[1]))
        found += [int(more) for more in _DIGITS.findall(match[2] or "")]
    return tuple(dict.fromkeys(found))


def _plain(sentence: str) -> str:
    text = _LINK.sub(" ", sentence)
    text = _MD_LINK.sub(lambda m: m[1], text)
    text = _URL.sub(" ", text).replace("`", "").replace("**", "").replace("__", "")
    return " ".join(BULLET_MARKER.sub("", text).split())


def _unheaded(line: str) -> str:
    """A heading line as its title (what a weighing list's heading says), else the line."""
    title = heading(line)
    return title[1] if title else line


def _paragraphs(body: str) -> list[tuple[int, str]]:
    """(offset, text) of the body's paragraphs and list items, outside code, headings,
    block quotes (someone else's words, as `lore.text.prose` reads them), lists that weigh
    an option ("Cons", "Good, because ...": `weighing`) and the `## Related` section."""
    hidden = CodeMap(body).fences(body)
    found: list[tuple[int, str]] = []
    lines: list[str] = []
    start, offset, related = 0, 0, False

    def flush() -> None:
        if lines:
            found.append((start, "\n".join(lines)))
            lines.clear()

    body = STRUCK.sub(lambda struck: " " * len(struck[0]), body)  # offsets kept
    lines_of = body.split("\n")
    weighs = weighed_lines("\n".join(_unheaded(line) for line in lines_of))
    for line, weighed in zip(lines_of, weighs, strict=True):
        here = offset
        offset += len(line) + 1
        if weighed or any(begin <= here < end for begin, end in hidden):
            flush()
            continue
        title = heading(line)
        if title:
            flush()
            related = title[0] == 2 and is_related(title[1])
            continue
        if related:
            continue
        if QUOTE_LINE.match(line):
            flush()
            continue
        if not line.strip() or BULLET_MARKER.match(line):
            flush()
        if line.strip():
            if not lines:
                start = here
            lines.append(line)
    flush()
    return found


def _windows(sentence: str, title: bool = False) -> tuple[str, str, str, int] | None:
    """(the strongest cue kind, the words around each cue word, the words right after
    each, `REDECIDES` or `POINTS_BACK` when it re-decides, else 0) of a sentence, or None.

    Around a cue word means `BEFORE` words before it ("X is deprecated") and `AFTER`
    words after it ("instead of X"), a `[[link]]` counting as one word: what is replaced
    is named there, not anywhere in a long sentence."""
    words = list(_WORDS.finditer(sentence))
    word_starts = [w.start() for w in words]
    word_ends = [w.end() for w in words]
    kinds: list[str] = []
    spans: list[str] = []
    objects: list[str] = []
    redecides = 0
    for kind, begin, finish, text in cue_words(sentence, title):
        kinds.append(kind)
        lead = sentence[max(0, begin - 30) : begin]
        if _MODAL.search(lead):
            redeciding = False
        elif _REDECIDE.match(text):
            redeciding = title or bool(_WE.search(lead))
            if redeciding and _ANAPHORA.match(sentence[finish : finish + LOOK_AHEAD]):
                redecides = max(redecides, POINTS_BACK)
                redeciding = False
        else:
            redeciding = kind in (SUPERSEDE, REPLACE, REVISE) and bool(_SELF.match(sentence))
        redecides = REDECIDES if redeciding else redecides
        # Each cue word reads a window of the sentence (bisected, sliced), never all of it:
        # a hostile sentence of 16,000 cue words took minutes when each read it whole.
        ending = bisect_right(word_ends, begin)
        before = words[max(0, ending - BEFORE) : ending]
        starting = bisect_left(word_starts, finish)
        after = words[starting : starting + AFTER]
        if _FAVOUR.search(text):  # "X in favour of [[Y]]": what follows is the new thing
            after = []
        start = before[0].start() if before else begin
        end = after[-1].end() if after else finish
        spans.append(sentence[start:end])
        if not _FAVOUR.search(text):  # "X in favour of Y": Y is the new thing
            after_text = sentence[finish : finish + OBJECT_CHARS + _STOP_CHARS]
            objects.append(_OBJECT_END.split(after_text, maxsplit=1)[0][:OBJECT_CHARS])
        if _PASSIVE.search(text):  # "X is deprecated", "X in favour of Y"
            lead_text = sentence[max(0, begin - OBJECT_CHARS - _STOP_CHARS) : begin]
            objects.append(_OBJECT_END.split(lead_text)[-1][-OBJECT_CHARS:])
    if not kinds:
        return None
    kind = max(kinds, key=_STRENGTH.__getitem__)
    return kind, "\n".join(spans), "\n".join(objects), redecides


def _cue(text: str, offset: int, paragraph_links: tuple[str, ...], before: str = "") -> Cue | None:
    found = _windows(text, title=offset < 0)
    if found is None:
        return None
    kind, around, named, redecides = found
    where = text if kind == SUPERSEDE else around  # "supersede" is explicit: the sentence
    if redecides == POINTS_BACK:  # "we are revisiting that decision": the one named before
        where = f"{before}\n{where}"
    links = tuple(dict.fromkeys(m[1].strip() for m in _LINK.finditer(where)))
    numbers = _numbers(where)
    cause = _CAUSE.match(text) if kind != SUPERSEDE else None
    if cause and not CUE.search(cause[0]):  # "with ADR 8, ... no longer": the reason
        links = tuple(link for link in links if f"[[{link}" not in cause[0])
        numbers = tuple(number for number in numbers if number not in _numbers(cause[0]))
    if kind == SUPERSEDE and not links:
        links = paragraph_links
    plain = _plain(_NUMBERS.sub(" ", named))
    return Cue(
        _plain(text),
        offset,
        kind,
        frozenset(content_terms(_plain(around))),
        links,
        numbers,
        frozenset(content_terms(plain)) - _CUE_TERMS,
        frozenset(_NUMERAL.findall(plain)),
        redecides == REDECIDES,
    )


def cues(note: JudgedNote) -> tuple[Cue, ...]:
    """The sentences of a note (its title first) that say something is being replaced,
    then, as one `REFERENCE` cue, every note it links or names by number anywhere."""
    found: list[Cue] = []
    links: dict[str, None] = {}
    numbers: dict[int, None] = {}
    first: tuple[str, int] | None = None
    title = _cue(note.title or "", -1, ())
    if title is not None:
        found.append(title)
    for start, paragraph in _paragraphs(note.body):
        paragraph_links = tuple(dict.fromkeys(m[1].strip() for m in _LINK.finditer(paragraph)))
        position, before = 0, ""
        for piece in _SENTENCE_END.split(paragraph):
            at = paragraph.find(piece, position)
            position = at + len(piece)
            named = [m[1].strip() for m in _LINK.finditer(piece)], _numbers(piece)
            if (named[0] or named[1]) and len(links) + len(numbers) < MAX_REFERENCES:
                links.update(dict.fromkeys(named[0]))
                numbers.update(dict.fromkeys(named[1]))
                first = first or (piece, start + at)
            if len(found) >= MAX_CUES:
                continue
            cue = _cue(piece, start + at, paragraph_links, before)
            before = piece
            if cue is not None:
                found.append(cue)
    if first is not None:
        found.append(
            Cue(_plain(first[0]), first[1], REFERENCE, frozenset(), tuple(links), tuple(numbers))
        )
    return tuple(found)


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
        if _covered(cue.terms - _NOT_OBJECT, theirs.summary, idf) > 0:
            return Replacement(theirs.id, "unnamed", cue, similarity)
    return None
