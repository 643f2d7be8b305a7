"""What changed in a vault since a date or a commit (`lore recall --since`, MCP `recent`).

The notes added or changed on the reviewed branch the index serves, newest first, so
an agent that comes back to a repository can ask what is new. The branch's own history
is read with one `git log --first-parent -m` over the notes folder: each merge counts
with everything it brought, on the day it was merged, so a note arrives on the day the
team merged it, not on the day its pull request's commit was written. Renames are a
note removed and one added (a note's id is its file name). Each note's fields come from
the index, which serves that same commit; notes the index could not read are left out,
and notes that are no longer there are listed by id as `removed`.

With a query as well, recall ranks only the notes that changed (`RecallRequest.ids`,
then `within`).
"""

from __future__ import annotations

import json
import sqlite3
from datetime import date, timedelta
from pathlib import Path

from lore.errors import UsageError
from lore.paths import NOTES_DIR
from lore.recall.model import Hit, RecallRequest
from lore.recall.ranker import filter_sql
from lore.record import Record
from lore.sanitize import sanitize_field

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from lore.index.build import IndexState
    from lore.recall.filters import Filters
    from lore.recall.model import MultiResult
    from lore.vault.history import LoggedCommit
    from lore.vaults import VaultRef

_COLUMNS = (
    "n.id, n.title, n.path, n.type, n.repo, n.tag_list, n.confidence, n.date, n.author, "
    "n.summary, n.active, n.inactive_reason"
)


class Since(Record):
    """Where to start: a day (`2026-11-01`, from its start) or a commit of the vault."""

    __slots__ = ("day", "text")

    def __init__(self, text: str) -> None:
        self.text = text.strip()
        self.day = _as_day(self.text)  # None: a commit (resolved in each vault)


def _as_day(text: str) -> date | None:
    if len(text) != 10 or text[4] != "-" or text[7] != "-":
        return None
    try:
        return date.fromisoformat(text)
    except ValueError:
        return None


class Change(Record):
    """One note added or changed since then: the note, and the commit that last did it."""

    __slots__ = ("change", "commit", "committed", "hit")

    def __init__(self, hit: Hit, change: str, commit: str, committed: str) -> None:
        self.hit = hit
        self.change = change  # "added" or "changed"
        self.commit = commit
        self.committed = committed  # the commit's ISO 8601 date

    def to_json(self) -> dict[str, Any]:
        data = self.hit.to_json()
        del data["score"], data["snippet"]
        data["summary"] = self.hit.summary
        data["change"] = self.change
        data["commit"] = self.commit
        data["committed"] = sanitize_field(self.committed)
        return data


class Removed(Record):
    """A note that was there then and is not now."""

    __slots__ = ("commit", "committed", "id")

    def __init__(self, note_id: str, commit: str, committed: str) -> None:
        self.id = sanitize_field(note_id)
        self.commit = commit
        self.committed = sanitize_field(committed)

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "commit": self.commit, "committed": self.committed}


class VaultChanges(Record):
    """One vault's changes since `since`: newest first, with the commit that starts them."""

    __slots__ = ("changes", "commit", "from_commit", "more", "removed")

    def __init__(
        self,
        changes: list[Change],
        removed: list[Removed],
        *,
        commit: str,
        from_commit: str | None,
        more: int = 0,
    ) -> None:
        self.changes = changes
        self.removed = removed
        self.commit = commit  # the reviewed branch's commit the changes run to
        self.from_commit = from_commit  # the commit they run from (None: a day)
        self.more = more  # changes left out by the limit


def changed_since(root: Path, since: Since, request: RecallRequest) -> VaultChanges:
    """The notes of the vault at `root` added or changed since `since`, newest first.

    `request` brings the filters (`types`, `tags`, `include_inactive`) and the limit;
    its query is not used. `UsageError` when `since` is neither a day nor a commit the
    vault holds, or the vault has no git history.
    """
    from lore.index.read import read_index

    def read(conn: sqlite3.Connection, state: IndexState) -> VaultChanges:
        return _changes(conn, root, state, since, request)

    return read_index(root, read)


