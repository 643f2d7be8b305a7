"""The real-recall eval's prompts, read from the ADRs' own text, never through lore.

The notes the eval searches are what `lore import adr` makes of the ADRs
(eval/real_adr_import.py); the prompts are the eval's judgement, so they are read from
the files as their authors wrote them (`real_adr_texts.read_texts`: `git show` at the
manifest's commit), as the curator eval reads its labels: what is measured must not
make the prompts. This module reads an ADR just far enough for that: its sections by
heading (`#` and `##`), and the text before the first of them (`read_adr`), the way the
eval read them when its prompts were first written blind, so the prompts and their ids
stay the same (`prompt_key`).

- a *citation* is a sentence of one ADR that refers to another ("as decided in ADR-7",
  a link to its file), the reference taken out (`references`, `query_of`);
- a *consequence* is the first prose sentence of an ADR's Consequences section
  (`consequence_prompt`), whose answer is that ADR. The note the eval indexes never
  holds that section: `without_consequences` takes out of it what the import drew from
  the ADR's Consequences, should the import keep it.
"""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass

MIN_WORDS = 4  # words of three letters or more left in a query once the reference is out
MAX_WORDS = 30

_FRONTMATTER = re.compile(r"\A---\n(.*?)\n---\n", re.DOTALL)
_HEADING = re.compile(r"^(#{1,6})[ \t]+(.*?)[ \t#]*$", re.MULTILINE)
_DATE = re.compile(r"\b(20\d\d|19\d\d)[-/](\d\d)[-/](\d\d)\b")
_BLOCK_SCALAR = ("|", ">", "|-", ">-", "|+", ">+")
_NUMBERING = re.compile(
    r"^(?:architecture decision record\s*[:\-–—]\s*)?"
    r"(?:(?:ADR|AD)[-_ ]?\d+[a-z]?\s*[:.\-–—]?\s*|\d+[a-z]?\.?\s+|n\.\s*)?",
    re.IGNORECASE,
)
_LATER_MARK = re.compile(r"^(?:OUTDATED|SUPERSEDED|DEPRECATED)\b[\s:–—-]*")
_LATER_STATUS = re.compile(
    r"\b(?:supersede[ds]|supercede[ds]|superceeded|deprecated|amended|replaced)\b[^.\n]{0,30}?"
    r"\b(?:by|in favou?r of)\b",
    re.IGNORECASE,
)
_META_LINE = re.compile(
    r"^\s*(?:[*_]*(?:status|date|deciders|author|authors|technical story|replaces|supersedes|"
    r"amends|introduced|tags)[*_]*\s*:|\|)",
    re.IGNORECASE,
)
_LINK = re.compile(r"!?\[([^\]\n]*)\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
_NUMBERED = re.compile(
    r"\b(?:ADR|AD|decision(?: record)?|record)[-_ #]?0*(\d{1,4})\b(?:[a-z])?", re.IGNORECASE
)
_URL = re.compile(r"<?https?://\S+>?")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z(\[])|\n\s*\n|\n\s*[-*+]\s+|\n(?=#)")
_WORD = re.compile(r"[^\W\d_][\w'-]*")
_MARKUP = re.compile(r"[`*_>|#]+")
_CONSEQUENCES = re.compile(r"^(?:positive |negative )?consequences?\b", re.IGNORECASE)
# The sections `lore import adr` could make of an ADR's Consequences.
_CONSEQUENCE_SECTIONS = re.compile(r"^##\s+(?:gotchas|consequences)\s*$", re.IGNORECASE)


@dataclass
class RawAdr:
    """An ADR file as its authors wrote it: the text before its first section, and its
    sections as (heading, text) in order."""

    file: str
    preamble: str
    sections: list[tuple[str, str]]
    meta_date: str = ""  # the frontmatter's `date:`, as written


def stem_of(file: str) -> str:
    for suffix in (".html.md", ".md", ".html"):
        file = file.removesuffix(suffix)
    return file


def number_of(file: str) -> int:
    """The first number in the file name (the one the authors cite it by), else none."""
    found = re.search(r"\d+", file)
    return int(found.group()) if found else 10**6


def prompt_key(scope: str, file: str, date: str) -> str:
    """The name a prompt's id is made from for one ADR: `scope--file-stem--date`, the id its
    note had when the eval made its own notes (before `lore import adr` made them), kept
    so the ids the blind answers name still hold. `date` is `written_date`'s (else git's):
    an identifier only, never the note's date."""
    topic = "-".join(re.findall(r"[a-z0-9]+", stem_of(file).lower()))[:70].strip("-")
    return f"{scope}--{topic}--{date}"


def _title_words(title: str) -> list[str]:
    title = re.sub(r"\s*\{#[\w-]+\}\s*$", "", re.sub(r"^\d+\)\s+", "", title.strip()))
    title = _NUMBERING.sub("", title).strip().lstrip("-–—: ").strip()
    return re.findall(r"\w+", _LATER_MARK.sub("", title).strip().lower())


def _frontmatter(lines: list[str]) -> dict[str, str]:
    """The frontmatter's `key: value` lines (a `|` or `>` block joined into one line)."""
    meta: dict[str, str] = {}
    for index, line in enumerate(lines):
        key, _, value = line.partition(":")
        value = value.strip()
        if value in _BLOCK_SCALAR:  # `title: |` and the indented lines after it
            block = []
            for more in lines[index + 1 :]:
                if more.strip() and not more[:1].isspace():
                    break
                block.append(more.strip())
            value = " ".join(" ".join(block).split())
        meta[key.strip().lower()] = value.strip("'\"")
    return meta


def read_adr(file: str, text: str) -> RawAdr:
    """The ADR's preamble and sections. The title is the first `#` heading, unless the
    frontmatter's `title:` names it otherwise (the `#` is then a section); every `#` or
    `##` heading after it starts a section."""
    text = text.replace("\r\n", "\n")
    matter = _FRONTMATTER.match(text)
    meta: dict[str, str] = {}
    if matter:
        meta = _frontmatter(matter[1].splitlines())
        text = text[matter.end() :]
    headings = list(_HEADING.finditer(text))
    title = next((h for h in headings if len(h[1]) == 1), None)
    if meta.get("title") and title and _title_words(title[2]) != _title_words(meta["title"]):
        title = None
    start = title.end() if title else 0
    cuts = [h for h in headings if h.start() >= start and h is not title and len(h[1]) <= 2]
    preamble = text[start : cuts[0].start()] if cuts else text[start:]
    sections = []
    for index, heading in enumerate(cuts):
        end = cuts[index + 1].start() if index + 1 < len(cuts) else len(text)
        sections.append((heading[2].strip(), text[heading.end() : end]))
    return RawAdr(file, preamble, sections, meta.get("date", ""))


def written_date(adr: RawAdr) -> str | None:
    """The first calendar date the ADR's text gives (its frontmatter `date`, the text
    before its first section, its first two sections): the date `prompt_key` names it by,
    with the date git first recorded the file when the text gives none."""
    head = "\n".join([adr.meta_date, adr.preamble, *(b for _, b in adr.sections[:2])])[:3000]
    for found in _DATE.finditer(head):
        try:
            return datetime.date(int(found[1]), int(found[2]), int(found[3])).isoformat()
        except ValueError:
            continue
    return None


def sentences(text: str) -> list[str]:
    """A section's sentences (and list items), as plain lines."""
    parts = (re.sub(r"^\s*[-*+]\s+", "", part) for part in _SENTENCE_END.split(text))
    return [" ".join(part.split()) for part in parts if part.strip()]


def not_prose(sentence: str) -> bool:
    """A metadata line or table row (status, date, authors), or a later-status note."""
    return bool(
        _META_LINE.match(sentence)
        or _LATER_STATUS.search(sentence)
        or "|" in sentence
        or "---" in sentence
    )


def _target_stem(target: str) -> str:
    return stem_of(target.split("#", 1)[0].rstrip("/").rsplit("/", 1)[-1])


def references(
    sentence: str, by_stem: dict[str, str], by_number: dict[int, str]
) -> list[tuple[str, str]]:
    """(note id, "link" | "number") of each sibling ADR the sentence refers to."""
    found: list[tuple[str, str]] = []
    for match in _LINK.finditer(sentence):
        other = by_stem.get(_target_stem(match[2]))
        if other:
            found.append((other, "link"))
    plain = _LINK.sub(" ", sentence)
    for match in _NUMBERED.finditer(plain):
        other = by_number.get(int(match[1]))
        if other:
            found.append((other, "number"))
    return list(dict.fromkeys(found))


def query_of(sentence: str) -> str | None:
    """The sentence with every reference taken out, or None when too little is left."""
    text = _LINK.sub(" ", sentence)
    text = _URL.sub(" ", text)
    text = _NUMBERED.sub(" ", text)
    text = _MARKUP.sub(" ", text)
    text = re.sub(r"\[\[[^\]]*\]\]|[()\[\]{}]", " ", text)
    words = text.split()
    if sum(1 for w in words if len(w) >= 3 and _WORD.fullmatch(w.strip(".,;:!?\"'"))) < MIN_WORDS:
        return None
    return " ".join(words[:MAX_WORDS])


def title_share(query: str, title: str) -> float:
    """The share of the title's words (three letters or more) the query holds."""
    wanted = {w.lower() for w in _WORD.findall(title) if len(w) >= 3}
    if not wanted:
        return 0.0
    held = {w.lower() for w in _WORD.findall(query)}
    return len(wanted & held) / len(wanted)


def consequence_sections(adr: RawAdr) -> list[str]:
    """The text of each of the ADR's Consequences sections (Positive, Negative, plain)."""
    return [body for heading, body in adr.sections if _CONSEQUENCES.match(heading)]


def consequence_prompt(adr: RawAdr) -> str | None:
    """The first prose sentence of the ADR's first Consequences section (references taken
    out), or None."""
    for body in consequence_sections(adr)[:1]:
        for sentence in sentences(body):
            if not not_prose(sentence) and (text := query_of(sentence)) is not None:
                return text
    return None


def citations(adr: RawAdr) -> list[str]:
    """The ADR's prose sentences a reference may stand in, in order; never its Status
    section ("superseded by ADR-9" records what happened later)."""
    found = []
    for heading, body in [("", adr.preamble), *adr.sections]:
        if heading.lower().startswith("status"):
            continue
        found += [s for s in sentences(body) if not not_prose(s)]
    return found


def _plain_words(text: str) -> str:
    return " ".join(re.findall(r"\w+", _LINK.sub(r"\1", text).lower()))


def without_consequences(note: str, adr: RawAdr) -> str:
    """The note's file without what the import drew from the ADR's Consequences: a
    `## Gotchas` or `## Consequences` section, and any other sentence of the body that is
    a sentence of a Consequences section (MADR's "Good, because" may join `## Why`).
    A consequence prompt is then a sentence its note does not hold."""
    matter = _FRONTMATTER.match(note)
    head, body = (note[: matter.end()], note[matter.end() :]) if matter else ("", note)
    said = {
        _plain_words(sentence)
        for text in consequence_sections(adr)
        for sentence in sentences(text)
        if len(_plain_words(sentence).split()) >= MIN_WORDS
    }
    kept: list[str] = []
    dropping = False
    for line in body.split("\n"):
        if line.startswith("## "):
            dropping = bool(_CONSEQUENCE_SECTIONS.match(line.strip()))
            kept += [] if dropping else [line]
            continue
        if dropping:
            continue
        lead = re.match(r"^\s*(?:[-*+]\s+)?", line)
        marker = lead.group() if lead else ""
        parts = sentences(line[len(marker) :])
        left = [part for part in parts if _plain_words(part) not in said]
        if len(left) == len(parts):
            kept.append(line)
        elif left:
            kept.append(marker + " ".join(left))
    return head + "\n".join(kept)
