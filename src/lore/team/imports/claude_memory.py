"""`lore import claude-memory [DIR]`: Claude Code's auto memory of a project, one fact a draft.

The layout Claude Code documents (code.claude.com/docs/en/memory; the folder is found by
`memory_stores.claude_memory_dir`): `MEMORY.md`, an index loaded at every session start
(a line per memory, `- [Title](file.md) — hook`), and one fact per topic file, with
frontmatter `name`, `description` (the one line that decides relevance) and a type —
`metadata: {type: …}`, or `type:` at the top in older files — among `user` (who the
person is: always private), `feedback` (how to work: a rule, then `**Why:**` and `**How
to apply:**` lines), `project` (work, decisions, incidents the code does not show) and
`reference` (where things live). `[[links]]` join facts.

The mapping: `description` is the title; the body's rule is `## What`, its `**Why:**`
`## Why`, its `**How to apply:**` `## How`; `user` memories are left out (about the
person), and so is what `memory_rules` finds about the person or the agent; a line of
`MEMORY.md` that is not a link to a topic file is a fact of its own (older memories kept
everything there). The repository is the project's: `--repo`, else — when DIR is the
current repository's own memory folder — that repository's name.
"""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path
from typing import Any

from lore.team.imports.agent_memory import Fact, drafts_from_facts
from lore.team.imports.markdown import blocks, field_text, split_frontmatter, visible_text
from lore.team.imports.memory_stores import CLAUDE, CLAUDE_INDEX, claude_memory_dir
from lore.team.imports.model import Draft, ReadOptions, Skip
from lore.team.imports.walk import Entry, Unreadable, markdown_files, read_text
from lore.text.headings import heading

TYPES = ("user", "feedback", "project", "reference")
KNOWN_FIELDS = ("name", "description", "type", "metadata")
USER_REASON = (
    "a `user` memory: about you (your role, knowledge, preferences), and facts about a "
    "person stay on their machine"
)
_LABEL = re.compile(r"^\s*(?:[-*+]\s+)?\*\*(why|how to apply)\s*:?\*\*\s*:?\s*", re.IGNORECASE)
_INDEX_LINK = re.compile(r"\]\((?P<target>[^)\s]+\.md)\)")
_WIKILINK = re.compile(r"\[\[([^\]|]+)(?:\|([^\]]+))?\]\]")


def read_claude_memory(paths: list[Path], options: ReadOptions) -> tuple[list[Draft], list[Skip]]:
    facts: list[Fact] = []
    skipped: list[Skip] = []
    for folder in paths:
        repo = _repo_of(folder)
        files, passed = markdown_files(folder)
        skipped += [Skip(where, reason) for where, reason in passed]
        for entry in files:
            try:
                text, mtime = read_text(entry)
            except Unreadable as exc:
                skipped.append(Skip(entry.shown, str(exc)))
                continue
            day = date.fromtimestamp(mtime).isoformat()
            if entry.relative.rpartition("/")[2] == CLAUDE_INDEX:
                facts += _index_facts(entry, text, day, repo)
                continue
            outcome = _topic_fact(entry, text, day, repo)
            if isinstance(outcome, Skip):
                skipped.append(outcome)
            else:
                facts.append(outcome)
    drafts, left = drafts_from_facts(CLAUDE, facts, options, options.known_facts)
    return drafts, skipped + left


def _repo_of(folder: Path) -> str:
    """The current repository's name when `folder` is its own memory folder, else ""."""
    from lore.vault.git import current_repo_name

    cwd = Path.cwd()
    try:
        if claude_memory_dir(cwd).resolve() == folder.resolve():
            return current_repo_name(cwd) or ""
    except OSError:
        return ""
    return ""


def _topic_fact(entry: Entry, text: str, day: str, repo: str) -> Fact | Skip:
    fields, body, problem = split_frontmatter(visible_text(text))
    if problem:
        return Skip(entry.shown, problem)
    kind = _type_of(fields)
    name = field_text(fields.get("name"))
    description = field_text(fields.get("description"))
    rule, why, how = _parts(_WIKILINK.sub(lambda m: m[2] or m[1], body))
    fact = Fact(
        text=rule or description,
        source=entry.shown,
        title=description if rule else "",
        why=why,
        how=how,
        kind=kind,
        file_date=day,
        repo=repo,
    )
    if kind == "user":
        fact.personal = USER_REASON
    elif kind and kind not in TYPES:
        fact.notes.append(f"type {kind} is not one of Claude Code's memory types")
    if name and not description:
        fact.notes.append(f"name {name} not kept (the title is the memory's own first line)")
    extra = sorted(str(k) for k in fields if str(k) not in KNOWN_FIELDS)
    if extra:
        fact.notes.append("not kept: " + ", ".join(extra))
    return fact


def _type_of(fields: dict[str, Any]) -> str:
    metadata = fields.get("metadata")
    value = metadata.get("type") if isinstance(metadata, dict) else None
    return field_text(value or fields.get("type")).lower()


def _parts(body: str) -> tuple[str, str, str]:
    """(the rule or fact, its `**Why:**`, its `**How to apply:**`) of a topic file's body."""
    parts: dict[str, list[str]] = {"": [], "why": [], "how to apply": []}
    current = ""
    for raw in body.split("\n"):
        label = _LABEL.match(raw)
        if label:
            current = label[1].lower()
        elif heading(raw):
            continue  # a heading repeats the name
        parts[current].append(raw[label.end() :] if label else raw)
    return tuple(_prose("\n".join(parts[key])) for key in ("", "why", "how to apply"))  # type: ignore[return-value]


def _prose(markdown: str) -> str:
    lines: list[str] = []
    for block in blocks(markdown):
        if block.kind in ("paragraph", "item", "quote"):
            lines.append(block.text)
    return "\n".join(lines).strip()


def _index_facts(entry: Entry, text: str, day: str, repo: str) -> list[Fact]:
    """The lines of MEMORY.md that hold a fact themselves (not a link to a topic file)."""
    facts: list[Fact] = []
    for block in blocks(visible_text(text)):
        if block.kind not in ("item", "paragraph") or _INDEX_LINK.search(block.text):
            continue
        fact = Fact(text=block.text, source=f"{entry.shown}:{block.line}", file_date=day, repo=repo)
        facts.append(fact)
    return facts
