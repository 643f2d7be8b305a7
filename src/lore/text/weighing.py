"""Weighing: the parts of a note that weigh an option rather than state what holds.

A list under a "Pros" / "Cons" / "Drawbacks" / "Risks" / "Positive consequences" label
(a heading, or a line of its own such as "**Drawbacks:**"), and a list item marked as a
pro or a con ("- + no build step", "* Good, because ..."), argue for or against a choice:
they claim nothing of what holds (`lore.text.clauses`) and replace nothing
(`lore.text.cue_sentences`), whatever words they use.
"""

from __future__ import annotations

import re

from lore.text.markdown import BULLET_MARKER

WEIGHING = re.compile(
    r"^\s*(?:pros?|cons?|pros?\s*(?:and|&|/)\s*cons?|advantages?|disadvantages?|benefits?|"
    r"drawbacks?|upsides?|downsides?|risks?|(?:positive|negative)(?:\s+consequences?)?)"
    r"\s*[.:]?\s*$",
    re.IGNORECASE,
)
MARKED = re.compile(
    r"^\s*(?:[-*+]|\d+[.)])\s+(?:[+\-−](?:\s|$)|(?:good|bad|neutral|pros?|cons?)\b\s*[,:])",
    re.IGNORECASE,
)
_EMPHASIS = re.compile(r"\*\*|__")


def weighing_label(line: str) -> bool:
    """A line that is only a label of a weighing list ("Cons:", "**Drawbacks:**")."""
    return bool(WEIGHING.match(_EMPHASIS.sub("", line)))


def weighed_lines(text: str) -> list[bool]:
    """For each line of `text`, whether it weighs an option: a label (`WEIGHING`), an item
    under one, an item marked as a pro or a con (`MARKED`), and the lines that carry on
    such an item; prose that starts at the margin ends the list."""
    found: list[bool] = []
    weighing = dropping = False
    for line in text.split("\n"):
        if weighing_label(line):
            weighing, dropping = True, False
            found.append(True)
            continue
        if BULLET_MARKER.match(line):
            dropping = weighing or bool(MARKED.match(line))
        elif line.strip() and not line[:1].isspace():
            weighing = dropping = False  # prose again: the list is over
        found.append(dropping)
    return found


def without_weighing(text: str) -> str:
    """A section's prose without its lists of pros and cons."""
    lines = text.split("\n")
    return "\n".join(
        line for line, weighs in zip(lines, weighed_lines(text), strict=True) if not weighs
    )
