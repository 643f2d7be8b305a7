"""Cue words: which words of a sentence say that something is being replaced.

`cue_words` finds each cue word of a sentence (`CUE`, and in a title a verb that removes
something, `_TITLE_VERB`) and drops those that say nothing of the note: inside brackets
or an example (`_NOT_SAID`), right after a negation (`_NEGATED`), the passive of `use`
(`_PASSIVE_USE`), text that "was moved from" elsewhere (`_MOVED_TEXT`), and "amend" of
anything but a decision (`_AMEND_OBJECT`) or dated as the record's own edit (`_DATED`), a cue
inside a condition (`_IN_CONDITION`), one about this record's own text (`_OWN_TEXT`), and a
denied reversal ("does not revisit", `_REVERSAL`). What a cue replaces, and which note that is,
is `lore.curator.judgement.replacement`'s job.
"""

from __future__ import annotations

import re

SUPERSEDE, REPLACE, SWITCH, HISTORY = "supersede", "replace", "switch", "history"
REVISE = "revise"  # "overrides", "an update to": a cue only where it names a note
REFERENCE = "reference"  # not a cue: the notes a note links or names by number anywhere
_CUES = (
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
    "|".join(rf"(?P<{kind}>\b(?:{pattern})\b)" for kind, pattern in _CUES), re.IGNORECASE
)
# Where a cue word says nothing of this note: inside brackets (a link's label or target
# names another document: "[Replace the signer](url)", "[[x--0014-replace-y--…]]"), and
# in an example ("(for example, the Postgres 10 deprecation)", "e.g. ...").
_NOT_SAID = re.compile(
    r"\[[^\]\n]*\]|\((?:for example|for instance|e\.?g\.?|eg)\b[^)\n]*\)?"
    r"|\b(?:for example|for instance|e\.g\.)[^;()\n]*",
    re.IGNORECASE,
)
# A title that is the decision to remove something ("Remove the export proxy", "Drop
# IPsec") undoes the decision that brought it in: in a title only, where the verb is
# what the note decides (in prose, "remove" is mostly a step: "remove the lock").
_TITLE_VERB = re.compile(
    r"^\W*(remov(?:e|es|ing)|drop(?:s|ping)?|stop(?:s|ping)?|abandon(?:s|ing)?|merg(?:e|es|ing)|"
    r"discontinu(?:e|es|ing)|delet(?:e|es|ing)|get(?:ting)? rid of)\b",
    re.IGNORECASE,
)
# A negation just before "replace" or "supersede" says nothing is replaced ("we will not
# replace", "without replacement users"); "no longer" is a cue of its own.
_NEGATED = re.compile(
    r"(?:\b(?:not|never|no|without|cannot)|n['’]t)(?:\W+\w+){0,2}\W+$", re.IGNORECASE
)
# "The contents of this record were moved from ADR 8": where the text comes from, not a
# decision taken differently.
_MOVED_TEXT = re.compile(
    r"\b(?:contents?|text|sections?|paragraphs?|wording|(?:this|the) (?:document|record|note|"
    r"page|adr))\b(?:\W+\w+){0,4}?\W+(?:was|were|is|are|been|has been|have been)\W+$",
    re.IGNORECASE,
)
# "Amend" is a cue when what it amends is a decision ("amends ADR 4", "this amends the
# earlier decision"): "fetch or amend data" edits data, and decides nothing.
_AMEND_OBJECT = re.compile(
    r"^\W*(?:to\W+)?(?:(?:the|this|that|these|our|an?|its|their|previous|prior|earlier|"
    r"existing|original|old)\W+){0,3}(?:decisions?\b|adrs?\b|records?\b|rfcs?\b|"
    r"polic(?:y|ies)\b|\[\[|#?\d)",
    re.IGNORECASE,
)
_DECISION_BEFORE = re.compile(
    r"(?:\]\]|\bADR[-\s#:]*\d+|\bdecision|\brecord)\W*(?:\w+\W+){0,2}$", re.IGNORECASE
)
# A move said of something else, or of what something makes possible, is not this note's
# decision: "chains that transition from X" (a relative clause names what moves), "a way
# to migrate from X", "allows users to switch from X" (a capability the decision offers).
_SOMEONE_ELSE = re.compile(
    r"(?:\b(?:that|which|who)|\b(?:a|the) way to|\bhow to|\babilit(?:y|ies) to|\bable to|"
    r"\ballow(?:s|ing)?(?:\W+\w+){0,2}\W+to|\blets?(?:\W+\w+){0,2})\W+$",
    re.IGNORECASE,
)
# A replacement only hoped for or made possible is not decided: "possibly deprecating X",
# "it will enable us to retire X" (a supersession is named as such, so it is kept).
_HOPED = re.compile(
    r"(?:\b(?:possibly|perhaps|maybe|might|could)|\b(?:enabl|allow)(?:e|es|ed|ing|s)?"
    r"(?:\W+\w+){0,2}\W+to)\W+$",
    re.IGNORECASE,
)
# "Status: superseded": a record's status line says what became of the record itself.
_STATUS = re.compile(r"^\W*status\b\W*$", re.IGNORECASE)
_MOVE = re.compile(r"^(?:mov|migrat|switch|transition)", re.IGNORECASE)
# What a move starts from must be something: "the switch from not having X to X" and "from
# no cache to a cache" start from nothing, and "moved from one image to another" names
# no particular thing; no decision is replaced by either.
_NOTHING_BEFORE = re.compile(
    r"^\W*(?:(?:not|no|nothing|none|without)\b|one\b[^.,;:]{0,40}?\bto\W+(?:another|the other)\b)",
    re.IGNORECASE,
)
_UPDATE = re.compile(r"^updat", re.IGNORECASE)
# "Amended: 2020-12-01 - ...", "updated to 2021-03": a dated line tells when this record
# was edited, not which decision it amends.
_DATED = re.compile(r"^\W*\d{1,4}[-/.]\d{1,2}(?:[-/.]\d{1,4})?\b")
# "supersedes earlier references in this ADR": what is superseded is part of this very
# record (an addendum to its own text), not another decision.
_OWN_TEXT = re.compile(
    r"^(?:\W+\w+){0,4}?\W+(?:in|of|within)\W+(?:this|the present)\W+"
    r"(?:adr|document|record|note|page|section)\b",
    re.IGNORECASE,
)
# "409 if a later submission has already superseded it": "supersede" or "replace" inside
# a condition says what happens to things in some case, not what this note decides.
_IN_CONDITION = re.compile(r"\b(?:if|unless|whether)\b[^,;:.()]*$", re.IGNORECASE)
# "It does not revisit ADR 39", "we will not revert": a negated reversal reverses nothing.
_REVERSAL = re.compile(r"^(?:revisit|reconsider|revert)", re.IGNORECASE)
# "is used to", "can be used to": the passive of `use`, not "we used to ...".
_PASSIVE_USE = re.compile(r"\b(?:be|is|are|was|were|been|being|get|gets|got)\W+$", re.IGNORECASE)


