"""`lore import adr`: one decision note per Architecture Decision Record.

Folders are walked recursively by `lore.team.imports.walk` (hidden folders and
`node_modules` left out; a link is never followed, and is skipped with where it points).
A folder whose only markdown is a `README.md` (or `index.md`) is one ADR in the
one-folder-per-ADR layout; beside other ADRs, `README.md`, `index.md`, `toc.md` and
`SUMMARY.md` are index pages. Templates and index pages are skipped with a reason, and
so is:

- a *rejected* ADR: the team decided against it, and recall serves every note as what
  holds — a rejected decision would read as a current one;
- a *deprecated* ADR that nothing in the import replaces: it no longer holds (one that a
  record of the import replaces is imported, and made inactive by it);
- a *superseded* ADR whose successor is not in the import (it would be served as
  current, with nothing to make it inactive);
- an ADR with no date in the file and no record in git (lore never makes one up).

Supersession comes from either side of a pair, wherever the authors wrote it
(`adr_links`: status lines, metadata fields, deprecation notes, prose; a link by path,
number or title) and becomes `supersedes` on the newer note, which makes the older one
inactive; a status line outweighs prose, and a denied replacement is none. A pair that
either side calls partial, a record that replaces part of another, and "amends",
"supplements", "clarifies"-style links become `## Related` links. Proposed and draft
ADRs get `confidence: low`, accepted ones `high`, ADRs with no status `medium`.

The note keeps the ADR's own words, as its template meant them (`adr_parse` reads the
sections by what their headings say, `adr_body` maps them): `## What` is the decision —
Nygard's Decision, MADR's Decision Outcome with its chosen option and "because", a
Y-statement's "we decided for … to achieve …" — its first sentence standing alone;
`## Why` the context; `## Gotchas` the consequences (of MADR's, the bad ones: the good
join `## Why`). All are cut at sentence ends to fit the vault's `max_body_words`; code
blocks, tables and images are left out and the note's `source` links to the full text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from lore.team.imports.adr_body import note_body
from lore.team.imports.adr_links import AdrLink
from lore.team.imports.adr_parse import AdrRecord, parse_adr
from lore.team.imports.code_repo import CodeRepo, repo_of
from lore.team.imports.markdown import inline_plain
from lore.team.imports.model import Draft, ReadOptions, Skip
from lore.team.imports.walk import Entry, Unreadable, markdown_files, read_text
from lore.text.words import tokens

INDEX_NAMES = frozenset(
    {"readme.md", "index.md", "toc.md", "summary.md", "_sidebar.md", "contents.md"}
)
FOLDER_ADR_NAMES = ("readme.md", "index.md")
SKIPPED_DIRS = frozenset({"node_modules", "vendor", "__pycache__"})
_DATED_IN_FILE = ("its frontmatter", "its Date line")
CONFIDENCE = {"accepted": "high", "superseded": "high", "proposed": "low", "": "medium"}


@dataclass
class AdrFile:
    path: Path  # real: no link below the folder given
    folder: str | None  # the ADR's own folder name, in the one-folder-per-ADR layout
    repo: CodeRepo | None
    source: str  # as the user knows it
    entry: Entry  # how the walker reads it
    record: AdrRecord | None = None
    older: list[AdrFile] = field(default_factory=list)  # ADRs this one supersedes
    related: list[AdrFile] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    replaced: bool = False  # a newer ADR of the import supersedes it

    @property
    def key(self) -> str:
        return str(self.path)


def read_adrs(paths: list[Path], options: ReadOptions) -> tuple[list[Draft], list[Skip]]:
    """Drafts for the ADRs under `paths`, and what was skipped with the reason."""
    skipped: list[Skip] = []
    repos: dict[Path, CodeRepo] = {}
    files: list[AdrFile] = []
    seen: set[Path] = set()  # a file in two of the folders given is read once
    for start in paths:
        listed, passed = _walk(start)
        for entry, folder, reason in listed:
            if entry.path in seen:
                continue
            seen.add(entry.path)
            repo = repo_of(entry.path, options.repo, repos)
            source = repo.relative(entry.path) if repo is not None else entry.shown
            if reason:
                skipped.append(Skip(source, reason))
            else:
                files.append(AdrFile(entry.path, folder, repo, source, entry))
        for shown, reason in passed:
            skipped.append(Skip(_shown_in_repo(start, shown, options, repos), reason))
        repo = repo_of(start, options.repo, repos)
        if repo is not None:
            repo.load([start.resolve()])
    for number, adr in enumerate(files, start=1):
        if options.progress is not None and (number % 50 == 0 or number == len(files)):
            options.progress("Reading ADRs", number, len(files))
        try:
            text, _ = read_text(adr.entry)
        except Unreadable as exc:
            skipped.append(Skip(adr.source, str(exc)))
            continue
        parsed = parse_adr(text, adr.path.name, adr.folder)
        if isinstance(parsed, str):
            skipped.append(Skip(adr.source, parsed))
        else:
            adr.record = parsed
    records = [adr for adr in files if adr.record is not None]
    _link_pairs(records)
    drafts: list[Draft] = []
    for adr in sorted(records, key=_order):
        outcome = _draft(adr, options)
        if isinstance(outcome, Skip):
            skipped.append(outcome)
        else:
            drafts.append(outcome)
    keys = {draft.key for draft in drafts}
    for draft in drafts:  # links to ADRs that were skipped go nowhere
        draft.supersedes = [k for k in draft.supersedes if k in keys]
        draft.related = [k for k in draft.related if k in keys]
    return drafts, skipped


def _order(adr: AdrFile) -> tuple[str, int, str]:
    record = adr.record
    assert record is not None
    return (record.date or "9999", record.number or 0, adr.source)


# ---- which files are ADRs ----


def _walk(start: Path) -> tuple[list[tuple[Entry, str | None, str | None]], list[tuple[str, str]]]:
    """(file, its ADR folder or None, why it is skipped or None) for each markdown file, and
    the links and oddities the walk passed over (relative to `start`), with the reason."""
    markdown, passed = markdown_files(start, skip_folder=SKIPPED_DIRS)
    if not start.is_dir():
        return [(entry, None, None) for entry in markdown], passed
    by_folder: dict[str, list[Entry]] = {}
    for entry in markdown:
        by_folder.setdefault(entry.relative.rpartition("/")[0], []).append(entry)
    listed: list[tuple[Entry, str | None, str | None]] = []
    for folder, entries in sorted(by_folder.items()):
        lowered = {e.relative.rpartition("/")[2].lower(): e for e in entries}
        below = folder + "/" if folder else ""
        own_folder = set(lowered) <= set(FOLDER_ADR_NAMES) and not any(
            other != folder and other.startswith(below) for other in by_folder
        )  # (the start itself, too: `lore import adr docs/adr/0007-use-kafka/`)
        if own_folder:
            chosen = lowered.get("readme.md") or lowered["index.md"]
            name = (folder.rpartition("/")[2] if folder else start.name) or start.name
            listed.append((chosen, name, None))
            chosen_name = chosen.relative.rpartition("/")[2]
            for entry in entries:
                if entry is not chosen:
                    listed.append((entry, None, f"the folder's {chosen_name} is its ADR"))
            continue
        for entry in entries:
            if entry.relative.rpartition("/")[2].lower() in INDEX_NAMES:
                listed.append((entry, None, "an index page, not a decision"))
            else:
                listed.append((entry, None, None))
    return listed, passed


def _shown_in_repo(
    start: Path, shown: str, options: ReadOptions, repos: dict[Path, CodeRepo]
) -> str:
    """A path the walk passed over, named as the other sources are (from the repository)."""
    base = start if start.is_dir() else start.parent
    repo = repo_of(base, options.repo, repos)
    if repo is None:
        return str(base / shown) if shown != "." else str(base)
    inside = repo.relative(base)
    return f"{inside}/{shown}" if inside and shown != "." else inside or shown


# ---- supersession, from either side ----


def _link_pairs(records: list[AdrFile]) -> None:
    """Each pair's link as its records say it: a full supersession becomes `supersedes` on
    the newer note (the older is inactive); a partial one, or an amendment, a Related link.
    What a status line or a field states outweighs what a sentence of prose implies, so
    "Superseded by [ADR-0038]" in one status line stands against "supersedes that
    description in ADR-0015" in the other's prose; two records that each say the other
    replaced it are only related."""
    by_path = {adr.path: adr for adr in records}
    full: dict[tuple[int, int], tuple[AdrFile, AdrFile, bool]] = {}  # (older, newer) by id()
    partial: dict[frozenset[int], bool] = {}  # pair -> stated
    related: dict[frozenset[int], tuple[AdrFile, AdrFile]] = {}
    for adr in records:
        record = adr.record
        assert record is not None
        for link in record.links:
            other = _resolve(adr, link, records, by_path)
            if other is None:
                adr.notes.append(
                    f"'{link.wording} {link.text or link.target}' names no ADR in this import"
                )
                continue
            if other is adr:
                continue
            pair = frozenset((id(adr), id(other)))
            if link.kind == "related" or record.partial:
                if "superse" in link.wording.lower() or "replac" in link.wording.lower():
                    partial[pair] = partial.get(pair, False) or link.stated
                related.setdefault(pair, (adr, other))
                continue
            key = (id(adr), id(other)) if link.kind == "superseded-by" else (id(other), id(adr))
            older, newer = (adr, other) if link.kind == "superseded-by" else (other, adr)
            stated = link.stated or (key in full and full[key][2])
            full[key] = (older, newer, stated)
    for key, (older, newer, stated) in full.items():
        pair = frozenset(key)
        if (key[1], key[0]) in full:
            older.notes.append(
                f"it and {newer.source} each say the other replaced it: linked as related"
            )
            related.setdefault(pair, (older, newer))
            continue
        if pair in partial and (partial[pair] or not stated):
            related.setdefault(pair, (older, newer))
            continue
        newer.older.append(older)
        older.replaced = True
        related.pop(pair, None)
    for first, second in related.values():
        first.related.append(second)


def _resolve(
    adr: AdrFile, link: AdrLink, records: list[AdrFile], by_path: dict[Path, AdrFile]
) -> AdrFile | None:
    base = adr.path.parent.parent if adr.folder else adr.path.parent
    if link.target:
        target = link.target.split("#", 1)[0]
        candidate = (adr.path.parent / target).resolve()
        if candidate in by_path:
            return by_path[candidate]
        for name in FOLDER_ADR_NAMES:  # a link to a one-folder ADR
            for folder_file in (candidate / name, candidate / name.upper().replace(".MD", ".md")):
                if folder_file in by_path:
                    return by_path[folder_file]
        stem = _stem(Path(target).name)
        for other in records:
            if _stem(other.path.name) == stem or (other.folder or "").lower() == stem:
                return other
    number = link.number if link.number is not None else _number_in_target(link.target)
    if number is not None:
        numbered = [o for o in records if o.record is not None and _number_of(o) == number]
        named = _slug_words(link.target)
        if named:  # a link to `0016-compliance-documentation.md`, a file no longer there:
            numbered = [o for o in numbered if named & _slug_words(o.path.stem)]  # not 0016-x
        same_folder = [
            o for o in numbered if (o.path.parent.parent if o.folder else o.path.parent) == base
        ]
        for found in (same_folder, numbered):  # the folder's own first, then the import's
            if len(found) == 1:
                return found[0]
            closest = _closest(adr, found)  # two records share a number: the one it speaks of
            if closest is not None:
                return closest
    wanted = _title_key(link.text)
    if wanted:
        titled = [
            o for o in records if o.record is not None and _title_key(o.record.title) == wanted
        ]
        if len(titled) == 1:
            return titled[0]
    return None


def _closest(adr: AdrFile, found: list[AdrFile]) -> AdrFile | None:
    """Of records that share a number, the only one whose name shares a word with `adr`'s."""
    if adr.record is None or len(found) < 2:
        return None
    own = set(_title_key(adr.record.title).split()) | set(_title_key(adr.path.stem).split())
    own = {word for word in own if len(word) > 3}

    def shared(other: AdrFile) -> int:
        title = other.record.title if other.record is not None else ""
        words = set(_title_key(title).split()) | set(_title_key(other.path.stem).split())
        return len(own & words)

    scores = sorted(((shared(o), o) for o in found), key=lambda pair: -pair[0])
    if scores[0][0] > 0 and scores[0][0] > scores[1][0]:
        return scores[0][1]
    return None


