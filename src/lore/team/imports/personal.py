"""What the personal-store imports (foldcrumbs, basic-memory) share: prose and the id's scope.

A personal memory has no repository unless `--repo` names one (it is then org-wide
knowledge, `repo` left out); its id's scope is that repository, else its first tag's
name, else `memory`. Its text becomes `## What` in its own words: paragraphs and list
items, cut at sentence ends to the vault's limit, code blocks and tables left out.
"""

from __future__ import annotations

from lore.note.ids import slugify
from lore.team.imports.markdown import (
    Block,
    blocks,
    cut_sentences,
    inline_plain,
    sentences,
    word_count,
)
from lore.team.imports.model import ReadOptions


def personal_scope(options: ReadOptions, tags: list[str]) -> str:
    if options.repo:
        return options.repo
    for tag in tags:
        name = tag.rsplit("/", 1)[-1]
        if slugify(name, 3):
            return name
    return "memory"


def to_prose(markdown: str, max_words: int, *, lead: str = "") -> str:
    """The text's paragraphs and items within `max_words`; `lead` (a summary) first."""
    lines: list[str] = []
    used = 0

    def add(line: str) -> bool:
        nonlocal used
        words = word_count(line)
        if lines and used + words > max_words:
            return False
        if not lines and words > max_words:
            line = cut_sentences([line], max_words)[0]
            words = word_count(line)
        lines.append(line)
        used += words
        return True

    if lead.strip():
        add(lead.strip())

    def walk(block: Block, depth: int) -> bool:
        if block.kind in ("code", "table"):
            return True
        if block.kind == "heading":
            return True
        text = inline_plain(block.text)
        if not text:
            return True
        if block.kind == "item":
            prefix = "- " if depth == 0 else "  - "
            if not add(text if not lines else prefix + text):
                return False
            return all(walk(child, depth + 1) for child in block.children)
        for sentence in sentences(text):
            if lines and sentence.strip().lower() == lead.strip().lower():
                continue
            if not add(sentence):
                return False
        return True

    for block in blocks(markdown):
        if not walk(block, 0):
            break
    return "\n".join(lines)
