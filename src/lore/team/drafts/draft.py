"""A draft note for `lore remember`: from flags, a file, JSON on stdin, or an editor template.

Every input becomes a `NoteInput`, then a `Note` with the date, the author and an id
`{scope}--{topic}--{date}`, rendered the way lore writes every note. The JSON an agent
sends is checked strictly (unknown keys and wrong types are errors naming the key),
so a typo cannot silently drop a field. Nothing here touches git: choosing an id that
is unique in the vault, and proposing the note, is `lore.team.proposals.note`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from datetime import date
from typing import Any

from lore import clock
from lore.errors import NoteError, UsageError
from lore.note.ids import ID_PATTERN, is_valid_id, make_id, slugify, topic_slug
from lore.note.model import CONFIDENCE_LEVELS, Note
from lore.note.parse import inspect_note, normalize_body, normalize_date

JSON_SCHEMA_VERSION = 1
SECTIONS = (("what", "What"), ("why", "Why"), ("how", "How"), ("gotchas", "Gotchas"))
LIST_KEYS = ("tags", "services", "files_touched", "supersedes", "depends_on", "related")
TEXT_KEYS = (
    "title",
    "type",
    "confidence",
    "expires",
    "source",
    "author",
    "scope",
    "id",
    "agent",
    "body",
    *(key for key, _ in SECTIONS),
)
JSON_KEYS = frozenset({"version", "repo", *LIST_KEYS, *TEXT_KEYS})
DEFAULT_CONFIDENCE = "medium"


@dataclass
class NoteInput:
    """What the user or agent said about the note; everything but the title is optional here."""

    title: str = ""
    type: str = ""
    tags: list[str] = field(default_factory=list)
    confidence: str = ""
    repo: list[str] = field(default_factory=list)
    services: list[str] = field(default_factory=list)
    files_touched: list[str] = field(default_factory=list)
    supersedes: list[str] = field(default_factory=list)
    depends_on: list[str] = field(default_factory=list)
    related: list[str] = field(default_factory=list)
    expires: str = ""
    source: str = ""
    author: str = ""
    what: str = ""
    why: str = ""
    how: str = ""
    gotchas: str = ""
    body: str = ""  # a whole markdown body instead of the sections
    scope: str = ""  # the first part of the id
    id: str = ""  # a whole id, instead of one made from scope, title and date
    agent: str = ""  # the agent that proposes it (adds the `agent-authored` label)
    note_date: str = ""  # from a file: keep the date it has

    def is_empty(self) -> bool:
        return not (self.title or self.what or self.body)


def split_list(values: Iterable[str]) -> list[str]:
    """Flags may repeat or hold comma-separated lists: `--tag a,b --tag c`."""
    items: list[str] = []
    for value in values:
        items += [part.strip() for part in value.split(",") if part.strip()]
    return items


def input_from_json(text: str, source: str = "stdin") -> NoteInput:
    """Parse the JSON an agent sends (docs/cli.md, `lore remember`); errors name the key."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise UsageError(
            f"{source}: not valid JSON ({exc}).", fix="Send one JSON object."
        ) from None
    if not isinstance(data, dict):
        raise UsageError(f"{source}: the JSON must be an object with the note's fields.")
    unknown = sorted(set(data) - JSON_KEYS)
    if unknown:
        raise UsageError(
            f"{source}: unknown key '{unknown[0]}' in the note JSON.",
            fix="The keys are: " + ", ".join(sorted(JSON_KEYS)) + ".",
        )
    version = data.get("version", JSON_SCHEMA_VERSION)
    if version != JSON_SCHEMA_VERSION:
        raise UsageError(f"{source}: 'version' is {version!r}; this lore reads version 1.")
    values: dict[str, Any] = {}
    for key in TEXT_KEYS:
        value = data.get(key)
        if value is None:
            continue
        if not isinstance(value, str):
            raise UsageError(f"{source}: '{key}' must be a string.")
        values[key] = value.strip() if key not in ("body", *dict(SECTIONS)) else value
    for key in (*LIST_KEYS, "repo"):
        value = data.get(key)
        if value is None:
            continue
        if isinstance(value, str) and key == "repo":  # one repository may be a plain string
            value = [value]
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            raise UsageError(
                f"{source}: '{key}' must be a list of strings.",
                fix=f'Write it as "{key}": ["…"].',
            )
        values[key] = [item.strip() for item in value if item.strip()]
    return NoteInput(**values)


