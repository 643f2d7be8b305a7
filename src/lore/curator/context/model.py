"""What the rules look at: the files under review and the vault they would join.

A `CuratorContext` holds the files under review (`CheckedFile`, each with a
lenient `NoteView` when it is a note), the notes already in the vault (at the
base commit in pull-request mode), the taxonomy, the curator settings and, in
pull-request mode, every file version the pull request's commits introduced
(`HistoryBlob`) for the secret scan. `sources` builds contexts; rules only read them.

The notes already in the vault are `VaultNotes`, a mapping from id to `Note`: parsed
from the files (`ParsedNotes`), or read from the index a note at a time
(`lore.curator.context.vault_index`), in which case `index` holds the connection the rules'
candidates come from. `base` says where those notes are read from.
"""

from __future__ import annotations

import sqlite3
import unicodedata
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from lore.curator.context.settings import CuratorSettings
from lore.curator.finding import Finding
from lore.errors import Problem
from lore.note.model import Note
from lore.note.parse import NoteReport, inspect_note, note_id_from_path, split_frontmatter
from lore.note.status import Links, Status, compute_status
from lore.paths import NOTES_DIR
from lore.taxonomy import Taxonomy
from lore.vault.resolved import Vault

SYMLINK_MODE = "120000"
SUBMODULE_MODE = "160000"


def is_note_path(path: str) -> bool:
    """`notes/<name>.md` directly inside notes/."""
    prefix = NOTES_DIR + "/"
    return path.startswith(prefix) and path.endswith(".md") and "/" not in path[len(prefix) :]


ARCHIVE_DIR = "archive"
# The vault's policy prose, read by people and (through `lore taxonomy`) by agents: the
# curator scans it like a note whenever a change touches it.
POLICY_TEXTS = ("_taxonomy.md", "_conventions.md", "README.md")


def is_archive_path(path: str) -> bool:
    """`archive/<name>.md`: a note the gardener moved out of recall; it keeps its id."""
    prefix = ARCHIVE_DIR + "/"
    return path.startswith(prefix) and path.endswith(".md") and "/" not in path[len(prefix) :]


def collision_key(note_id: str) -> str:
    """Ids that differ only in case or Unicode normalisation collide on some systems."""
    return unicodedata.normalize("NFKC", note_id).casefold()


@dataclass(frozen=True)
class NoteView:
    """What the rules need from a note, read leniently so rules run even with bad fields."""

    id: str
    path: str
    text: str  # the decoded file, LF line endings, no BOM
    body: str  # the body as written (not stripped), starting on `body_line`
    body_line: int
    title: str | None = None
    type: str | None = None
    tags: tuple[str, ...] = ()
    repo: tuple[str, ...] = ()
    services: tuple[str, ...] = ()
    files_touched: tuple[str, ...] = ()
    supersedes: tuple[str, ...] = ()
    depends_on: tuple[str, ...] = ()
    date: str | None = None
    expires: str | None = None
    source: str | None = None
    author: str | None = None
    key_lines: dict[str, int] = field(default_factory=dict, compare=False)
    frontmatter_end: int = 0  # offset in `text` where the body starts

    def line_of_key(self, key: str) -> int:
        return self.key_lines.get(key, 2 if self.body_line > 1 else 1)

    def body_line_at(self, offset: int) -> int:
        """The file line of an offset into `body`."""
        return self.body_line + self.body.count("\n", 0, offset)

    def links(self) -> Links:
        return Links(self.id, self.supersedes, self.depends_on, self.expires)


def _text_value(value: Any) -> str | None:
    if isinstance(value, str) and value.strip():
        return value.strip()
    return None


def _list_value(value: Any) -> tuple[str, ...]:
    items = value if isinstance(value, list) else [value]
    return tuple(item.strip() for item in items if isinstance(item, str) and item.strip())


def view_of(report: NoteReport) -> NoteView | None:
    """A lenient view of a parsed note file (None when the file is not text at all)."""
    text = report.text
    if text is None:
        return None
    split = split_frontmatter(text, report.path)
    if isinstance(split, Problem):
        body, body_line, frontmatter_end = text, 1, 0
    else:
        _, body, body_line = split
        frontmatter_end = len(text) - len(body)
    note_id = note_id_from_path(report.path)
    note = report.note
    common = (note_id, report.path, text, body, body_line)
    if note is not None:
        return NoteView(
            *common,
            key_lines=dict(report.key_lines),
            frontmatter_end=frontmatter_end,
            **_fields_of(note),
        )
    data = report.frontmatter or {}
    return NoteView(
        *common,
        key_lines=dict(report.key_lines),
        frontmatter_end=frontmatter_end,
        title=_text_value(data.get("title")),
        type=_text_value(data.get("type")),
        tags=tuple(tag.lower() for tag in _list_value(data.get("tags"))),
        repo=_list_value(data.get("repo")),
        services=_list_value(data.get("services")),
        files_touched=_list_value(data.get("files_touched")),
        supersedes=_list_value(data.get("supersedes")),
        depends_on=_list_value(data.get("depends_on")),
        date=_text_value(data.get("date")),
        expires=_text_value(data.get("expires")),
        source=_text_value(data.get("source")),
        author=_text_value(data.get("author")),
    )


