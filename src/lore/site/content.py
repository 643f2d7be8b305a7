"""What the site shows: the reviewed branch's notes and how they relate, read once.

`read_site_vault` reads every note, its status and the index's record of what it
serves (the kind of snapshot and its commit) in one `read_index`
call: the same up-to-date index of the reviewed branch that recall, `lore show` and
`lore stats` read, so the site never shows the work tree or an unmerged branch.
Statuses are the index's, computed for the pinned clock's day (`lore.clock.today`).

Relations are both ways: what a note replaces (`supersedes`) and what replaced it,
what it depends on and what depends on it, the `[[id]]` links it makes outside code
and the notes that link to it.

Note files on the branch that the index could not take (unreadable frontmatter, over
its size limit) are not served, so the site does not show them either: it lists them,
with why, as `lore index` does.

Drift flags come from the reviewed branch's history: a note whose last change was a
commit of `lore drift` (its subject starts with `lore drift:`, as the commits and the
pull-request titles of `lore drift --propose` do, so a squash merge keeps it) is
flagged until a later commit touches the note again — the re-check the drift pull
request asks for.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from lore import clock
from lore.curator.rules.link import WIKILINK
from lore.index.build import IndexState
from lore.index.fill import read_meta
from lore.index.read import read_index
from lore.note.model import Note
from lore.paths import NOTES_DIR
from lore.text.markdown import CodeMap
from lore.vault.remote import GitHubRepo

DRIFT_SUBJECT = "lore drift:"  # lore.team.drift's commits and pull-request titles


@dataclass(frozen=True)
class DriftFlag:
    """The `lore drift` commit that last changed a note: it is waiting for a re-check."""

    sha: str
    date: str  # committer date, ISO 8601
    subject: str


@dataclass
class SiteNote:
    note: Note
    active: bool
    inactive_reason: str | None = None
    drift: DriftFlag | None = None
    listed: dict[str, str] = field(default_factory=dict, repr=False, compare=False)  # HTML

    @property
    def id(self) -> str:
        return self.note.id


@dataclass
class SiteVault:
    """The notes of one commit of the reviewed branch, with their relations."""

    name: str
    root: Path
    today: date
    kind: str  # "git", or "files" for a folder that is not a git repository
    commit: str | None
    branch: str  # how people name the reviewed branch: "origin/main"; "" without git
    github: GitHubRepo | None
    notes: dict[str, SiteNote]  # by id, sorted
    replaced_by: dict[str, list[str]] = field(default_factory=dict)
    dependents: dict[str, list[str]] = field(default_factory=dict)
    links_out: dict[str, list[str]] = field(default_factory=dict)
    links_in: dict[str, list[str]] = field(default_factory=dict)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (path, why): not served
    notices: list[str] = field(default_factory=list)

    def github_url(self, note: Note) -> str | None:
        """The note's file on GitHub at the commit the site was built from."""
        if self.github is None or not self.commit:
            return None
        return f"{self.github.web_url}/blob/{self.commit}/{note.path}"

    @property
    def active(self) -> list[SiteNote]:
        return [item for item in self.notes.values() if item.active]


_COLUMNS = (
    "id, path, title, type, tag_list, confidence, date, repo, services, files_touched, "
    "author, supersedes, depends_on, expires, source, body, active, inactive_reason"
)


def _note(row: tuple[Any, ...]) -> SiteNote:
    note = Note(
        id=str(row[0]),
        path=str(row[1]),
        title=str(row[2]),
        type=str(row[3]),
        tags=tuple(json.loads(row[4])),
        confidence=str(row[5]),
        date=str(row[6]),
        repo=tuple(json.loads(row[7])),
        services=tuple(json.loads(row[8])),
        files_touched=tuple(p for p in str(row[9]).split("\n") if p),
        author=row[10],
        supersedes=tuple(json.loads(row[11])),
        depends_on=tuple(json.loads(row[12])),
        expires=row[13],
        source=row[14],
        body=str(row[15]),
    )
    return SiteNote(note, bool(row[16]), row[17])


