"""The state of each registered vault, for `lore vaults` and `lore doctor`.

Read-only and offline: the reviewed branch served and its commit, the commit checked
out and how far it is ahead of or behind the reviewed branch as of the last fetch,
when it last synced, whether the index reflects the reviewed branch, and whether that
branch tracks `.lore/`. Nothing is fetched, rebuilt or written.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lore.config import Config
from lore.errors import GitError
from lore.index.health import connect_existing
from lore.index.schema import schema_matches
from lore.paths import index_path
from lore.team.sync import iso_time, read_state
from lore.vault import git
from lore.vault.local_state import tracked_old_state
from lore.vault.snapshot import UNSETTLED, served_branch
from lore.versioned import versioned


@dataclass
class VaultState:
    name: str
    path: str
    default: bool
    priority: int
    remote: str | None
    exists: bool
    git: bool = False
    branch: str | None = None
    commit: str | None = None
    upstream: str | None = None
    ahead: int | None = None
    behind: int | None = None
    last_sync: float | None = None
    last_error: str | None = None
    index_commit: str | None = None
    index_fresh: bool | None = None
    index_notes: int | None = None
    served_branch: str | None = None  # `origin/main`, `main`, or `HEAD`
    served_commit: str | None = None
    served_from: str | None = None  # remote, local or head (see lore.vault.git.ReviewedBranch)
    tracked_state: list[str] | None = None  # what the served commit tracks under `.lore`

    @property
    def problem(self) -> str | None:
        """One sentence on what needs doing, or None when all is well."""
        if not self.exists:
            return f"the folder {self.path} does not exist"
        if self.tracked_state:
            return (
                f"the reviewed branch {self.served_branch} tracks .lore/ "
                f"({', '.join(self.tracked_state[:3])}); lore never opens or writes it. "
                f"{_untrack(self)}"
            )
        if self.index_fresh is False:
            return (
                f"the index is behind {self.served_branch or 'the vault'} "
                "(any recall or `lore sync` refreshes it)"
            )
        branch = self.served_name
        if self.git and self.served_from != "head" and self.branch != branch:
            where = f"on {self.branch}" if self.branch else "on no branch (HEAD is detached)"
            return (
                f"the checkout is {where}, not {branch}: agents are served "
                f"{self.served_branch} ({(self.served_commit or '')[:12]}) all the same; "
                f"`git -C {self.path} switch {branch}` when you are done"
            )
        if self.behind:
            return f"{self.behind} commit(s) behind {self.upstream}: run `lore sync`"
        return None

    @property
    def served_name(self) -> str:
        """The reviewed branch's own name (`main` for `origin/main`)."""
        name = self.served_branch or ""
        return name.split("/", 1)[1] if self.served_from == "remote" else name

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "path": self.path,
            "default": self.default,
            "priority": self.priority,
            "remote": self.remote,
            "exists": self.exists,
            "git": self.git,
            "branch": self.branch,
            "commit": self.commit,
            "upstream": self.upstream,
            "ahead": self.ahead,
            "behind": self.behind,
            "last_sync": iso_time(self.last_sync),
            "last_error": self.last_error,
            "index": {
                "commit": self.index_commit,
                "fresh": self.index_fresh,
                "notes": self.index_notes,
            },
            "served": {
                "branch": self.served_branch,
                "commit": self.served_commit,
                "from": self.served_from,
                "tracks_old_state": self.tracked_state or [],
            },
        }


def _untrack(state: VaultState) -> str:
    from lore.vault.local_state import untrack_advice

    return untrack_advice(Path(state.path), state.served_branch or "main")


def _index_meta(root: Path) -> tuple[dict[str, str], int] | None:
    path = index_path(root)
    if not path.is_file():
        return None
    try:
        conn = connect_existing(path, timeout=1.0, read_only=True)
    except sqlite3.Error:
        return None
    try:
        if not schema_matches(conn):
            return None
        meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
        notes = int(conn.execute("SELECT count(*) FROM notes").fetchone()[0])
        return meta, notes
    except sqlite3.Error:
        return None
    finally:
        conn.close()


def vault_state(
    name: str, root: Path, *, default: bool = False, priority: int = 0, remote: str | None = None
) -> VaultState:
    state = VaultState(name, str(root), default, priority, remote, root.is_dir())
    if not state.exists:
        return state
    state.git = git.is_git_work_tree(root)
    if state.git:
        state.branch = git.current_branch(root)
        state.commit = git.head_commit(root)
        state.remote = git.remote_url(root, "origin") or remote
        served = served_branch(root)
        if served is not None:
            state.served_branch = served.label
            state.served_commit = served.commit.removeprefix(UNSETTLED) or None
            state.served_from = served.source
            state.tracked_state = tracked_old_state(root, state.served_commit or "")
        if state.branch and served is not None and served.source == "remote":
            if state.branch == served.branch:
                state.upstream = served.label
        elif state.branch:
            state.upstream = git.upstream_of(root, state.branch)
        if state.upstream and state.commit:
            try:
                state.ahead, state.behind = git.ahead_behind(root, "HEAD", state.upstream)
            except GitError:  # a missing ref only means "unknown"
                state.ahead = state.behind = None
    synced = read_state(root)
    stamp = synced.get("last_success")
    state.last_sync = float(stamp) if isinstance(stamp, (int, float)) else None
    error = synced.get("last_error")
    state.last_error = str(error) if error else None
    found = _index_meta(root)
    if found is not None:
        meta, notes = found
        state.index_notes = notes
        if meta.get("kind") == "git":
            state.index_commit = meta.get("version") or None
            state.index_fresh = state.index_commit == state.served_commit
    elif state.exists:
        state.index_fresh = False
    return state


def vaults_json(config: Config, states: list[VaultState]) -> dict[str, Any]:
    """`lore vaults --json`: the config file, the default vault, and each vault's state."""
    default = config.default_vault()
    return versioned(
        {
            "config": str(config.path),
            "default": default.name if default else None,
            "vaults": [state.to_json() for state in states],
        }
    )


def vault_states(config: Config) -> list[VaultState]:
    default = config.default_vault()
    return [
        vault_state(
            entry.name,
            Path(entry.path),
            default=default is not None and entry.name == default.name,
            priority=entry.priority,
            remote=entry.remote,
        )
        for entry in config.ordered()
    ]
