"""The MCP tools as data: names, descriptions, input and output schemas, and the check.

`TOOLS` lists lore's tools in the order clients show them. Each input schema says what
a client may send — types, bounds (`minimum`/`maximum`, `maxLength`, `maxItems`),
enums, patterns, and `additionalProperties: false` — and `check_arguments` holds every
call to that same schema, through a JSON Schema validator (`jsonschema`, which the SDK
itself depends on), before any file is read, answering a bad call with one sentence
that names the argument and what it takes (never a validator's text, never the value
sent). Each output schema describes the JSON object the tool returns
(`structuredContent`), the same object `lore … --json` prints. The server
(`mcp_server`) serves these; nothing here imports the SDK.
"""

from __future__ import annotations

import re

from lore.integrations.mcp_outputs import (
    CHANGES_OUTPUT,
    NOTE_OUTPUT,
    PROPOSALS_OUTPUT,
    RECALL_OUTPUT,
    REMEMBER_OUTPUT,
    TAXONOMY_OUTPUT,
)
from lore.note.ids import MAX_ID_LENGTH
from lore.record import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MAX_QUERY_CHARS = 500
MAX_LIMIT = 20
MAX_FILTERS = 10
MAX_OTHER_PHRASINGS = 3  # `also`: as `lore recall --or`
MAX_NOTES = 10  # ids in one get_note
NAME = r"^[a-z0-9][a-z0-9_.-]{0,79}$"  # a type or a repository, as the taxonomy writes them
REPO = r"^(?:[A-Za-z0-9][A-Za-z0-9._-]{0,99})?$"  # "" means: no repository boost
TAG = r"^[a-z0-9][a-z0-9_.-]*(?:/[a-z0-9][a-z0-9_.-]*)?$"  # dimension/name, or a dimension
NOTE_ID = r"^[a-z0-9]+(?:-[a-z0-9]+)*--[a-z0-9]+(?:-[a-z0-9]+)*--\d{4}-\d\d-\d\d$"
SINCE = r"^[A-Za-z0-9][A-Za-z0-9._/~^-]*$"  # a day, a sha or a ref; never an option