Read = tuple[list[tuple[Any, ...]], list[tuple[str, str]], dict[str, str]]


def _read(conn: sqlite3.Connection, _: IndexState) -> Read:
    rows = conn.execute(f"SELECT {_COLUMNS} FROM notes ORDER BY id").fetchall()
    skipped = conn.execute("SELECT path, problem FROM skipped ORDER BY path").fetchall()
    return rows, [(str(path), str(problem)) for path, problem in skipped], read_meta(conn)


def read_site_vault(root: Path, *, name: str | None = None) -> SiteVault:
    """The reviewed notes of the vault at `root`, as the index serves them now."""
    notices: list[str] = []
    rows, skipped, meta = read_index(root, _read, notices=notices)
    kind = meta.get("kind", "files")
    commit = meta.get("version") if kind == "git" else None
    vault = SiteVault(
        name=name or root.name,
        root=root,
        today=clock.today(),
        kind=kind,
        commit=commit or None,
        branch=_branch_label(root) if kind == "git" else "",
        github=_github(root) if kind == "git" else None,
        notes={str(row[0]): _note(row) for row in rows},
        skipped=skipped,
        notices=notices,
    )
    _relate(vault)
    if vault.commit:
        for path, flag in drift_flags(root, vault.commit).items():
            note_id = path[len(NOTES_DIR) + 1 : -3]
            found = vault.notes.get(note_id)
            if found is not None and found.note.path == path:
                found.drift = flag
    return vault


def _branch_label(root: Path) -> str:
    from lore.vault.snapshot import served_branch

    branch = served_branch(root)
    return branch.label if branch is not None else ""


def _github(root: Path) -> GitHubRepo | None:
    from lore.vault.git import remote_url
    from lore.vault.remote import github_repo

    return github_repo(remote_url(root))


def wiki_links(body: str) -> list[str]:
    """The note ids a body links to with `[[id]]` outside code, once each, in order."""
    if "[[" not in body:
        return []
    code = CodeMap(body)
    found: dict[str, None] = {}
    for match in WIKILINK.finditer(body):
        if match.start() not in code:
            found[link_target(match[1])] = None
    return list(found)


def link_target(inner: str) -> str:
    """`id|label` or `id#part` -> `id` (the curator's reading of a `[[…]]` link)."""
    return inner.split("|", 1)[0].split("#", 1)[0].strip()


def _relate(vault: SiteVault) -> None:
    def add(table: dict[str, list[str]], key: str, value: str) -> None:
        entries = table.setdefault(key, [])
        if value not in entries:
            entries.append(value)

    for note_id, item in vault.notes.items():
        for target in item.note.supersedes:
            if target != note_id:
                add(vault.replaced_by, target, note_id)
        for target in item.note.depends_on:
            if target != note_id:
                add(vault.dependents, target, note_id)
        links = [target for target in wiki_links(item.note.body) if target != note_id]
        if links:
            vault.links_out[note_id] = links
        for target in links:
            add(vault.links_in, target, note_id)


def drift_flags(root: Path, commit: str) -> dict[str, DriftFlag]:
    """Note path -> the `lore drift` commit that changed it last, for the notes whose
    last change on the reviewed branch (up to `commit`) was such a commit."""
    from lore.vault.history import log_changes

    last: dict[str, DriftFlag | None] = {}
    for logged in log_changes(root, [commit], paths=[f"{NOTES_DIR}/"]):
        flagged = logged.subject.startswith(DRIFT_SUBJECT)
        for change in logged.changes:
            if change.old_path:
                last.pop(change.old_path, None)
            last[change.path] = (
                DriftFlag(logged.sha, logged.date, logged.subject) if flagged else None
            )
    return {path: flag for path, flag in last.items() if flag is not None}
