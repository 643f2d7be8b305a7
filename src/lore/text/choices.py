"""What a decision's title chooses, and what for: "Use Redis for sessions", "Sessions using
Redis" choose `redis` for `sessions`.

A title of one of two shapes names a choice and its purpose:

- "Use / Adopt / Choose / Pick / Select <choice> for / as <purpose>";
- "<purpose> using / with / via / through / on <choice>".

Two notes whose titles give the same purpose (the same content terms) and choices with
no term in common take the same decision differently ("Use Heroku for hosting", later
"Use the government PaaS for hosting"): the later one replaces the earlier
(`lore.curator.judgement.replacement`, `rechosen`). A title of any other shape
("Front-end testing") names no choice. Measured on 896 real decision records (the real
ADR eval, eval/README.md), the two shapes matched two pairs of titles, both recorded
supersessions.
"""

from __future__ import annotations

import re

from lore.text.words import content_terms

_CHOOSE_FOR = re.compile(
    r"^\W*(?:use|using|adopt|adopting|choose|choosing|pick|select)\s+(?P<choice>.+?)\s+"
    r"(?:for|as)\s+(?P<purpose>.+)$",
    re.IGNORECASE,
)
_PURPOSE_USING = re.compile(
    r"^\W*(?P<purpose>.+?)\s+(?:using|with|via|through|on)\s+(?P<choice>.+)$", re.IGNORECASE
)

Choice = tuple[frozenset[str], frozenset[str]]  # (purpose terms, choice terms)
NO_CHOICE: Choice = (frozenset(), frozenset())


def choice_of(title: str) -> Choice:
    """(purpose, choice) terms a title names, or two empty sets for another shape.

    A slug title ("use-heroku-for-hosting") reads as words."""
    words = " ".join(title.replace("-", " ").split()).strip(" .")
    found = _CHOOSE_FOR.match(words) or _PURPOSE_USING.match(words)
    if found is None:
        return NO_CHOICE
    purpose = frozenset(content_terms(found["purpose"]))
    choice = frozenset(content_terms(found["choice"]))
    return (purpose, choice) if purpose and choice else NO_CHOICE


def rechosen(mine: Choice, theirs: Choice) -> bool:
    """The same purpose, and another choice with nothing in common with the first."""
    return bool(mine[0]) and mine[0] == theirs[0] and not mine[1] & theirs[1]
