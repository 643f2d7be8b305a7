"""Cue sentences: the sentences of a note that say something is being replaced.

A note's *cues* are its sentences (title first) that say something is being replaced:
`supersede` or `amend` (of a decision: "amend data" edits data); `replace`, `deprecate`,
`retire`, `decommission`, `obsolete`, "phase out"; "instead of", "in favour of", "in place
of", "no longer", "stop using", "not to use", "move / migrate / switch (away) from",
"revert", "revisit", "reconsider"; and, weaker, "previously", "used to", "any more",
"will now be", "from now on"; "overrides" and "an update to", which count only where they
name a note (`REVISE`: an override is as often technical); in the title only, a decision
to remove something ("Remove the card proxy", "Drop X", "Merge X into Y"). The cue words
and the reasons one does not speak for its note are data (`lore.text.cues`).

Each cue keeps what the judgement compares with another note
(`lore.curator.judgement.replacement`):

- the notes it links (`[[id]]`) near a cue word (before "in favour of", whose link after
  is the new thing), or, for `supersede`/`amend`, anywhere in its sentence or paragraph;
- the record numbers it names: "ADR 15", "ADRs 60 and 61", "ADR-0002", "decision 0003"
  (not "Decision 2:", a label), unless the link or number sits in a leading "With ADR 8,
  ..." / "Since ..." phrase: that names why things changed (`_CAUSE`);
- the content terms of the words around its cue words (`BEFORE` and `AFTER` words), and
  its *objects*: the words right after a cue word, up to a stop, and before it for "X is
  deprecated", "X in favour of Y" — what it says is replaced — with the numbers in them;
- whether it re-decides — "This record replaces our decision to ...", "This ADR
  overrides ...", a title "Revisiting X", "we are reconsidering ..." (done, not planned:
  not "we will revisit this"); "we are revisiting that decision" re-decides what the
  sentence before it names (`_ANAPHORA`).

Code, headings, block quotes (someone else's words), lists that weigh an option and the
`## Related` section hold no cue. `cues` ends with one `REFERENCE` cue holding every note
the prose links or numbers; it is no cue itself, and lets the rules judge the notes it
names. Spans are bounded, and each cue word reads a window of its sentence, so a hostile
note reads in linear time.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from typing import Protocol

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


class Titled(Protocol):
    """What cues are read from: a note's title and body (read-only)."""

    @property
    def title(self) -> str | None: ...
    @property
    def body(self) -> str: ...


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
NOT_OBJECT = frozenset(
    content_terms(
        "supersedes superseded amends replaces prior previous earlier former decisions "
        "decision records adrs adr notes note this these those all any regarding about"
    )
)
MAX_CUES = 50  # of a note: a note is meant to hold one idea
MAX_REFERENCES = 20  # notes a note's `REFERENCE` cue names (each is judged against it)
_PASSIVE = re.compile(r"(?:ed|ion|ions)$|favou?r of$", re.IGNORECASE)
_FAVOUR = re.compile(r"favou?r of$", re.IGNORECASE)
REDECIDES, POINTS_BACK = 1, 2  # a re-deciding cue; one whose "that decision" is named before


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


def cues(note: Titled) -> tuple[Cue, ...]:
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
