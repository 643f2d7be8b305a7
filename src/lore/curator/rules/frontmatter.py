"""`frontmatter/`: the YAML block — present, safe, complete, well-typed, within limits.

Reading and validating the YAML is `lore.note.parse.inspect_note`'s job (one
validator for the index and the curator); this family reports its problems as
findings and adds the checks only a reviewer needs (sizes, URLs, handles, dates).
"""

from __future__ import annotations

import re
from typing import Any

from lore.curator.context.model import CuratorContext, NoteView
from lore.curator.finding import ERROR, WARNING, Finding, from_problem
from lore.curator.rules.text import quote
from lore.note.model import is_author

NAME = "frontmatter"
RULES = {
    "frontmatter/missing": "the file does not start with a `---` frontmatter block",
    "frontmatter/unterminated": "the frontmatter block is never closed",
    "frontmatter/encoding": "the file is not UTF-8",
    "frontmatter/note-too-large": "the file is over 64 KiB",
    "frontmatter/too-large": "the frontmatter is over 8 KiB",
    "frontmatter/invalid-yaml": "the frontmatter is not valid YAML",
    "frontmatter/unsafe-yaml": "YAML tags (e.g. !!python/object) or nesting deeper than 8 levels",
    "frontmatter/yaml-alias": "YAML anchors or aliases (&a, *a), the shape of an alias bomb",
    "frontmatter/duplicate-key": "a key appears twice",
    "frontmatter/not-a-mapping": "the frontmatter is not a set of `key: value` fields",
    "frontmatter/missing-field": "a required field (title, type, tags, confidence, date) is "
    "missing, or `tags` lists none (`tags: []`)",
    "frontmatter/wrong-type": "a field has the wrong shape (a list where a value belongs, …)",
    "frontmatter/unknown-field": "a field that is not in the note format (a warning when "
    "`allow_extra_fields = true`)",
    "frontmatter/invalid-confidence": "confidence is not high, medium or low",
    "frontmatter/invalid-date": "date or expires is not a YYYY-MM-DD date",
    "frontmatter/invalid-reference": "supersedes or depends_on holds something that is not a "
    "note id",
    "frontmatter/future-date": "date is after today (warning)",
    "frontmatter/too-many-items": "a list field is longer than makes sense",
    "frontmatter/value-too-long": "a field value is over 500 characters",
    "frontmatter/invalid-source": "source is not an http(s) URL",
    "frontmatter/invalid-author": "author is neither a GitHub handle nor a person's name (warning)",
    "frontmatter/invalid-path": "a files_touched entry is absolute or leaves the repository "
    "(warning)",
}

MAX_VALUE_CHARS = 500
MAX_ITEMS = {
    "tags": 12,
    "repo": 20,
    "services": 20,
    "files_touched": 50,
    "supersedes": 20,
    "depends_on": 20,
}
_SOURCE = re.compile(r"^https?://[^\s/?#]+[^\s]*$", re.IGNORECASE)


def check(context: CuratorContext) -> list[Finding]:
    findings: list[Finding] = []
    for checked in context.files:
        report = checked.report
        if report is None:
            continue
        for problem in report.problems:
            severity = problem.severity
            if problem.code == "frontmatter/unknown-field":
                severity = WARNING if context.settings.allow_extra_fields else ERROR
            findings.append(from_problem(problem, path=checked.display, severity=severity))
        if checked.view is not None and report.frontmatter is not None:
            findings += _field_checks(
                checked.view, checked.display, report.frontmatter, context.today
            )
    return findings


def _field_checks(view: NoteView, path: str, data: dict[str, Any], today: str) -> list[Finding]:
    findings: list[Finding] = []

    def add(rule: str, key: str, message: str, fix: str, severity: str = ERROR) -> None:
        findings.append(Finding(rule, severity, path, view.line_of_key(key), message, fix))

    for key, value in data.items():
        texts = value if isinstance(value, list) else [value]
        longest = max((len(item) for item in texts if isinstance(item, str)), default=0)
        if longest > MAX_VALUE_CHARS and key != "title":
            add(
                "frontmatter/value-too-long",
                str(key),
                f"'{quote(str(key), 40)}' holds a value of {longest} characters "
                f"(the limit is {MAX_VALUE_CHARS})",
                "Keep frontmatter values short; put prose in the body.",
            )
    if "tags" in data and not view.tags and isinstance(data["tags"], list):
        # `tags: []` is valid YAML and parses; the note format asks for one or more.
        add(
            "frontmatter/missing-field",
            "tags",
            "'tags' is empty: a note needs one or more tags",
            "List one or more tags from _taxonomy.md, e.g. tags: [tool/postgres].",
        )
    for key, limit in MAX_ITEMS.items():
        items = getattr(view, key)
        if len(items) > limit:
            add(
                "frontmatter/too-many-items",
                key,
                f"'{key}' lists {len(items)} items (at most {limit})",
                "Keep the ones that matter; a note is about one thing.",
            )
    if view.source and not _SOURCE.match(view.source):
        add(
            "frontmatter/invalid-source",
            "source",
            f"source '{quote(view.source, 60)}' is not an http(s) URL",
            "Link the pull request, issue or incident, e.g. https://github.com/acme/app/pull/1.",
        )
    if view.author and not is_author(view.author):
        add(
            "frontmatter/invalid-author",
            "author",
            f"author '{quote(view.author, 40)}' is neither a GitHub handle nor a name",
            "Use the GitHub user name, e.g. octocat.",
            WARNING,
        )
    for entry in view.files_touched:
        if (
            entry.startswith(("/", "~", "\\"))
            or re.match(r"^[A-Za-z]:[\\/]", entry)
            or ".." in re.split(r"[\\/]", entry)
        ):
            add(
                "frontmatter/invalid-path",
                "files_touched",
                f"files_touched entry '{quote(entry, 60)}' is not a path inside the repository",
                "Write paths relative to the repository root, e.g. src/app/main.py.",
                WARNING,
            )
    if view.date and re.fullmatch(r"\d{4}-\d{2}-\d{2}", view.date) and view.date > today:
        add(
            "frontmatter/future-date",
            "date",
            f"date {view.date} is in the future (today is {today})",
            "Use the day the knowledge was recorded or last verified.",
            WARNING,
        )
    return findings
