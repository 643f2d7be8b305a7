"""The MCP tools as data: names, descriptions, input and output schemas, and the check.

`TOOLS` lists lore's tools in the order clients show them. Each input schema says what
a client may send — types, bounds (`minimum`/`maximum`, `maxLength`, `maxItems`),
enums, patterns, and `additionalProperties: false` — and `check_arguments` holds every
call to the same schema before any file is read, answering a bad call with one sentence
that names the argument and what it takes (never a validator's text, never the value
sent). Each output schema describes the JSON object the tool returns (`structuredContent`),
the same object `lore … --json` prints. The server (`mcp_server`) serves these; nothing
here imports the SDK.
"""

from __future__ import annotations

import re

from lore.note.ids import MAX_ID_LENGTH
from lore.record import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MAX_QUERY_CHARS = 500
MAX_LIMIT = 20
MAX_FILTERS = 10
NAME = r"^[a-z0-9][a-z0-9_.-]{0,79}$"  # a type or a repository, as the taxonomy writes them
REPO = r"^(?:[A-Za-z0-9][A-Za-z0-9._-]{0,99})?$"  # "" means: no repository boost
TAG = r"^[a-z0-9][a-z0-9_.-]*(?:/[a-z0-9][a-z0-9_.-]*)?$"  # dimension/name, or a dimension
NOTE_ID = r"^[a-z0-9]+(?:-[a-z0-9]+)*--[a-z0-9]+(?:-[a-z0-9]+)*--\d{4}-\d\d-\d\d$"


class ArgumentError(ValueError):
    """A call the tool's input schema does not accept; the message is one sentence."""


class Param(Record):
    """One argument: its JSON schema and the phrase that says what it takes."""

    __slots__ = ("hint", "required", "schema")

    def __init__(self, schema: dict[str, Any], hint: str, *, required: bool = False) -> None:
        self.schema = schema
        self.hint = hint  # "a whole number from 1 to 20"
        self.required = required


class ToolSpec(Record):
    """One tool: what clients list, and what lore checks."""

    __slots__ = ("annotations", "description", "name", "output", "params", "title")

    def __init__(
        self,
        name: str,
        title: str,
        description: str,
        params: dict[str, Param],
        *,
        output: dict[str, Any],
        annotations: dict[str, bool],
    ) -> None:
        self.name = name
        self.title = title
        self.description = description
        self.params = params
        self.output = output
        self.annotations = annotations

    def input_schema(self) -> dict[str, Any]:
        schema: dict[str, Any] = {
            "type": "object",
            "properties": {name: dict(param.schema) for name, param in self.params.items()},
            "additionalProperties": False,
        }
        required = [name for name, param in self.params.items() if param.required]
        if required:
            schema["required"] = required
        return schema


def _text(description: str, *, most: int, least: int = 0, pattern: str = "") -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "string", "description": description, "maxLength": most}
    if least:
        schema["minLength"] = least
    if pattern:
        schema["pattern"] = pattern
    return schema


def _list(description: str, item: dict[str, Any], *, most: int, least: int = 0) -> dict[str, Any]:
    schema: dict[str, Any] = {
        "type": "array",
        "description": description,
        "items": item,
        "maxItems": most,
        "uniqueItems": True,
    }
    if least:
        schema["minItems"] = least
    return schema


_FINDING = {
    "type": "object",
    "required": ["rule", "severity", "path", "line", "message"],
    "properties": {
        "rule": {"type": "string"},
        "severity": {"enum": ["error", "warning"]},
        "path": {"type": "string"},
        "line": {"type": ["integer", "null"]},
        "message": {"type": "string"},
        "suggestion": {"type": ["string", "null"]},
    },
}
_VAULT = {
    "type": "object",
    "required": ["name", "path", "commit"],
    "properties": {
        "name": {"type": "string"},
        "path": {"type": "string"},
        "commit": {"type": ["string", "null"]},
    },
}
_HIT = {
    "type": "object",
    "required": ["id", "title", "path", "type", "tags", "confidence", "date", "score", "snippet"],
    "properties": {
        "id": {"type": "string"},
        "title": {"type": "string"},
        "path": {"type": "string"},
        "type": {"type": "string"},
        "repo": {"type": ["string", "array", "null"], "items": {"type": "string"}},
        "tags": {"type": "array", "items": {"type": "string"}},
        "confidence": {"type": "string"},
        "date": {"type": "string"},
        "author": {"type": ["string", "null"]},
        "score": {"type": "number"},
        "snippet": {"type": "string"},
        "vault": {"type": "string"},
        "active": {"type": "boolean"},
        "inactive_reason": {"type": ["string", "null"]},
    },
}
_STRINGS = {"type": "array", "items": {"type": "string"}}
NOTICE_SCHEMA = {"type": "string", "description": "How to treat what the notes say."}