def _slug_words(target: str) -> set[str]:
    """The words of a file name after its number: `0016-compliance-documentation.md`."""
    name = target.split("#", 1)[0].rstrip("/").rsplit("/", 1)[-1]
    name = re.sub(r"\.(?:html?|md|markdown)$", "", name, flags=re.IGNORECASE)
    return {w for w in re.findall(r"[a-z]+", name.lower()) if len(w) > 3 and w != "adr"}


def _number_in_target(target: str) -> int | None:
    """The number a link's path names: `ADR045-use-forms-api.md`, `/adr/23`, `/adr/ADR-291`."""
    name = target.split("#", 1)[0].rstrip("/").rsplit("/", 1)[-1]
    match = re.match(r"^(?:ad[rd]?[-_]?)?(\d{1,5})(?:[-_.]|$)", name, re.IGNORECASE)
    if match is None or re.match(r"^\d{8}", name):
        return None
    return int(match[1])


def _stem(name: str) -> str:
    """`ADR021-x.html.md` and a site's `ADR021-x/` name the same record."""
    return re.sub(r"(?:\.html?)?(?:\.md|\.markdown)?$", "", name.lower())


def _number_of(adr: AdrFile) -> int | None:
    """The record's number from its file (or folder) name: `0007-…`, `ADR-12-…`, `adr_3.md`,
    `2023-09-08_026-…` (a date, then the number); else the one its title gave."""
    name = adr.folder or adr.path.name
    dated = re.match(r"^\d{4}-?\d{2}-?\d{2}[-_](\d{1,5})[-_.]", name)
    if dated:
        return int(dated[1])
    match = re.match(r"^(?:ad[rd]?[-_]?)?(\d{1,5})[-_.]", name, re.IGNORECASE)
    if match and not re.match(r"^\d{8}|^\d{4}-\d{2}-\d{2}", name):
        return int(match[1])
    return adr.record.number if adr.record is not None else None


