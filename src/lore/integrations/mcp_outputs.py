"""The MCP tools' output schemas: the JSON object each tool returns (`structuredContent`).

Each is the shape the matching `lore … --json` prints, so a client can check what it
gets; `mcp_tools` lists them with the tools.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

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
_HIT_FIELDS: dict[str, Any] = {
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
}
_HIT = {
    "type": "object",
    "required": ["id", "title", "path", "type", "tags", "confidence", "date", "score", "snippet"],
    "properties": _HIT_FIELDS,
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
        "phrasings": {
            **_STRINGS,
            "description": "Every phrasing searched (query, then also), when there were several.",
        },
        "notices": _STRINGS,
        "notice": NOTICE_SCHEMA,
    },
}
_NOTE = {
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
_NOTES = {
    "type": "object",
    "required": ["version", "notes", "missing", "notice"],
    "properties": {
        "version": {"const": 1},
        "notes": {  # each note as one id gives it, less the notice said once here
            "type": "array",
            "items": {**_NOTE, "required": [k for k in _NOTE["required"] if k != "notice"]},
        },
        "missing": {**_STRINGS, "description": "Ids asked for that no note has."},
        "notices": _STRINGS,
        "notice": NOTICE_SCHEMA,
    },
}
NOTE_OUTPUT = {
    "type": "object",
    "description": "One id asked for: the note. Several: {notes, missing}.",
    "anyOf": [_NOTE, _NOTES],
}
_CHANGE = {
    "type": "object",
    "required": [
        *("id", "title", "path", "type", "tags", "confidence", "date", "summary"),
        *("change", "commit", "committed", "vault"),
    ],
    "properties": {
        **{key: value for key, value in _HIT_FIELDS.items() if key not in ("score", "snippet")},
        "summary": {"type": "string"},
        "change": {"enum": ["added", "changed"]},
        "commit": {"type": "string", "description": "The commit that last changed the note."},
        "committed": {"type": "string", "description": "That commit's ISO 8601 date."},
    },
}
CHANGES_OUTPUT = {
    "type": "object",
    "required": ["version", "since", "vault", "vaults", "changes", "removed", "more", "notice"],
    "properties": {
        "version": {"const": 1},
        "since": {"type": "string"},
        "vault": _VAULT,
        "vaults": {"type": "array", "items": _VAULT},
        "changes": {"type": "array", "items": _CHANGE},
        "removed": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["id", "commit", "committed", "vault"],
                "properties": {
                    "id": {"type": "string"},
                    "commit": {"type": "string"},
                    "committed": {"type": "string"},
                    "vault": {"type": "string"},
                },
            },
        },
        "more": {"type": "integer", "description": "Changes left out by the limit."},
        "notices": _STRINGS,
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
