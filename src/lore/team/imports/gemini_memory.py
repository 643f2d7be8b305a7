"""`lore import gemini-memory [FILE]`: the facts Gemini CLI saved with `save_memory`.

The layout Gemini CLI documents (geminicli.com/docs/tools/memory): `save_memory(fact=…)`
appends the fact, one list item, under a `## Gemini Added Memories` section of the
global context file `~/.gemini/GEMINI.md` (its name can be changed in settings; found by
`memory_stores.gemini_memory_file`). The rest of that file is the person's own global
instructions, which are not memories and are not read (`lore import agents-md` reads
instruction files). Each item of the section is one fact; facts about the person ("My
preferred programming language is Python", the docs' own example) are left out. The file
gives no date per fact: a fact is dated from the file's last change, and says so.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path

from lore.team.imports.agent_memory import Fact, drafts_from_facts
from lore.team.imports.markdown import blocks, visible_text
from lore.team.imports.memory_stores import GEMINI, GEMINI_SECTION
from lore.team.imports.model import Draft, ReadOptions, Skip
from lore.team.imports.walk import Unreadable, markdown_files, read_text


def read_gemini_memory(paths: list[Path], options: ReadOptions) -> tuple[list[Draft], list[Skip]]:
    facts: list[Fact] = []
    skipped: list[Skip] = []
    for start in paths:
        files, passed = markdown_files(start)
        skipped += [Skip(where, reason) for where, reason in passed]
        for entry in files:
            try:
                text, mtime = read_text(entry)
            except Unreadable as exc:
                skipped.append(Skip(entry.shown, str(exc)))
                continue
            day = date.fromtimestamp(mtime).isoformat()
            found, outside = _section_items(visible_text(text))
            if not found:
                skipped.append(
                    Skip(entry.shown, f"no `{GEMINI_SECTION}` section: Gemini CLI saved no fact")
                )
                continue
            for line, item in found:
                facts.append(Fact(text=item, source=f"{entry.shown}:{line}", file_date=day))
            if outside:
                skipped.append(
                    Skip(
                        entry.shown,
                        f"{outside} line(s) outside `{GEMINI_SECTION}` are your own "
                        "instructions, not saved memories: not read",
                    )
                )
    drafts, left = drafts_from_facts(GEMINI, facts, options, options.known_facts)
    return drafts, skipped + left


def _section_items(text: str) -> tuple[list[tuple[int, str]], int]:
    """(line, text) of each item under the memories section, and the lines outside it."""
    lines = text.split("\n")
    start = next(
        (i for i, line in enumerate(lines) if line.strip().lower() == GEMINI_SECTION.lower()), None
    )
    if start is None:
        return [], 0
    end = next(
        (i for i in range(start + 1, len(lines)) if lines[i].startswith(("# ", "## "))),
        len(lines),
    )
    section = "\n".join(lines[start + 1 : end])
    items = [
        (start + 1 + block.line, block.text)
        for block in blocks(section)
        if block.kind in ("item", "paragraph") and block.text.strip()
    ]
    outside = sum(1 for i, line in enumerate(lines) if line.strip() and not start <= i < end)
    return items, outside
