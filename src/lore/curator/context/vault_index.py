"""The vault a change joins, read through the index instead of parsing every note.

`with_vault(context, work)` fills in `context.existing` and runs `work` on it. The notes
come from the vault's own index (in the clone's git directory, `lore.paths.index_path`,
through `read_index`, which brings it up to the reviewed branch's tip and heals a damaged
file first). The index is then
brought to the review's base inside a transaction that is never committed
(`lore.index.overlay`): `git diff` from the indexed commit to the base, parsing only
the notes that differ, or the working tree's changed notes from `git status`; the
paths under review are taken out and the notes under review put in, so their own
words count in the term statistics as they do in a full audit. Then `work` runs —
every rule asks the index (`IndexedNotes` here, `lore.curator.context.index_corpus` for
candidates) — and the transaction is rolled back.

A pull request's review in CI (`create_index=False`) opens an index only if one is
already in the state folder, which a fresh clone does not have: the base is built from
the notes. No file a commit carries is ever opened as an index — a pull request that
commits `.lore/index.db` (an older lore's location) changes nothing the review reads.

When the file cannot be used (it cannot be written, is busy, cannot be healed, or git
cannot say what changed) the same tables are built in memory from the base's files,
each note parsed once, and `work` runs on them: the findings are the same. Without
FTS5 every note is parsed (`sources.read_base`) and the judgement counts terms itself.

Notes whose file name cannot be an id are left out of the index but are notes to the
curator (`inspect_note` reads them); they are put back in from their files.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import TypeVar

from lore.curator.context.index_corpus import Frequencies
from lore.curator.context.model import CuratorContext, IndexView, NoteView, VaultBase, VaultNotes
from lore.curator.context.sources import read_base
from lore.curator.judgement.notes import JudgedNote
from lore.curator.judgement.terms import Idf, idf_from_counts
from lore.index import overlay, queries
from lore.index.build import IndexState, IndexUnavailable, fts5_usable
from lore.index.read import read_index
from lore.index.schema import create_schema
from lore.note.model import Note
from lore.note.parse import inspect_note
from lore.note.status import Links
from lore.paths import NOTES_DIR
from lore.vault import git
from lore.vault.snapshot import Snapshot, changed_notes, is_note_path

T = TypeVar("T")

REVIEW_ID = "lore-review:{}:{}"  # a note under review's id in the index; never a real id
MAX_DIFF_SHARE = 0.25  # past this share of the vault changed, an in-memory build is cheaper
MIN_DIFF = 200


class _BuildInstead(Exception):
    """The file index cannot be brought to the base: build the base in memory."""


def with_vault(
    context: CuratorContext,
    work: Callable[[CuratorContext], T],
    *,
    use_index: bool = True,
    create_index: bool = True,
    notices: list[str] | None = None,
) -> T:
    """`work(context)` with `context.existing` read: from the index when it can be used.

    `create_index=False`: when the vault has no index yet, build the base in memory
    rather than an index file of the checkout (a pull request's review in CI, where
    nothing would read that file again, and where the checkout's files are the pull
    request's: `index_path` is in the git directory, never a file of the checkout).
    """
    base = context.base
    if base is None:
        return work(context)
    if not fts5_usable():
        return work(replace(context, existing=read_base(context.root, base)))
    if use_index and (create_index or context.vault.index_path.exists()):
        read = partial(_review, context, work)
        try:
            return read_index(context.vault, read, fallback=False, notices=notices)
        except (IndexUnavailable, _BuildInstead):
            pass
    conn = _build(context.root, base)
    try:
        return _review(context, work, conn, None)
    finally:
        conn.close()


def _build(root: Path, base: VaultBase) -> sqlite3.Connection:
    if base.commit is not None:
        return overlay.build_in_memory(root, Snapshot("git", base.commit), dict(base.notes))
    return overlay.build_in_memory(root, Snapshot("files", ""), dict(base.notes))


def _review(
    context: CuratorContext,
    work: Callable[[CuratorContext], T],
    conn: sqlite3.Connection,
    state: IndexState | None,
) -> T:
    """Bring `conn` to the review's vault in a transaction, run `work`, roll it all back."""
    assert context.base is not None
    conn.execute("BEGIN IMMEDIATE")
    try:
        if state is not None:
            _to_base(conn, context.root, context.base, state)
        overlay.hide(conn, _hidden_paths(conn, context))
        _put_back_unsafe_names(conn, context.root)
        reviewed = tuple(
            overlay.insert_note(conn, _row_note(n, view), "review") for n, view in _views(context)
        )
        existing = IndexedNotes(conn, frozenset(reviewed))
        return work(replace(context, existing=existing, index=IndexView(conn, reviewed)))
    finally:
        if conn.in_transaction:
            with contextlib.suppress(sqlite3.Error):  # gone with the connection
                conn.execute("ROLLBACK")


def _to_base(conn: sqlite3.Connection, root: Path, base: VaultBase, state: IndexState) -> None:
    """Make the file index's notes the base's: it holds the reviewed branch's tip (or the
    files); the working tree is that of the checkout's HEAD, which may be another commit."""
    if base.commit is None:
        if state.kind == "git":
            head = git.head_commit(root)
            if head:
                _to_commit(conn, root, state.version, head, len(base.notes))
            overlay.replace_files(conn, root, _working_changes(root))
        return  # an index of the files is fresh for them already
    if state.kind != "git":
        raise _BuildInstead
    _to_commit(conn, root, state.version, base.commit, len(base.notes))


def _to_commit(conn: sqlite3.Connection, root: Path, indexed: str, commit: str, size: int) -> None:
    if indexed == commit:
        return
    changes = changed_notes(root, indexed, Snapshot("git", commit))
    if changes is None or len(changes) > max(MIN_DIFF, MAX_DIFF_SHARE * size):
        raise _BuildInstead
    overlay.apply_changes(conn, root, Snapshot("git", commit), changes)


def _working_changes(root: Path) -> list[str]:
    """Note paths where the working tree may differ from HEAD (`git status`, ignored files
    included, since the curator reads every note file there)."""
    result = git.run_git(
        [
            "status",
            "--porcelain=v1",
            "-z",
            "--untracked-files=all",
            "--ignored=matching",
            "--no-renames",
            "--",
            f"{NOTES_DIR}/",
        ],
        root,
    )
    paths: list[str] = []
    for record in result.stdout.split(b"\0"):
        if len(record) > 3:
            path = record[3:].decode("utf-8", "surrogateescape")
            if is_note_path(path):
                paths.append(path)
    return paths


def _hidden_paths(conn: sqlite3.Connection, context: CuratorContext) -> set[str]:
    """The paths the change touches, and any note holding the id of a note under review."""
    assert context.base is not None
    return set(context.base.hidden) | queries.paths_of_ids(conn, context.checked_ids)


def _put_back_unsafe_names(conn: sqlite3.Connection, root: Path) -> None:
    """Notes the index skipped only because their file name cannot be an id."""
    skipped = queries.skipped_notes(conn)
    if not skipped:
        return
    in_git = {sha: path for path, sha in skipped if _is_sha(sha)}
    objects = git.read_objects(root, in_git) if in_git else {}
    for path, signature in skipped:
        if signature in objects:
            raw: bytes | None = objects[signature][1]
        else:
            try:
                raw = (root / path).read_bytes()
            except OSError:
                raw = None
        note = inspect_note(raw, path).note if raw is not None else None
        if note is None:
            continue
        try:
            overlay.insert_note(conn, note, signature)
        except sqlite3.IntegrityError:
            continue  # its id is taken
        conn.execute("DELETE FROM skipped WHERE path = ?", (path,))


def _is_sha(value: str) -> bool:
    return len(value) == 40 and all(c in "0123456789abcdef" for c in value)


def _views(context: CuratorContext) -> Iterator[tuple[int, NoteView]]:
    for number, checked in enumerate(context.notes):
        assert checked.view is not None
        yield number, checked.view


def _row_note(number: int, view: NoteView) -> Note:
    """A note under review as an index row: its words, under an id no note can have."""
    return replace(_words_only(number, view, view.path), type=view.type or "", date=view.date or "")


def _words_only(number: int, note: JudgedNote, path: str) -> Note:
    return Note(
        id=REVIEW_ID.format(number, path),
        title=note.title or "",
        type="",
        tags=note.tags,
        confidence="",
        date="",
        body=note.body,
        repo=note.repo,
        services=note.services,
        files_touched=note.files_touched,
        path=path,
    )


def idf_of(notes: Iterable[JudgedNote]) -> Idf:
    """The term weights the curator would judge with in a vault of just these notes: an
    index of them in memory, asked as `IndexCorpus` asks the vault's (the public eval's
    judged set, eval/run_curator_eval.py, weighs its pairs with it)."""
    conn = sqlite3.connect(":memory:", isolation_level=None)
    create_schema(conn)
    count = 0
    for count, note in enumerate(notes, start=1):
        overlay.insert_note(conn, _words_only(count, note, f"{NOTES_DIR}/{note.id}.md"), "")
    return idf_from_counts(Frequencies(conn), count)


class IndexedNotes(VaultNotes):
    """The vault's notes in the index, read when asked for (the notes under review left out)."""

    def __init__(self, conn: sqlite3.Connection, reviewed: frozenset[int]) -> None:
        self.conn = conn
        self.reviewed = reviewed
        self._notes: dict[str, Note | None] = {}
        self._ids: list[str] | None = None

    def __getitem__(self, key: str) -> Note:
        if key not in self._notes:
            row = queries.row_of_id(self.conn, key)
            found = None if row is None or row[0] in self.reviewed else queries.note_from_row(row)
            self._notes[key] = found
        note = self._notes[key]
        if note is None:
            raise KeyError(key)
        return note

    def _all_ids(self) -> list[str]:
        if self._ids is None:
            self._ids = [
                nid
                for nid, rowid in queries.ids_and_rowids(self.conn)
                if rowid not in self.reviewed
            ]
        return self._ids

    def __iter__(self) -> Iterator[str]:
        return iter(self._all_ids())

    def __len__(self) -> int:
        return len(self._all_ids())

    def status_links(self) -> list[Links]:
        linked = {
            nid: Links(nid, tuple(sup), tuple(dep), expires)
            for rowid, nid, sup, dep, expires in queries.linked_notes(self.conn)
            if rowid not in self.reviewed
        }
        named = {t for links in linked.values() for t in (*links.supersedes, *links.depends_on)}
        found = queries.rowids_of_ids(self.conn, named - set(linked))
        for nid, rowid in found.items():
            if rowid not in self.reviewed:
                linked[nid] = Links(nid)
        return list(linked.values())
