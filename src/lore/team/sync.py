"""`lore sync`: fetch each vault, serve the reviewed branch's new tip, fast-forward its checkout.

What agents are served is the reviewed branch as the remote has it (`origin/main`,
`lore.vault.snapshot`), so after the fetch the index is brought to its new tip whatever
the checkout is doing: a reviewer with a pull request's branch checked out, local
edits or an unfinished rebase still gets the team's later notes. Then sync brings the
checkout's copy of that branch along, and only ever fast-forwards: when the checkout is
on the reviewed branch it changes nothing — and says what is wrong and the command that
fixes it — when the checkout has local changes, a merge or rebase is open, the branch
has diverged, or the remote's history was rewritten; when the checkout is on another
branch (or none), the local reviewed branch is fast-forwarded only where that touches
no file (`git fetch . origin/main:main`, which git refuses for a branch checked out
anywhere), and sync advises `git switch main`. When the remote cannot be reached (or
does not answer within the timeout) the vault keeps serving its last index, and the
result says since when it has not synced. A branch that tracks `.lore/` (the folder an
older lore kept in the work tree) is named, with the fix; lore never opens or writes
it. A lock per vault (`sync.lock`) makes it safe to start from hooks in the
background; `sync.json` remembers the last sync — both in the vault's state folder.
"""

from __future__ import annotations

import contextlib
import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lore.errors import GitError, LoreError, StateUnwritable
from lore.files import FileLock, LockTimeout, write_atomic
from lore.paths import state_dir
from lore.vault import gh, git
from lore.vault.local_state import ensure_state_dir, tracked_old_state, untrack_advice
from lore.vault.remote import RemoteError
from lore.vault.remote import fetch as fetch_remote
from lore.vault.snapshot import UNSETTLED, served_branch
from lore.vaults import VaultRef
from lore.versioned import versioned

STATE_FILE = "sync.json"
LOCK_FILE = "sync.lock"
DEFAULT_TIMEOUT = 30.0
REMOTE = "origin"
OK_STATUSES = ("updated", "current", "ahead", "local", "busy")
UNWRITABLE = "unwritable"  # lore's state folder cannot be made: the user must move what is there