RECALL_OUTPUT = {
    "type": "object",
    "required": ["version", "query", "engine", "repo", "vault", "vaults", "results", "notice"],
    "properties": {
        "version": {"const": 1},
        "query": {"type": "string"},
        "engine": {"enum": ["fts5", "scan"]},
        "repo": {"type": ["string", "null"]},
        "vault": _VAULT,
        "vaults": {"type": "array", "items": _VAULT},
        "results": {"type": "array", "items": _HIT},
        "notices": _STRINGS,
        "notice": NOTICE_SCHEMA,
    },
}
NOTE_OUTPUT = {
    "type": "object",
    "required": [
        *("version", "id", "path", "title", "type", "tags", "confidence", "date"),
        *("active", "vault", "body", "notice"),
    ],
    "properties": {
        "version": {"const": 1},
        "id": {"type": "string"},
        "path": {"type": "string"},
        "title": {"type": "string"},
        "type": {"type": "string"},
        "tags": _STRINGS,
        "confidence": {"type": "string"},
        "date": {"type": "string"},
        "repo": _STRINGS,
        "services": _STRINGS,
        "files_touched": _STRINGS,
        "author": {"type": ["string", "null"]},
        "supersedes": _STRINGS,
        "depends_on": _STRINGS,
        "expires": {"type": ["string", "null"]},
        "source": {"type": ["string", "null"]},
        "active": {"type": "boolean"},
        "inactive_reason": {"type": ["string", "null"]},
        "vault": {
            "type": "object",
            "properties": {
                "name": {"type": ["string", "null"]},
                "commit": {"type": ["string", "null"]},
            },
        },
        "body": {"type": "string"},
        "notice": NOTICE_SCHEMA,
    },
}
REMEMBER_OUTPUT = {
    "type": "object",
    "required": ["version", "status", "vault"],
    "properties": {
        "version": {"const": 1},
        "status": {
            "enum": ["opened", "pushed", "committed", "blocked", "failed", "drafted", "refused"]
        },
        "file": {"type": "string", "description": "A draft's file in the local inbox."},
        "text": {"type": "string", "description": "A draft's note, as it will be proposed."},
        "id": {"type": "string"},
        "path": {"type": "string"},
        "branch": {"type": ["string", "null"]},
        "pull_request": {"type": ["string", "null"]},
        "next": {"type": ["string", "null", "array"]},
        "notices": _STRINGS,
        "error": {"type": "string", "description": "Why nothing (or not all) was done."},
        "fix": {"type": ["string", "null"], "description": "What to do about it."},
        "findings": {"type": "array", "items": _FINDING},
        "vault": {"type": "string"},
    },
}
PROPOSALS_OUTPUT = {
    "type": "object",
    "required": ["version", "vaults"],
    "properties": {
        "version": {"const": 1},
        "vaults": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["name", "proposals"],
                "properties": {
                    "name": {"type": "string"},
                    "vault": {"type": "string"},
                    "proposals": {"type": "array", "items": {"type": "object"}},
                    "notices": _STRINGS,
                },
            },
        },
    },
}

_ENTRY = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "definition": {"type": "string"},
        "aliases": _STRINGS,
        "dimension": {"type": "string"},
    },
}
TAXONOMY_OUTPUT = {
    "type": "object",
    "required": ["version", "vault", "notice", "types", "repos", "tags", "conventions"],
    "properties": {
        "version": {"const": 1},
        "vault": {"type": "object"},
        "notice": NOTICE_SCHEMA,
        "found": {"type": "boolean"},
        "types": {"type": "array", "items": _ENTRY},
        "repos": {"type": "array", "items": _ENTRY},
        "dimensions": _STRINGS,
        "tags": {"type": "array", "items": _ENTRY},
        "conventions": {},
    },
}

