"""Cue words: which words of a sentence say that something is being replaced.

Two tables, both data. `CUES` lists the words that can say a decision is replaced, by
kind. `UNSAID` lists when such a word does not speak for the note it is written in, each
with its principle in one sentence; `tests/text/test_cues.py` holds, for every cue kind
and every reason, at least three examples from unrelated sources, and checks that each
reason's examples need it (with that reason left out, the cue would be kept). A reason
that cannot be stated in one sentence and shown three ways does not belong here.

The sentences that hold cue words, and what each says is replaced, are read by
`lore.text.cue_sentences`; which note that is, is the judgement's business
(`lore.curator.judgement.replacement`).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Sequence
from typing import NamedTuple

SUPERSEDE, REPLACE, SWITCH, HISTORY = "supersede", "replace", "switch", "history"
REVISE = "revise"  # "overrides", "an update to": a cue only where it names a note
REFERENCE = "reference"  # not a cue: the notes a note links or names by number anywhere

# The words that can say a decision is replaced, by kind.
CUES: tuple[tuple[str, str], ...] = (
    (SUPERSEDE, r"supersed\w*|supercede\w*|superceed\w*|amend(?:s|ed|ing|ment)?"),
    (
        REPLACE,
        r"replac(?:e|es|ed|ing|ement|ements)|deprecat\w*|obsolete|retir(?:e|es|ed|ing)|"
        r"decommission\w*|sunset(?:s|ted|ting)?|phas(?:e|es|ed|ing) out",
    ),
    (REVISE, r"overrid(?:e|es|ing|den)|overrode|updat(?:e|es|ed|ing) to|revision of"),
    (
        SWITCH,
        r"instead of|in favou?r of|in place of|no longer|stop(?:s|ped|ping)? using|"
        r"(?:mov|migrat|switch|transition)(?:e|es|ed|ing|s)? (?:away )?from|"
        r"revert(?:s|ed|ing)?|revisit(?:s|ed|ing)?|reconsider(?:s|ed|ing)?|"
        r"(?<!can )(?<!could )(?:\bnot|\bnever|(?:do|does|did|wo|should|must)n['’]t) (?:to )?use",
    ),
    (HISTORY, r"previously|used to|until now|any ?more|(?:will|shall) now be|from now on"),
)
CUE = re.compile(
    "|".join(rf"(?P<{kind}>\b(?:{pattern})\b)" for kind, pattern in CUES), re.IGNORECASE
)
# In a title, a verb that removes something is the decision to undo what brought it in
# ("Remove the export proxy", "Drop IPsec"); in prose it is mostly a step ("remove the lock").
TITLE_VERB = re.compile(
    r"^\W*(remov(?:e|es|ing)|drop(?:s|ping)?|stop(?:s|ping)?|abandon(?:s|ing)?|merg(?:e|es|ing)|"
    r"discontinu(?:e|es|ing)|delet(?:e|es|ing)|get(?:ting)? rid of)\b",
    re.IGNORECASE,
)


AFTER = 200  # characters after a cue word that the reasons read (what it replaces)


class Cue(NamedTuple):
    """One cue word of a sentence, and the sentence around it."""

    kind: str
    start: int
    end: int
    text: str
    sentence: str
    asides: tuple[tuple[int, int], ...] = ()  # the sentence's link labels and examples

    @property
    def before(self) -> str:
        """Up to 40 characters before the cue word."""
        return self.sentence[max(0, self.start - 40) : self.start]

    @property
    def after(self) -> str:
        """Up to `AFTER` characters after the cue word (a sentence's cue words each read
        a window of it, so a hostile sentence of cue words reads in linear time)."""
        return self.sentence[self.end : self.end + AFTER]


# Bounded spans (a link label, an example of up to `ASIDE_CHARS`): from every "[" an
# unbounded span would read to the end of the line, quadratic on "![![![…" (a hostile
# note's 20,000 of them took 1.1 s; bounded, 0.04 s).
ASIDE_CHARS = 500
_ASIDE = re.compile(
    rf"\[[^\]\n]{{0,{ASIDE_CHARS}}}\]"
    rf"|\((?:for example|for instance|e\.?g\.?|eg)\b[^)\n]{{0,{ASIDE_CHARS}}}\)?"
    rf"|\b(?:for example|for instance|e\.g\.)[^;()\n]{{0,{ASIDE_CHARS}}}",
    re.IGNORECASE,
)
_NEGATED = re.compile(
    r"(?:\b(?:not|never|no|without|cannot)|n['’]t)(?:\W+\w+){0,2}\W+$", re.IGNORECASE
)
_IN_CONDITION = re.compile(r"\b(?:if|unless|whether)\b[^,;:.()]*$", re.IGNORECASE)
_OWN_TEXT = re.compile(
    r"^(?:\W+\w+){0,4}?\W+(?:in|of|within)\W+(?:this|the present)\W+"
    r"(?:adr|document|record|note|page|section)\b",
    re.IGNORECASE,
)
_PASSIVE = re.compile(r"\b(?:be|is|are|was|were|been|being|get|gets|got)\W+$", re.IGNORECASE)
_MOVED_TEXT = re.compile(
    r"\b(?:contents?|text|sections?|paragraphs?|wording|(?:this|the) (?:document|record|note|"
    r"page|adr))\b(?:\W+\w+){0,4}?\W+(?:was|were|is|are|been|has been|have been)\W+$",
    re.IGNORECASE,
)
_HOPED = re.compile(
    r"(?:\b(?:possibly|perhaps|maybe|might|could)|\b(?:enabl|allow)(?:e|es|ed|ing|s)?"
    r"(?:\W+\w+){0,2}\W+to|\blets?(?:\W+\w+){0,2}|\b(?:a|the) way to|\bhow to|"
    r"\babilit(?:y|ies) to|\bable to)\W+$",
    re.IGNORECASE,
)
_STATUS = re.compile(r"^\W*status\b\W*$", re.IGNORECASE)
_MOVE = re.compile(r"^(?:mov|migrat|switch|transition)", re.IGNORECASE)
_SOMEONE_ELSE = re.compile(r"\b(?:that|which|who)\W+$", re.IGNORECASE)
_NOTHING_BEFORE = re.compile(
    r"^\W*(?:(?:not|no|nothing|none|without)\b|one\b[^.,;:]{0,40}?\bto\W+(?:another|the other)\b)",
    re.IGNORECASE,
)
_AMEND_OBJECT = re.compile(
    r"^\W*(?:to\W+)?(?:(?:the|this|that|these|our|an?|its|their|previous|prior|earlier|"
    r"existing|original|old)\W+){0,3}(?:decisions?\b|adrs?\b|records?\b|rfcs?\b|"
    r"polic(?:y|ies)\b|\[\[|#?\d)",
    re.IGNORECASE,
)
_DECISION_BEFORE = re.compile(
    r"(?:\]\]|\bADR[-\s#:]*\d+|\bdecision|\brecord)\W*(?:\w+\W+){0,2}$", re.IGNORECASE
)
_DATED = re.compile(r"^\W*\d{1,4}[-/.]\d{1,2}(?:[-/.]\d{1,4})?\b")


def _in_aside(cue: Cue) -> bool:
    index = bisect_right(cue.asides, (cue.start, len(cue.sentence) + 1)) - 1
    return index >= 0 and cue.asides[index][0] <= cue.start < cue.asides[index][1]


def _negated(cue: Cue) -> bool:
    replacing = cue.kind in (SUPERSEDE, REPLACE) or re.match(
        r"(?i)revisit|reconsider|revert", cue.text
    )
    return bool(replacing and _NEGATED.search(cue.before))


def _conditional(cue: Cue) -> bool:
    return cue.kind in (SUPERSEDE, REPLACE) and bool(_IN_CONDITION.search(cue.before))


def _own_text(cue: Cue) -> bool:
    return bool(_OWN_TEXT.match(cue.after))


def _purpose(cue: Cue) -> bool:
    return cue.text.lower() == "used to" and bool(_PASSIVE.search(cue.before))


def _moved_text(cue: Cue) -> bool:
    return (
        cue.kind == SWITCH
        and cue.text.lower().startswith("mov")
        and bool(_MOVED_TEXT.search(cue.before))
    )


def _hoped(cue: Cue) -> bool:
    return cue.kind != SUPERSEDE and bool(_HOPED.search(cue.before[-30:]))


def _status_line(cue: Cue) -> bool:
    return cue.start <= AFTER and bool(_STATUS.match(cue.sentence[: cue.start]))


def _not_ours(cue: Cue) -> bool:
    if cue.kind != SWITCH or not _MOVE.match(cue.text):
        return False
    return bool(_SOMEONE_ELSE.search(cue.before) or _NOTHING_BEFORE.match(cue.after))


def _amends(cue: Cue) -> bool:
    return cue.text.lower().startswith(("amend", "updat"))


def _amends_no_decision(cue: Cue) -> bool:
    return _amends(cue) and not (
        _AMEND_OBJECT.match(cue.after) or _DECISION_BEFORE.search(cue.before)
    )


def _dated_edit(cue: Cue) -> bool:
    return _amends(cue) and bool(_DATED.match(cue.after))


class Unsaid(NamedTuple):
    """A reason a cue word does not speak for the note it is written in."""

    name: str
    principle: str  # one sentence
    applies: Callable[[Cue], bool]


UNSAID: tuple[Unsaid, ...] = (
    Unsaid(
        "aside",
        "Words inside a link's label or target, or inside an example, name another "
        "document or a case, not what this note decides.",
        _in_aside,
    ),
    Unsaid(
        "negated",
        "A replacement or a reversal that is denied ('will not replace', 'does not "
        "revisit') replaces nothing.",
        _negated,
    ),
    Unsaid(
        "conditional",
        "A replacement inside a condition (if, unless, whether) says what happens in some "
        "case, not what this note decides.",
        _conditional,
    ),
    Unsaid(
        "own-text",
        "A replacement of this record's own text ('supersedes the earlier wording in this "
        "document') replaces no other note.",
        _own_text,
    ),
    Unsaid(
        "purpose",
        "'is used to' is the passive of 'use … to', a purpose, not the habit 'used to'.",
        _purpose,
    ),
    Unsaid(
        "moved-text",
        "Text said to be moved from elsewhere is an edit of where words live, not a "
        "decision taken differently.",
        _moved_text,
    ),
    Unsaid(
        "hoped",
        "A replacement only possible, hoped for or made possible ('might retire', 'lets us "
        "deprecate', 'a way to migrate from') is not decided.",
        _hoped,
    ),
    Unsaid(
        "status-line",
        "A status line ('Status: superseded') says what became of this record itself.",
        _status_line,
    ),
    Unsaid(
        "not-ours",
        "A move said of something else ('chains that migrate from X') or starting from "
        "nothing ('from no cache to a cache') is not this note leaving a decision.",
        _not_ours,
    ),
    Unsaid(
        "amends-a-thing",
        "'Amend' and 'update to' replace a decision only when a decision is what they "
        "change ('amends ADR 4'), not data or a file.",
        _amends_no_decision,
    ),
    Unsaid(
        "dated-edit",
        "A date after 'amended' or 'updated' tells when this record was edited, not what "
        "it amends.",
        _dated_edit,
    ),
)


def cue_words(
    sentence: str, title: bool, unsaid: Sequence[Unsaid] = UNSAID
) -> list[tuple[str, int, int, str]]:
    """(kind, start, end, text) of each cue word of a sentence that speaks for the note."""
    asides = tuple((m.start(), m.end()) for m in _ASIDE.finditer(sentence))
    found = [
        Cue(m.lastgroup, m.start(), m.end(), m.group(), sentence, asides)
        for m in CUE.finditer(sentence)
        if m.lastgroup
    ]
    if title and (verb := TITLE_VERB.match(sentence)):
        found.insert(0, Cue(REPLACE, verb.start(1), verb.end(1), verb[1], sentence, asides))
    return [
        (cue.kind, cue.start, cue.end, cue.text)
        for cue in found
        if not any(reason.applies(cue) for reason in unsaid)
    ]