def _changes(
    conn: sqlite3.Connection, root: Path, state: IndexState, since: Since, request: RecallRequest
) -> VaultChanges:
    from lore.vault.snapshot import is_note_path

    if state.kind != "git" or not state.version:
        raise UsageError(
            f"The vault at {root} has no git history, so nothing can be listed by when it changed.",
            fix="Search it with a query instead.",
        )
    tip = state.version
    logged, start = _landed_since(root, tip, since)
    first: dict[str, bool] = {}  # path -> it was there before the first change listed
    last: dict[str, tuple[int, str, str]] = {}  # path -> (order, commit, date) of its last
    for order, commit in enumerate(logged):
        for change in commit.changes:
            touched = [(change.path, change.status)]
            if change.status == "R" and change.old_path:
                touched = [(change.old_path, "D"), (change.path, "A")]
            for path, status in touched:
                if not is_note_path(path):
                    continue
                first.setdefault(path, status != "A")
                last[path] = (order, commit.sha, commit.date)
    rows = {
        row[2]: row
        for row in conn.execute(
            f"SELECT {_COLUMNS} FROM notes n WHERE n.path IN (SELECT value FROM json_each(?))"
            + filter_sql(request)[0],
            [json.dumps(sorted(last)), *filter_sql(request)[1]],
        )
    }
    changes: list[tuple[int, Change]] = []
    removed: list[tuple[int, Removed]] = []
    filtered = bool(request.types or request.tags)  # a removed note's type is not known
    for path, (order, sha, when) in last.items():
        row = rows.get(path)
        if row is not None:
            if row[10] or request.include_inactive:
                kind = "changed" if first[path] else "added"
                changes.append((order, Change(_hit(row), kind, sha, when)))
        elif first[path] and not filtered and not _present(conn, path):
            removed.append((order, Removed(_note_id(path), sha, when)))
    changes.sort(key=lambda item: (-item[0], item[1].hit.id))
    removed.sort(key=lambda item: (-item[0], item[1].id))
    listed = [change for _, change in changes]
    return VaultChanges(
        listed[: request.limit],
        [gone for _, gone in removed],
        commit=tip,
        from_commit=start,
        more=max(0, len(listed) - request.limit),
    )


def _landed_since(root: Path, tip: str, since: Since) -> tuple[list[LoggedCommit], str | None]:
    """The commits that landed on the reviewed branch since `since` (newest first), and the
    commit `since` names (None for a day)."""
    from lore.vault.git import resolve_commit
    from lore.vault.history import log_changes

    if since.day is not None:
        earlier = (since.day - timedelta(days=1)).isoformat()  # git's --since reads a time
        logged = log_changes(root, [tip], since=earlier, paths=[NOTES_DIR], landed=True)
        day = since.day.isoformat()
        return [commit for commit in logged if commit.date[:10] >= day], None
    start = resolve_commit(root, since.text)
    if start is None:
        shown = sanitize_field(since.text)[:60]
        raise UsageError(
            f"'{shown}' is neither a date (YYYY-MM-DD) nor a commit of the vault at {root}.",
            fix="Give a day such as 2026-11-01, or a commit from `git -C VAULT log`.",
        )
    return log_changes(root, [f"{start}..{tip}"], paths=[NOTES_DIR], landed=True), start


def _note_id(path: str) -> str:
    return path[len(NOTES_DIR) + 1 : -len(".md")]


def _present(conn: sqlite3.Connection, path: str) -> bool:
    """Whether the path is a note now (filtered out, or unreadable: not removed)."""
    if conn.execute("SELECT 1 FROM notes WHERE path = ?", (path,)).fetchone():
        return True
    return bool(conn.execute("SELECT 1 FROM skipped WHERE path = ?", (path,)).fetchone())


def _hit(row: tuple[Any, ...]) -> Hit:
    return Hit(
        id=row[0],
        title=row[1],
        path=row[2],
        type=row[3],
        repo=json.loads(row[4]),
        tags=json.loads(row[5]),
        confidence=row[6],
        date=row[7],
        author=row[8],
        summary=row[9],
        score=0.0,
        snippet="",
        active=bool(row[10]),
        inactive_reason=row[11],
    )


def _check(vaults: list[VaultRef], check: Filters) -> None:
    """Unknown filter names raise `UsageError`, as recall's do (any vault's name counts)."""
    from lore.index.read import read_index
    from lore.recall.filters import Vocabulary, check_filters, stored_vocabulary

    known = [read_index(ref.root, lambda conn, _: stored_vocabulary(conn)) for ref in vaults]
    check_filters(Vocabulary.union(known), check)