RECALL_DESCRIPTION = (
    "Find the team's reviewed notes (decisions, conventions, gotchas, runbooks) that "
    "answer a question, best first, as `lore recall --json` does.\n\n"
    "Search well: put the subject in query in the words the team's note would use (the "
    "service, the tool, the practice, the error text), not the question as you were asked "
    "it. Give other vocabulary for the same subject in also (a synonym, the older name, "
    "the symptom instead of the cause): each phrasing is ranked alone and the lists are "
    "fused by rank, so one call covers them. Filter with type when you know the kind of "
    "note (a gotcha, a decision).\n\n"
    "Returns id, title, type, confidence, date, author and a snippet for each note; read "
    "notes in full with get_note. include_inactive also returns superseded and expired "
    "notes."
)


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
        RECALL_DESCRIPTION,
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
            "also": Param(
                _list(
                    "Other phrasings of the same question in other vocabulary, e.g. "
                    '["pg connection pool exhausted"]: each is ranked alone and fused with '
                    "query by rank.",
                    {"type": "string", "minLength": 1, "maxLength": MAX_QUERY_CHARS},
                    most=MAX_OTHER_PHRASINGS,
                ),
                f"a list of at most {MAX_OTHER_PHRASINGS} other phrasings, each 1 to "
                f"{MAX_QUERY_CHARS} characters",
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
        "Read notes in full: their frontmatter fields and body (sanitized), with the vault "
        "commit they were read at. One id gives the note; several (up to {MAX_NOTES}) give "
        "{{notes, missing}} in one call.",
        {
            "id": Param(
                _list(
                    'The note ids, e.g. ["api--errors-use-json--2026-11-02"] (one id alone is '
                    "taken as a list of one).",
                    {"type": "string", "pattern": NOTE_ID, "maxLength": MAX_ID_LENGTH},
                    least=1,
                    most=MAX_NOTES,
                ),
                f"a note id such as scope--topic--2026-11-02, or a list of up to {MAX_NOTES}",
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
    ToolSpec(
        "recent",
        "What changed in the team's notes",
        "The notes added or changed on the vault's reviewed branch since a day or a commit, "
        "newest first, as `lore recall --since … --json` does: for an agent returning to a "
        "repository, what the team has learned since it last looked. Each entry says whether "
        "the note was added or changed, by which commit and when; notes removed since are "
        "listed by id. Read them in full with get_note.",
        {
            "since": Param(
                _text(
                    "A day (YYYY-MM-DD) or a commit of the vault (a sha, a tag).",
                    least=1,
                    most=100,
                    pattern=SINCE,
                ),
                "a day such as 2026-11-01 or a commit of the vault",
                required=True,
            ),
            "type": Param(TYPE_FILTER, f"a list of at most {MAX_FILTERS} note types"),
            "tag": Param(
                TAG_FILTER, f"a list of at most {MAX_FILTERS} tags such as 'tool/postgres'"
            ),
            "include_inactive": Param(
                {
                    "type": "boolean",
                    "default": False,
                    "description": "Also list inactive notes (superseded, expired, stale).",
                },
                "true or false",
            ),
            "limit": Param(
                {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": MAX_LIMIT,
                    "default": 10,
                    "description": f"At most this many notes, 1-{MAX_LIMIT}.",
                },
                f"a whole number from 1 to {MAX_LIMIT}",
            ),
        },
        output=CHANGES_OUTPUT,
        annotations=READ_ONLY,
    ),
)
BY_NAME = {tool.name: tool for tool in TOOLS}


def check_arguments(tool: ToolSpec, arguments: object) -> dict[str, Any]:
    """The arguments if the tool's input schema accepts them; else `ArgumentError`.

    The published schema itself decides, through a JSON Schema validator (draft
    2020-12, `jsonschema`, which the SDK depends on), so whatever the schema allows is
    accepted: `limit: 3.0` is a whole number, and comes back as `3`. One leniency comes
    first: a single string where the schema wants a list is taken as a list of one
    (`type: "gotcha"`). A refusal is one sentence naming the argument and what it takes
    (`Param.hint`), never the validator's text or the value sent.
    """
    from jsonschema.exceptions import best_match

    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        raise ArgumentError(f"{tool.name} takes its arguments as a JSON object.")
    given = {
        name: [value] if _wants_list(tool, name) and isinstance(value, str) else value
        for name, value in arguments.items()
    }
    error = best_match(_validator(tool).iter_errors(given))
    if error is not None:
        raise ArgumentError(_sentence(tool, given, error))
    return {name: _plain(tool.params[name].schema, value) for name, value in given.items()}


_VALIDATORS: dict[str, Any] = {}


def _validator(tool: ToolSpec) -> Any:
    """The tool's schema validator, made at its first call (`initialize` needs none)."""
    validator = _VALIDATORS.get(tool.name)
    if validator is None:
        from jsonschema import Draft202012Validator

        validator = _VALIDATORS[tool.name] = Draft202012Validator(tool.input_schema())
    return validator


def _wants_list(tool: ToolSpec, name: object) -> bool:
    param = tool.params.get(name) if isinstance(name, str) else None
    return param is not None and param.schema.get("type") == "array"


def _sentence(tool: ToolSpec, given: dict[Any, Any], error: Any) -> str:
    """One sentence for the validator's best error: which argument, and what it takes."""
    takes = ", ".join(tool.params) or "no arguments"
    if error.validator == "additionalProperties":
        unknown = next(name for name in given if name not in tool.params)
        shown = re.sub(r"[^\w.-]", "", str(unknown))[:40] or "?"
        return f"{tool.name} has no argument '{shown}'; it takes {takes}."
    if error.validator == "required":
        missing = next(name for name, p in tool.params.items() if p.required and name not in given)
        return f"{tool.name} needs {missing}: {tool.params[missing].hint}."
    path = list(error.absolute_path)
    if path and path[0] in tool.params:
        return f"{tool.name}: {path[0]} must be {tool.params[path[0]].hint}."
    return f"{tool.name} takes {takes}, as its input schema describes."


def _plain(schema: dict[str, Any], value: Any) -> Any:
    """A whole number the schema accepted as a float (`3.0`) as the int it is."""
    if schema.get("type") == "integer" and isinstance(value, float):
        return int(value)
    return value