_NOTE_FIELDS = (
    "title",
    "type",
    "tags",
    "repo",
    "services",
    "files_touched",
    "supersedes",
    "depends_on",
    "date",
    "expires",
    "source",
    "author",
)


def _fields_of(note: Note) -> dict[str, Any]:
    """The frontmatter fields a view shares with the parsed note."""
    return {name: getattr(note, name) for name in _NOTE_FIELDS}


def view_of_note(note: Note) -> NoteView:
    """A view of a note already in the vault (its body has no frontmatter offset)."""
    return NoteView(
        id=note.id,
        path=note.path,
        text=note.body,
        body=note.body,
        body_line=1,
        **_fields_of(note),
    )


@dataclass
class CheckedFile:
    """One file under review: a note, or another file the change touches."""

    path: str  # the path in the vault, e.g. notes/<id>.md
    display: str  # the path findings name (the argument given, or the vault path)
    raw: bytes
    mode: str = "100644"
    is_note: bool = False
    report: NoteReport | None = None
    view: NoteView | None = None

    @classmethod
    def note(cls, path: str, display: str, raw: bytes, mode: str = "100644") -> CheckedFile:
        report = inspect_note(raw, path)
        return cls(path, display, raw, mode, True, report, view_of(report))

    def decoded(self) -> str:
        """The text for scanners that must see everything, even undecodable files."""
        if self.view is not None:
            return self.view.text
        text = self.raw.decode("utf-8", "replace")
        text = text.removeprefix("\ufeff")
        return text.replace("\r\n", "\n").replace("\r", "\n")


@dataclass
class UnreadNotes:
    """The note files of a full audit, listed but not yet read: the audit reads them a
    batch at a time (`lore.curator.audit`), so a large vault is never all in memory.

    `files`: (vault path, mode) of each note file, in the order they are listed.
    `order`: the display path of every file the audit checks, notes or not, in the order
    `CurateResult.checked` lists them. `unreadable`: the notes that could not be read.
    """

    root: Path
    files: list[tuple[str, str]]
    order: list[str]
    unreadable: set[str] = field(default_factory=set)

    def read(self, path: str, mode: str = "100644") -> CheckedFile | None:
        """The note file at `path`, read and parsed; None when it cannot be read."""
        try:
            with open(self.root / path, "rb") as handle:  # noqa: PTH123 - one open, no stat
                raw = handle.read()
        except OSError:
            self.unreadable.add(path)
            return None
        return CheckedFile.note(path, path, raw, mode)


def statuses_of(links: Mapping[str, Links], vault_ids: set[str], today: str) -> dict[str, Status]:
    """The status of every note once the change is in, from the links of the notes under
    review and of those already in the vault (`links`, by id): every note they name that
    is in the vault counts, with no links of its own when it has none here."""
    every = dict(links)
    named = {t for link in every.values() for t in (*link.supersedes, *link.depends_on)}
    for nid in named - set(every):
        if nid in vault_ids:
            every[nid] = Links(nid)
    return compute_status(every.values(), today)


class VaultNotes(Mapping[str, Note]):
    """The notes already in the vault, by id, and the links that decide which are active."""

    def status_links(self) -> list[Links]:
        """The links of every note that can be inactive or make another inactive (a note
        that links, supersedes or expires, and every note such a note names)."""
        return links_that_matter(self.values())


def links_that_matter(notes: Iterable[Note]) -> list[Links]:
    """`Links` of the notes that link or expire, and plain `Links` of the notes they name.

    A note that neither links nor expires, and that no note names, is active and makes
    no other note inactive: `compute_status` gives the same answer without it.
    """
    found: dict[str, Links] = {}
    plain: dict[str, Links] = {}
    for note in notes:
        if note.supersedes or note.depends_on or note.expires:
            found[note.id] = Links(note.id, note.supersedes, note.depends_on, note.expires)
        else:
            plain[note.id] = Links(note.id)
    for links in list(found.values()):
        for target in (*links.supersedes, *links.depends_on):
            if target not in found and target in plain:
                found[target] = plain[target]
    return list(found.values())