READ_ONLY = {
    "readOnlyHint": True,
    "destructiveHint": False,
    "idempotentHint": True,
    "openWorldHint": False,
}
PROPOSING = {
    "readOnlyHint": False,
    "destructiveHint": False,
    "idempotentHint": False,
    "openWorldHint": True,
}

TYPE_FILTER = _list(
    'Only notes of these types (from the vault\'s taxonomy), e.g. ["gotcha"].',
    {"type": "string", "pattern": NAME, "maxLength": 80},
    most=MAX_FILTERS,
)
TAG_FILTER = _list(
    'Only notes with these tags (dimension/name, or a whole dimension), e.g. ["tool/postgres"].',
    {"type": "string", "pattern": TAG, "maxLength": 120},
    most=MAX_FILTERS,
)

TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        "recall",
        "Recall team notes",
        "Find the team's notes that answer a question, best first (BM25 with gentle boosts), "
        "as `lore recall --json` does.\n\nReturns id, title, type, confidence, date, author and "
        "a snippet for each note; read one in full with get_note. Narrow with type, tag or "
        "repo; include_inactive also returns superseded and expired notes.",
        {
            "query": Param(
                _text(
                    "What to look for, in plain words (an error, a tool, a file path).",
                    least=1,
                    most=MAX_QUERY_CHARS,
                ),
                f"the words to look for, 1 to {MAX_QUERY_CHARS} characters",
                required=True,
            ),
            "repo": Param(
                _text(
                    'Repository to favour (default: the server\'s current repository; "" for '
                    "none).",
                    most=100,
                    pattern=REPO,
                ),
                "a repository name such as 'payments-api', or \"\" for none",
            ),
            "type": Param(TYPE_FILTER, f"a list of at most {MAX_FILTERS} note types"),
            "tag": Param(
                TAG_FILTER, f"a list of at most {MAX_FILTERS} tags such as 'tool/postgres'"
            ),
            "include_inactive": Param(
                {
                    "type": "boolean",
                    "default": False,
                    "description": "Also return inactive notes (superseded, expired, stale).",
                },
                "true or false",
            ),
            "limit": Param(
                {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": MAX_LIMIT,
                    "default": 5,
                    "description": f"At most this many notes, 1-{MAX_LIMIT}.",
                },
                f"a whole number from 1 to {MAX_LIMIT}",
            ),
        },
        output=RECALL_OUTPUT,
        annotations=READ_ONLY,
    ),
    ToolSpec(
        "get_note",
        "Read a team note",
        "Read one note in full: its frontmatter fields and its body (sanitized), with the "
        "vault commit it was read at.",
        {
            "id": Param(
                _text(
                    "The note id, e.g. api--errors-use-json--2026-11-02.",
                    least=1,
                    most=MAX_ID_LENGTH,
                    pattern=NOTE_ID,
                ),
                "a note id such as scope--topic--2026-11-02",
                required=True,
            )
        },
        output=NOTE_OUTPUT,
        annotations=READ_ONLY,
    ),
    ToolSpec(
        "remember",
        "Propose a team note",
        "Propose a new note to the team's vault as a pull request for a person to review.\n\n"
        "Show the user the note and get their agreement first. One idea per note; knowledge, "
        "not a log of the session. The note is checked by the curator (taxonomy, "
        "conventions, secrets, injected instructions, duplicates); if it is blocked, nothing "
        "is proposed, the result is an error, and its findings say what to fix. Nothing is "
        "ever written to the main branch. With draft: true the checked note is only saved "
        "in the user's drafts inbox on this machine (a note with a secret is refused, and "
        "nothing is saved).",
        {
            "title": Param(
                _text("One line that states the fact itself.", least=1, most=120),
                "one line of at most 120 characters",
                required=True,
            ),
            "type": Param(
                _text(
                    "A type from the vault's _taxonomy.md, e.g. gotcha.",
                    least=1,
                    most=80,
                    pattern=NAME,
                ),
                "a type from the vault's taxonomy, such as 'gotcha'",
                required=True,
            ),
            "tags": Param(
                _list(
                    "dimension/name tags from _taxonomy.md (one or more).",
                    {"type": "string", "pattern": TAG, "maxLength": 120},
                    least=1,
                    most=12,
                ),
                "a list of 1 to 12 tags such as 'tool/postgres'",
                required=True,
            ),
            "what": Param(
                _text("The one-line summary that stands alone (## What).", least=1, most=2000),
                "the summary, 1 to 2,000 characters",
                required=True,
            ),
            "why": Param(
                _text("Why it is so (## Why).", most=4000), "text of at most 4,000 characters"
            ),
            "how": Param(
                _text("How to apply it (## How).", most=4000), "text of at most 4,000 characters"
            ),
            "confidence": Param(
                {
                    "type": "string",
                    "enum": ["high", "medium", "low"],
                    "default": "medium",
                    "description": "How sure the team can be: high only for what was verified.",
                },
                "one of high, medium, low",
            ),
            "repo": Param(
                _text("The repository it is about; omit for org-wide.", most=100, pattern=REPO),
                "a repository name such as 'payments-api'",
            ),
            "files_touched": Param(
                _list(
                    "Paths in the repository the note is about.",
                    {"type": "string", "minLength": 1, "maxLength": 300},
                    most=30,
                ),
                "a list of at most 30 paths",
            ),
            "supersedes": Param(
                _list(
                    "Ids of notes this one replaces.",
                    {"type": "string", "pattern": NOTE_ID, "maxLength": MAX_ID_LENGTH},
                    most=10,
                ),
                "a list of at most 10 note ids",
            ),
            "source": Param(
                _text(
                    "URL of the PR, issue or discussion it came from.",
                    most=500,
                    pattern=r"^https?://\S+$",
                ),
                "an http(s) URL",
            ),
            "draft": Param(
                {
                    "type": "boolean",
                    "default": False,
                    "description": "true: save it to the user's local drafts inbox for them to "
                    "review and propose (`lore drafts`), instead of opening a pull request.",
                },
                "true or false",
            ),
        },
        output=REMEMBER_OUTPUT,
        annotations=PROPOSING,
    ),
    ToolSpec(
        "list_proposals",
        "List proposed notes",
        "The vault's open proposals (pull requests and unfinished branches) and their curator "
        "status.",
        {},
        output=PROPOSALS_OUTPUT,
        annotations={**READ_ONLY, "openWorldHint": True},
    ),
    ToolSpec(
        "taxonomy",
        "Read the vault's vocabulary",
        "The vault's vocabulary: the note types, the tags (dimension/name, with definitions "
        "and aliases) and the repository names a note may use, and the team's writing "
        "conventions, from the reviewed vault. Use only these names in a note.",
        {},
        output=TAXONOMY_OUTPUT,
        annotations=READ_ONLY,
    ),
)
BY_NAME = {tool.name: tool for tool in TOOLS}


