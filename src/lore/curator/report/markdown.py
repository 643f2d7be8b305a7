"""The curator's findings as markdown: the pull-request comment and the job summary.

Everything a finding says may come from an untrusted pull request. Prose is escaped
(HTML, markup, and `@`, with a zero-width space after it so nothing mentions anyone), and
web addresses are shown as code, so nothing becomes a link the reviewer did not see; what
the rules wrote between
backticks — a field, a value, the fix to type — is shown as a real code span, fenced
with more backticks than it contains, so it can close nothing. Note text is shown only
inside a code fence longer than any backtick run in it.

The comment puts errors before warnings and groups each by file, with a link to the
file and line of the pull request's head (`Links.head`). A note id that names a note
already in the vault links to that note on the base branch (`Links.base`, for the ids
in `Links.notes`). When the change touches the vault's policy paths (the `policy/`
findings), the comment opens with a banner; it is rendered by the trusted job from the
findings, so the pull request cannot remove it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING
from urllib.parse import quote

from lore.curator.finding import ERROR, Finding
from lore.curator.report.document import ReportDocument, summary_line
from lore.curator.similar import asks_replacement
from lore.sanitize import sanitize_field

if TYPE_CHECKING:
    from lore.curator.run import CurateResult

MARKER = "<!-- lore-curator -->"
MAX_FINDINGS_SHOWN = 100
MAX_PREVIEW_CHARS = 6000
MAX_COMMENT_CHARS = 60000  # GitHub rejects comments over 65,536 characters
MAX_BANNER_PATHS = 20
POLICY_FAMILY = "policy"
# An `@` followed by a zero-width space: GitHub links a mention only where a login follows
# the `@` directly; an entity such as `&#64;` renders back to a plain `@`.
NO_MENTION = "@&#8203;"

_MD_SPECIAL = re.compile(r"([\\`*_\[\]#!|~])")
_BACKTICKS = re.compile(r"`+")
_WEB = re.compile(r"(?:https?://|www\.)\S+", re.IGNORECASE)
_WORD = r"[a-z0-9]+(?:-[a-z0-9]+)*"
_NOTE_ID = re.compile(rf"(?<![a-z0-9-]){_WORD}--{_WORD}--\d{{4}}-\d{{2}}-\d{{2}}(?![a-z0-9-])")


@dataclass(frozen=True)
class Links:
    """Where the comment's links point: blob URL prefixes (`https://github.com/O/R/blob/SHA`)."""

    head: str | None = None  # the pull request's head: its files and lines
    base: str | None = None  # the base branch: the notes already in the vault
    notes: frozenset[str] = field(default_factory=frozenset)  # ids of notes in the base

    def file(self, path: str, line: int | None = None) -> str | None:
        if not self.head or not path:
            return None
        return f"{self.head}/{quote(path)}" + (f"#L{line}" if line else "")

    def note(self, note_id: str) -> str | None:
        if not self.base or note_id not in self.notes:
            return None
        return f"{self.base}/notes/{note_id}.md"


def named_note_ids(findings: list[Finding]) -> list[str]:
    """Every note id the findings' messages and suggestions name, once, in order."""
    found: dict[str, None] = {}
    for finding in findings:
        for text in (finding.message, finding.suggestion or ""):
            found.update(dict.fromkeys(_NOTE_ID.findall(text)))
    return list(found)


def md_escape(text: str, limit: int = 500) -> str:
    """Untrusted text for markdown: one line, no HTML, no mentions, no markup."""
    flat = sanitize_field(text, limit)
    flat = flat.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    flat = _MD_SPECIAL.sub(r"\\\1", flat)
    return flat.replace("@", NO_MENTION)


def code_fence(text: str, info: str = "markdown") -> str:
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{info}\n{text.rstrip()}\n{fence}"


def code_span(text: str) -> str:
    """`text` as one inline code span that no backtick in it can close."""
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=0)
    fence = "`" * (longest + 1)
    if text.startswith("`") or text.endswith("`") or (text.startswith(" ") and text.endswith(" ")):
        text = f" {text} "
    return f"{fence}{text}{fence}"