def within(result: MultiResult, changed: ChangesResult) -> None:
    """Keep only the hits of `result` that are notes `changed` lists in their own vault.

    Recall was asked for the ids of every vault's changes at once (`ids`); a note of the
    same id that changed in another vault only is dropped here.
    """
    wanted = {(name, change.hit.id) for change, name in changed.changes}
    kept = [
        (hit, label)
        for hit, label in zip(result.hits, result.labels, strict=True)
        if (label, hit.id) in wanted
    ]
    result.hits = [hit for hit, _ in kept]
    result.labels = [label for _, label in kept]


class ChangesResult(Record):
    """The changes of every vault searched, newest first, each with its vault's name."""

    __slots__ = ("changes", "more", "notices", "removed", "since", "vaults")

    def __init__(
        self,
        since: Since,
        vaults: list[tuple[str, Path, VaultChanges]],
        changes: list[tuple[Change, str]],
        removed: list[tuple[Removed, str]],
        *,
        more: int,
        notices: list[str],
    ) -> None:
        self.since = since
        self.vaults = vaults
        self.changes = changes
        self.removed = removed
        self.more = more  # changes left out by the limit
        self.notices = notices

    def ids(self) -> frozenset[str]:
        """The ids of the notes listed, whatever their vault (to recall among them)."""
        return frozenset(change.hit.id for change, _ in self.changes)


def changes_many(
    vaults: list[VaultRef],
    since: Since,
    request: RecallRequest,
    check: Filters | None = None,
    *,
    every: bool = False,
) -> ChangesResult:
    """What changed in each of these vaults since `since`, merged newest first.

    With `check`, unknown filter names raise `UsageError` first, as for recall. A
    commit is a commit of one vault: the others are passed over with a notice, and
    when no vault holds it the first vault's `UsageError` is raised. `every`: no limit,
    inactive notes too (the notes a recall `--since` then ranks, statuses and all).
    """
    from datetime import datetime

    if check is not None and not check.empty:
        _check(vaults, check)
    if every:
        request = RecallRequest(
            "", types=request.types, tags=request.tags, limit=10**9, include_inactive=True
        )
    found: list[tuple[str, Path, VaultChanges]] = []
    notices: list[str] = []
    refused: UsageError | None = None
    for ref in vaults:
        try:
            found.append((ref.name, ref.root, changed_since(ref.root, since, request)))
        except UsageError as exc:
            if len(vaults) == 1:
                raise
            refused = refused or exc
            notices.append(f"[{ref.name}] {exc.message}")
    if not found:
        assert refused is not None
        raise refused

    def when(item: tuple[Change | Removed, str, int, int]) -> tuple[float, int, int]:
        moment = datetime.fromisoformat(item[0].committed).timestamp()
        return (-moment, item[2], item[3])

    changes = [
        (change, name, order, position)
        for order, (name, _, listed) in enumerate(found)
        for position, change in enumerate(listed.changes)
    ]
    removed = [
        (gone, name, order, position)
        for order, (name, _, listed) in enumerate(found)
        for position, gone in enumerate(listed.removed)
    ]
    if len(found) > 1:
        changes.sort(key=when)
        removed.sort(key=when)
    more = sum(listed.more for _, _, listed in found) + max(0, len(changes) - request.limit)
    return ChangesResult(
        since,
        found,
        [(change, name) for change, name, _, _ in changes[: request.limit]],
        [(gone, name) for gone, name, _, _ in removed],
        more=more,
        notices=notices,
    )


def changes_json(result: ChangesResult) -> dict[str, Any]:
    """What `lore recall --since … --json` and MCP `recent` print."""
    from lore.versioned import versioned

    vaults = [
        {
            "name": sanitize_field(name),
            "path": str(root),
            "commit": listed.commit,
            "from_commit": listed.from_commit,
        }
        for name, root, listed in result.vaults
    ]
    data: dict[str, Any] = {
        "since": sanitize_field(result.since.text),
        "vault": vaults[0],
        "vaults": vaults,
        "changes": [
            {**change.to_json(), "vault": sanitize_field(name)} for change, name in result.changes
        ],
        "removed": [
            {**gone.to_json(), "vault": sanitize_field(name)} for gone, name in result.removed
        ],
        "more": result.more,
    }
    if result.notices:
        data["notices"] = [sanitize_field(text) for text in result.notices]
    return versioned(data)
