"""`lore import foldcrumbs DIR`: a foldcrumbs memory store, one note per memory the user keeps.

foldcrumbs keeps one markdown file per memory (`<type>_<slug>.md`, beside a `MEMORY.md`
index) with flat `key: value` frontmatter — `name`, `description`, `type`, `id`,
`confidence` (0-1), `provenance`, `status`, `source`, `tags` (comma-separated),
`created_at`, `updated_at`, and optionally `superseded_by`, `expires_at`,
`relations_json` — and the memory's text as the body. It is read as foldcrumbs reads it
(the first `:` splits a line), not as YAML.

The mapping (docs/import.md has it as a table): `name` is the title; `description`
then the body are `## What`; the types map to decision, reference, gotcha, convention or
incident (goals, commitments, events, relationships, authorizations, sessions and
memories about the user are not team knowledge and are skipped); `confidence` 0.8+ is
high, 0.5+ medium, else low, and `provenance: inferred` caps it at medium; a status
other than `active` is skipped; `created_at` (else `updated_at`, else the file's time)
is the date; `expires_at` is `expires` (an expired memory is skipped); `tags` map to the
vault's tags by name or alias; `relations_json` gives `supersedes`, `depends_on` or
`## Related` between imported memories. What is not kept is said per file.

Memories are personal: the import shows each one and proposes only what the user keeps.
Files are found and read by `lore.team.imports.walk`, which follows no link.
"""

from __future__ import annotations

import json
import re
from datetime import date
from pathlib import Path

from lore import clock
from lore.team.imports.adr_parse import parse_date
from lore.team.imports.markdown import (
    cut_title,
    inline_plain,
    sentences,
    visible_text,
)
from lore.team.imports.model import Draft, ReadOptions, Skip
from lore.team.imports.personal import personal_scope, to_prose
from lore.team.imports.walk import Entry, Unreadable, markdown_files, read_text

TYPES = {
    "decision": "decision",
    "fact": "reference", "artifact": "reference", "context": "reference",
    "reference": "reference", "project": "reference",
    "learning": "gotcha", "error": "gotcha", "observation": "gotcha",
    "instruction": "convention", "preference": "convention", "feedback": "convention",
    "incident": "incident",
}  # fmt: skip
NOT_TEAM = {
    "goal": "a goal is a plan, not knowledge that holds",
    "commitment": "a commitment is a plan, not knowledge that holds",
    "event": "an event is a log entry, not a lesson",
    "relationship": "a relationship is about people",
    "authorization": "an authorization grants a permission to one agent",
    "session": "a session handoff is working state",
    "user": "it is about the user",
}
KNOWN = {
    "name", "description", "type", "id", "confidence", "provenance", "status", "source", "tags",
    "created_at", "updated_at", "superseded_by", "expires_at", "relations_json",
}  # fmt: skip
_LINE = re.compile(r"^([A-Za-z_][\w-]*)\s*:(.*)$")


def read_flat(text: str) -> tuple[dict[str, str], str]:
    """foldcrumbs' frontmatter (`key: value` lines, split at the first colon) and the body."""
    lines = text.split("\n")
    if not lines or lines[0].strip() != "---":
        return {}, text
    meta: dict[str, str] = {}
    for index in range(1, len(lines)):
        if lines[index].strip() == "---":
            return meta, "\n".join(lines[index + 1 :])
        match = _LINE.match(lines[index])
        if match:
            meta[match[1].strip()] = match[2].strip()
    return {}, text


def read_foldcrumbs(paths: list[Path], options: ReadOptions) -> tuple[list[Draft], list[Skip]]:
    drafts: list[Draft] = []
    skipped: list[Skip] = []
    by_id: dict[str, str] = {}  # foldcrumbs id -> draft key
    pending: list[tuple[Draft, dict[str, str]]] = []
    for folder in paths:
        files, passed = markdown_files(folder)
        skipped += [Skip(where, reason) for where, reason in passed]
        for entry in files:
            if entry.relative.rpartition("/")[2] == "MEMORY.md":
                continue
            outcome = _draft(entry, options)
            if isinstance(outcome, Skip):
                skipped.append(outcome)
                continue
            draft, meta = outcome
            if meta.get("id"):
                by_id[meta["id"]] = draft.key
            pending.append((draft, meta))
    for draft, meta in pending:
        _relations(draft, meta, by_id)
        drafts.append(draft)
    return drafts, skipped


