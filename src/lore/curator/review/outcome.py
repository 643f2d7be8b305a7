"""What the optional model review did in one run, as one line for people and one object
for JSON: it ran, ran in part, or was skipped, and why.

A skipped or cut-short review never fails a check: it is reported here, in the pull
request comment, the job summary, `lore curate` and `lore review`, not as a finding.
The model's verdicts are findings (`lore.curator.review.semantic`); this is the rest.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from lore.sanitize import sanitize_text

RAN, PARTIAL, SKIPPED = "ran", "partial", "skipped"
OFF_HINT = "set enabled = false under [curator.semantic] in lore.toml to turn it off"


@dataclass(frozen=True)
class ModelReview:
    """One run of the model review.

    `state`: "ran" (every note was judged, or there was nothing to ask), "partial" (some
    notes were judged, then the calls stopped or reached `max_calls`) or "skipped" (no
    note was judged: no token, the provider refused, timed out or is not installed).
    `detail`: what happened, one sentence; `not_judged`: the notes the model did not judge.
    """

    state: str
    provider: str
    model: str
    detail: str
    calls: int = 0
    judged: int = 0  # notes the model judged
    notes: int = 0  # notes it had candidates to judge against
    verdicts: int = 0
    not_judged: tuple[str, ...] = field(default=())

    @property
    def line(self) -> str:
        """One line: "Model review (github openai/gpt-4.1-mini): …"."""
        who = " ".join(part for part in (self.provider, self.model[:80]) if part)
        if self.state == SKIPPED:
            text = (
                f"Model review ({who}) skipped: {self.detail}. The other checks are "
                f"unaffected and nothing failed; {OFF_HINT}."
            )
        else:
            text = f"Model review ({who}, advisory): {self.detail}."
        if self.not_judged and self.state != SKIPPED:
            shown = ", ".join(self.not_judged[:3])
            more = len(self.not_judged) - 3
            text += f" Not judged: {shown}" + (f" and {more} more." if more > 0 else ".")
        return sanitize_text(text)

    def to_json(self) -> dict[str, Any]:
        return {
            "state": self.state,
            "provider": self.provider,
            "model": self.model,
            "calls": self.calls,
            "judged": self.judged,
            "notes": self.notes,
            "verdicts": self.verdicts,
            "not_judged": list(self.not_judged),
            "line": self.line,
        }
