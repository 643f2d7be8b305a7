"""Claims: the clauses of a note, and where two notes' clauses say opposite things.

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

Two clauses of two notes conflict when they are about the same thing (enough of
their weighted terms shared: the `*_ALIGN` constants) and
- `number`: they measure the same quantity with values that differ after units are
  converted (10 messages against 100 messages; 5 s against 10000 ms), and the other
  note does not state the value elsewhere; `## Why` is history and is left out;
- `polarity`: one is negated and the other is not (always/never, must/must not,
  enabled/disabled, required/optional), and the word a `not` bears on is in both; "X
  only does A" restricts, and agrees with a denial of something it does not name;
- `alternative`: one note rules B out ("cursor pagination, not offsets") and the
  other asserts B ("page with offset and limit") without mentioning A.

An acronym in one note (`DLQ`) stands for the words whose initials spell it in the
other note or in its own definition ("dead-letter queue (DLQ)"); one that both notes
write ("API") is the same word in both, and is not spelled out from other words.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, replace

from lore.curator.judgement.notes import JudgedNote
from lore.curator.judgement.terms import Idf, is_weak, weights
from lore.text.markdown import BULLET_MARKER
from lore.text.prose import prose_sections
from lore.text.quantities import NUMBER_WORDS, UNITS, Quantity, quantities
from lore.text.weighing import WEIGHING, without_weighing
from lore.text.words import STOP_WORDS, fold, stem, tokens

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
_PREFIXES = ("un", "non", "dis", "in")  # unsupported = not supported, when both are there

_ORDER = frozenset({"before", "after"})
_CONTINUED = frozenset({"nor"})  # a negation that carries on the one before it
# A condition inside a clause, up to the next comma: "..., if no such user exists".
_CONDITION = re.compile(r"\b(?:if|unless|whether)\b[^,;:]*", re.IGNORECASE)
_DENIAL = re.compile(rf"^(?:(?:{'|'.join(sorted(NEGATIONS))})\W*$|\w*n['’]t\W*$)", re.IGNORECASE)
_NOT_TERMS = STOP_WORDS | frozenset(UNITS) | frozenset(NUMBER_WORDS)
_ANTONYM_HEAD = "<antonym>"
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
        if token in _ORDER:
            terms.add(token)  # compared at the pair: "before" against "after" is a flip
            ordering = True
            continue
        if token in ANTONYMS:
            term, flipped = ANTONYMS[token]
            sides.setdefault(term, []).append(flipped)
            flips += flipped
            terms.add(term)
            if flipped:
                heads.add(_ANTONYM_HEAD)  # "disabled" bears on its subject, whatever words
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
            heads.discard(_ANTONYM_HEAD)
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


def claims(note: JudgedNote) -> Claims:
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


def _expansions(acronyms: frozenset[str], one: Claims, other: Claims) -> dict[str, frozenset[str]]:
    """What each acronym stands for, read from either note."""
    found: dict[str, frozenset[str]] = {}
    for acronym in acronyms:
        known = one.definitions.get(acronym) or other.definitions.get(acronym)
        if known:
            found[acronym] = known
            continue
        if acronym in one.words and acronym in other.words:
            continue  # both notes write "API": no guess at what it spells is needed
        spelled = _spelled(acronym, other.words) or _spelled(acronym, one.words)
        if spelled:
            found[acronym] = spelled
    return found


def _spelled(acronym: str, words: tuple[str, ...]) -> frozenset[str]:
    """Consecutive content words whose initials spell `acronym` (or all but its last letter,
    for three letters or more: "dead-letter topic" for DLQ, "service level" for SLO)."""
    for size in (len(acronym), len(acronym) - 1) if len(acronym) >= 3 else (len(acronym),):
        letters = acronym[:size]
        for start in range(len(words) - size + 1):
            window = words[start : start + size]
            if any(word in STOP_WORDS or word == acronym for word in window):
                continue
            if all(word[0] == letter for word, letter in zip(window, letters, strict=True)):
                return frozenset(stem(word) for word in window)
    return frozenset()


@dataclass(frozen=True)
class Conflict:
    """Two clauses that cannot both hold, and why."""

    kind: str  # "number", "polarity" or "alternative"
    mine: str  # the clause of the note under review, as written
    theirs: str  # the other note's clause
    detail: str  # "10 messages against 100 messages", "enabled against disabled", ...
    strength: float  # how closely the clauses are about the same thing (0..1)


POLARITY_ALIGN = 0.5  # weighted Jaccard of two clauses' terms
POLARITY_CONTAINED = 0.8  # or: the smaller clause's weight the larger one holds...
POLARITY_CONTAINED_SHARED = 3  # ...with this many salient terms shared
NUMBER_ALIGN = 0.3  # two clauses with the same measure, without its counted nouns
NUMBER_NEAR_ALIGN = 0.1  # the same, when the words right at the numbers meet too
ALTERNATIVE_ALIGN = 0.3  # what "A, not B" is said of, against the other clause
FOCUS_SHARE = 0.6  # the weight of B's terms the other clause must name
MIN_SHARED = 2  # salient terms two clauses must share to be about the same thing
HISTORY = "why"
TITLE, WHAT = "title", "what"


def _fold_prefixes(one: frozenset[str], other: frozenset[str]) -> tuple[frozenset[str], int]:
    """`one` with `unsupport` read as `support` (a flip each) when `other` has `support`,
    and `before` as `after` when `other` says `after` and not `before`."""
    folded, flips = set(one), 0
    if "before" in one and "after" in other and "after" not in one and "before" not in other:
        folded.discard("before")
        folded.add("after")
        flips += 1
    for term in one - other:
        if not term.startswith(_PREFIXES):
            continue
        for prefix in _PREFIXES:
            rest = term[len(prefix) :]
            if term.startswith(prefix) and len(rest) >= 4 and rest in other:
                folded.discard(term)
                folded.add(rest)
                flips += 1
                break
    return frozenset(folded), flips


@dataclass(frozen=True)
class _Alignment:
    jaccard: float  # weighted Jaccard of the two term sets
    contained: float  # weighted share of the smaller set found in the larger
    salient: int  # shared terms that are not weak words


def _align(one: frozenset[str], other: frozenset[str], idf: Idf) -> _Alignment:
    shared = one & other
    if not shared:
        return _Alignment(0.0, 0.0, 0)
    table = weights(idf)
    common = math.fsum(table(term) for term in shared)
    size_one, size_two = table.total(one), table.total(other)
    union = size_one + size_two - common
    smaller = min(size_one, size_two)
    salient = sum(1 for term in shared if not is_weak(term))
    return _Alignment(
        common / union if union else 0.0, common / smaller if smaller else 0.0, salient
    )


def _weight_of(terms: frozenset[str], idf: Idf) -> float:
    return weights(idf).total(terms)


def _with_expansions(clause: Clause, expansions: dict[str, frozenset[str]]) -> frozenset[str]:
    terms = clause.terms
    for acronym in clause.acronyms:
        if acronym in expansions:
            terms = terms | expansions[acronym]
    return terms


def _polarity(
    mine: Clause, theirs: Clause, a: frozenset[str], b: frozenset[str], idf: Idf
) -> Conflict | None:
    if _ORDER & a and _ORDER & b and not mine.ordered & theirs.ordered:
        a, b = a - _ORDER, b - _ORDER  # "A after parsing", "A before the call": two orders
    folded_a, flips_a = _fold_prefixes(a, b)
    folded_b, flips_b = _fold_prefixes(b, a)
    if (mine.negated ^ (flips_a % 2 == 1)) == (theirs.negated ^ (flips_b % 2 == 1)):
        return None
    negated_a = mine.negated ^ (flips_a % 2 == 1)
    denier, denier_flips = (mine, flips_a) if negated_a else (theirs, flips_b)
    denying, asserting = (folded_a, folded_b) if negated_a else (folded_b, folded_a)
    if not denier_flips and _ANTONYM_HEAD not in denier.heads and not denier.heads & asserting:
        return None  # the negation bears on a word the other clause does not use
    if (theirs if negated_a else mine).only and any(not is_weak(t) for t in denying - asserting):
        return None  # "X only does A" and "X does not do B" agree
    found = _align(folded_a, folded_b, idf)
    close = found.jaccard >= POLARITY_ALIGN and found.salient >= MIN_SHARED
    contained = (  # the denial lies (nearly) all inside the assertion: it denies what that says
        found.contained >= POLARITY_CONTAINED
        and found.salient >= POLARITY_CONTAINED_SHARED
        and _weight_of(denying, idf) <= _weight_of(asserting, idf)
    )
    if not (close or contained):
        return None
    return Conflict("polarity", mine.text, theirs.text, "opposite claims", found.jaccard)


def _number(  # positional arguments: one private call site
    mine: Clause,
    theirs: Clause,
    a: frozenset[str],
    b: frozenset[str],
    idf: Idf,
    stated: tuple[Quantity, ...],
) -> Conflict | None:
    """Two values of one measure: paired by the words at the numbers, or by whole clauses.

    `## Why` is left out: it tells what happened ("5 minutes was too short"), not what holds.
    """
    if HISTORY in (mine.section, theirs.section):
        return None
    for quantity in mine.quantities:
        same = [other for other in theirs.quantities if quantity.measures_same(other)]
        if not same or any(quantity.equals(other) for other in same):
            continue
        if any(_agrees(quantity, other) for other in stated):
            continue  # the other note states this value elsewhere
        near = [other for other in same if _salient_shared(quantity.context, other.context)]
        nouns = quantity.nouns | frozenset().union(*(other.nouns for other in same))
        found = _align(a - nouns, b - nouns, idf)
        if near and found.jaccard >= NUMBER_NEAR_ALIGN:
            other = near[0]
        elif not near and found.jaccard >= NUMBER_ALIGN and found.salient >= 1:
            if any(q.equals(other) for q in mine.quantities for other in same):
                continue  # the same value is stated too (a default and a maximum)
            other = same[0]
        else:
            continue
        detail = f"{quantity.text} against {other.text}"
        return Conflict("number", mine.text, theirs.text, detail, found.jaccard)
    return None


def _agrees(quantity: Quantity, other: Quantity) -> bool:
    """`other` states `quantity`'s value: the same number bare (`3000`, `3000 ms`), or the
    same value of the same measure with words in common (`3 s timeout`, `timeout 3000 ms`)."""
    return quantity.written_alike(other) or (
        quantity.measures_same(other)
        and quantity.equals(other)
        and _salient_shared(quantity.context, other.context)
    )


def _salient_shared(one: frozenset[str], other: frozenset[str]) -> bool:
    return any(not is_weak(term) for term in one & other)


def _alternative(ruling: Clause, stating: Clause, stating_terms: frozenset[str], idf: Idf) -> float:
    """How strongly `stating` asserts the B that `ruling` ("A, not B") rules out (0: not)."""
    if stating.focus or stating.negated == ruling.negated:
        return 0.0
    if ruling.rival and ruling.rival <= stating_terms:
        return 0.0  # it names A too: a comparison, not an assertion of B
    if _weight_of(ruling.focus & stating_terms, idf) < FOCUS_SHARE * _weight_of(ruling.focus, idf):
        return 0.0  # B is named by its telling words; a generic head noun may differ
    about = ruling.terms - ruling.focus - ruling.rival
    found = _align(about, stating_terms - ruling.focus, idf)
    if found.jaccard < ALTERNATIVE_ALIGN or found.salient < 1:
        return 0.0
    return found.jaccard


def _comparable(one: Clause, other: Clause) -> bool:
    """A title is compared with a title or a `## What` clause only: against the rest of a
    note, a title reads as the label of what it is about ("Image vulnerability scanning"
    is no claim that images are scanned)."""
    if (one.section == TITLE) == (other.section == TITLE):
        return True
    return WHAT in (one.section, other.section)


def conflicts(mine: Claims, theirs: Claims, idf: Idf) -> list[Conflict]:
    """Where `mine` and `theirs` say opposite things, strongest first."""
    acronyms = frozenset().union(*(c.acronyms for c in mine.clauses))
    their_acronyms = frozenset().union(*(c.acronyms for c in theirs.clauses))
    expand_mine = _expansions(acronyms, mine, theirs)
    expand_theirs = _expansions(their_acronyms, theirs, mine)
    their_terms = [(clause, _with_expansions(clause, expand_theirs)) for clause in theirs.clauses]
    stated = tuple(q for clause in theirs.clauses for q in clause.quantities)
    found: list[Conflict] = []
    for clause in mine.clauses:
        terms = _with_expansions(clause, expand_mine)
        for other, other_terms in their_terms:
            if not terms & other_terms:
                continue
            if clause.focus or other.focus:
                if clause.focus and (score := _alternative(clause, other, other_terms, idf)):
                    detail = "this note rules out what the other asserts"
                    found.append(Conflict("alternative", clause.text, other.text, detail, score))
                elif other.focus and (score := _alternative(other, clause, terms, idf)):
                    detail = "the other note rules out what this one asserts"
                    found.append(Conflict("alternative", clause.text, other.text, detail, score))
                continue
            conflict = _number(clause, other, terms, other_terms, idf, stated)
            # opposite claims deny what the other note decided: its `## Why` tells the
            # situation then, which a later decision does not deny by deciding
            if conflict is None and _comparable(clause, other) and other.section != HISTORY:
                conflict = _polarity(clause, other, terms, other_terms, idf)
            if conflict is not None:
                found.append(conflict)
    found.sort(key=lambda c: -c.strength)
    return found
