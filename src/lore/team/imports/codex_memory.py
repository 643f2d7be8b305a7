"""`lore import codex-memory [DIR]`: the handbook Codex folds its memories into.

The layout Codex documents (developers.openai.com/codex/memories; its consolidation
prompt, codex-rs/core/templates/memories/consolidation.md, fixes the format): with
`[features] memories = true` in `~/.codex/config.toml`, Codex turns earlier threads into
files under `~/.codex/memories/` (`$CODEX_HOME` in place of `~/.codex`):

- `MEMORY.md`, the handbook: blocks of a `---` header (`rollout_summary_files:`, each
  file annotated with `cwd=<path>` and `updated_at=<timestamp>`; `description:`;
  `keywords:`) followed by bullet entries — the facts read here, one per bullet;
- `memory_summary.md` (a profile of the person and an index), `raw_memories.md` and
  `rollout_summaries/` (evidence the handbook was made from), `skills/` (procedures Codex
  wrote for itself): not read, each said once.

A bullet's date is the newest `updated_at` of its block; its repository, `--repo`, else
the one folder its block's threads ran in (that folder's git origin name, or its name).
Codex redacts secrets from what it writes; the curator's scan checks again.
"""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path

from lore.team.imports.agent_memory import Fact, drafts_from_facts
from lore.team.imports.markdown import Block, blocks, visible_text
from lore.team.imports.memory_stores import CODEX
from lore.team.imports.model import Draft, ReadOptions, Skip
from lore.team.imports.walk import Entry, Unreadable, look, read_text

HANDBOOK = "MEMORY.md"
NOT_READ = {
    "memory_summary.md": "Codex's profile of you and its index of MEMORY.md: not read (the "
    "profile stays personal; the index repeats the handbook)",
    "raw_memories.md": "the raw notes MEMORY.md was made from: not read",
    "rollout_summaries": "recaps of single threads, the evidence MEMORY.md was made from: not read",
    "skills": "procedures Codex wrote for itself (instructions for an agent): not read",
}
_CWD = re.compile(r"\bcwd=([^,)]+)")
_UPDATED = re.compile(r"\bupdated_at=(\d{4}-\d{2}-\d{2})")
_SKILL_LINE = re.compile(r"^\s*related skills?\s*:", re.IGNORECASE)


def read_codex_memory(paths: list[Path], options: ReadOptions) -> tuple[list[Draft], list[Skip]]:
    facts: list[Fact] = []
    skipped: list[Skip] = []
    for start in paths:
        if start.is_dir():
            for name, reason in NOT_READ.items():
                if (start / name).exists():
                    skipped.append(Skip(name, reason))
            found = look(start, HANDBOOK)
            if isinstance(found, str):
                skipped.append(
                    Skip(
                        HANDBOOK,
                        f"{found}: Codex has written no handbook here (memories are off unless "
                        "`[features] memories = true` in ~/.codex/config.toml)",
                    )
                )
                continue
            if not isinstance(found, Entry):
                skipped.append(Skip(HANDBOOK, found.reason))
                continue
            entry = found
        else:
            entry = Entry(start.parent, start.name)
        try:
            text, mtime = read_text(entry)
        except Unreadable as exc:
            skipped.append(Skip(entry.shown, str(exc)))
            continue
        facts += _handbook_facts(entry.shown, visible_text(text), date.fromtimestamp(mtime))
    drafts, left = drafts_from_facts(CODEX, facts, options, options.known_facts)
    return drafts, skipped + left


def _handbook_facts(shown: str, text: str, file_day: date) -> list[Fact]:
    """One fact per bullet of each block, with its block's date and repository."""
    lines = text.split("\n")
    facts: list[Fact] = []
    index = 0
    header: list[str] = []
    while index < len(lines):
        if lines[index].strip() == "---":
            end = next((i for i in range(index + 1, len(lines)) if lines[i].strip() == "---"), None)
            if end is None:
                break
            header = lines[index + 1 : end]
            body_end = next(
                (i for i in range(end + 1, len(lines)) if lines[i].strip() == "---"), len(lines)
            )
            facts += _block_facts(shown, header, lines[end + 1 : body_end], end + 1, file_day)
            index = body_end
            continue
        index += 1
    if not facts and not header:  # a handbook without headers: every bullet is a fact
        facts = _block_facts(shown, [], lines, 0, file_day)
    return facts


def _block_facts(
    shown: str, header: list[str], body: list[str], offset: int, file_day: date
) -> list[Fact]:
    joined = "\n".join(header)
    days = sorted(_UPDATED.findall(joined))
    folders = sorted({cwd.strip() for cwd in _CWD.findall(joined)})
    repo = _repo_name(folders[0]) if len(folders) == 1 else ""
    facts: list[Fact] = []
    for block in blocks("\n".join(body)):
        if block.kind != "item" or _SKILL_LINE.match(block.text):
            continue
        fact = Fact(
            text=_item_text(block),
            source=f"{shown}:{offset + block.line}",
            date=days[-1] if days else "",
            file_date=file_day.isoformat(),
            repo=repo,
        )
        if len(folders) > 1:
            fact.notes.append(f"its threads ran in {len(folders)} folders: no repository set")
        facts.append(fact)
    return facts


def _item_text(block: Block) -> str:
    lines = [block.text]
    for child in block.children:
        if child.kind in ("item", "paragraph"):
            lines.append(child.text)
    return " ".join(lines)


def _repo_name(folder: str) -> str:
    """The repository a thread ran in: its git origin's name if it is here, else its name."""
    from lore.vault.git import current_repo_name

    path = Path(folder)
    if path.is_dir():
        name = current_repo_name(path)
        if name:
            return name
    return re.sub(r"[^a-z0-9._-]+", "-", path.name.lower()).strip("-")
