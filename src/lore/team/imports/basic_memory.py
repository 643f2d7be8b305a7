"""`lore import basic-memory DIR`: a basic-memory project, one note per entity the user keeps.

basic-memory keeps one markdown file per entity: YAML frontmatter (`title`, default the
file's name; `type`, default `note`; `tags`, a list or comma-separated; `permalink`; any
other field is the entity's metadata), free text, observations
`- [category] content #tag (context)` and relations `- relation_type [[Target]] (context)`,
found by their shape anywhere in the file (the `## Observations` and `## Relations`
headings are only a convention).

The mapping (docs/import.md has it as a table): `title` is the title; the free text
then each observation's content (its `#tags` out, its context kept) are `## What`; the
type is `type` when the vault lists it, else the one most observation categories map
to (decision; convention, rule, preference…; gotcha, issue, bug…; reference, fact,
tech…; howto, method, technique…; incident), else `reference`; person and contact
entities are skipped; `tags` and the `#tags` map to the vault's tags by name or alias;
relations named supersedes/replaces give `supersedes`, depends_on gives `depends_on`,
any other `## Related`, to entities of the import by title or permalink; `date`,
`created` or `created_at` (else the file's time) is the date. What is not kept
(`permalink`, other metadata, the categories) is said per file.

Memories are personal: the import shows each one and proposes only what the user keeps.
Files are found and read by `lore.team.imports.walk`, which follows no link.
"""

from __future__ import annotations

import re
from collections import Counter
from datetime import date
from pathlib import Path

from lore.team.imports.adr_parse import parse_date
from lore.team.imports.markdown import (
    cut_title,
    field_text,
    inline_plain,
    sentences,
    split_frontmatter,
    visible_text,
)
from lore.team.imports.model import Draft, ReadOptions, Skip
from lore.team.imports.personal import personal_scope, to_prose
from lore.team.imports.walk import Entry, Unreadable, markdown_files, read_text
from lore.text.headings import heading

_OBSERVATION = re.compile(r"^\s*[-*]\s+\[(?P<category>[^\]\[]+)\]\s+(?P<content>.+?)\s*$")
_RELATION = re.compile(
    r"^\s*[-*]\s+(?P<type>[\w-]+(?: [\w-]+){0,3})\s+\[\[(?P<target>[^\]]+)\]\]"
    r"\s*(?P<context>\(.*\))?\s*$"
)
_TAG = re.compile(r"(?<![\w&])#([\w][\w/-]*)")
_WIKILINK = re.compile(r"\[\[([^\]]+)\]\]")
CATEGORIES = {
    "decision": "decision", "decisions": "decision", "choice": "decision",
    "convention": "convention", "rule": "convention", "standard": "convention",
    "practice": "convention", "preference": "convention", "style": "convention",
    "guideline": "convention", "requirement": "convention",
    "gotcha": "gotcha", "issue": "gotcha", "problem": "gotcha", "bug": "gotcha",
    "pitfall": "gotcha", "warning": "gotcha", "caveat": "gotcha", "limitation": "gotcha",
    "fact": "reference", "tech": "reference", "technology": "reference", "reference": "reference",
    "detail": "reference", "spec": "reference", "config": "reference", "feature": "reference",
    "info": "reference", "design": "reference",
    "method": "howto", "technique": "howto", "howto": "howto", "how-to": "howto", "tip": "howto",
    "step": "howto", "approach": "howto", "process": "howto", "procedure": "howto",
    "incident": "incident", "outage": "incident", "runbook": "runbook",
}  # fmt: skip
PERSON_TYPES = frozenset({"person", "people", "contact", "user"})
STANDARD = frozenset(
    {"title", "type", "tags", "permalink", "date", "created", "created_at", "modified"}
)


def read_basic_memory(paths: list[Path], options: ReadOptions) -> tuple[list[Draft], list[Skip]]:
    skipped: list[Skip] = []
    entities: list[tuple[Draft, list[tuple[str, str]], set[str]]] = []
    for folder in paths:
        files, passed = markdown_files(folder)
        skipped += [Skip(where, reason) for where, reason in passed]
        for entry in files:
            outcome = _entity(entry, options)
            if isinstance(outcome, Skip):
                skipped.append(outcome)
            else:
                entities.append(outcome)
    names: dict[str, str] = {}  # lower-case title or permalink -> draft key
    for draft, _, aliases in entities:
        for alias in aliases:
            names.setdefault(alias, draft.key)
    for draft, relations, _ in entities:
        for kind, target in relations:
            key = names.get(target.lower().strip())
            if key is None or key == draft.key:
                draft.unmapped.append(
                    f"relation '{kind} [[{target}]]': no entity of that name in this import"
                )
            elif kind.lower().replace(" ", "_") in ("supersedes", "replaces", "obsoletes"):
                draft.supersedes.append(key)
            elif kind.lower().replace(" ", "_") in ("depends_on", "depends"):
                draft.depends_on.append(key)
            else:
                draft.related.append(key)
    return [draft for draft, _, _ in entities], skipped