class ParsedNotes(VaultNotes):
    """Notes parsed from their files, held in memory."""

    def __init__(self, notes: Mapping[str, Note] | None = None) -> None:
        self._notes = dict(notes or {})

    def __getitem__(self, key: str) -> Note:
        return self._notes[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._notes)

    def __len__(self) -> int:
        return len(self._notes)


@dataclass(frozen=True)
class VaultBase:
    """Where the notes of the vault a change joins are read from.

    `commit`: their commit (a pull request's base, or the ref `lore remember` starts
    from), or None for the working tree. `notes`: every note file there, path -> blob
    sha ("" in the working tree). `hidden`: the paths the change touches, which are
    under review (or deleted), not part of the vault.
    """

    commit: str | None
    notes: Mapping[str, str]
    hidden: frozenset[str]


@dataclass(frozen=True)
class IndexView:
    """The index connection a review reads (brought to the base, in a transaction that is
    rolled back) and the rowid each note under review has there, in `context.notes` order."""

    conn: sqlite3.Connection
    reviewed: tuple[int, ...]


@dataclass(frozen=True)
class HistoryBlob:
    """A file version a commit of the pull request introduced that is not in its result."""

    path: str
    sha: str
    raw: bytes


@dataclass
class CuratorContext:
    root: Path
    settings: CuratorSettings
    taxonomy: Taxonomy | None
    files: list[CheckedFile]
    existing: VaultNotes  # id -> notes already in the vault, not touched by the change
    vault_ids: set[str]  # every note id once the change is in (links resolve against these)
    vault_paths: list[str]  # every note path once the change is in
    today: str
    mode: str  # "range", "paths" or "all"
    vault: Vault  # the vault under review, resolved once (`root` is its folder)
    taxonomy_path: str = "_taxonomy.md"
    taxonomy_changed: bool = False
    settings_changed: bool = False
    deleted: set[str] = field(default_factory=set)  # note ids the change deletes
    history: list[HistoryBlob] = field(default_factory=list)
    commits: tuple[str, str] | None = None  # (base, head) in range mode
    settings_problems: list[Finding] = field(default_factory=list)
    # Range mode: every path the change touches, deleted ones included, as (status, path)
    # with status A, M, D or T; and the entries at the top of the head's tree that a
    # checkout would put at `.lore` (mode, name), which no commit may hold.
    changes: list[tuple[str, str]] = field(default_factory=list)
    committed_state: list[tuple[str, str]] = field(default_factory=list)
    # The maintainer whose recorded approval clears the `policy/` errors (a GitHub login).
    policy_approver: str | None = None
    # Secret values the secret rules found: `run.curate` masks them in every output.
    redactions: set[str] = field(default_factory=set)
    base: VaultBase | None = None  # where `existing` comes from, until it is read
    index: IndexView | None = None  # set when `existing` is read through the index
    unread: UnreadNotes | None = None  # a full audit's notes, read in batches when it runs
    # On a checkout: the one line saying its lore.toml is not the reviewed branch's, whose
    # settings were used; no model is called then (`lore.vault.lore_toml`).
    settings_notice: str = ""

    @property
    def audit(self) -> bool:
        return self.mode == "all"

    @cached_property
    def notes(self) -> list[CheckedFile]:
        """The checked files that are notes and could be read as text."""
        return [f for f in self.files if f.is_note and f.view is not None]

    @cached_property
    def policy_texts(self) -> list[CheckedFile]:
        """The checked files that are the vault's policy prose (`POLICY_TEXTS`)."""
        return [f for f in self.files if not f.is_note and f.path in POLICY_TEXTS]

    @cached_property
    def checked_ids(self) -> set[str]:
        return {f.view.id for f in self.notes if f.view is not None}

    @cached_property
    def _existing_links(self) -> list[Links]:
        return self.existing.status_links()

    @cached_property
    def statuses_before(self) -> dict[str, Status]:
        """Status of the notes already in the vault, before the change (inactive ones only)."""
        return compute_status(self._existing_links, self.today)

    @cached_property
    def statuses_after(self) -> dict[str, Status]:
        """Status of every note once the change is in (unreadable notes count as active)."""
        links = {link.id: link for link in self._existing_links}
        for checked in self.notes:
            assert checked.view is not None
            links[checked.view.id] = checked.view.links()
        return statuses_of(links, self.vault_ids, self.today)

    def settle_statuses_after(self, statuses: dict[str, Status]) -> None:
        """Set `statuses_after` from outside: a full audit reads its notes a batch at a
        time (`lore.curator.audit`), so `notes` never holds them all; it computes every
        note's status from the links it kept and hands them here."""
        vars(self)["statuses_after"] = statuses
