"""Change sets: edits to several vault files proposed as one pull request (garden, drift).

The gardener's cleanup and drift's review marks are each a `ChangeSet`: files to move
(with `git mv`, so history follows them) and files to write. `start_change` fetches the
remote and says where the change starts; `propose_change` commits it on `lore/<name>`
in a worktree of its own (the user's checkout is never touched) and publishes it
through the same path as `lore remember` (`lore.team.proposals.branches`). When the push or the
pull request fails, the branch and its worktree stay, and the message names the
command that finishes it (`lore garden --resume NAME`, `lore drift --resume NAME`),
which calls `resume_change`.
"""

from __future__ import annotations

import contextlib
import re
import time
from dataclasses import dataclass, field
from pathlib import Path

from lore.errors import GitError, UsageError
from lore.files import write_atomic
from lore.team.proposals.branches import (
    BRANCH_PREFIX,
    REMOTE,
    Outcome,
    PullRequest,
    base_of,
    check_vault,
    cleanup,
    publish_branch,
    read_meta,
    taken_names,
    write_meta,
)
from lore.vault import gh, git
from lore.vault.remote import NETWORK_TIMEOUT, RemoteError
from lore.vault.remote import fetch as fetch_remote
from lore.vault.repository import commit_paths, move_paths
from lore.vault.resolved import Vault
from lore.vault.worktree import add_worktree, proposals_dir, worktrees

# A change's name is its branch (`lore/<name>`) and its folder: `garden-2026-11-02`.
_NAME = re.compile(r"^[a-z0-9][a-z0-9-]{0,99}$")


@dataclass
class ChangeSet:
    """Edits to several vault files, proposed together as one pull request.

    `moves` renames files (old path -> new path, with `git mv`, so history follows);
    `writes` then sets the contents of files (paths as they are after the moves).
    """

    name: str  # the branch is `lore/<name>`
    title: str
    body: str
    message: str  # the commit message
    moves: dict[str, str] = field(default_factory=dict)
    writes: dict[str, bytes] = field(default_factory=dict)
    labels: tuple[str, ...] = ("lore",)
    # What to run to finish it after a failed push; `resume_change` does the work.
    resume_command: str | None = None


def start_change(where: Vault | Path, *, timeout: float = NETWORK_TIMEOUT) -> tuple[str, str]:
    """Fetch the remote (when there is one); (base branch, base ref) a change starts from."""
    vault = Vault.of(where)
    root = vault.root
    check_vault(vault)
    url = git.remote_url(root, REMOTE, vault.found)
    remote = REMOTE if url else None
    if remote is not None:
        # Offline, the last fetched state of the default branch serves.
        with contextlib.suppress(RemoteError):
            fetch_remote(root, remote, timeout=timeout, gh=gh.gh_executable(), url=url)
        vault.refs_moved()
    return base_of(vault, remote)


def free_change_name(where: Vault | Path, name: str) -> str:
    """`name`, or `name-2`, `name-3`… when a branch or worktree already has it."""
    taken = taken_names(Vault.of(where))
    candidate, number = name, 1
    while candidate in taken:
        number += 1
        candidate = f"{name}-{number}"
    return candidate


def propose_change(
    where: Vault | Path,
    change: ChangeSet,
    *,
    base_branch: str,
    base_ref: str,
    timeout: float = NETWORK_TIMEOUT,
) -> Outcome:
    """Commit `change` on `lore/<name>` in a worktree of its own, push it, open the PR.

    The user's checkout is never touched. When the push or the pull request fails, the
    branch and its worktree stay and `ProposalError` names the change's resume command.
    """
    vault = Vault.of(where)
    _check_name(change.name)
    branch = BRANCH_PREFIX + change.name
    worktree = proposals_dir(vault) / change.name
    add_worktree(vault, worktree, branch, base_ref)
    write_meta(
        vault,
        change.name,
        {
            "id": change.name,
            "branch": branch,
            "base_branch": base_branch,
            "kind": "change",
            "title": change.title,
            "body": change.body,
            "labels": list(change.labels),
            "resume": change.resume_command or f"lore garden --resume {change.name}",
            "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        },
    )
    try:
        move_paths(worktree, change.moves)  # staged as renames
        for path, data in change.writes.items():
            write_atomic(worktree / path, data)
        # The worktree is fresh, so its index holds this change and nothing else.
        commit_paths(worktree, sorted(change.writes), change.message, with_staged=True)
    except (GitError, OSError):
        cleanup(vault, change.name, worktree)
        raise
    vault.refs_moved()
    return _publish_change(vault, change.name, worktree=worktree, timeout=timeout)


def resume_change(where: Vault | Path, name: str, *, timeout: float = NETWORK_TIMEOUT) -> Outcome:
    """Push a committed change that stopped and open its pull request."""
    vault = Vault.of(where)
    root = vault.root
    check_vault(vault)
    _check_name(name)
    branch = BRANCH_PREFIX + name
    if not read_meta(vault, name) or not git.ref_exists(root, f"refs/heads/{branch}"):
        raise UsageError(
            f"There is no unfinished change {name} in {root}.",
            fix="`lore proposals` lists the proposals and their state.",
        )
    return _publish_change(vault, name, worktree=worktrees(vault).get(branch), timeout=timeout)


def _check_name(name: str) -> None:
    if not _NAME.match(name):
        raise UsageError(
            f"'{name}' is not the name of a change (lower-case letters, digits and hyphens).",
            fix="`lore proposals` lists the proposals and their names.",
        )


def _publish_change(vault: Vault, name: str, *, worktree: Path | None, timeout: float) -> Outcome:
    meta = read_meta(vault, name)
    request = PullRequest(
        title=str(meta.get("title") or BRANCH_PREFIX + name),
        body=str(meta.get("body") or ""),
        labels=[str(label) for label in meta.get("labels") or []],
    )
    return publish_branch(
        vault,
        name,
        request,
        worktree=worktree,
        base_branch=str(meta.get("base_branch") or "main"),
        what="change",
        kept=f"the branch {BRANCH_PREFIX}{name}",
        resume=str(meta.get("resume") or f"lore garden --resume {name}"),
        timeout=timeout,
        notices=[],
    )
