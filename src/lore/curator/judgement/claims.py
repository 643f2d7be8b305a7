"""Claims: where two notes' clauses say opposite things.

Each note's clauses are read by `lore.text.clauses`. Two clauses of two notes conflict
when they are about the same thing (enough of their weighted terms shared: the `*_ALIGN`
constants) and
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
from dataclasses import dataclass

from lore.curator.judgement.terms import Idf, weights
from lore.text.clauses import ANTONYM_HEAD, ORDER, Claims, Clause
from lore.text.quantities import Quantity
from lore.text.words import STOP_WORDS, is_weak, stem


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
_PREFIXES = ("un", "non", "dis", "in")  # unsupported = not supported, when both are there


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
    if ORDER & a and ORDER & b and not mine.ordered & theirs.ordered:
        a, b = a - ORDER, b - ORDER  # "A after parsing", "A before the call": two orders
    folded_a, flips_a = _fold_prefixes(a, b)
    folded_b, flips_b = _fold_prefixes(b, a)
    if (mine.negated ^ (flips_a % 2 == 1)) == (theirs.negated ^ (flips_b % 2 == 1)):
        return None
    negated_a = mine.negated ^ (flips_a % 2 == 1)
    denier, denier_flips = (mine, flips_a) if negated_a else (theirs, flips_b)
    denying, asserting = (folded_a, folded_b) if negated_a else (folded_b, folded_a)
    if not denier_flips and ANTONYM_HEAD not in denier.heads and not denier.heads & asserting:
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
