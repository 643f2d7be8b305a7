"""An ADR's sections as a note's body, mapped as the record's authors meant them.

- **Nygard / adr-tools**: `## What` is the Decision, `## Why` the Context, and the
  Consequences — what becomes easier or harder once it holds — are `## Gotchas`.
- **MADR**: the Decision Outcome's "Chosen option: "X", because Y" is the decision, not
  boilerplate: `## What` opens with the record's title and the option chosen ("Cache
  product search results in Redis: cache the first page for 60 seconds."), and "because
  Y" opens `## Why`, before the Context and Problem Statement; the consequences marked
  "Good, because" (or under Positive Consequences) are reasons, so they join `## Why`;
  those marked "Bad, because" (or under Negative Consequences) are `## Gotchas`.
- **Y-statements** (Zdun et al.: "In the context of <use case>, facing <concern>, we
  decided for <option> and neglected <other options>, to achieve <quality>, accepting
  <downside>, because <rationale>"): `## What` is "We decided for <option> …, to achieve
  …"; `## Why` the context, the concern and the rationale; `## Gotchas` what was
  accepted.

Each part keeps the source's own words, cut at sentence ends: `## What` gets up to two
fifths of the words the vault allows, `## Gotchas` up to a quarter, `## Why` the rest.
Code blocks and tables are left out and said so.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from lore.team.imports.adr_parse import AdrRecord, consequences
from lore.team.imports.markdown import Block, cut_sentences, inline_plain, sentences, word_count

_CHOSEN = re.compile(
    r"^\s*chosen (?:option|alternative|approach|solution)\s*:?\s*"
    r"(?P<option>\"[^\"]+\"|“[^”]+”|'[^']+'|[^,.;]+?)\s*"
    r"(?:,\s*because\b[,:]?\s*(?P<because>.*))?$",
    re.IGNORECASE | re.DOTALL,
)
_Y_STATEMENT = re.compile(
    r"\bin the context of\s+(?P<context>.+?),\s*facing\s+(?P<concern>.+?),?\s+"
    r"we decided (?:for|to)\s+(?P<option>.+?)"
    r"(?:,?\s+and neglected\s+(?P<neglected>.+?))?"
    r"(?:,?\s+to achieve\s+(?P<quality>.+?))?"
    r"(?:,?\s+accepting\s+(?P<downside>.+?))?"
    r"(?:,?\s+because\s+(?P<rationale>.+?))?\s*[.]?\s*$",
    re.IGNORECASE | re.DOTALL,
)


@dataclass
class Body:
    what: str = ""
    why: str = ""
    gotchas: str = ""
    left_out: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def note_body(record: AdrRecord, max_words: int) -> Body:
    """The note's What, Why and Gotchas for `record`, within `max_words` together."""
    body = Body()
    if record.decision_from:
        body.notes.append(f"## What is {record.decision_from}")
    good, bad = consequences(record)
    decision = list(record.decision)
    lead_why: list[Block] = []
    lead_gotchas: list[Block] = []
    plain = " ".join(inline_plain(b.text) for b in decision[:2])
    y_statement = _Y_STATEMENT.search(plain)
    chosen = _CHOSEN.match(inline_plain(decision[0].text)) if decision else None
    if y_statement:
        what_line, why_line, accepted = _y_parts(y_statement)
        decision = [Block("paragraph", what_line, 0), *decision[2:]]
        lead_why = [Block("paragraph", why_line, 0)]
        if accepted:
            lead_gotchas = [Block("paragraph", accepted, 0)]
        body.notes.append("a Y-statement: its parts are What, Why and Gotchas")
    elif chosen:
        option = chosen["option"].strip().strip("\"“”'")
        decision = [Block("paragraph", f"{record.title.rstrip('.')}: {option}.", 0), *decision[1:]]
        because = (chosen["because"] or "").strip()
        if because:
            lead_why = [Block("paragraph", "Chosen because " + because.rstrip(".") + ".", 0)]
        elif decision[1:2] and decision[1].kind == "item":  # "…, because" then the reasons
            lead_why, decision = [b for b in decision[1:] if b.kind == "item"], decision[:1]
    what_budget = max(25, max_words * 2 // 5)
    body.what, dropped = prose(decision, what_budget)
    left = max(0, max_words - word_count(body.what))
    body.gotchas, dropped_gotchas = prose([*lead_gotchas, *bad], min(left // 2, max_words // 4))
    left -= word_count(body.gotchas)
    body.why, dropped_why = prose([*lead_why, *record.context, *good], left)
    body.left_out = sorted(set(dropped + dropped_gotchas + dropped_why))
    return body


def _y_parts(match: re.Match[str]) -> tuple[str, str, str]:
    """(What, Why, Gotchas) sentences of a Y-statement, in its own words."""
    what = f"We decided for {match['option'].strip()}"
    if match["neglected"]:
        what += f" and neglected {match['neglected'].strip()}"
    if match["quality"]:
        what += f", to achieve {match['quality'].strip()}"
    why = f"In the context of {match['context'].strip()}, facing {match['concern'].strip()}."
    if match["rationale"]:
        why += f" Because {match['rationale'].strip().rstrip('.')}."
    accepted = f"Accepting {match['downside'].strip()}." if match["downside"] else ""
    return what.rstrip(".") + ".", why, accepted


def prose(found: list[Block], max_words: int) -> tuple[str, list[str]]:
    """The blocks as note text within `max_words`, cut at sentence ends; and what was left out.

    The first line is the first sentence (of a paragraph, or a list item without its
    marker); paragraphs keep their sentences, list items stay items.
    """
    units, left_out = _units(found)
    if not units or max_words <= 0:
        return "", left_out
    lines = [cut_sentences([units[0][1]], max_words)[0]]
    used = word_count(lines[0])
    previous = "p"
    for kind, text in units[1:]:
        words = word_count(text)
        if used + words > max_words:
            break
        if kind != "p":
            lines.append(("- " if kind == "li" else "  - ") + text)
        elif previous == "p" and lines[-1] and not lines[-1].startswith("- "):
            lines[-1] += " " + text
        else:
            lines.append(text)
        used += words
        previous = kind
    return "\n".join(lines), left_out


def _units(found: list[Block]) -> tuple[list[tuple[str, str]], list[str]]:
    """(("p" | "li" | "li2", text), …) of the blocks, and the code and tables left out."""
    units: list[tuple[str, str]] = []
    left_out: list[str] = []

    def walk(block: Block, depth: int) -> None:
        if block.kind in ("code", "table"):
            left_out.append("a code block" if block.kind == "code" else "a table")
            return
        text = inline_plain(block.text)
        if block.kind == "item":
            if text:
                units.append(("li" if depth == 0 else "li2", text))
            for child in block.children:
                walk(child, depth + 1)
        elif block.kind != "heading" and text:
            units.extend(("p", sentence) for sentence in sentences(text))

    for block in found:
        walk(block, 0)
    return units, left_out
