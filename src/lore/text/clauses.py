"""Clauses: what each sentence of a note claims, as the judgement compares two notes.

A note's prose (title first) is cut into sentences, and sentences into clauses at
`;`, at a comma before a conjunction, at `but`, and at `and` when both sides have
words of their own. Each clause keeps its content terms (Porter stems, antonyms
folded onto one word of their pair), its polarity (an odd number of negations:
`not`, `never`, `no`, `without`, `n't`, or a folded antonym such as `disabled`), and
its quantities (`lore.text.quantities`). The `nor` of "neither A nor B"
carries on its denial; a clause that names both sides of an opposite ("optional/required
fields") takes neither; a negation inside a condition ("..., if no such user exists")
bears on when the clause holds, not on what it claims, and is not counted. "A, not B"
(also `never B`, `rather than B`, `instead of B`) adds a clause that says B is not so,
about the same thing A is said of. A list that weighs options (the items under a "Pros",
"Cons", "Positive consequences" label or section, items marked "+ ..." / "- ..." or
"Good, because ...") claims nothing of what holds and is left out.

A note's acronyms are kept with its clauses: the ones it writes (`DLQ`), the ones it
defines ("dead-letter queue (DLQ)"), and its folded words, whose initials can spell an
acronym the other note writes. Which clauses of two notes conflict is the judgement's
(`lore.curator.judgement.claims`); this module reads one note at a time.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Protocol

from lore.text.markdown import BULLET_MARKER
from lore.text.prose import prose_sections
from lore.text.quantities import NUMBER_WORDS, UNITS, Quantity, quantities
from lore.text.weighing import WEIGHING, without_weighing
from lore.text.words import STOP_WORDS, fold, is_weak, stem, tokens


class Written(Protocol):
    """What the clauses are read from: a note's id, title and body (read-only)."""

    @property
    def id(self) -> str: ...
    @property
    def title(self) -> str | None: ...
    @property
    def body(self) -> str: ...


NEGATIONS = frozenset(
    {"not", "no", "never", "cannot", "nor", "without", "none", "neither", "non", "nothing"}
)
# Common engineering polarities, as data: each word on the right reads as "not <left>".
# tests/curator/test_judgement_opposites.py holds an example of every pair.
OPPOSITES = {
    "enable": "disable",
    "enabled": "disabled false",
    "enables": "disables",
    "enabling": "disabling",
    "allow": "deny forbid disallow prohibit block",
    "allowed": "denied forbidden disallowed prohibited blocked",
    "allows": "denies forbids disallows prohibits blocks",
    "permitted": "prohibited",
    "accept": "reject",
    "accepted": "rejected",
    "accepts": "rejects",
    "include": "exclude",
    "included": "excluded",
    "includes": "excludes",
    "required": "optional",
    "sync": "async",
    "synchronous": "asynchronous",
    "synchronously": "asynchronously",
    "use": "avoid",
    "used": "avoided",
    "uses": "avoids",
    "valid": "invalid",
    "supported": "unsupported",
    "safe": "unsafe",
    "secure": "insecure",
    "stateful": "stateless",
}
# Words that say the same as a word above, so they fold onto it without a flip.
SAME_AS = {
    "mandatory": "required",
    "compulsory": "required",
    "true": "enabled",
}
ANTONYMS: dict[str, tuple[str, bool]] = {
    **{word: (stem(word), False) for word in OPPOSITES},
    **{
        negative: (stem(positive), True)
        for positive, negatives in OPPOSITES.items()
        for negative in negatives.split()
    },
    **{word: (stem(target), False) for word, target in SAME_AS.items()},
}

ORDER = frozenset({"before", "after"})
_CONTINUED = frozenset({"nor"})  # a negation that carries on the one before it
# A condition inside a clause, up to the next comma: "..., if no such user exists".
_CONDITION = re.compile(r"\b(?:if|unless|whether)\b[^,;:]*", re.IGNORECASE)
_DENIAL = re.compile(rf"^(?:(?:{'|'.join(sorted(NEGATIONS))})\W*$|\w*n['’]t\W*$)", re.IGNORECASE)
_NOT_TERMS = STOP_WORDS | frozenset(UNITS) | frozenset(NUMBER_WORDS)
ANTONYM_HEAD = "<antonym>"
_TIME_CLAUSE = frozenset({"before", "after", "once", "when", "while", "until"})
_ABBREVIATIONS = re.compile(r"\b(?:e\.g|i\.e|etc|vs|approx|incl)\.", re.IGNORECASE)
_SENTENCES = re.compile(r"(?<=[^.][.!?])\s+(?=\S)|\n\s*\n|\n(?=\s*(?:[-*+]|\d+[.)])\s)")