def _draft(entry: Entry, options: ReadOptions) -> tuple[Draft, dict[str, str]] | Skip:
    path, source = entry.path, entry.shown
    try:
        text, mtime = read_text(entry)
    except Unreadable as exc:
        return Skip(source, str(exc))
    meta, body = read_flat(visible_text(text))
    if not meta:
        return Skip(source, "no foldcrumbs frontmatter (name, type, …): not a memory")
    kind = meta.get("type", "fact").lower()
    if kind in NOT_TEAM:
        return Skip(source, f"type {kind}: {NOT_TEAM[kind]}")
    status = meta.get("status", "active").lower() or "active"
    if status != "active":
        return Skip(source, f"status {status}: only active memories are imported")
    lore_type = TYPES.get(kind, "reference")
    if options.types and lore_type not in options.types:
        return Skip(
            source, f"type {kind} maps to '{lore_type}', which the vault's taxonomy does not list"
        )
    notes: list[str] = []
    if kind not in TYPES:
        notes.append(f"type {kind} is not a foldcrumbs type: imported as reference")
    expires = parse_date(meta.get("expires_at", "")) if meta.get("expires_at") else None
    if expires is not None and expires < clock.today().isoformat():
        return Skip(source, f"expired on {expires}")
    day = parse_date(meta.get("created_at", "")) or parse_date(meta.get("updated_at", ""))
    if day is None:
        day = date.fromtimestamp(mtime).isoformat()
        notes.append("no created_at: dated from the file's modification time")
    confidence = _confidence(meta.get("confidence", ""))
    if meta.get("provenance", "").lower() == "inferred" and confidence == "high":
        confidence = "medium"
        notes.append("provenance inferred: confidence capped at medium")
    description = inline_plain(meta.get("description", ""))
    what = to_prose(body, options.max_words, lead=description)
    if not what:
        return Skip(source, "the memory has no text")
    title = cut_title(
        inline_plain(meta.get("name", ""), emphasis=False) or sentences(what)[0], options.max_title
    )
    mapped, unmapped = options.tagger.map_tags(meta.get("tags", "").split(","))
    if unmapped:
        notes.append("tags not in the vault's taxonomy: " + ", ".join(unmapped))
    tags = options.tagger.suggest(title, what, [*options.tags, *mapped])
    dropped = sorted(
        {k for k in meta if k not in KNOWN}
        | {k for k in ("id", "source", "provenance") if meta.get(k)}
    )
    if dropped:
        notes.append("not kept: " + ", ".join(dropped))
    draft = Draft(
        key=str(path),
        source=source,
        title=title,
        type=lore_type,
        what=what,
        date=day,
        confidence=confidence,
        tags=tags,
        repo=[options.repo] if options.repo else [],
        scope=personal_scope(options, tags),
        expires=expires,
        unmapped=notes,
    )
    return draft, meta


def _confidence(value: str) -> str:
    try:
        number = float(value)
    except ValueError:
        return "medium"
    return "high" if number >= 0.8 else "medium" if number >= 0.5 else "low"


def _relations(draft: Draft, meta: dict[str, str], by_id: dict[str, str]) -> None:
    raw = meta.get("relations_json", "")
    if not raw:
        return
    try:
        data = json.loads(raw)
    except ValueError:
        draft.unmapped.append("relations_json is not valid JSON: not kept")
        return
    items = (
        data
        if isinstance(data, list)
        else data.get("relations", [])
        if isinstance(data, dict)
        else []
    )
    for item in items:
        if not isinstance(item, dict):
            continue
        predicate = str(item.get("predicate") or item.get("pred") or "")
        target = next(
            (
                str(item[key])
                for key in ("to_memory", "memory", "target_id", "target", "to")
                if isinstance(item.get(key), str)
            ),
            "",
        )
        key = by_id.get(target)
        if key is None:
            draft.unmapped.append(
                f"relation {predicate} → {target or '?'}: not a memory in this import"
            )
        elif predicate == "supersedes":
            draft.supersedes.append(key)
        elif predicate == "depends_on":
            draft.depends_on.append(key)
        else:
            draft.related.append(key)


__all__ = ["read_flat", "read_foldcrumbs"]
