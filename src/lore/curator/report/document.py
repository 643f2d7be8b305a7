"""The curator's report as a file: what one review found, written as JSON and read back.

The trusted curator workflow splits its work in two jobs. The one that reviews the pull
request writes this document (`lore curate --json-report FILE`); the one that may write
to the pull request reads it back (`lore curate --from-findings FILE`) and renders the
comment from it, so the comment is never markdown that a job reading pull-request data
produced. Every text in it comes from notes someone proposed, so reading it back is a
validation, not a load: the shape is `report.schema.json` beside this module (tests
check lore's output against it with check-jsonschema), each field is capped, a rule id
must look like one, and anything else makes the file "not a curator report" — one
sentence naming the file and what is wrong, never a traceback.

The document is the `--format json` object (DESIGN §3: `version`, `findings`,
`summary`) plus `previews`, each note as an agent will see it, and `similar`, the notes
most like each note under review (id, title and likeness only), for the comment's "does
this replace one of these?".
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lore.curator.finding import SEVERITIES, Finding, count
from lore.errors import UsageError
from lore.sanitize import sanitize_field
from lore.versioned import JSON_VERSION, versioned

if TYPE_CHECKING:
    from lore.curator.run import CurateResult

KIND = "lore-curator-report"
MAX_FILE_BYTES = 8 * 1024 * 1024
MAX_FINDINGS = 5000
MAX_PREVIEWS = 500
MAX_RULE_CHARS = 80
MAX_PATH_CHARS = 500
MAX_MESSAGE_CHARS = 4000
MAX_PREVIEW_CHARS = 20000
MAX_LINE = 10_000_000
MAX_SIMILAR = 10  # notes listed per note under review
MAX_TITLE_CHARS = 200
NOTE_ID = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*--[a-z0-9]+(?:-[a-z0-9]+)*--\d{4}-\d\d-\d\d$")
RULE_ID = re.compile(r"^[a-z][a-z0-9-]*/[a-z0-9][a-z0-9-]*$")


@dataclass
class ReportDocument:
    """What one review found: the findings, how many files it checked, the previews."""

    findings: list[Finding]
    checked: int
    previews: dict[str, str] = field(default_factory=dict)  # path -> what an agent sees
    # path -> the notes most like it: (id, title, whole-note likeness 0..1)
    similar: dict[str, list[tuple[str, str, float]]] = field(default_factory=dict)

    @property
    def errors(self) -> int:
        return count(self.findings)[0]

    @property
    def warnings(self) -> int:
        return count(self.findings)[1]

    @classmethod
    def from_result(cls, result: CurateResult) -> ReportDocument:
        similar = {
            path: [(note.id, note.title, note.score) for note in notes]
            for path, notes in result.similar.items()
            if notes
        }
        return cls(list(result.findings), len(result.checked), dict(result.previews), similar)

    def to_json(self) -> dict[str, Any]:
        previews = [
            {"path": sanitize_field(path, MAX_PATH_CHARS), "text": _cut(text)}
            for path, text in list(self.previews.items())[:MAX_PREVIEWS]
        ]
        kept = self.findings[:MAX_FINDINGS]  # the counts are of what the file holds
        errors, warnings = count(kept)
        return versioned(
            {
                "kind": KIND,
                "findings": [_capped(finding) for finding in kept],
                "summary": {"errors": errors, "warnings": warnings, "checked": self.checked},
                "previews": previews,
                "similar": [
                    {
                        "path": sanitize_field(path, MAX_PATH_CHARS),
                        "notes": [
                            {
                                "id": note_id,
                                "title": sanitize_field(title, MAX_TITLE_CHARS),
                                "score": round(min(max(score, 0.0), 1.0), 2),
                            }
                            for note_id, title, score in notes[:MAX_SIMILAR]
                            if NOTE_ID.match(note_id)
                        ],
                    }
                    for path, notes in list(self.similar.items())[:MAX_PREVIEWS]
                ],
            }
        )


def summary_line(report: CurateResult | ReportDocument) -> str:
    """`lore curator: 1 error, 2 warnings in 3 files.` (or no problems)."""
    files = report.checked if isinstance(report.checked, int) else len(report.checked)
    noun = "file" if files == 1 else "files"
    if not report.findings:
        return f"lore curator: no problems in {files} {noun}."
    errors, warnings = report.errors, report.warnings
    return (
        f"lore curator: {errors} error{'s' * (errors != 1)}, "
        f"{warnings} warning{'s' * (warnings != 1)} in {files} {noun}."
    )


def _capped(finding: Finding) -> dict[str, Any]:
    """The finding as DESIGN §3 prints it, each text cut to what a reader accepts."""
    data = finding.to_json()
    data["rule"] = finding.rule if RULE_ID.match(finding.rule) else "curator/bad-rule-id"
    data["path"] = sanitize_field(finding.path, MAX_PATH_CHARS)
    data["message"] = sanitize_field(finding.message, MAX_MESSAGE_CHARS)
    if finding.suggestion is not None:
        data["suggestion"] = sanitize_field(finding.suggestion, MAX_MESSAGE_CHARS)
    if finding.line is not None and not 1 <= finding.line <= MAX_LINE:
        data["line"] = None
    return data


def _cut(text: str) -> str:
    if len(text) <= MAX_PREVIEW_CHARS:
        return text
    return text[: MAX_PREVIEW_CHARS - 8] + "\n[… cut]"


# ---- reading it back ----


class _Invalid(Exception):
    """One thing wrong with a report file (the message names where)."""


def _text(value: object, where: str, limit: int, *, optional: bool = False) -> str | None:
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise _Invalid(f"{where} is not a string")
    if len(value) > limit:
        raise _Invalid(f"{where} is longer than {limit} characters")
    return value


def _finding(value: object, where: str) -> Finding:
    if not isinstance(value, dict):
        raise _Invalid(f"{where} is not an object")
    rule = _text(value.get("rule"), f"{where}.rule", MAX_RULE_CHARS) or ""
    if not RULE_ID.match(rule):
        raise _Invalid(f"{where}.rule is not a rule id (family/name)")
    severity = value.get("severity")
    if severity not in SEVERITIES:
        raise _Invalid(f"{where}.severity is neither 'error' nor 'warning'")
    line = value.get("line")
    if line is not None and (
        isinstance(line, bool) or not isinstance(line, int) or not 1 <= line <= MAX_LINE
    ):
        raise _Invalid(f"{where}.line is not a line number")
    path = _text(value.get("path"), f"{where}.path", MAX_PATH_CHARS) or ""
    message = _text(value.get("message"), f"{where}.message", MAX_MESSAGE_CHARS) or ""
    suggestion = _text(
        value.get("suggestion"), f"{where}.suggestion", MAX_MESSAGE_CHARS, optional=True
    )
    # Sanitized again: the file is data from another job, whatever wrote it.
    return Finding(
        rule,
        str(severity),
        sanitize_field(path),
        line,
        sanitize_field(message),
        None if suggestion is None else sanitize_field(suggestion),
    )


def _previews(value: object) -> dict[str, str]:
    if not isinstance(value, list) or len(value) > MAX_PREVIEWS:
        raise _Invalid(f"previews is not a list of at most {MAX_PREVIEWS} items")
    previews: dict[str, str] = {}
    for index, item in enumerate(value):
        where = f"previews[{index}]"
        if not isinstance(item, dict):
            raise _Invalid(f"{where} is not an object")
        path = _text(item.get("path"), f"{where}.path", MAX_PATH_CHARS) or ""
        previews[sanitize_field(path)] = (
            _text(item.get("text"), f"{where}.text", MAX_PREVIEW_CHARS) or ""
        )
    return previews


def _similar(value: object) -> dict[str, list[tuple[str, str, float]]]:
    if not isinstance(value, list) or len(value) > MAX_PREVIEWS:
        raise _Invalid(f"similar is not a list of at most {MAX_PREVIEWS} items")
    similar: dict[str, list[tuple[str, str, float]]] = {}
    for index, item in enumerate(value):
        where = f"similar[{index}]"
        if not isinstance(item, dict):
            raise _Invalid(f"{where} is not an object")
        path = _text(item.get("path"), f"{where}.path", MAX_PATH_CHARS) or ""
        notes = item.get("notes")
        if not isinstance(notes, list) or len(notes) > MAX_SIMILAR:
            raise _Invalid(f"{where}.notes is not a list of at most {MAX_SIMILAR} items")
        rows = []
        for number, note in enumerate(notes):
            at = f"{where}.notes[{number}]"
            if not isinstance(note, dict):
                raise _Invalid(f"{at} is not an object")
            note_id = _text(note.get("id"), f"{at}.id", MAX_PATH_CHARS) or ""
            if not NOTE_ID.match(note_id):
                raise _Invalid(f"{at}.id is not a note id")
            title = _text(note.get("title"), f"{at}.title", MAX_TITLE_CHARS) or ""
            score = note.get("score")
            if isinstance(score, bool) or not isinstance(score, (int, float)):
                raise _Invalid(f"{at}.score is not a number")
            if not 0 <= score <= 1:
                raise _Invalid(f"{at}.score is not between 0 and 1")
            rows.append((note_id, sanitize_field(title), float(score)))
        similar[sanitize_field(path)] = rows
    return similar


def parse_document(data: object) -> ReportDocument:
    """A report document from parsed JSON; raises `_Invalid` naming what is wrong."""
    if not isinstance(data, dict):
        raise _Invalid("the top level is not an object")
    if data.get("version") != JSON_VERSION:
        raise _Invalid(f"version is not {JSON_VERSION}")
    if data.get("kind") != KIND:
        raise _Invalid(f"kind is not '{KIND}'")
    findings = data.get("findings")
    if not isinstance(findings, list) or len(findings) > MAX_FINDINGS:
        raise _Invalid(f"findings is not a list of at most {MAX_FINDINGS} items")
    parsed = [_finding(item, f"findings[{index}]") for index, item in enumerate(findings)]
    summary = data.get("summary")
    if not isinstance(summary, dict):
        raise _Invalid("summary is not an object")
    checked = summary.get("checked")
    if isinstance(checked, bool) or not isinstance(checked, int) or checked < 0:
        raise _Invalid("summary.checked is not a count")
    errors, warnings = count(parsed)
    if summary.get("errors") != errors or summary.get("warnings") != warnings:
        raise _Invalid("summary's counts do not match its findings")
    return ReportDocument(
        parsed, checked, _previews(data.get("previews", [])), _similar(data.get("similar", []))
    )


def load_document(path: Path) -> ReportDocument:
    """Read and validate a report file written by `lore curate --json-report`."""
    fix = "Pass the file `lore curate --json-report FILE` wrote, unchanged."
    try:
        with path.open("rb") as handle:
            raw = handle.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise UsageError(
            f"Cannot read the curator report {path}: {exc.strerror or exc}.", fix=fix
        ) from None
    if len(raw) > MAX_FILE_BYTES:
        raise UsageError(
            f"{path} is not a curator report: it is larger than {MAX_FILE_BYTES} bytes.", fix=fix
        )
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise UsageError(
            f"{path} is not a curator report: it is not JSON ({exc}).", fix=fix
        ) from None
    except RecursionError:
        raise UsageError(
            f"{path} is not a curator report: it is nested too deeply.", fix=fix
        ) from None
    try:
        return parse_document(data)
    except _Invalid as exc:
        raise UsageError(f"{path} is not a curator report: {exc}.", fix=fix) from None


__all__ = ["KIND", "ReportDocument", "load_document", "parse_document", "summary_line"]