def _with_date(raw: bytes, today: date | None = None) -> bytes:
    """The file with `date:` set to today when its frontmatter has none (or an empty one)."""
    text = raw.decode("utf-8-sig", "surrogateescape").replace("\r\n", "\n")
    lines = text.split("\n")
    if not lines or lines[0].strip() != "---" or "---" not in [x.strip() for x in lines[1:]]:
        return raw
    end = 1 + [x.strip() for x in lines[1:]].index("---")
    day = f"date: {(today or clock.today()).isoformat()}"
    keys = [line.split(":", 1)[0].strip() for line in lines[1:end]]
    if "date" not in keys:
        lines.insert(end, day)
    else:
        index = 1 + keys.index("date")
        if lines[index].split(":", 1)[1].strip():
            return raw
        lines[index] = day
    return "\n".join(lines).encode("utf-8", "surrogateescape")


def input_from_note_file(raw: bytes, path: str) -> NoteInput:
    """A note file written by hand (or in the editor): its fields and body, as they are.

    A missing `date:` is today's date, as for the other inputs.
    """
    report = inspect_note(_with_date(raw), f"notes/{path.rsplit('/', 1)[-1]}")
    if report.note is None:
        problems = [p for p in report.problems if p.severity == "error"] or report.problems
        for problem in problems:
            problem.path = path
        raise NoteError(problems)
    note = report.note
    stem = path.rsplit("/", 1)[-1].removesuffix(".md")
    return NoteInput(
        title=note.title,
        type=note.type,
        tags=list(note.tags),
        confidence=note.confidence,
        repo=list(note.repo),
        services=list(note.services),
        files_touched=list(note.files_touched),
        supersedes=list(note.supersedes),
        depends_on=list(note.depends_on),
        expires=note.expires or "",
        source=note.source or "",
        author=note.author or "",
        body=note.body,
        id=stem if is_valid_id(stem) else "",
        note_date=note.date,
    )


def editor_template(types: Iterable[str], today: date | None = None) -> str:
    """The text `lore remember` opens in `$EDITOR` when no other input is given."""
    day = (today or clock.today()).isoformat()
    kinds = ", ".join(types) or "decision, gotcha, convention, runbook, incident, reference, howto"
    return (
        "---\n"
        "# Write the note, save and close the editor. An empty title cancels.\n"
        "# Read _conventions.md; pick the type and the tags from _taxonomy.md.\n"
        "title: \n"
        f"# type: one of {kinds}\n"
        "type: \n"
        "# tags: one or more dimension/name tags, e.g. [tool/postgres, service/billing]\n"
        "tags: []\n"
        "confidence: medium\n"
        f"date: {day}\n"
        "# Optional: repo, services, files_touched, supersedes, depends_on, expires, source\n"
        "---\n"
        "## What\n"
        "\n"
        "\n"
        "## Why\n"
        "\n"
    )


def _section_body(data: NoteInput) -> str:
    if data.body.strip():
        return normalize_body(data.body)
    parts: list[str] = []
    for key, heading in SECTIONS:
        text = getattr(data, key).strip()
        if text:
            parts.append(f"## {heading}\n{text}\n")
    if data.related:
        links = "\n".join(f"[[{target}]]" for target in data.related)
        parts.append(f"## Related\n{links}\n")
    return "\n".join(parts)