def cue_words(sentence: str, title: bool) -> list[tuple[str, int, int, str]]:
    """(kind, start, end, text) of each cue word of a sentence that speaks for the note."""
    found = [(m.lastgroup, m.start(), m.end(), m.group()) for m in CUE.finditer(sentence)]
    if title and (verb := _TITLE_VERB.match(sentence)):
        found.insert(0, (REPLACE, verb.start(1), verb.end(1), verb[1]))
    hidden = [(m.start(), m.end()) for m in _NOT_SAID.finditer(sentence)]
    kept: list[tuple[str, int, int, str]] = []
    for kind, start, end, text in found:
        if not kind or any(a <= start < b for a, b in hidden):
            continue
        lead = sentence[max(0, start - 40) : start]
        if (kind in (SUPERSEDE, REPLACE) or _REVERSAL.match(text)) and _NEGATED.search(lead):
            continue
        if kind in (SUPERSEDE, REPLACE) and _IN_CONDITION.search(lead):
            continue  # what happens to things in some case ("no longer" keeps its cue)
        if _OWN_TEXT.match(sentence[end:]):
            continue
        if text.lower() == "used to" and _PASSIVE_USE.search(lead):
            continue
        if kind == SWITCH and _MOVED_TEXT.search(lead) and text.lower().startswith("mov"):
            continue
        if kind != SUPERSEDE and _HOPED.search(lead[-30:]):
            continue
        if _STATUS.match(sentence[:start]):
            continue
        elsewhere = _SOMEONE_ELSE.search(lead) or _NOTHING_BEFORE.match(sentence[end:])
        if kind == SWITCH and _MOVE.match(text) and elsewhere:
            continue
        # "amends ADR 4", "an update to the earlier decision": of a decision only ("amend
        # data", "updated to add a field", "updates to the schema" change a thing)
        amends = text.lower().startswith("amend") or bool(_UPDATE.match(text))
        if amends and not (_AMEND_OBJECT.match(sentence[end:]) or _DECISION_BEFORE.search(lead)):
            continue
        if amends and _DATED.match(sentence[end:]):
            continue
        kept.append((kind, start, end, text))
    return kept
