"""`Finding`: one thing the curator found, as data (DESIGN.md section 3).

A finding names its rule (`family/name`, stable), its severity, the file and line,
a message and optionally a suggestion. A finding about a pair of notes (a duplicate, a
contradiction, a replacement) also knows the other note (`about`), so the rules' and
the model review's evidence on one pair make one finding
(`lore.curator.review.merge`); `about` stays inside lore (DESIGN §3's JSON has no such
field, and the message names the note). Messages never contain a secret value: the
secret rules mask what they found, and `run.curate` scrubs every finding of any
value a secret rule matched before it is returned.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from lore.errors import Problem
from lore.sanitize import sanitize_field

ERROR = "error"
WARNING = "warning"
SEVERITIES = (ERROR, WARNING)


@dataclass(frozen=True)
class Finding:
    rule: str  # e.g. "secret/github-token"
    severity: str  # "error" or "warning"
    path: str  # relative to the vault root, as the user sees it
    line: int | None
    message: str
    suggestion: str | None = None
    about: str | None = None  # the other note of a pair finding (its id)

    @property
    def family(self) -> str:
        return self.rule.split("/", 1)[0]

    @property
    def is_error(self) -> bool:
        return self.severity == ERROR

    def sort_key(self) -> tuple[str, int, int, str, str]:
        return (self.path, self.line or 0, 0 if self.is_error else 1, self.rule, self.message)

    def sentences(self) -> str:
        """The message and the suggestion as two sentences, for output on one line."""
        text = _as_sentence(self.message)
        if self.suggestion:
            text += " " + _as_sentence(self.suggestion)
        return text

    def to_json(self) -> dict[str, Any]:
        """The finding as DESIGN §3 prints it; its texts quote notes, so they are sanitized."""
        return {
            "rule": self.rule,
            "severity": self.severity,
            "path": sanitize_field(self.path),
            "line": self.line,
            "message": sanitize_field(self.message),
            "suggestion": None if self.suggestion is None else sanitize_field(self.suggestion),
        }

    def with_text(self, message: str, suggestion: str | None) -> Finding:
        return replace(self, message=message, suggestion=suggestion)


def _as_sentence(text: str) -> str:
    text = text.strip()
    return text if text.endswith((".", "!", "?", "…")) else text + "."


def from_problem(problem: Problem, *, path: str, severity: str | None = None) -> Finding:
    """A parser's `Problem` as a finding; its code already is a rule id (`frontmatter/…`)."""
    return Finding(
        rule=problem.code,
        severity=severity or problem.severity,
        path=path,
        line=problem.line,
        message=problem.message,
        suggestion=problem.fix,
    )


def count(findings: list[Finding]) -> tuple[int, int]:
    """(errors, warnings)."""
    errors = sum(1 for finding in findings if finding.is_error)
    return errors, len(findings) - errors
