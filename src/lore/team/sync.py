"""`lore sync`: fetch and fast-forward each vault, then bring its index up to date.

Sync only ever fast-forwards. It changes nothing — and says what is wrong and the
command that fixes it — when the checkout has local changes, HEAD is detached, a
merge or rebase is open, the branch has diverged from its upstream, or the upstream
history was rewritten. When the remote cannot be reached (or does not answer within
the timeout) the vault keeps serving its last index, and the result says since when
it has not synced. A lock per vault (`.lore/sync.lock`) makes it safe to start from
hooks in the background; `<vault>/.lore/sync.json` remembers the last sync.
"""

from __future__ import annotations

import contextlib
import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lore.errors import GitError, LoreError
from lore.files import FileLock, LockTimeout, write_atomic
from lore.paths import INDEX_DIR
from lore.vault import gh, git
from lore.vault.remote import RemoteError
from lore.vault.remote import fetch as fetch_remote
from lore.vaults import VaultRef
from lore.versioned import versioned

STATE_FILE = "sync.json"
LOCK_FILE = "sync.lock"
DEFAULT_TIMEOUT = 30.0
REMOTE = "origin"
OK_STATUSES = ("updated", "current", "ahead", "local", "busy")


@dataclass
class SyncResult:
    """What sync did to one vault. `status` is one of updated, current, ahead (local
    commits not pushed), local (no remote), busy (another sync holds the lock), offline,
    blocked (sync refused to touch the checkout) or error."""

    name: str
    root: str
    status: str
    message: str
    fix: str | None = None
    before: str | None = None
    after: str | None = None
    changed_notes: int = 0
    last_success: float | None = None
    index: str | None = None  # what the index did: fresh, updated, rebuilt, ... or a problem

    @property
    def ok(self) -> bool:
        return self.status in OK_STATUSES

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "path": self.root,
            "status": self.status,
            "ok": self.ok,
            "message": self.message,
            "fix": self.fix,
            "before": self.before,
            "after": self.after,
            "changed_notes": self.changed_notes,
            "last_success": iso_time(self.last_success),
            "index": self.index,
        }


def iso_time(stamp: float | None) -> str | None:
    if stamp is None:
        return None
    return time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(stamp))


def ago(stamp: float | None, now: float | None = None) -> str:
    """`3 hours ago (2026-11-02 14:03)`, or `never` — for "offline since when"."""
    if stamp is None:
        return "never"
    seconds = max(0, int((now or time.time()) - stamp))
    for size, unit in ((86400, "day"), (3600, "hour"), (60, "minute")):
        if seconds >= size:
            count = seconds // size
            text = f"{count} {unit}{'s' if count != 1 else ''} ago"
            break
    else:
        text = "just now"
    return f"{text} ({time.strftime('%Y-%m-%d %H:%M', time.localtime(stamp))})"