def _segments(text: str) -> list[tuple[bool, str]]:
    """(is_code, text) pieces: a backtick run opens a span that the next run of the same
    length closes (CommonMark); a run that nothing closes is plain text."""
    pieces: list[tuple[bool, str]] = []
    prose_start = 0
    position = 0
    while True:
        opener = _BACKTICKS.search(text, position)
        if opener is None:
            break
        run = opener.group()
        closer = None
        for candidate in _BACKTICKS.finditer(text, opener.end()):
            if candidate.group() == run:
                closer = candidate
                break
        if closer is None or closer.start() == opener.end():
            position = opener.end()
            continue
        pieces.append((False, text[prose_start : opener.start()]))
        pieces.append((True, text[opener.end() : closer.start()]))
        prose_start = position = closer.end()
    pieces.append((False, text[prose_start:]))
    return [(code, piece) for code, piece in pieces if piece]


def _prose(text: str, links: Links, named: list[str]) -> str:
    """Escaped prose: web addresses as code, note ids linked when they are in the vault."""
    out: list[str] = []
    position = 0
    tokens = sorted(
        [(m.start(), m.end(), "web") for m in _WEB.finditer(text)]
        + [(m.start(), m.end(), "id") for m in _NOTE_ID.finditer(text)]
    )
    for start, end, kind in tokens:
        if start < position:
            continue  # an id inside a web address: the address wins
        out.append(_escape_flat(text[position:start]))
        token = text[start:end]
        if kind == "web":
            out.append(code_span(token))
        else:
            named.append(token)
            url = links.note(token)
            out.append(f"[{token}]({url})" if url else _escape_flat(token))
        position = end
    out.append(_escape_flat(text[position:]))
    return "".join(out)


def _escape_flat(text: str) -> str:
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _MD_SPECIAL.sub(r"\\\1", text).replace("@", NO_MENTION)


def inline(text: str, links: Links | None = None, limit: int = 1000) -> str:
    """A finding's text on one line: prose escaped, its backticked parts as code, and
    every existing note it names linked (inline, or after it when only code names it)."""
    links = links or Links()
    flat = sanitize_field(text, limit)
    named: list[str] = []
    parts: list[str] = []
    in_code: list[str] = []
    for is_code, piece in _segments(flat):
        if is_code:
            parts.append(code_span(piece))
            in_code += _NOTE_ID.findall(piece)
        else:
            parts.append(_prose(piece, links, named))
    extra = [
        f"[{note_id}]({links.note(note_id)})"
        for note_id in dict.fromkeys(in_code)
        if note_id not in named and links.note(note_id)
    ]
    rendered = "".join(parts)
    return rendered + (f" (see {', '.join(extra)})" if extra else "")


# ---- the comment ----


def _as_document(report: CurateResult | ReportDocument) -> ReportDocument:
    if isinstance(report, ReportDocument):
        return report
    return ReportDocument.from_result(report)


def _banner(findings: list[Finding]) -> list[str]:
    policy = [finding for finding in findings if finding.family == POLICY_FAMILY]
    if not policy:
        return []
    paths = list(dict.fromkeys(finding.path or "(the vault)" for finding in policy))
    shown = ", ".join(code_span(sanitize_field(path, 200)) for path in paths[:MAX_BANNER_PATHS])
    if len(paths) > MAX_BANNER_PATHS:
        shown += f" and {len(paths) - MAX_BANNER_PATHS} more"
    blocking = any(finding.is_error for finding in policy)
    lines = [
        "> [!CAUTION]" if blocking else "> [!WARNING]",
        f"> **This pull request changes what reviews this vault or what every agent is "
        f"told:** {shown}.",
        "> Review these changes on their own, with a code owner: they decide how every later "
        "pull request is checked, or the words every note is held to.",
    ]
    if blocking:
        lines.append(
            "> The check stays red until a maintainer approves this head commit "
            "(the vault's README says how); a later push needs a new approval."
        )
    return [*lines, ""]


