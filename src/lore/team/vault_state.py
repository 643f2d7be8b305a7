"""The state of each registered vault, for `lore vaults` and `lore doctor`.

Read-only and offline: the commit checked out, how far it is ahead of or behind its
upstream as of the last fetch, when it last synced, and whether the index reflects
the checkout. Nothing is fetched, rebuilt or written.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lore.config import Config
from lore.errors import GitError
from lore.index.schema import schema_matches
from lore.paths import index_path
from lore.team.sync import iso_time, read_state
from lore.vault import git
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

    @property
    def problem(self) -> str | None:
        """One sentence on what needs doing, or None when all is well."""
        if not self.exists:
            return f"the folder {self.path} does not exist"
        if self.index_fresh is False:
            return "the index is behind the checkout (any recall or `lore sync` refreshes it)"
        if self.behind:
            return f"{self.behind} commit(s) behind {self.upstream}: run `lore sync`"
        return None

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
        }


def _index_meta(root: Path) -> tuple[dict[str, str], int] | None:
    path = index_path(root)
    if not path.is_file():
        return None
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=1.0)
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
        if state.branch:
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
            state.index_fresh = state.index_commit == state.commit
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
