"""The markdown an import reads: frontmatter, blocks, plain sentences — without what hides.

Sources are untrusted and their hidden parts must never reach a note, so `visible_text`
removes, before anything is split: characters that hide or steer text
(`lore.sanitize.sanitize_text`), HTML comments (closed or not), elements that hide or run
content (`hidden`, `display: none`, `<script>`, `<style>`, `<template>`…), images and
link-reference definitions; any other HTML tag loses its markup and keeps its text.

`blocks` is a small block parser for what these files hold: ATX and setext headings,
paragraphs, list items (with their depth, and whether the list is ordered), fenced code,
tables, quotes. `inline_plain` turns a block's inline markdown into the words a note
keeps (link text without its URL); `sentences` splits prose at sentence ends and
`cut_sentences` keeps whole sentences up to a number of words.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from lore.sanitize import sanitize_text
from lore.text.headings import heading
from lore.text.markdown import BULLET
from lore.text.words import count_words
from lore.yamlio import YamlProblem, load_frontmatter

_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.DOTALL)
_HIDING_ELEMENT = re.compile(
    r"<(?P<tag>[A-Za-z][A-Za-z0-9-]*)\b[^>]*?(?:\bhidden\b|display\s*:\s*none|"
    r"visibility\s*:\s*hidden|font-size\s*:\s*0|opacity\s*:\s*0)[^>]*>.*?(?:</(?P=tag)\s*>|\Z)",
    re.DOTALL | re.IGNORECASE,
)
_RUNNING_ELEMENT = re.compile(
    r"<(?P<tag>script|style|template|noscript|iframe|object|embed|svg|math)\b.*?"
    r"(?:</(?P=tag)\s*>|\Z)",
    re.DOTALL | re.IGNORECASE,
)
_IMAGE = re.compile(r"!\[(?:[^\]\\]|\\.)*\]\((?:[^()\s]|\([^()]*\))*(?:\s+\"[^\"]*\")?\)")
_HTML_IMAGE = re.compile(r"<(?:img|picture|source|video|audio)\b[^>]*>", re.IGNORECASE)
_LINK_DEFINITION = re.compile(r"^ {0,3}\[[^\]]+\]:\s*\S+.*$", re.MULTILINE)
_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9:-]*(?:\s[^<>]*)?/?>")


_CODE = re.compile(
    r"(?m)^ {0,3}(`{3,}|~{3,})[^\n]*\n.*?(?:^ {0,3}\1[ \t]*$|\Z)|(`+)(?!`).+?(?<!`)\2(?!`)",
    re.DOTALL,
)


def visible_text(text: str) -> str:
    """The text a reader sees, with everything that hides or fetches content removed.

    HTML comments go everywhere; tags, images and hiding elements go outside code (in a
    code span or block, `<Form>` is text a reader sees).
    """
    text = sanitize_text(text.replace("\r\n", "\n").replace("\r", "\n"))
    text = _COMMENT.sub("", text)
    pieces: list[str] = []
    position = 0
    for match in _CODE.finditer(text):
        pieces += [_without_markup(text[position : match.start()]), match[0]]
        position = match.end()
    pieces.append(_without_markup(text[position:]))
    return "".join(pieces)


def _without_markup(text: str) -> str:
    text = _RUNNING_ELEMENT.sub("", text)
    text = _HIDING_ELEMENT.sub("", text)
    text = _IMAGE.sub("", text)
    text = _HTML_IMAGE.sub("", text)
    text = _LINK_DEFINITION.sub("", text)
    return _TAG.sub("", text)


# ---- frontmatter ----


def split_frontmatter(text: str) -> tuple[dict[str, Any], str, str | None]:
    """(fields, body, problem): fields from a leading `---` block, read with lore's safe YAML.

    A file without frontmatter has no fields; unreadable YAML gives a problem sentence
    (naming the line) and no fields.
    """
    lines = text.split("\n")
    if not lines or lines[0].strip() != "---":
        return {}, text, None
    for index in range(1, len(lines)):
        if lines[index].strip() in ("---", "..."):
            yaml_text = "\n".join(lines[1:index]) + "\n"
            body = "\n".join(lines[index + 1 :])
            try:
                data = load_frontmatter(yaml_text)
            except YamlProblem as exc:
                where = f" (line {exc.line + 1})" if exc.line else ""
                return {}, body, f"its frontmatter cannot be read{where}: {exc.message}"
            return (data if isinstance(data, dict) else {}), body, None
    return {}, text, None


def field_text(value: Any) -> str:
    """A frontmatter value as one line of text (lists joined by commas)."""
    if value is None:
        return ""
    if isinstance(value, list):
        return ", ".join(field_text(item) for item in value)
    return " ".join(str(value).split())


# ---- blocks ----

_FENCE = re.compile(r"^( {0,3})(`{3,}|~{3,})")
_ITEM = BULLET  # a list item: indent, marker, text
_BREAK = re.compile(r"^ {0,3}(?:(?:-[ \t]*){3,}|(?:\*[ \t]*){3,}|(?:_[ \t]*){3,})$")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)*\|?\s*$")


@dataclass
class Block:
    kind: str  # heading, paragraph, item, code, table, quote
    text: str
    line: int  # 1-based, in the text given to `blocks`
    level: int = 0  # heading level; item depth (0 = top level)
    ordered: bool = False  # an item of a numbered list
    children: list[Block] = field(default_factory=list)  # an item's nested items


def _indent(text: str) -> int:
    return len(text.expandtabs(4)) - len(text.expandtabs(4).lstrip())


def blocks(text: str) -> list[Block]:
    """The blocks of `text`, top to bottom; nested list items hang off their parent."""
    lines = text.split("\n")
    found: list[Block] = []
    stack: list[tuple[int, Block]] = []  # (indent, item) of the open list items
    index = 0
    while index < len(lines):
        line = lines[index]
        stripped = line.strip()
        number = index + 1
        if not stripped:
            index += 1
            continue
        fence = _FENCE.match(line)
        if fence:
            marker = fence[2]
            body = []
            index += 1
            while index < len(lines) and not lines[index].strip().startswith(marker):
                body.append(lines[index])
                index += 1
            index += 1
            _add(found, stack, Block("code", "\n".join(body), number), _indent(line))
            continue
        title = heading(line)
        if title:
            stack.clear()
            found.append(Block("heading", title[1], number, title[0]))
            index += 1
            continue
        if _BREAK.match(line):
            stack.clear()
            index += 1
            continue
        if (
            stripped.startswith("|")
            and index + 1 < len(lines)
            and _TABLE_RULE.match(lines[index + 1])
        ):
            rows = []
            while index < len(lines) and lines[index].strip().startswith("|"):
                rows.append(lines[index])
                index += 1
            _add(found, stack, Block("table", "\n".join(rows), number), _indent(line))
            continue
        item = _ITEM.match(line)
        if item:
            indent = _indent(item["indent"])
            text_lines = [item["text"]]
            index += 1
            while index < len(lines) and lines[index].strip() and not _starts_block(lines[index]):
                text_lines.append(lines[index].strip())
                index += 1
            block = Block("item", " ".join(text_lines).strip(), number)
            block.ordered = item["marker"][0].isdigit()
            while stack and stack[-1][0] >= indent:
                stack.pop()
            if stack:
                parent = stack[-1][1]
                block.level = parent.level + 1
                parent.children.append(block)
            else:
                found.append(block)
            stack.append((indent, block))
            continue
        # A paragraph (or a quote): lines up to a blank line or the start of another block.
        para = [stripped]
        index += 1
        while index < len(lines) and lines[index].strip() and not _starts_block(lines[index]):
            nxt = lines[index].strip()
            if re.fullmatch(r"=+|-+", nxt):  # setext heading underline
                break
            para.append(nxt)
            index += 1
        if index < len(lines) and re.fullmatch(r"=+|-+", lines[index].strip()) and len(para) == 1:
            level = 1 if lines[index].strip().startswith("=") else 2
            stack.clear()
            found.append(Block("heading", para[0], number, level))
            index += 1
            continue
        kind = "quote" if stripped.startswith(">") else "paragraph"
        joined = (
            " ".join(p.lstrip(">").strip() for p in para) if kind == "quote" else " ".join(para)
        )
        block = Block(kind, joined, number)
        if stack and _indent(line) > stack[-1][0]:
            stack[-1][1].children.append(block)  # a paragraph inside a list item
        else:
            stack.clear()
            found.append(block)
    return found


def _add(found: list[Block], stack: list[tuple[int, Block]], block: Block, indent: int) -> None:
    while stack and stack[-1][0] >= indent:
        stack.pop()
    if stack:
        stack[-1][1].children.append(block)
    else:
        found.append(block)


def _starts_block(line: str) -> bool:
    return bool(
        _ITEM.match(line)
        or heading(line)
        or _FENCE.match(line)
        or _BREAK.match(line)
        or line.lstrip().startswith("|")
    )


# ---- inline text and sentences ----

_LINK = re.compile(
    r"\[((?:[^\[\]\\]|\\.|\[[^\[\]]*\])*)\]\((?:[^()\s]|\([^()]*\))*(?:\s+\"[^\"]*\")?\)"
)
_REF_LINK = re.compile(r"\[([^\[\]]+)\]\[[^\[\]]*\]")
_AUTOLINK = re.compile(r"<((?:https?|mailto):[^\s<>]+)>")
_EMPHASIS = re.compile(
    r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1|(?<![\w*])([*_])(?=\S)(.+?)(?<=\S)\3(?![\w*])"
)


def inline_plain(text: str, *, emphasis: bool = True) -> str:
    """A block's inline markdown as plain words: link text without its URL, one line.

    Code spans stay as they are; `emphasis=False` also drops `*`/`_` emphasis (titles).
    """
    text = _LINK.sub(lambda m: m[1], text)
    text = _REF_LINK.sub(lambda m: m[1], text)
    text = _AUTOLINK.sub(lambda m: m[1], text)
    if not emphasis:
        text = _EMPHASIS.sub(lambda m: m[2] if m[2] is not None else m[4], text)
    return " ".join(text.split())


_ABBREVIATIONS = frozenset(
    [
        "e.g",
        "i.e",
        "etc",
        "vs",
        "cf",
        "al",
        "approx",
        "fig",
        "no",
        "nr",
        "incl",
        "esp",
        "resp",
        "mr",
        "mrs",
        "ms",
        "dr",
        "st",
        "jr",
        "sr",
        "inc",
        "ltd",
        "co",
    ]
)
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[\"'(\[`*_]?[A-Z0-9])")


def sentences(text: str) -> list[str]:
    """`text` split at sentence ends (not after e.g., i.e., etc. or a version like 1.2)."""
    text = " ".join(text.split())
    if not text:
        return []
    found: list[str] = []
    start = 0
    for match in _SENTENCE_END.finditer(text):
        piece = text[start : match.start()]
        last = piece.rsplit(" ", 1)[-1].lower().rstrip(".!?").strip("(\"'")
        if last in _ABBREVIATIONS or (len(last) == 1 and last.isalpha()):
            continue
        found.append(text[start : match.end()].strip())
        start = match.end()
    found.append(text[start:].strip())
    return [s for s in found if s]


def word_count(text: str) -> int:
    return count_words(text)


def cut_sentences(parts: list[str], max_words: int) -> list[str]:
    """Whole sentences from `parts` (in order) while they fit in `max_words`; at least one.

    A first sentence longer than the limit is cut at a word and ends with "…".
    """
    kept: list[str] = []
    used = 0
    for sentence in parts:
        words = word_count(sentence)
        if kept and used + words > max_words:
            break
        if not kept and words > max_words:
            return [_cut_words(sentence, max_words)]
        kept.append(sentence)
        used += words
    return kept


def _cut_words(text: str, max_words: int) -> str:
    pieces = text.split()
    return " ".join(pieces[:max_words]).rstrip(",;:") + "…"


def cut_title(text: str, limit: int = 120) -> str:
    """A one-line title of at most `limit` characters, cut at a word when it is longer.

    A title is a frontmatter field, where even a code span is no code: an angle-bracketed
    word ("`<marquee>`", "`List<String>`") would read as raw HTML, so its brackets become
    ‹ and ›, as the curator itself prints them.
    """
    text = " ".join(text.split()).rstrip(":").replace("<", "‹").replace(">", "›")
    if text.endswith(".") and not text.endswith(".."):
        text = text[:-1]
    if len(text) <= limit:
        return text
    cut = text[: limit - 1].rsplit(" ", 1)[0].rstrip(",;:-–— ")
    return cut + "…"