def reading_order(findings: list[Finding]) -> list[Finding]:
    """Errors, then warnings; each grouped by file (in the order the files first appear)
    and by line and rule within a file: the comment's order, and `lore review`'s."""
    by_path: dict[tuple[bool, str], list[Finding]] = {}
    for finding in findings:
        by_path.setdefault((not finding.is_error, finding.path), []).append(finding)
    return [
        finding
        for key in sorted(by_path, key=lambda key: key[0])  # stable: files keep their order
        for finding in sorted(by_path[key], key=lambda f: (f.line or 0, f.rule))
    ]


def _group(findings: list[Finding], links: Links, budget: list[int]) -> list[str]:
    by_path: dict[str, list[Finding]] = {}
    for finding in reading_order(findings):
        by_path.setdefault(finding.path, []).append(finding)
    lines: list[str] = []
    for path, group in by_path.items():
        if budget[0] <= 0:
            break
        label = md_escape(path, 300) if path else "the vault"
        url = links.file(path)
        lines += [f"**[{label}]({url})**" if url else f"**{label}**", ""]
        for finding in group:
            if budget[0] <= 0:
                break
            budget[0] -= 1
            icon = "❌" if finding.is_error else "⚠️"
            where = ""
            if finding.line:
                line_url = links.file(path, finding.line)
                where = (
                    f"[line {finding.line}]({line_url}) · "
                    if line_url
                    else f"line {finding.line} · "
                )
            lines.append(
                f"- {icon} {where}{code_span(finding.rule)} — {inline(finding.message, links)}"
            )
            if finding.suggestion:
                lines.append(f"  - Fix: {inline(finding.suggestion, links, 600)}")
        lines.append("")
    return lines


def _findings(findings: list[Finding], links: Links) -> list[str]:
    errors = [finding for finding in findings if finding.severity == ERROR]
    warnings = [finding for finding in findings if finding.severity != ERROR]
    budget = [MAX_FINDINGS_SHOWN]
    lines = ["Errors block the merge; warnings are for the reviewer to judge.", ""]
    if errors:
        lines += [f"#### ❌ Errors ({len(errors)})", "", *_group(errors, links, budget)]
    if warnings and budget[0] > 0:
        lines += [f"#### ⚠️ Warnings ({len(warnings)})", "", *_group(warnings, links, budget)]
    hidden = len(findings) - (MAX_FINDINGS_SHOWN - max(budget[0], 0))
    if hidden > 0:
        lines += [f"…and {hidden} more (every finding is in the job log).", ""]
    return lines


def similar_section(document: ReportDocument, links: Links) -> list[str]:
    """For each note the curator flags no replacement or duplicate of: its most alike
    active notes, asked about (`lore.curator.similar.asks_replacement`)."""
    lines: list[str] = []
    for path, similar in document.similar.items():
        if not similar or not asks_replacement(document.findings, path):
            continue
        lines += [f"**Does {md_escape(path, 200)} replace one of these?**", ""]
        for note_id, title, score in similar:
            target = links.note(note_id)
            shown = code_span(note_id)
            named = f"[{shown}]({target})" if target else shown
            lines.append(f"- {named} — {md_escape(title, 200)} ({score:.0%} alike)")
        lines += ["", "If it does, list it in `supersedes:`.", ""]
    return lines


def to_markdown(
    report: CurateResult | ReportDocument,
    *,
    previews: bool = True,
    links: Links | None = None,
) -> str:
    """A PR comment: the banner, the verdict, the findings by file, what an agent will see."""
    document = _as_document(report)
    links = links or Links()
    if document.errors:
        head = f"### ❌ {summary_line(document)}"
    elif document.warnings:
        head = f"### ⚠️ {summary_line(document)}"
    else:
        head = f"### ✅ {summary_line(document)}"
    parts = [MARKER, *_banner(document.findings), head, ""]
    if document.findings:
        parts += _findings(document.findings, links)
    parts += similar_section(document, links)
    if document.model_review is not None:
        parts += [f"**Model review:** {md_escape(document.model_review, 1200)}", ""]
    used = sum(len(part) + 1 for part in parts)
    if previews:
        for path, full in document.previews.items():
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