def default_scope(data: NoteInput) -> str:
    """The id's first part: `--scope`, else the repository, a service, or the first tag's name."""
    for candidate in (data.scope, *data.repo[:1], *data.services[:1]):
        if slugify(candidate, 3):
            return candidate
    for tag in data.tags:
        name = tag.rsplit("/", 1)[-1]
        if slugify(name, 3):
            return name
    return "org"


def _without_secrets(text: str) -> str:
    from lore.sanitize.secret_scan import redact, scan_secrets

    return redact(text, {match.value for match in scan_secrets(text)})


def build_note(data: NoteInput, *, author: str | None, today: date | None = None) -> Note:
    """The note this input describes, with its id (not yet checked for uniqueness)."""
    if not data.title.strip():
        raise UsageError(
            "The note has no title.",
            fix="Give one with --title (or 'title' in the JSON); it states the fact itself.",
        )
    body = _section_body(data)
    if not body.strip():
        raise UsageError(
            "The note has no body.",
            fix="Say what is true with --what (the first line stands alone as a summary).",
        )
    day = data.note_date or (today or clock.today()).isoformat()
    expires = data.expires
    if expires:
        expires = normalize_date(expires) or expires
    note_id = data.id or ""
    if note_id and not is_valid_id(note_id):
        raise UsageError(
            f"'{note_id}' is not a note id.",
            fix="An id is {scope}--{topic}--{YYYY-MM-DD} in lower-case letters, digits and "
            "hyphens; leave it out and lore makes one from the title.",
        )
    if not note_id:
        # The id names a branch, a worktree and a file on disk, and is echoed in every
        # output: a secret in the title or scope must not reach it (the scan refuses the
        # note later; the id it is refused under carries only the mask).
        scope = _without_secrets(default_scope(data))
        topic = topic_slug(_without_secrets(data.title), data.type)
        prefix = slugify(scope, 3) + "-"
        if topic.startswith(prefix) and len(topic) > len(prefix):
            topic = topic[len(prefix) :]  # `alembic--migrations-…`, not `alembic--alembic-…`
        try:
            note_id = make_id(scope, topic, date.fromisoformat(day))
        except ValueError:
            raise UsageError(
                "No id can be made from this title.",
                fix="Use a title with some letters or digits, or give --id.",
            ) from None
    confidence = (data.confidence or DEFAULT_CONFIDENCE).lower()
    if confidence not in CONFIDENCE_LEVELS:
        raise UsageError(
            f"confidence '{data.confidence}' is not one of high, medium, low.",
            fix="Use --confidence high, medium or low.",
        )
    return Note(
        id=note_id,
        title=" ".join(data.title.split()),
        type=data.type.strip().lower(),
        tags=tuple(tag.lower() for tag in data.tags),
        confidence=confidence,
        date=day,
        body=body,
        repo=tuple(data.repo),
        services=tuple(data.services),
        files_touched=tuple(data.files_touched),
        author=data.author or author or None,
        supersedes=tuple(data.supersedes),
        depends_on=tuple(data.depends_on),
        expires=expires or None,
        source=data.source or None,
        path=f"notes/{note_id}.md",
    )


def with_unique_id(note: Note, taken: Callable[[str], bool], *, keep: bool = False) -> Note:
    """The note under an id nobody uses yet: `topic`, then `topic-2`, `topic-3`, ...

    With `keep` (an id the user chose) a taken id is an error instead.
    """
    if not taken(note.id):
        return note
    if keep:
        raise UsageError(
            f"The id {note.id} is already used in this vault or by an open proposal.",
            fix="Choose another id, or leave --id out and lore makes a unique one.",
        )
    match = ID_PATTERN.match(note.id)
    if match is None:  # pragma: no cover - ids are valid by construction
        raise UsageError(f"'{note.id}' is not a note id.")
    topic = match["topic"]
    for number in range(2, 1000):
        candidate = f"{match['scope']}--{topic}-{number}--{match['date']}"
        if not taken(candidate):
            return replace(note, id=candidate, path=f"notes/{candidate}.md")
    raise UsageError(f"Too many notes named like {note.id}.", fix="Give the note a distinct title.")