def _title_key(text: str) -> str:
    text = re.sub(r"^\s*(?:adr[\s#-]*)?#?\d+[.:)\s-]*", "", text, flags=re.IGNORECASE)
    return " ".join(tokens(text))


# ---- the draft ----


def _draft(adr: AdrFile, options: ReadOptions) -> Draft | Skip:
    record = adr.record
    assert record is not None
    status = record.status
    if status == "rejected":
        return Skip(
            adr.source,
            "rejected: the team decided against it, and a note would be served as a current "
            "decision",
        )
    if status == "deprecated" and not adr.replaced:
        return Skip(
            adr.source, "deprecated: it no longer holds, and nothing in this import replaces it"
        )
    if status == "superseded" and not adr.replaced:
        return Skip(
            adr.source,
            "superseded, but the ADR that replaced it is not in this import (import both, so the "
            "newer note makes this one inactive)",
        )
    rel = adr.source
    repo = adr.repo
    day, day_from = record.date, record.date_from
    if day is None and repo is not None and rel in repo.first_date:
        day, day_from = repo.first_date[rel], "the date git first recorded the file"
    if day is None:
        return Skip(
            adr.source,
            "no date: the file gives none and git has no record of it (commit it, or add a "
            "Date: line)",
        )
    body = note_body(record, options.max_words)
    if not body.what:
        return Skip(adr.source, "its decision section has no text")
    notes = [*adr.notes, *record.notes, *body.notes]
    if body.left_out:
        notes.append("left out: " + ", ".join(body.left_out))
    if not status:
        notes.append("no status: confidence medium")
    words = " ".join(inline_plain(b.text) for b in (*record.decision, *record.context))
    tags = options.tagger.suggest(record.title, words, options.tags)
    if record.tags:
        mapped, unmapped = options.tagger.map_tags(record.tags)
        tags = list(dict.fromkeys([*tags, *mapped]))[: max(4, len(options.tags))]
        if unmapped:
            notes.append("its tags " + ", ".join(unmapped) + " are not in the vault's taxonomy")
    name = repo.name if repo is not None else (options.repo or "")
    return Draft(
        key=adr.key,
        source=adr.source,
        title=record.title[: options.max_title],
        type="decision",
        what=body.what,
        why=body.why,
        gotchas=body.gotchas,
        date=day,
        confidence=CONFIDENCE.get(status, "medium"),
        tags=tags,
        repo=[name] if name else [],
        scope=name or "adr",
        source_url=repo.source_url(rel) if repo is not None else None,
        match_key=repo.match_key(rel) if repo is not None and repo.github else None,
        supersedes=[older.key for older in adr.older],
        related=[other.key for other in adr.related],
        unmapped=notes + ([f"dated from {day_from}"] if day_from not in _DATED_IN_FILE else []),
    )