_CLAUSE_BREAK = re.compile(
    r"\s*;\s*"
    r"|,\s+(?=(?:and|but|or|so|yet|while|whereas|although|though|because|since|unless|"
    r"which)\b)|\s+(?=(?:but|so that|because|whereas|although|unless)\s)"
)
_COLON = re.compile(r":\s+|\s+[—–-]\s+")
MAX_LABEL_ITEM = 2  # words of a list item that names an option or a field, not a claim
MIN_LABEL_WORDS = 4  # "Orders and invoices: 10 years", "Pool - size 10": a label and its value
_AND = re.compile(r"\s+and\s+")
MIN_AND_SIDE = 3  # content words each side of an "and" needs to be a clause of its own
_ALTERNATIVE = re.compile(
    r"(?:,\s+(?:not|never)|,?\s+(?:rather than|instead of))\s+(?!(?:because|since|when|if|that|"
    r"only|just|even|all|every)\b)(?P<rest>.+)$"
)
_LEADING = re.compile(
    r"^(?:and|but|or|so that|so|yet|while|whereas|although|though|because|since|unless|"
    r"which)\s+"
)
_ACRONYM = re.compile(r"\b[A-Z]{2,6}s?\b")
_DEFINED = re.compile(r"\(([A-Z]{2,6})s?\)")  # "dead-letter queue (DLQ)"
# "X only provides A" says X provides nothing else: it agrees with "X does not provide B".
_ONLY = re.compile(r"(?<!not )\bonly\b(?! (?:if|when|once|after|before|until)\b)", re.IGNORECASE)
MAX_ALTERNATIVE_WORDS = 6
MAX_CLAUSES = 200  # of a note; a note is meant to hold one idea in under 200 words


@dataclass(frozen=True)
class Clause:
    """One clause of a note, as the comparison reads it."""

    text: str  # as written (one line)
    terms: frozenset[str]  # content stems, antonyms folded; no negations, numbers or units
    negated: bool
    quantities: tuple[Quantity, ...] = ()
    focus: frozenset[str] = frozenset()  # "A, not B": B's terms (this clause says B is not so)
    rival: frozenset[str] = frozenset()  # "A, not B": A's terms
    acronyms: frozenset[str] = frozenset()  # folded acronyms written in the clause (dlq)
    heads: frozenset[str] = frozenset()  # what its negations bear on ("share" in "not share")
    only: bool = False  # "X only does A": a restriction, which agrees with "X does not do B"
    section: str = ""  # "title", or the lower-case heading it is under ("what", "why", ...)
    ordered: frozenset[str] = frozenset()  # what "before"/"after" orders it against


@dataclass(frozen=True)
class Claims:
    """A note's clauses and what lets another note read its acronyms."""

    id: str
    clauses: tuple[Clause, ...]
    words: tuple[str, ...]  # the folded tokens of all its prose, for initials
    definitions: dict[str, frozenset[str]] = field(default_factory=dict)  # dlq -> terms


def _unnegated(condition: re.Match[str]) -> str:
    """A condition without its negations ("if no such user exists" -> "if such user
    exists"): they bear on when the claim holds, not on the claim."""
    kept = (word for word in condition[0].split() if not _DENIAL.match(word))
    return " ".join(kept)


def _read(text: str) -> tuple[frozenset[str], bool, frozenset[str], frozenset[str], frozenset[str]]:
    """(terms, negated, acronyms, heads, ordered) of a clause's words; a head is what a
    negation bears on: the first telling word after `not`/`never`/..., or a folded antonym;
    `ordered` is the first telling word after `before`/`after`: what the clause is ordered
    against."""
    acronyms = frozenset(fold(match.group().rstrip("s")) for match in _ACRONYM.finditer(text))
    terms: set[str] = set()
    heads: set[str] = set()
    flips = 0
    waiting = False  # a negation waits for the word it bears on
    ordering = False  # "before"/"after" waits for what it orders against
    ordered: set[str] = set()
    sides: dict[str, list[bool]] = {}  # each folded antonym: the sides named, in order
    words = tokens(_CONDITION.sub(_unnegated, text))
    if words and words[0] in _TIME_CLAUSE:
        words = words[1:]  # "Before running a migration, ...": when, not whether
    for token in words:
        if token in NEGATIONS:
            if token not in _CONTINUED or not flips:  # "neither A nor B": one denial
                flips += 1
            waiting = True
            continue
        if token in ORDER:
            terms.add(token)  # compared at the pair: "before" against "after" is a flip
            ordering = True
            continue
        if token in ANTONYMS:
            term, flipped = ANTONYMS[token]
            sides.setdefault(term, []).append(flipped)
            flips += flipped
            terms.add(term)
            if flipped:
                heads.add(ANTONYM_HEAD)  # "disabled" bears on its subject, whatever words
                waiting = False
            elif waiting and not is_weak(term):
                heads.add(term)
                waiting = False
            continue
        if token.isdigit() or len(token) < 2 or token in _NOT_TERMS:
            continue
        term = stem(token)
        terms.add(term)
        if ordering and not is_weak(term):
            ordered.add(term)
            ordering = False
        if waiting and not is_weak(term):
            heads.add(term)
            waiting = False
    # "optional/required", "enabled or disabled": a clause naming both sides takes none
    both = {term for term, named in sides.items() if len(set(named)) == 2}
    if both:
        flips -= sum(sum(sides[term]) for term in both)
        if not any(any(named) for term, named in sides.items() if term not in both):
            heads.discard(ANTONYM_HEAD)
    return frozenset(terms), flips % 2 == 1, acronyms, frozenset(heads), frozenset(ordered)


