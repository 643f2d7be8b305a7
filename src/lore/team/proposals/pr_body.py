"""The pull request a proposal opens: its title, body and labels.

The body shows the note exactly as it will be merged, what an agent will see of it
(the sanitised text recall hands out), and the local curator result, so a reviewer
can judge it without leaving the pull request. Text from the note is fenced or
escaped (no HTML, no mentions).
"""

from __future__ import annotations

from collections.abc import Sequence

from lore.curator.finding import Finding
from lore.curator.report.formats import code_fence, md_escape
from lore.note.model import Note

LORE_LABEL = "lore"
AGENT_LABEL = "agent-authored"
LABELS = {
    LORE_LABEL: ("5319e7", "A note proposed to the team's memory with lore"),
    AGENT_LABEL: ("fbca04", "Proposed by an AI coding agent through lore"),
}
MAX_FINDINGS = 20


def pr_title(note: Note) -> str:
    return f"lore: {' '.join(note.title.split())}"[:250]


def pr_labels(agent: str | None) -> list[str]:
    return [LORE_LABEL, AGENT_LABEL] if agent else [LORE_LABEL]


def pr_body(
    note: Note,
    text: str,
    preview: str,
    findings: Sequence[Finding],
    *,
    agent: str | None = None,
    forced: bool = False,
) -> str:
    who = f" by an agent ({md_escape(agent, 60)})" if agent else ""
    lines = [
        f"Proposes `notes/{note.id}.md`{who}, drafted and checked with `lore remember`.",
        "",
        f"**{md_escape(note.title, 200)}** · {md_escape(note.type, 40)} · "
        f"{md_escape(note.confidence, 10)} confidence · "
        + ", ".join(f"`{md_escape(tag, 80)}`" for tag in note.tags),
        "",
        "### The note",
        "",
        code_fence(text, "markdown"),
        "",
        "### What an agent will see",
        "",
        code_fence(preview or text, "text"),
        "",
        "### Local check",
        "",
    ]
    errors = sum(1 for f in findings if f.is_error)
    warnings = len(findings) - errors
    if not findings:
        lines.append("The curator's rules found no problems on the author's machine.")
    else:
        verdict = f"The curator's rules found {errors} error(s) and {warnings} warning(s)"
        verdict += " (proposed anyway with `--force`)." if forced and errors else "."
        lines += [verdict, ""]
        for finding in list(findings)[:MAX_FINDINGS]:
            where = f"line {finding.line}" if finding.line else md_escape(finding.path, 120)
            lines.append(
                f"- {finding.severity} `{finding.rule}` ({where}): {md_escape(finding.message)}"
            )
        if len(findings) > MAX_FINDINGS:
            lines.append(f"- …and {len(findings) - MAX_FINDINGS} more")
    lines += [
        "",
        "The curator workflow checks this pull request again. Reviewers: is it true, is it "
        "one idea, would the next person find it? Merge to share it with every teammate's agents.",
    ]
    return "\n".join(lines) + "\n"