def _entity(
    entry: Entry, options: ReadOptions
) -> tuple[Draft, list[tuple[str, str]], set[str]] | Skip:
    path, source = entry.path, entry.shown
    try:
        text, mtime = read_text(entry)
    except Unreadable as exc:
        return Skip(source, str(exc))
    fields, body, problem = split_frontmatter(visible_text(text))
    if problem:
        return Skip(source, problem)
    entity_type = field_text(fields.get("type")).lower() or "note"
    if entity_type in PERSON_TYPES:
        return Skip(source, f"type {entity_type}: facts about a person stay personal")
    title = field_text(fields.get("title")) or path.stem
    observations: list[tuple[str, str]] = []
    relations: list[tuple[str, str]] = []
    prose_lines: list[str] = []
    for line in body.split("\n"):
        observation = _OBSERVATION.match(line)
        relation = _RELATION.match(line)
        if observation:
            observations.append((observation["category"].strip().lower(), observation["content"]))
        elif relation:
            relations.append((relation["type"], relation["target"]))
        elif (found := heading(line)) and inline_plain(found[1]).lower() in (
            title.lower(),
            "observations",
            "relations",
        ):
            continue
        else:
            prose_lines.append(line)
    tags_given = fields.get("tags")
    own_tags = tags_given if isinstance(tags_given, list) else field_text(tags_given).split(",")
    contents: list[str] = []
    for _, content in observations:
        own_tags += _TAG.findall(content)
        contents.append(" ".join(_TAG.sub("", content).split()))
    prose = "\n".join(prose_lines)
    for target in _WIKILINK.findall(prose):
        relations.append(("links to", target))
    prose = _WIKILINK.sub(lambda m: m[1], prose)
    listing = "\n".join(f"- {content}" for content in contents)
    what = to_prose(prose + ("\n\n" + listing if listing else ""), options.max_words)
    if not what:
        return Skip(source, "the entity has no text and no observations")
    notes: list[str] = []
    lore_type = _type(entity_type, [c for c, _ in observations], options)
    if observations:
        notes.append("categories not kept: " + ", ".join(sorted({c for c, _ in observations})))
    mapped, unmapped = options.tagger.map_tags([str(t) for t in own_tags])
    if unmapped:
        notes.append("tags not in the vault's taxonomy: " + ", ".join(sorted(set(unmapped))))
    day = next(
        (
            parse_date(field_text(fields.get(k)))
            for k in ("date", "created", "created_at")
            if fields.get(k)
        ),
        None,
    )
    if day is None:
        day = date.fromtimestamp(mtime).isoformat()
        notes.append("no date in its frontmatter: dated from the file's modification time")
    extra = sorted(str(k) for k in fields if str(k) not in STANDARD)
    if fields.get("permalink"):
        extra.insert(0, "permalink")
    if extra:
        notes.append("not kept: " + ", ".join(extra))
    title_text = cut_title(inline_plain(title, emphasis=False), options.max_title)
    tags = options.tagger.suggest(title_text, what, [*options.tags, *mapped])
    draft = Draft(
        key=str(path),
        source=source,
        title=title_text,
        type=lore_type,
        what=what,
        date=day,
        confidence="medium",
        tags=tags,
        repo=[options.repo] if options.repo else [],
        scope=personal_scope(options, tags),
        unmapped=notes,
    )
    aliases = {title.lower().strip(), path.stem.lower()}
    if fields.get("permalink"):
        permalink = field_text(fields["permalink"]).lower()
        aliases |= {permalink, permalink.rsplit("/", 1)[-1]}
    return draft, relations, aliases


def _type(entity_type: str, categories: list[str], options: ReadOptions) -> str:
    allowed = options.types or frozenset(CATEGORIES.values())
    if entity_type in allowed:
        return entity_type
    votes = Counter(
        CATEGORIES[c] for c in categories if c in CATEGORIES and CATEGORIES[c] in allowed
    )
    if votes:
        return sorted(votes.items(), key=lambda kv: (-kv[1], kv[0]))[0][0]
    return "reference" if "reference" in allowed else sorted(allowed)[0]


__all__ = ["read_basic_memory", "sentences"]