@dataclass
class SyncResult:
    """What sync did to one vault. `status` is one of updated, current, ahead (local
    commits not pushed), local (no remote), busy (another sync holds the lock), offline,
    blocked (the checkout was left as it is and needs the user: the notes served were
    still brought up to date), unwritable (the state folder cannot be made) or error.
    `before` and `after` are the served commits; `branch` is the reviewed branch
    (`origin/main`)."""

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
    branch: str | None = None  # the reviewed branch served (`origin/main`)
    checkout: str | None = None  # the branch the work tree has checked out (None: detached)

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
            "branch": self.branch,
            "checkout": self.checkout,
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
        data = json.loads((state_dir(root) / STATE_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _save_state(root: Path, state: dict[str, Any]) -> None:
    with contextlib.suppress(OSError):  # a read-only vault still syncs; it only forgets when
        write_atomic(state_dir(root) / STATE_FILE, json.dumps(state, indent=2).encode("utf-8"))


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
        folder = ensure_state_dir(root)
        lock = FileLock(folder / LOCK_FILE, timeout=60.0 if wait else 0.0)
        lock.acquire()
    except LockTimeout:
        return SyncResult(name, str(root), "busy", "Another `lore sync` is running for it.")
    except StateUnwritable as exc:
        return SyncResult(name, str(root), UNWRITABLE, exc.message, fix=exc.fix)
    except OSError as exc:
        return SyncResult(name, str(root), "error", f"Cannot write {state_dir(root)}: {exc}.")
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
    served = served_branch(root)
    before = _commit(served)
    result = SyncResult(name, str(root), "current", "", before=before, after=before)
    result.last_success = last_success
    result.checkout = git.current_branch(root)
    result.branch = served.label if served else None
    state["last_attempt"] = now

    if git.remote_url(root, REMOTE) is None:
        result.status = "local"
        result.message = f"No `{REMOTE}` remote: nothing to fetch; serving {_where(served)}."
        result.index = _refresh_index(root)
        _tell_tracked_state(root, result, served)
        _save_state(root, state)
        return result

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

    result.index = _refresh_index(root)  # agents get the reviewed branch's new tip now
    served = served_branch(root)
    result.after = _commit(served)
    result.branch = served.label if served else None
    if before and result.after and before != result.after:
        with contextlib.suppress(GitError):
            result.changed_notes = len(git.diff_blobs(root, before, result.after, "notes"))
    if served is None or served.source != "remote":
        where = f"serving {_where(served)}" if served else "nothing to serve"
        branch = served.branch if served and served.source == "local" else "main"
        result.status = "blocked"
        result.message = f"{REMOTE} has no branch {branch} yet; {where}."
        result.fix = f"Push it once: `git -C {root} push -u {REMOTE} {branch}`."
    else:
        _bring_checkout(root, served, result)
        if result.status != "blocked":
            state["last_success"] = now
            result.last_success = now
            state.pop("last_error", None)
    if result.status == "blocked":
        state["last_error"] = result.message
    state["upstream"] = result.after
    _tell_tracked_state(root, result, served)
    _save_state(root, state)
    return result


def _commit(served: git.ReviewedBranch | None) -> str | None:
    if served is None or not served.commit:
        return None
    return served.commit.removeprefix(UNSETTLED)


def _where(served: git.ReviewedBranch | None) -> str:
    return f"{served.label} ({_short(_commit(served))})" if served else "the files"


def _bring_checkout(root: Path, served: git.ReviewedBranch, result: SyncResult) -> None:
    """Fast-forward the checkout's copy of the reviewed branch, never touching local work."""
    branch, upstream, before = served.branch, served.label, result.before
    if result.after != before:
        delivered = (
            f"Agents are served {upstream} ({_short(result.after)}): "
            f"{result.changed_notes} note file(s) changed."
        )
    else:
        delivered = f"Agents are served {upstream} ({_short(result.after)})."
    rewritten = (
        before is not None
        and result.after != before
        and git.commit_exists(root, before)
        and not git.is_ancestor(root, before, served.ref)
    )
    operation = git.operation_in_progress(root)
    if result.checkout != branch and operation is None:
        _elsewhere(root, served, result, delivered, rewritten=rewritten)
        return
    blocked = _why_blocked(root, branch, upstream, before if rewritten else None)
    if blocked is not None:
        result.status = "blocked"
        result.message = f"{blocked[0]} {delivered}"
        result.fix = blocked[1]
        return
    ahead, behind = git.ahead_behind(root, "HEAD", served.ref)
    if behind:
        git.merge_ff_only(root, served.ref)
        result.status = "updated"
        result.message = (
            f"Fast-forwarded {branch} to {upstream} ({_short(result.after)}): "
            f"{result.changed_notes} note file(s) changed."
        )
    elif ahead:
        result.status = "ahead"
        result.message = (
            f"Up to date; {branch} also has {ahead} commit(s) that are not on {upstream} "
            f"(agents are served {upstream}: those are not served until they are merged)."
        )
        result.fix = "Propose notes with `lore remember` rather than committing to the vault."
    elif result.changed_notes or result.after != result.before:
        result.status = "updated"
        result.message = delivered
    else:
        result.message = f"Up to date with {upstream} ({_short(result.after)})."


def _elsewhere(
    root: Path, served: git.ReviewedBranch, result: SyncResult, delivered: str, *, rewritten: bool
) -> None:
    """The checkout is on another branch, or none: leave it; move the local reviewed branch
    only where git can without touching a file."""
    branch, upstream = served.branch, served.label
    local = git.resolve_commit(root, f"refs/heads/{branch}")
    moved = ""
    if local and local != result.after:
        if git.is_ancestor(root, local, served.ref):
            git.run_git(
                ["fetch", "--quiet", ".", f"{served.ref}:refs/heads/{branch}"], root, check=False
            )
            if git.resolve_commit(root, f"refs/heads/{branch}") == result.after:
                moved = f" Your {branch} was fast-forwarded to it."
        else:
            moved = f" Your {branch} has commits that are not on {upstream}; it was left as it is."
    where = f"on {result.checkout}" if result.checkout else "on no branch (HEAD is detached)"
    result.status = "blocked"
    result.message = (
        f"{delivered}{moved} The checkout in {root} is {where}, not {branch}, so it was left "
        "as it is (what agents see does not depend on it)."
    )
    if rewritten:
        result.message += f" The history of {upstream} was rewritten (force-pushed)."
    result.fix = f"When you are done there, go back: `git -C {root} switch {branch}`."


def _tell_tracked_state(root: Path, result: SyncResult, served: git.ReviewedBranch | None) -> None:
    """Say so when the served commit tracks `.lore` (inert: lore never opens or writes it)."""
    commit = _commit(served)
    if served is None or not commit or not tracked_old_state(root, commit):
        return
    result.message = (
        f"{result.message} The reviewed branch {served.label} tracks .lore/ (an older lore's "
        "cache folder); lore never opens or writes it."
    ).strip()
    advice = untrack_advice(root, served.label)
    result.fix = f"{result.fix} {advice}" if result.fix else advice


def _why_blocked(
    root: Path, branch: str, upstream: str, rewritten_from: str | None
) -> tuple[str, str] | None:
    """(what is wrong, how to fix it) when sync must not touch the checkout on `branch`."""
    operation = git.operation_in_progress(root)
    if operation is not None:
        what, fix = operation
        return (
            f"{what.capitalize()} is in progress in {root}; sync left the checkout as it is.",
            f"Finish it with {fix}, then run `lore sync` again.",
        )
    if rewritten_from:
        return (
            f"The history of {upstream} was rewritten (force-pushed): {_short(rewritten_from)} "
            f"is no longer part of it. Sync left the checkout as it is; agents are served "
            f"{upstream} as the remote now has it.",
            f"Check with your vault's admins. If {branch} has nothing of your own, "
            f"`git -C {root} reset --keep {upstream}` takes the new history; otherwise rebase "
            f"your commits onto it.",
        )
    dirty = git.changed_tracked_files(root)
    if dirty:
        listed = ", ".join(dirty[:3]) + (f" and {len(dirty) - 3} more" if len(dirty) > 3 else "")
        return (
            f"{root} has uncommitted changes ({listed}); sync left the checkout as it is.",
            "Propose a note with `lore remember` instead of editing the vault; to keep the edits, "
            f"`git -C {root} stash`, run `lore sync`, then `git -C {root} stash pop`.",
        )
    ahead, behind = git.ahead_behind(root, "HEAD", upstream)
    if ahead and behind:
        return (
            f"{branch} and {upstream} have diverged ({ahead} local commit(s), {behind} new "
            "upstream); sync only fast-forwards, so it left the checkout as it is.",
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