def check_arguments(tool: ToolSpec, arguments: object) -> dict[str, Any]:
    """The arguments if the tool's input schema accepts them; else `ArgumentError`."""
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        raise ArgumentError(f"{tool.name} takes its arguments as a JSON object.")
    takes = ", ".join(tool.params) or "no arguments"
    for name in arguments:
        if name not in tool.params:
            shown = re.sub(r"[^\w.-]", "", str(name))[:40] or "?"
            raise ArgumentError(f"{tool.name} has no argument '{shown}'; it takes {takes}.")
    for name, param in tool.params.items():
        if name not in arguments:
            if param.required:
                raise ArgumentError(f"{tool.name} needs {name}: {param.hint}.")
            continue
        if not _accepts(param.schema, arguments[name]):
            raise ArgumentError(f"{tool.name}: {name} must be {param.hint}.")
    return dict(arguments)


def _accepts(schema: dict[str, Any], value: object) -> bool:
    kind = schema.get("type")
    if "enum" in schema:
        return value in schema["enum"] and isinstance(value, str)
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "integer":
        if isinstance(value, bool) or not isinstance(value, int):
            return False
        return bool(schema.get("minimum", value) <= value <= schema.get("maximum", value))
    if kind == "string":
        if not isinstance(value, str):
            return False
        if not schema.get("minLength", 0) <= len(value) <= schema.get("maxLength", len(value)):
            return False
        return "pattern" not in schema or re.search(schema["pattern"], value) is not None
    if kind == "array":
        if not isinstance(value, list):
            return False
        if not schema.get("minItems", 0) <= len(value) <= schema.get("maxItems", len(value)):
            return False
        if schema.get("uniqueItems") and len(set(map(repr, value))) != len(value):
            return False
        return all(_accepts(schema["items"], item) for item in value)
    return False
