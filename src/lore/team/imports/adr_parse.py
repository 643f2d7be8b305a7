"""One Architecture Decision Record, read from the formats teams use.

- Michael Nygard's and adr-tools': `# 12. Title`, a `Date:` line, `## Status`, `## Context`,
  `## Decision`, `## Consequences`; adr-tools writes links in the status section
  ("Supercedes [1. …](0001-….md)", "Superceded by …", "Amends …", "Amended by …").
- MADR 2: `* Status:`, `* Deciders:`, `* Date:` lines under the title; MADR 3 and 4: the
  same in YAML frontmatter (`status`, `date`, `deciders`, `decision-makers`); sections
  "Context and Problem Statement", "Considered Options", "Decision Outcome".
- log4brains: MADR 2's shape with `- Status:`/`- Date:`/`- Tags:` and a `## Links`
  section ("Supersedes [20201028-…](20201028-….md)"); file names start with the date.
- Metadata also as `**Status:** Accepted` or a `| Status | Accepted |` table row.

`parse_adr` returns an `AdrRecord` or the sentence that says why the file is not one
(a template, an index page, no decision). The decision is the Decision (or Decision
Outcome) section; a record that has none but a Design, Approach or Solution Overview
section (design-record sets such as NATS's) is read from that. The title is the
frontmatter's `title:` where there is one (sites that render the folder put it there, and
a first `#` is then a section), else the first `#` heading; it loses its numbering
("12. ", "ADR-0012: "); the date comes from the frontmatter, a `Date:` line,
the status line ("Accepted on 2019-05-02") or the file name, in that order, or stays unknown. Links
to other ADRs are collected from the status and links sections and from any sentence
of the body that names one explicitly (a link to a `.md` file, or "ADR 5"):
"superseded by", "replaced by" (the other ADR is newer) and "supersedes", "replaces",
"we supersede" (this one is); "partly"/"in part" superseded, "amends", "amended by",
"clarifies", "refines", "extends", "relates to" are related links only. A status of
"Partly superseded" makes every supersession it names partial.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from lore.team.imports.adr_links import FIELDS, AdrLink, record_links
from lore.team.imports.markdown import (
    Block,
    blocks,
    cut_title,
    field_text,
    inline_plain,
    sentences,
    split_frontmatter,
    visible_text,
)
from lore.text.words import tokens

STATUSES = ("accepted", "proposed", "rejected", "deprecated", "superseded")
_STATUS_WORDS = {
    "accepted": "accepted", "approved": "accepted", "adopted": "accepted", "agreed": "accepted",
    "decided": "accepted", "done": "accepted", "implemented": "accepted", "active": "accepted",
    "final": "accepted", "partly": "accepted", "partially": "accepted", "amended": "accepted",
    "proposed": "proposed", "draft": "proposed", "drafted": "proposed", "review": "proposed",
    "pending": "proposed", "open": "proposed", "wip": "proposed", "discussion": "proposed",
    "rfc": "proposed", "planned": "proposed", "suggested": "proposed", "in": "proposed",
    "rejected": "rejected", "declined": "rejected", "abandoned": "rejected",
    "withdrawn": "rejected", "deprecated": "deprecated", "obsolete": "deprecated",
    "retired": "deprecated", "superseded": "superseded", "superceded": "superseded",
    "superceeded": "superseded", "superseeded": "superseded",
    "replaced": "superseded", "obsoleted": "superseded",
}  # fmt: skip
_ROLES = {
    "status": "status",
    "context": "context", "context and problem statement": "context",
    "problem statement": "context",
    "background": "context", "problem": "context", "the problem": "context",
    "context and problem": "context", "motivation": "context", "rationale": "rationale",
    "decision": "decision", "decision outcome": "decision", "outcome": "decision",
    "the decision": "decision", "resolution": "decision", "chosen option": "decision",
    "decisions": "decision", "solution": "decision", "proposal": "decision",
    "design": "design", "basic design": "design", "solution overview": "design",
    "approach": "design", "specification": "design", "proposed solution": "design",
    "consequences": "consequences", "links": "links", "related decisions": "links",
    "deprecation reason": "deprecation", "deprecation": "deprecation",
    "related": "links", "related adrs": "links", "see also": "links",
}  # fmt: skip
# A heading's role by its first words, when it is not one of the names above: the
# decision under another name ("Decision: two datasets", "Decision Outcome - Data
# Traffic", "Chosen Decision", "What's proposed"), a design, a summary of the record
# ("Abstract", "Overview", "Introduction"), the forces behind it, its consequences.
_ROLE_STARTS = (
    ("decision", r"(?:the |our |final |proposed )?decisions?(?! drivers?| makers?| criteria)"
     r"|decision outcomes?|considered options and decision|chosen (?:option|decision|approach)"
     r"|resolution|outcome|what s proposed|whats proposed|what we (?:decided|will do)"
     r"|recommendation|conclusion"),
    ("design", r"(?:detailed |proposed |high level |technical )?design|approach|proposed solution"
     r"|solution|proposal|specification"),
    ("summary", r"abstract|summary|overview|introduction|tl ?dr"),
    ("context", r"context|background|motivation|problem|why\b|goals?\b"),
    ("consequences", r"(?:positive |negative |neutral )?consequences?|implications|trade ?offs"
     r"|pros and cons of the decision"),
)  # fmt: skip
_ROLE_START = [(role, re.compile(rf"^(?:{pattern})\b")) for role, pattern in _ROLE_STARTS]
_STOP_SUBSECTION = re.compile(r"confirmation|pros\b|cons\b|more information|validation")
_GOOD = re.compile(r"^\s*(?:good|pro|positive|benefit)s?\b[,:]?\s*(?:because\b)?\s*", re.I)
_BAD = re.compile(r"^\s*(?:bad|con|negative|drawback|risk)s?\b[,:]?\s*(?:because\b)?\s*", re.I)
_META = re.compile(
    r"^\s*(?:[-*+]\s+)?\**(?P<key>status|date|deciders|decision[- ]makers|tags|technical story|"
    r"authors?|title|supersedes|superseded[ _-]by|replaces|replaced[ _-]by|amends|"
    r"amended[ _-]by|supplements|supplemented[ _-]by)\**\s*:\s*\**\s*(?P<value>.*?)\s*$",
    re.IGNORECASE,
)
_META_ROW = re.compile(r"^\s*\|\s*\**(status|date)\**\s*\|\s*(.*?)\s*\|", re.IGNORECASE)
_NUMBERED = re.compile(
    r"^\s*\[?(?:(?:adr|rfc|ad|decision|record)[\s_#-]*#?(?P<a>\d{1,5})[a-z]?\]?\s*[.:)\-–—]*\s*"
    r"|#?(?P<b>\d{1,5})[a-z]?\s*(?:[.:)]|\s[-–—])\s*|(?P<c>0\d{1,4})\s+)",
    re.IGNORECASE,
)
_PLACEHOLDER = re.compile(
    r"^\s*[\[{].*[\]}]\s*$|short title|^\s*number\.? title|^\s*title\s*$", re.I
)
_STATUS_PLACEHOLDER = re.compile(r"[\[{]\s*(?:draft\s*\|\s*)?proposed\s*\|", re.IGNORECASE)
_DATE_PREFIX = re.compile(r"^(\d{4})-?(\d{2})-?(\d{2})[-_]")
_NUMBER_PREFIX = re.compile(r"^(?:adr[-_]?)?(\d{1,5})[-_.]", re.IGNORECASE)
_ISO = re.compile(r"(?<!\d)(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?!\d)")
_WORDY_DATES = ("%d %B %Y", "%d %b %Y", "%B %d %Y", "%b %d %Y")


@dataclass
class AdrRecord:
    title: str
    number: int | None
    status: str  # one of STATUSES, or "" when the ADR gives none
    status_text: str
    date: str | None
    date_from: str
    decision: list[Block]
    context: list[Block]
    links: list[AdrLink] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)
    partial: bool = False  # "Partly superseded": its supersessions are related links
    decision_from: str = ""  # where `decision` came from, when it is not a Decision section
    consequences: list[Block] = field(default_factory=list)  # Nygard's, MADR's ### Consequences
    benefits: list[Block] = field(default_factory=list)  # MADR 2's Positive Consequences
    drawbacks: list[Block] = field(default_factory=list)  # MADR 2's Negative Consequences
    notes: list[str] = field(default_factory=list)  # what the reader should know of the file


def parse_adr(text: str, filename: str, folder: str | None = None) -> AdrRecord | str:
    """The ADR in `text` (named `filename`, in its own `folder` for one-folder layouts), or
    why it is not one."""
    if _is_template_name(folder or filename):
        return "a template (its name says so), not a decision"
    text = text.replace("\r\n", "\n")
    fields, body, problem = split_frontmatter(text)
    unreadable = ""
    if problem:  # "title: ADR-001: Rack App Naming" is no YAML, but a reader sees its fields
        unreadable = problem
        fields = _listed_fields(text[: len(text) - len(body)])
    elif not fields and body != text:  # a `---` block of `- key: value` lines
        fields = _listed_fields(text[: len(text) - len(body)])
    body = visible_text(body)
    found = blocks(body)
    title_block = next((b for b in found if b.kind == "heading"), None)
    meta = _metadata(found, fields)
    # A `title:` in the front matter is the page's title where a site renders the folder
    # (Jekyll, Docusaurus): the first `#` after it is then a section, such as "Abstract".
    raw_title = (
        field_text(fields.get("title"))
        or (title_block.text if title_block is not None and title_block.level == 1 else "")
        or meta.get("title")
        or _title_from_name(folder or filename)
    )
    if _PLACEHOLDER.search(raw_title) or _STATUS_PLACEHOLDER.search(meta.get("status", "")):
        return "a template (its title or status is a placeholder), not a decision"
    number, title = _strip_number(undecorated(inline_plain(raw_title, emphasis=False)))
    title = undecorated(title)
    if number is None:
        number = _number_from_name(folder or filename)
    title = cut_title(title or _title_from_name(folder or filename))
    sections = _sections(found)
    status_text = meta.get("status") or _text_of(sections.get("status", []))
    status_text = re.sub(r"~~.*?~~", "", status_text).strip()  # a status struck out is gone
    decision, decision_from = _decision(sections, found, title)
    if not decision:
        return "no text to make a note of: no section holds a paragraph or a list"
    record = AdrRecord(
        title=title,
        number=number,
        status=_status(status_text),
        status_text=status_text,
        date=None,
        date_from="",
        decision=decision,
        context=sections.get("context") or sections.get("rationale") or [],
        tags=[t for t in re.split(r"[,\s]+", meta.get("tags", "")) if t],
        decision_from=decision_from,
        consequences=sections.get("consequences", []),
        benefits=sections.get("benefits", []),
        drawbacks=sections.get("drawbacks", []),
    )
    if unreadable:
        record.notes.append(f"{unreadable}: its fields were read line by line")
    record.partial = bool(re.search(r"\b(?:partly|partially|in part)\b", status_text, re.I))
    record.date, record.date_from = _date(fields, meta, status_text, folder or filename)
    listed = {id(b) for name in ("status", "links") for b in sections.get(name, [])}
    record.links = record_links(
        status_text,
        _text_of(sections.get("links", [])),
        (
            line
            for block in found
            if id(block) not in listed and block.kind != "code"
            for line in (_lines_of(block) if block.kind != "heading" else [block.text])
        ),
        {**fields, **{k: v for k, v in meta.items() if k in FIELDS}},
        _text_of(sections.get("deprecation", [])),
    )
    return record


def _listed_fields(head: str) -> dict[str, Any]:
    """Metadata read line by line (`key: value`, split at the first colon; `- key: value`):
    a `---` block that is not a YAML mapping, or not YAML at all."""
    found: dict[str, Any] = {}
    for line in head.split("\n"):
        match = re.match(r"^\s*(?:[-*+]\s+)?([A-Za-z][\w -]{0,40}?)\s*:\s*(.*?)\s*$", line)
        if match and match[2] and line.strip() != "---":
            found.setdefault(match[1].strip().lower(), match[2].strip().strip("\"'"))
    return found


_TEMPLATE_WORDS = frozenset(
    {"template", "adr", "madr", "decision", "record", "records", "architecture", "nnnn", "xxxx",
     "tmpl", "short", "title", "lightweight", "nygard", "new", "example", "sample"}
)  # fmt: skip


def _is_template_name(name: str) -> bool:
    """A template's file is named only for being one: `template.md`, `adr-template.md`,
    `0000-TEMPLATE.md`, `NNNN-adr-template.md`, `template-madr.md` — not a record about
    templates (`0010-django-templates.md`, `0002-use-adr-tools-with-custom-template.md`)."""
    stem = re.sub(r"\.(?:md|markdown)$", "", name, flags=re.IGNORECASE)
    words = [w for w in re.split(r"[-_ .]+", stem.lower()) if w]
    number = next((w for w in words if w.isdigit()), None)
    words = [w for w in words if not w.isdigit()]
    if number is not None and int(number) != 0:
        return False  # a numbered record
    return "template" in words and set(words) <= _TEMPLATE_WORDS


def _decision(
    sections: dict[str, list[Block]], found: list[Block], title: str
) -> tuple[list[Block], str]:
    """The blocks that say what was decided, and where they came from ("" for a Decision
    or Design section). A record without one is read as its author wrote it: its summary
    (Abstract, Overview, Introduction), else its title when it states a decision ("Use
    Django REST framework for the API", a record of Context and Consequences only), else
    its first section of prose, else its opening paragraph."""
    for name in ("decision", "design"):
        if _has_prose(sections.get(name, [])):
            return sections[name], ""
    if _has_prose(sections.get("summary", [])):
        return sections["summary"], "its summary (no Decision section)"
    if title and _DECIDES.match(title):
        return [Block("paragraph", title.rstrip(".") + ".", 0)], "its title (no Decision section)"
    parts: list[tuple[str, str, list[Block]]] = [("opening", "", [])]  # (role, heading, blocks)
    titled = False
    for block in found:
        if block.kind == "heading":
            if block.level == 1 and not titled:
                titled = True
                continue
            heading = inline_plain(block.text, emphasis=False)
            role = _role(" ".join(re.sub(r"[^a-z ]+", " ", heading.lower()).split())) or "other"
            parts.append((role, heading, []))
            continue
        parts[-1][2].append(block)
    for kind, where in (("other", "its first section, '{}'"), ("context", "its {} section")):
        for role, heading, blocks_of in parts:
            if role == kind and _has_prose(blocks_of):
                return blocks_of, where.format(heading) + " (no Decision section)"
    opening = [b for b in parts[0][2] if not _META.match(b.text)]
    if _has_prose(opening):
        return opening, "its opening paragraph (no Decision section)"
    return [], ""


def _has_prose(found: list[Block]) -> bool:
    return any(b.kind in ("paragraph", "item", "quote") and b.text.strip() for b in found)


_DECIDES = re.compile(
    r"^(?:use|using|adopt|move|switch|replace|remove|introduce|migrate|deploy|store|run|keep"
    r"|support|prefer|record|publish|build|host|require|enable|disable|standardi[sz]e|implement"
    r"|create|define|deprecate|retire|drop|limit|allow|separate|split|consolidate|accept|add"
    r"|choose|pin|give|serve|send|stop|start|do not|don'?t|never|always|no|only|make|treat|"
    r"rely on|manage|follow|write|expose|track|validate|throw|fetch|assign|capture)\b",
    re.IGNORECASE,
)
# What a title carries that is not its name: a label before it ("Architecture Decision
# Record: ", "Decision record: ", "ADR: "), an anchor ("{#adr_0011}"), a status put in
# later ("OUTDATED", "[Superseded by ADR-0012]", "(deprecated)"), strike-through, quotes.
_TITLE_LABEL = re.compile(
    r"^(?:architectur(?:e|al) decision record|decision record|adr|add)\s*[:\-–—]\s*", re.I
)
_TITLE_SUFFIX = re.compile(r"\s+(?:architectur(?:e|al) )?decision record$", re.I)
_ANCHOR = re.compile(r"\s*\{#[^}]*\}")
_STATUS_NOTE = re.compile(
    r"\s*[\[(][^\])]*\b(?:supers?ee?[cd]ed|deprecated|obsolete|outdated|replaced|rejected"
    r"|withdrawn|accepted|proposed|draft|wip|amended)\b[^\])]*[\])]",
    re.I,
)
_STATUS_LEAD = re.compile(
    r"^(?:OUTDATED|SUPERSEDED|DEPRECATED|OBSOLETE|REJECTED|DRAFT|WIP)\b[\s:–—-]*"
)  # in capitals: a mark put in front; "Deprecated TLS Versions" is a title
_STATUS_LABEL = re.compile(
    r"^(?:outdated|superseded|deprecated|obsolete|rejected|draft|wip)\s*[:–—-]\s*", re.I
)
_STATUS_TAIL = re.compile(
    r"\s*[:–—-]\s*(?:outdated|superseded|deprecated|obsolete|rejected)"
    r"(?:\s+(?:by|in favou?r of)\b.*)?\s*$",
    re.I,
)


def undecorated(title: str) -> str:
    """The record's name without what was put around it (see the comment above)."""
    text = title.replace("~~", "").strip().strip("\"'“”")
    text = re.sub(r"^[^\w`\[(]+", "", text)  # a status emoji in front
    for _ in range(2):
        text = _ANCHOR.sub("", text)
        text = _STATUS_NOTE.sub("", text)
        text = _TITLE_LABEL.sub("", text)
        text = _STATUS_LEAD.sub("", text)
        text = _STATUS_LABEL.sub("", text)
        text = _STATUS_TAIL.sub("", text)
        text = _TITLE_SUFFIX.sub("", text).strip()
    return text or title.strip()


def _metadata(found: list[Block], fields: dict[str, Any]) -> dict[str, str]:
    """`Status:`/`Date:`/… from the frontmatter, the lines before the first `##`, or a table."""
    meta = {key.lower(): field_text(value) for key, value in fields.items()}
    if "decision-makers" in meta and "deciders" not in meta:
        meta["deciders"] = meta["decision-makers"]
    for block in found:
        if block.kind == "heading" and block.level >= 2:
            break
        for line in _lines_of(block):
            match = _META.match(line)
            if match and match["value"]:
                key, value = match["key"].lower(), match["value"].strip("* ")
                meta.setdefault(key, value if key == "status" else inline_plain(value))
            row = _META_ROW.match(line)
            if row and row[2]:
                meta.setdefault(row[1].lower(), inline_plain(row[2]))
    return meta


def _lines_of(block: Block) -> list[str]:
    if block.kind == "table":
        return block.text.split("\n")
    if block.kind == "item":
        return [block.text, *(line for child in block.children for line in _lines_of(child))]
    if block.kind in ("paragraph", "quote"):
        # A paragraph of `Key: value` lines was joined with spaces: split it again.
        return re.split(
            r"\s+(?=\**(?:status|date|deciders|tags|technical story)\**\s*:)",
            block.text,
            flags=re.I,
        )
    return []


def _sections(found: list[Block]) -> dict[str, list[Block]]:
    """The blocks under each heading with a role (up to the next heading of that level or
    above). A record's first `#` heading is its title; a later `#` is a section, as some
    teams write them. Under the decision, `### Consequences` (MADR) collects its "Good,
    because" and "Bad, because" items; "Positive"/"Negative Consequences" say which."""
    sections: dict[str, list[Block]] = {}
    current: str | None = None
    level = 0  # the current section's heading level
    titled = False
    for block in found:
        if block.kind == "heading":
            if block.level == 1 and not titled:
                titled, current = True, None
                continue
            name = re.sub(r"^[\d.\s]+", "", inline_plain(block.text, emphasis=False).lower())
            name = " ".join(re.sub(r"[^a-z ]+", " ", name).split("(")[0].split())
            role = _role(name)
            if role == "consequences":
                role = "benefits" if name.startswith("positive") else role
                role = "drawbacks" if name.startswith("negative") else role
            if current is not None and block.level > level:  # a subsection of `current`
                if _STOP_SUBSECTION.search(name):
                    current = None
                elif role is not None and role != current and role not in sections:
                    current, level = role, block.level
                    sections[role] = []
                continue  # "### Solution" under "## Decision": still the decision
            if current is not None or block.level <= 2 or role is not None:
                current = role if role not in sections else None  # a sibling ends it
                level = block.level
                if current is not None:
                    sections[current] = []
            continue
        if current is not None:
            sections[current].append(block)
    return sections


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def _role(name: str) -> str | None:
    if name in _ROLES:
        return _ROLES[name]
    return next((role for role, pattern in _ROLE_START if pattern.match(name)), None)


def consequences(record: AdrRecord) -> tuple[list[Block], list[Block]]:
    """(what speaks for the decision, what it costs): MADR's "Good, because" items and
    Positive Consequences, then its "Bad, because" items, Negative Consequences and a plain
    Consequences section (Nygard's: what becomes harder or easier)."""
    good = list(record.benefits)
    bad = list(record.drawbacks)
    for block in record.consequences:
        if block.kind == "item" and _GOOD.match(block.text):
            good.append(Block(block.kind, _capital(_GOOD.sub("", block.text, 1)), block.line))
        elif block.kind == "item" and _BAD.match(block.text):
            bad.append(Block(block.kind, _capital(_BAD.sub("", block.text, 1)), block.line))
        else:
            bad.append(block)
    return good, bad


def _text_of(found: list[Block]) -> str:
    return "\n".join(line for block in found for line in _lines_of(block) if line.strip())


def _status(text: str) -> str:
    words = [w for w in tokens(inline_plain(text, emphasis=False)) if w.isalpha()]
    for word in words[:3]:
        if word in _STATUS_WORDS:
            status = _STATUS_WORDS[word]
            if word in ("partly", "partially"):
                return "accepted"
            return status
    return ""


def _strip_number(title: str) -> tuple[int | None, str]:
    match = _NUMBERED.match(title)
    if match is None:
        return None, title.strip()
    number = match["a"] or match["b"] or match["c"]
    rest = title[match.end() :].strip()
    if not rest:
        return None, title.strip()
    return int(number), rest


def _number_from_name(name: str) -> int | None:
    if _DATE_PREFIX.match(name):
        return None
    match = _NUMBER_PREFIX.match(name)
    return int(match[1]) if match else None


def _title_from_name(name: str) -> str:
    stem = re.sub(r"\.(md|markdown)$", "", name, flags=re.IGNORECASE)
    stem = re.sub(r"^(?:\d{8}|\d{4}-\d{2}-\d{2})[-_]", "", stem)
    stem = re.sub(r"^(?:adr[-_]?)?\d+[-_.]\s*", "", stem, flags=re.IGNORECASE)
    words = re.sub(r"[-_]+", " ", stem).strip()
    return words[:1].upper() + words[1:]


def parse_date(text: str) -> str | None:
    """An unambiguous calendar date in `text` (ISO-like, or with the month's name)."""
    text = " ".join(inline_plain(text, emphasis=False).split())
    match = _ISO.search(text)
    if match:
        try:
            return date(int(match[1]), int(match[2]), int(match[3])).isoformat()
        except ValueError:
            return None
    cleaned = re.sub(r"(\d)(st|nd|rd|th)\b", r"\1", text).replace(",", "")
    for candidate in re.findall(
        r"\d{1,2} [A-Za-z]{3,9} \d{4}|[A-Za-z]{3,9} \d{1,2} \d{4}", cleaned
    ):
        for form in _WORDY_DATES:
            try:
                return datetime.strptime(candidate, form).date().isoformat()
            except ValueError:
                continue
    return None


def _date(
    fields: dict[str, Any], meta: dict[str, str], status: str, name: str
) -> tuple[str | None, str]:
    for key in ("date", "created", "accepted"):
        value = field_text(fields.get(key))
        if value and parse_date(value):
            return parse_date(value), "its frontmatter"
    if meta.get("date") and parse_date(meta["date"]):
        return parse_date(meta["date"]), "its Date line"
    if status and parse_date(status):
        return parse_date(status), "its status line"
    prefix = _DATE_PREFIX.match(name)
    if prefix:
        try:
            return date(int(prefix[1]), int(prefix[2]), int(prefix[3])).isoformat(), "its file name"
        except ValueError:
            pass
    return None, ""


__all__ = ["STATUSES", "AdrLink", "AdrRecord", "parse_adr", "parse_date", "sentences"]