def read_state(root: Path) -> dict[str, Any]:
    try:
        data = json.loads((root / INDEX_DIR / STATE_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _save_state(root: Path, state: dict[str, Any]) -> None:
    with contextlib.suppress(OSError):  # a read-only vault still syncs; it only forgets when
        write_atomic(root / INDEX_DIR / STATE_FILE, json.dumps(state, indent=2).encode("utf-8"))


def _short(sha: str | None) -> str:
    return sha[:12] if sha else "no commit"


def _refresh_index(root: Path) -> str:
    from lore.index.build import IndexUnavailable, open_index

    try:
        conn, state = open_index(root)
    except (IndexUnavailable, OSError) as exc:
        return f"not usable ({exc}); recall scans the files"
    conn.close()
    return str(state.action)


def _upstream(root: Path, branch: str) -> str | None:
    configured = git.upstream_of(root, branch)
    if configured:
        return configured
    if git.ref_exists(root, f"refs/remotes/{REMOTE}/{branch}"):
        return f"{REMOTE}/{branch}"
    return None


def sync_vault(
    name: str, root: Path, *, timeout: float = DEFAULT_TIMEOUT, wait: bool = True
) -> SyncResult:
    """Sync one vault; never raises for the states above, and never loses local work."""
    root = root.expanduser()
    if not root.is_dir():
        return SyncResult(
            name,
            str(root),
            "error",
            f"The vault folder {root} does not exist.",
            fix=f"Connect it again (`lore connect … --name {name}`) or remove it with "
            f"`lore vaults --remove {name}`.",
        )
    root = root.resolve()
    if not git.is_git_work_tree(root):
        index = _refresh_index(root)
        return SyncResult(
            name, str(root), "local", "Not a git repository: nothing to fetch.", index=index
        )
    try:
        lock = FileLock(root / INDEX_DIR / LOCK_FILE, timeout=60.0 if wait else 0.0)
        lock.acquire()
    except LockTimeout:
        return SyncResult(name, str(root), "busy", "Another `lore sync` is running for it.")
    except OSError as exc:
        return SyncResult(name, str(root), "error", f"Cannot write {root / INDEX_DIR}: {exc}.")
    try:
        return _sync_locked(name, root, timeout)
    except GitError as exc:
        return SyncResult(name, str(root), "error", exc.message, fix=exc.fix)
    finally:
        lock.release()


def _sync_locked(name: str, root: Path, timeout: float) -> SyncResult:
    state = read_state(root)
    now = time.time()
    last_success = state.get("last_success")
    last_success = float(last_success) if isinstance(last_success, (int, float)) else None
    before = git.head_commit(root)
    result = SyncResult(name, str(root), "current", "", before=before, after=before)
    result.last_success = last_success
    state["last_attempt"] = now

    if git.remote_url(root, REMOTE) is None:
        result.status, result.message = "local", f"No `{REMOTE}` remote: nothing to fetch."
        result.index = _refresh_index(root)
        _save_state(root, state)
        return result

    branch = git.current_branch(root)
    upstream = _upstream(root, branch) if branch else None
    upstream_before = git.resolve_commit(root, upstream) if upstream else None
    try:
        fetch_remote(root, REMOTE, timeout=timeout, gh=gh.gh_executable())
    except RemoteError as exc:
        result.status = "offline"
        reason = "did not answer in time" if exc.kind == "timeout" else "could not be reached"
        result.message = (
            f"{REMOTE} {reason} ({exc.detail or exc.kind}); serving the index of "
            f"{_short(before)}, last synced {ago(last_success, now)}."
        )
        result.fix = "Run `lore sync` again when the network is back."
        if exc.kind == "auth":
            result.message = (
                f"{REMOTE} refused the credentials ({exc.detail}); serving the index of "
                f"{_short(before)}, last synced {ago(last_success, now)}."
            )
            result.fix = "Run `gh auth login` and `gh auth setup-git`, or check your SSH key."
        result.index = _refresh_index(root)
        state["last_error"] = result.message
        _save_state(root, state)
        return result

    blocked = _why_blocked(root, branch, upstream, upstream_before)
    if blocked is not None:
        result.status, result.message, result.fix = "blocked", blocked[0], blocked[1]
    else:
        assert branch is not None and upstream is not None  # _why_blocked checked both
        ahead, behind = git.ahead_behind(root, "HEAD", upstream)
        if behind:
            git.merge_ff_only(root, upstream)
            result.after = git.head_commit(root)
            if before and result.after:
                result.changed_notes = len(git.diff_blobs(root, before, result.after, "notes"))
            result.status = "updated"
            result.message = (
                f"Fast-forwarded {branch} to {upstream} ({_short(result.after)}): "
                f"{result.changed_notes} note file(s) changed."
            )
        elif ahead:
            result.status = "ahead"
            result.message = (
                f"Up to date; {branch} also has {ahead} commit(s) that are not on {upstream}."
            )
            result.fix = "Propose notes with `lore remember` rather than committing to the vault."
        else:
            result.message = f"Up to date with {upstream} ({_short(before)})."
        state["last_success"] = now
        result.last_success = now
        state.pop("last_error", None)
    if result.status == "blocked":
        state["last_error"] = result.message
    state["upstream"] = git.resolve_commit(root, upstream) if upstream else None
    result.index = _refresh_index(root)
    _save_state(root, state)
    return result


def _why_blocked(
    root: Path, branch: str | None, upstream: str | None, upstream_before: str | None
) -> tuple[str, str] | None:
    """(what is wrong, how to fix it) when sync must not touch the checkout."""
    operation = git.operation_in_progress(root)
    if operation is not None:
        what, fix = operation
        return (
            f"{what.capitalize()} is in progress in {root}; sync changed nothing.",
            f"Finish it with {fix}, then run `lore sync` again.",
        )
    if branch is None:
        return (
            f"HEAD is detached in {root} (no branch is checked out); sync changed nothing.",
            f"Check the main branch out again: `git -C {root} switch main`.",
        )
    if upstream is None:
        return (
            f"The branch {branch} has no upstream on {REMOTE}; sync changed nothing.",
            f"Set one: `git -C {root} branch --set-upstream-to {REMOTE}/main {branch}`.",
        )
    upstream_after = git.resolve_commit(root, upstream)
    if (
        upstream_before
        and upstream_after
        and upstream_before != upstream_after
        and not git.is_ancestor(root, upstream_before, upstream_after)
    ):
        return (
            f"The history of {upstream} was rewritten (force-pushed): {_short(upstream_before)} "
            f"is no longer part of it. Sync changed nothing.",
            f"Check with your vault's admins. If {branch} has nothing of your own, "
            f"`git -C {root} reset --keep {upstream}` takes the new history; otherwise rebase "
            f"your commits onto it.",
        )
    dirty = git.changed_tracked_files(root)
    if dirty:
        listed = ", ".join(dirty[:3]) + (f" and {len(dirty) - 3} more" if len(dirty) > 3 else "")
        return (
            f"{root} has uncommitted changes ({listed}); sync changed nothing.",
            "Propose a note with `lore remember` instead of editing the vault; to keep the edits, "
            f"`git -C {root} stash`, run `lore sync`, then `git -C {root} stash pop`.",
        )
    ahead, behind = git.ahead_behind(root, "HEAD", upstream)
    if ahead and behind:
        return (
            f"{branch} and {upstream} have diverged ({ahead} local commit(s), {behind} new "
            "upstream); sync only fast-forwards, so it changed nothing.",
            f"Rebase your commits: `git -C {root} rebase {upstream}` (or propose them as a pull "
            "request and reset to the upstream).",
        )
    return None


def sync_json(results: list[SyncResult]) -> dict[str, Any]:
    """`lore sync --json`: one row per vault."""
    return versioned({"vaults": [result.to_json() for result in results]})


def sync_vaults(
    vaults: list[VaultRef], *, timeout: float = DEFAULT_TIMEOUT, wait: bool = True
) -> list[SyncResult]:
    results = []
    for ref in vaults:
        try:
            results.append(sync_vault(ref.name, ref.root, timeout=timeout, wait=wait))
        except LoreError as exc:
            results.append(SyncResult(ref.name, str(ref.root), "error", exc.message, fix=exc.fix))
    return results
