"""Read a note file: frontmatter + markdown body -> `Note`, or problems that say how to fix it.

`inspect_note` returns every problem it finds (the curator reports them all);
`parse_note` returns the note or raises `NoteError` (the index skips such files).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from lore.errors import NoteError, Problem
from lore.note.ids import is_safe_name, is_valid_id
from lore.note.model import (
    CONFIDENCE_LEVELS,
    FIELD_ORDER,
    LIST_FIELDS,
    REQUIRED_FIELDS,
    Note,
)
from lore.sanitize import sanitize_field
from lore.yamlio import YamlProblem, load_frontmatter

MAX_NOTE_BYTES = 64 * 1024
MAX_FRONTMATTER_BYTES = 8 * 1024
_FENCE = re.compile(r"^---[ \t]*$")
_END_FENCE = re.compile(r"^(---|\.\.\.)[ \t]*$")
_KEY_LINE = re.compile(r"^([A-Za-z_][A-Za-z0-9_-]*)[ \t]*:")
_DATE_PREFIX = re.compile(r"^(\d{4}-\d{2}-\d{2})(?:$|[T ][0-9:.+\-Z ]*$)")


@dataclass
class NoteReport:
    """What reading one note file produced: the note (when usable) and every problem."""

    path: str
    note: Note | None
    problems: list[Problem] = field(default_factory=list)
    frontmatter: dict[str, Any] | None = None
    key_lines: dict[str, int] = field(default_factory=dict)
    body_line: int = 1  # the 1-based file line the body starts on
    text: str | None = None  # the decoded, LF-normalised file text

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == "error"]


def note_id_from_path(path: str) -> str:
    name = path.rsplit("/", 1)[-1]
    return name[:-3] if name.endswith(".md") else name


def decode_note(raw: bytes, path: str) -> tuple[str | None, Problem | None]:
    """UTF-8 (with or without a BOM) to text with LF line endings."""
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        return None, Problem(
            "frontmatter/encoding",
            f"the file is not valid UTF-8 (byte 0x{raw[exc.start]:02x} at offset {exc.start})",
            path=path,
            line=line,
            fix="Save it as UTF-8.",
        )
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text, None


def split_frontmatter(text: str, path: str) -> tuple[str, str, int] | Problem:
    """Return (yaml text, body, body start line) or the problem with the fences."""
    lines = text.split("\n")
    if not lines or not _FENCE.match(lines[0]):
        return Problem(
            "frontmatter/missing",
            "the note does not start with a '---' frontmatter block",
            path=path,
            line=1,
            fix="Start the file with '---', the YAML fields, then '---'.",
        )
    for index in range(1, len(lines)):
        if _END_FENCE.match(lines[index]):
            yaml_text = "\n".join(lines[1:index]) + "\n"
            body = "\n".join(lines[index + 1 :])
            return yaml_text, body, index + 2
    return Problem(
        "frontmatter/unterminated",
        "the frontmatter block is never closed",
        path=path,
        line=1,
        fix="Add a line with '---' after the last field.",
    )


def normalize_body(body: str) -> str:
    stripped = body.strip("\n")
    return stripped + "\n" if stripped.strip() else ""


def normalize_date(value: str) -> str | None:
    """An ISO date (or a datetime, cut to its date) as YYYY-MM-DD; None if not a date."""
    match = _DATE_PREFIX.match(value.strip())
    if not match:
        return None
    try:
        return date.fromisoformat(match[1]).isoformat()
    except ValueError:
        return None


def inspect_note(raw: bytes, path: str) -> NoteReport:
    """Read a note and report every problem; `report.note` is None when it is unusable."""
    report = NoteReport(path=path, note=None)
    if len(raw) > MAX_NOTE_BYTES:
        report.problems.append(
            Problem(
                "frontmatter/note-too-large",
                f"the note is {len(raw):,} bytes, over the {MAX_NOTE_BYTES:,}-byte limit",
                path=path,
                fix="Split it into smaller notes; short notes are recalled better.",
            )
        )
        return report
    text, problem = decode_note(raw, path)
    if problem or text is None:
        report.problems.append(problem)  # type: ignore[arg-type]
        return report
    report.text = text
    split = split_frontmatter(text, path)
    if isinstance(split, Problem):
        report.problems.append(split)
        return report
    yaml_text, body, body_line = split
    report.body_line = body_line
    if len(yaml_text.encode()) > MAX_FRONTMATTER_BYTES:
        report.problems.append(
            Problem(
                "frontmatter/too-large",
                f"the frontmatter is over the {MAX_FRONTMATTER_BYTES:,}-byte limit",
                path=path,
                line=1,
                fix="Keep only the documented fields; put prose in the body.",
            )
        )
        return report
    try:
        data = load_frontmatter(yaml_text)
    except YamlProblem as exc:
        report.problems.append(
            Problem(
                f"frontmatter/{exc.code}",
                exc.message,
                path=path,
                line=exc.line + 1 if exc.line else 1,
                fix=exc.fix,
            )
        )
        return report
    if not isinstance(data, dict):
        report.problems.append(
            Problem(
                "frontmatter/not-a-mapping",
                "the frontmatter is not a set of 'key: value' fields",
                path=path,
                line=2,
                fix="Write one 'field: value' per line.",
            )
        )
        return report
    report.frontmatter = data
    for number, line in enumerate(yaml_text.split("\n"), start=2):
        key_match = _KEY_LINE.match(line)
        if key_match and key_match[1] not in report.key_lines:
            report.key_lines[key_match[1]] = number
    report.note = _build_note(data, normalize_body(body), path, report)
    return report


def _as_text(value: Any) -> str | None:
    if isinstance(value, str):
        return value.strip()
    return None


def _build_note(data: dict[Any, Any], body: str, path: str, report: NoteReport) -> Note | None:
    lines = report.key_lines
    values: dict[str, Any] = {}
    extra: dict[str, Any] = {}

    def problem(code: str, key: str, message: str, fix: str, severity: str = "error") -> None:
        report.problems.append(
            Problem(code, message, path=path, line=lines.get(key, 2), fix=fix, severity=severity)
        )

    for key, value in data.items():
        key_text = str(key)
        if key_text not in FIELD_ORDER:
            extra[key_text] = value
            problem(
                "frontmatter/unknown-field",
                key_text,
                f"'{key_text}' is not a note field",
                "Remove it, or check the spelling against the note format.",
                severity="warning",
            )
            continue
        if key_text in LIST_FIELDS:
            items = value if isinstance(value, list) else [value]
            if value is None or (isinstance(value, str) and not value.strip()):
                items = []
            if not all(isinstance(item, str) for item in items):
                problem(
                    "frontmatter/wrong-type",
                    key_text,
                    f"'{key_text}' must be a list of plain values",
                    f"Write it as {key_text}: [a, b].",
                )
                continue
            values[key_text] = tuple(item.strip() for item in items if item.strip())
        else:
            if value is None:
                continue
            text = _as_text(value)
            if text is None:
                problem(
                    "frontmatter/wrong-type",
                    key_text,
                    f"'{key_text}' must be a single value, not a list or a mapping",
                    f"Write it as {key_text}: value.",
                )
                continue
            if not text:
                continue
            values[key_text] = text

    for key in REQUIRED_FIELDS:
        if not values.get(key) and not (key in data and data[key] not in (None, "")):
            problem(
                "frontmatter/missing-field",
                key,
                f"the required field '{key}' is missing or empty",
                f"Add '{key}:' to the frontmatter.",
            )

    title = values.get("title")
    if title is not None and "\n" in title:
        problem(
            "frontmatter/wrong-type",
            "title",
            "the title spans several lines",
            "Write the title on one line.",
        )
    confidence = values.get("confidence")
    if confidence is not None:
        lowered = confidence.lower()
        if lowered not in CONFIDENCE_LEVELS:
            problem(
                "frontmatter/invalid-confidence",
                "confidence",
                f"confidence '{confidence}' is not one of high, medium, low",
                "Use high, medium or low.",
            )
        else:
            values["confidence"] = lowered
    for key in ("date", "expires"):
        if key in values:
            normal = normalize_date(values[key])
            if normal is None:
                problem(
                    "frontmatter/invalid-date",
                    key,
                    f"'{key}' is '{values[key]}', which is not a date",
                    "Write it as YYYY-MM-DD, e.g. 2026-11-02.",
                )
            else:
                values[key] = normal
    if "tags" in values:
        values["tags"] = tuple(tag.lower() for tag in values["tags"])
    for key in ("supersedes", "depends_on"):
        for target in values.get(key, ()):
            if not is_valid_id(target):
                problem(
                    "frontmatter/invalid-reference",
                    key,
                    f"'{target}' in '{key}' is not a note id",
                    "Use the id of a note: the file name without .md.",
                )

    if any(p.severity == "error" for p in report.problems):
        return None
    return Note(
        id=note_id_from_path(path),
        path=path,
        body=body,
        extra=extra,
        **values,
    )


def parse_note(raw: bytes, path: str) -> Note:
    """Read a note or raise `NoteError` naming the file, the line and the fix.

    Stricter than `inspect_note` in one way: a file whose name cannot be an id (see
    `is_safe_name`) is refused, so it is never indexed or recalled under a strange id.
    """
    name = note_id_from_path(path)
    if not is_safe_name(name):
        raise NoteError(
            [
                Problem(
                    "filename/invalid-id",
                    f"the file name '{sanitize_field(name, 80)}' cannot be a note id",
                    path=sanitize_field(path, 200),
                    fix="Rename it to {scope}--{topic}--{YYYY-MM-DD}.md "
                    "(lower-case letters, digits and hyphens).",
                )
            ]
        )
    report = inspect_note(raw, path)
    if report.note is None:
        raise NoteError(report.errors or report.problems)
    return report.note
