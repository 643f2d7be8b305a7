"""One finding per pair of notes: the rules' evidence and the model review's, together.

The rules report a pair (a note under review and the note it duplicates, contradicts or
may replace) with the other note in `Finding.about`; the model review answers the
reviewer's question about the same pairs (`lore.curator.review.pairs`). Where both have
something to say about one pair, the reviewer gets one finding that shows both reasons:

- the rule's finding keeps its id, severity and line, and its message gains the model's
  verdict and reason ("the model review (advisory, model …) judges that it replaces it:
  …"), whatever the verdict — "neither" too, which is worth knowing when a rule fired;
- when the model says it replaces the other note, wholly or in part, the suggestion is
  the model's (the exact `supersedes:` line, or a `## Related` link and what still
  holds): that is the decision the reviewer is asked to take;
- a pair no rule reported gets the model's own finding (`Advice.finding`), and a
  "neither" there is no finding at all.

The model never removes, softens or raises a finding: a merged finding has the rule's
severity, and the model's own findings are warnings (`lore.curator.review.semantic`).
When the rules reported one pair more than once (`duplicate/same-title` beside
`duplicate/near`), the model's evidence joins the first by `PRECEDENCE`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from lore.curator.finding import Finding

# The rule finding a model verdict joins, when a pair has several.
PRECEDENCE = (
    "lifecycle/may-supersede",
    "contradiction/different-number",
    "contradiction/opposite-claim",
    "duplicate/near",
    "duplicate/exact",
    "duplicate/same-title",
)


@dataclass(frozen=True)
class Advice:
    """The model's verdict on one pair, ready to stand alone or to join a rule's finding."""

    path: str  # the note under review, as findings name it
    other: str  # the other note's id
    verdict: str
    sentence: str  # the verdict and reason, as a clause to append to a rule's message
    suggestion: str | None  # what the reviewer should do, when the verdict says so
    finding: Finding | None  # the finding it makes alone (None for "neither")


def merged(findings: list[Finding], advice: list[Advice]) -> list[Finding]:
    """`findings` with each piece of `advice` joined to the rule finding about its pair,
    or added as a finding of its own."""
    first: dict[tuple[str, str], int] = {}
    rank = {rule: number for number, rule in enumerate(PRECEDENCE)}
    for index, finding in enumerate(findings):
        if finding.about is None or finding.rule not in rank:
            continue
        key = (finding.path, finding.about)
        known = first.get(key)
        if known is None or rank[finding.rule] < rank[findings[known].rule]:
            first[key] = index
    result = list(findings)
    for piece in advice:
        joined = first.get((piece.path, piece.other))
        if joined is None:
            if piece.finding is not None:
                result.append(piece.finding)
            continue
        rule = result[joined]
        message = f"{rule.message.rstrip('.')}; {piece.sentence}"
        suggestion = piece.suggestion if piece.suggestion is not None else rule.suggestion
        result[joined] = replace(rule, message=message, suggestion=suggestion)
    return result
