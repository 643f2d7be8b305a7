"""Findings as JSON and as GitHub workflow commands; the markdown is `report.markdown`.

Everything a finding says may come from an untrusted pull request, so each format
escapes for where it goes: workflow-command data and properties are escaped as
GitHub's runner expects (`%`, CR, LF, and `:` `,` in properties) and plain lines
are printed between `::stop-commands::` markers so no text can run a command. The
markdown (PR comment, job summary) and the report file the trusted comment job reads
live in `lore.curator.report.markdown` and `.document`; their names are re-exported
here for the callers that format a result. The rich text format lives in `lore.cli`
(only the CLI imports rich).
"""

from __future__ import annotations

import secrets
from typing import Any

from lore.curator.finding import ERROR, WARNING, Finding
from lore.curator.report.document import summary_line
from lore.curator.report.markdown import code_fence, md_escape, to_markdown
from lore.curator.run import CurateResult
from lore.sanitize import sanitize_field
from lore.versioned import versioned

ANNOTATION_CAP = 10  # GitHub shows at most 10 error and 10 warning annotations per step


def to_json(result: CurateResult) -> dict[str, Any]:
    """The contract of DESIGN.md section 3, plus a summary (and, when they were gathered,
    each note's most alike active notes: `similar`)."""
    data: dict[str, Any] = {
        "findings": [finding.to_json() for finding in result.findings],
        "summary": {
            "errors": result.errors,
            "warnings": result.warnings,
            "checked": len(result.checked),
        },
    }
    if result.similar:
        data["similar"] = {
            path: [note.to_json() for note in notes] for path, notes in result.similar.items()
        }
    return versioned(data)


# ---- GitHub workflow commands ----


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(finding: Finding) -> str:
    properties = []
    if finding.path:
        properties.append(f"file={escape_property(finding.path)}")
        if finding.line:
            properties.append(f"line={finding.line}")
    properties.append(f"title={escape_property(finding.rule)}")
    message = finding.message
    if finding.suggestion:
        message += "\n" + finding.suggestion
    level = "error" if finding.severity == ERROR else "warning"
    return f"::{level} {','.join(properties)}::{escape_data(message)}"


def plain_line(finding: Finding) -> str:
    where = f"{finding.path}:{finding.line}" if finding.line else (finding.path or "-")
    text = f"{finding.severity} {where} {finding.rule}: {finding.sentences()}"
    return sanitize_field(text, 2000)


def to_github(result: CurateResult, *, token: str | None = None) -> list[str]:
    """Workflow-command lines: capped annotations, then every finding as inert text."""
    lines: list[str] = []
    shown = {ERROR: 0, WARNING: 0}
    for finding in result.findings:
        if shown[finding.severity] < ANNOTATION_CAP:
            shown[finding.severity] += 1
            lines.append(annotation(finding))
    marker = token or secrets.token_hex(16)
    lines.append(f"::stop-commands::{marker}")
    lines += [plain_line(finding) for finding in result.findings]
    hidden = len(result.findings) - sum(shown.values())
    if hidden:
        lines.append(
            f"({hidden} more findings than GitHub shows as annotations; all are "
            "listed above and in the job summary)"
        )
    lines.append(summary_line(result))
    lines.append(f"::{marker}::")
    return lines


__all__ = [
    "annotation",
    "code_fence",
    "escape_data",
    "escape_property",
    "md_escape",
    "plain_line",
    "summary_line",
    "to_github",
    "to_json",
    "to_markdown",
]