def _count_content(text: str) -> int:
    return sum(1 for token in tokens(text) if token not in STOP_WORDS and not token.isdigit())


def _joined(parts: list[str], joiner: str, least: int, label: int = 0) -> list[str]:
    """`parts` with a part of fewer than `least` content words put back on the one before
    (and, with `label`, a part after one of fewer than `label` words: a label)."""
    pieces: list[str] = []
    counts: list[int] = []
    for part in parts:
        count = _count_content(part)
        if pieces and (count < least or counts[-1] < max(least, label)):
            pieces[-1] = f"{pieces[-1]}{joiner}{part}"
            counts[-1] += count
        else:
            pieces.append(part)
            counts.append(count)
    return pieces


def _pieces(sentence: str) -> list[str]:
    """A sentence cut at clause boundaries; a piece too short to stand is put back."""
    parts = [_LEADING.sub("", part.strip(" ,.!?")) for part in _CLAUSE_BREAK.split(sentence)]
    pieces: list[str] = []
    for part in _joined([part for part in parts if part], ", ", 2):
        for labelled in _joined(_COLON.split(part), " - ", 2, MIN_LABEL_WORDS):
            pieces += _joined(_AND.split(labelled), " and ", MIN_AND_SIDE)
    return pieces


def _clauses_of(piece: str) -> list[Clause]:
    """The clause of one piece, plus the clause B of an "A, not B" in it."""
    alternative = _ALTERNATIVE.search(piece)
    if alternative and _count_content(alternative["rest"]) <= MAX_ALTERNATIVE_WORDS:
        chosen = piece[: alternative.start()]
        if _count_content(chosen) >= 2:
            terms, negated, acronyms, heads, ordered = _read(chosen)
            main = Clause(
                " ".join(piece.split()), terms, negated, tuple(quantities(fold(chosen))),
                acronyms=acronyms, heads=heads, ordered=ordered,
            )  # fmt: skip
            ruled_out, _, more, _, _ = _read(alternative["rest"])
            focus = ruled_out - terms
            if not focus:
                return [main]
            chosen_terms = [stem(t) for t in tokens(chosen) if t not in STOP_WORDS]
            rival = frozenset(t for t in chosen_terms[-2:] if t not in ruled_out)
            excluded = Clause(
                main.text, terms | ruled_out, not negated, (), focus, rival, acronyms | more
            )
            return [main, excluded]
    terms, negated, acronyms, heads, ordered = _read(piece)
    return [
        Clause(
            " ".join(piece.split()), terms, negated, tuple(quantities(fold(piece))),
            acronyms=acronyms, heads=heads, only=bool(_ONLY.search(piece)), ordered=ordered,
        )
    ]  # fmt: skip


def claims(note: Written) -> Claims:
    """The clauses of a note's title and prose (code, headings and links left out)."""
    texts = [("title", note.title or ""), *prose_sections(note.body)]
    found: list[Clause] = []
    words: list[str] = []
    definitions: dict[str, frozenset[str]] = {}
    for section, written in texts:
        if WEIGHING.match(section):
            continue  # a "## Pros" section weighs an option
        text = without_weighing(written)
        words += tokens(text)
        for match in _DEFINED.finditer(text):
            acronym = fold(match[1])
            candidates = tokens(text[max(0, match.start() - 80) : match.start()])[-len(acronym) :]
            if "".join(word[0] for word in candidates) == acronym:
                definitions[acronym] = frozenset(stem(word) for word in candidates)
        plain = _ABBREVIATIONS.sub(lambda m: m.group().replace(".", ""), text)
        for raw in _SENTENCES.split(plain):
            sentence = BULLET_MARKER.sub("", raw).strip()
            if not sentence or sentence.endswith(":"):
                continue  # a lead-in ("If it fails, we will:") claims nothing by itself
            if BULLET_MARKER.match(raw) and len(sentence.split()) <= MAX_LABEL_ITEM:
                continue  # a list item of a word or two is a label: "Optional field"
            for piece in _pieces(" ".join(sentence.split())):
                found += [replace(c, section=section) for c in _clauses_of(piece) if c.terms]
    unique = {(c.text, c.focus): c for c in found}  # a title repeated in the What is one claim
    return Claims(note.id, tuple(unique.values())[:MAX_CLAUSES], tuple(words), definitions)
