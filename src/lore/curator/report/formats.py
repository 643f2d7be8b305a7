"""Findings as JSON, GitHub workflow commands, and markdown (PR comment, job summary).

Everything a finding says may come from an untrusted pull request, so each format
escapes for where it goes: workflow-command data and properties are escaped as
GitHub's runner expects (`%`, CR, LF, and `:` `,` in properties) and plain lines
are printed between `::stop-commands::` markers so no text can run a command;
markdown escapes its punctuation and HTML, and shows note text only inside a
code fence longer than any backtick run in it. The rich text format lives in
`lore.cli` (only the CLI imports rich).
"""

from __future__ import annotations

import re
import secrets
from typing import Any

from lore.curator.finding import ERROR, WARNING, Finding
from lore.curator.run import CurateResult
from lore.sanitize import sanitize_field
from lore.versioned import versioned

ANNOTATION_CAP = 10  # GitHub shows at most 10 error and 10 warning annotations per step
MAX_TABLE_ROWS = 100
MAX_PREVIEW_CHARS = 6000
MAX_COMMENT_CHARS = 60000  # GitHub rejects comments over 65,536 characters


def to_json(result: CurateResult) -> dict[str, Any]:
    """The contract of DESIGN.md section 3, plus a summary (and the model review's run)."""
    data = versioned(
        {
            "findings": [finding.to_json() for finding in result.findings],
            "summary": {
                "errors": result.errors,
                "warnings": result.warnings,
                "checked": len(result.checked),
            },
        }
    )
    if result.model_review is not None:
        data["model_review"] = result.model_review.to_json()
    return data


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
    review = result.model_review.line if result.model_review is not None else ""
    if review:  # a notice: the model review never fails the check
        lines.append(f"::notice title=lore model review::{escape_data(review)}")
    marker = token or secrets.token_hex(16)
    lines.append(f"::stop-commands::{marker}")
    lines += [plain_line(finding) for finding in result.findings]
    if review:
        lines.append(sanitize_field(review, 2000))
    hidden = len(result.findings) - sum(shown.values())
    if hidden:
        lines.append(
            f"({hidden} more findings than GitHub shows as annotations; all are "
            "listed above and in the job summary)"
        )
    lines.append(summary_line(result))
    lines.append(f"::{marker}::")
    return lines


def summary_line(result: CurateResult) -> str:
    files = len(result.checked)
    noun = "file" if files == 1 else "files"
    if not result.findings:
        return f"lore curator: no problems in {files} {noun}."
    return (
        f"lore curator: {result.errors} error{'s' * (result.errors != 1)}, "
        f"{result.warnings} warning{'s' * (result.warnings != 1)} in {files} {noun}."
    )


# ---- markdown ----

_MD_SPECIAL = re.compile(r"([\\`*_\[\]#!|~])")


def md_escape(text: str, limit: int = 500) -> str:
    """Untrusted text for markdown: one line, no HTML, no mentions, no markup."""
    flat = sanitize_field(text, limit)
    flat = flat.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    flat = _MD_SPECIAL.sub(r"\\\1", flat)
    return flat.replace("@", "&#64;")  # no @mentions from untrusted text


def code_fence(text: str, info: str = "markdown") -> str:
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{info}\n{text.rstrip()}\n{fence}"


def _table(findings: list[Finding]) -> list[str]:
    rows = ["| | Rule | Where | Finding |", "|---|---|---|---|"]
    for finding in findings[:MAX_TABLE_ROWS]:
        icon = "❌" if finding.severity == ERROR else "⚠️"
        where = finding.path + (f":{finding.line}" if finding.line else "")
        text = md_escape(finding.message)
        if finding.suggestion:
            text += f"<br>{md_escape(finding.suggestion, 300)}"
        rows.append(f"| {icon} | `{finding.rule}` | {md_escape(where, 200)} | {text} |")
    if len(findings) > MAX_TABLE_ROWS:
        rows.append(f"| | | | …and {len(findings) - MAX_TABLE_ROWS} more (see the job log) |")
    return rows


def to_markdown(result: CurateResult, *, previews: bool = True) -> str:
    """A PR comment: the verdict, a table of findings, and what an agent will see."""
    if result.errors:
        head = f"### ❌ {summary_line(result)}"
    elif result.warnings:
        head = f"### ⚠️ {summary_line(result)}"
    else:
        head = f"### ✅ {summary_line(result)}"
    parts = ["<!-- lore-curator -->", head, ""]
    if result.findings:
        parts += [
            "Errors block the merge; warnings are for the reviewer to judge.",
            "",
            *_table(result.findings),
            "",
        ]
    if result.model_review is not None:
        parts += [f"**Model review:** {md_escape(result.model_review.line, 1200)}", ""]
    used = sum(len(part) + 1 for part in parts)
    if previews:
        for path, full in result.previews.items():
            text = full
            if len(text) > MAX_PREVIEW_CHARS:
                text = text[:MAX_PREVIEW_CHARS] + "\n[… cut]"
            block = "\n".join(
                [
                    f"<details><summary>What an agent will see: {md_escape(path, 200)}</summary>",
                    "",
                    code_fence(text),
                    "",
                    "</details>",
                    "",
                ]
            )
            if used + len(block) > MAX_COMMENT_CHARS:
                parts.append("_(More previews were left out to keep the comment short.)_")
                break
            parts.append(block)
            used += len(block)
    parts += [
        "<sub>Reviewers: is it true, is it one idea, would the next person find it? "
        "The curator checks format, secrets and hidden text; it cannot check truth.</sub>",
    ]
    return "\n".join(parts) + "\n"
