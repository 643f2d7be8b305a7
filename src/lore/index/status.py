"""What `lore index` reports: the index's state, the branch and commit it serves, its notes,
and what is not served."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lore.index.build import IndexState
from lore.index.fill import read_meta
from lore.paths import NOTES_DIR, index_path
from lore.vault import git
from lore.versioned import versioned


@dataclass
class IndexReport:
    vault: str
    index_path: str
    engine: str
    state: IndexState
    active: int
    inactive: int
    size_bytes: int
    sqlite_version: str
    libyaml: bool
    skipped: list[tuple[str, str]] = field(default_factory=list)
    uncommitted: list[str] = field(default_factory=list)
    settings_problem: str = ""
    branch: str = ""  # the reviewed branch served (`origin/main`), "" without git

    def to_json(self) -> dict[str, Any]:
        return versioned(
            {
                "vault": self.vault,
                "index": self.index_path,
                "engine": self.engine,
                "action": self.state.action,
                "source": self.state.kind,
                "commit": self.state.version if self.state.kind == "git" else None,
                "branch": (self.branch or None) if self.state.kind == "git" else None,
                "notes": self.state.notes,
                "active": self.active,
                "inactive": self.inactive,
                "skipped": [{"path": p, "problem": m} for p, m in self.skipped],
                "uncommitted": self.uncommitted,
                "size_bytes": self.size_bytes,
                "sqlite_version": self.sqlite_version,
                "libyaml": self.libyaml,
                "seconds": round(self.state.seconds, 3),
                "settings_problem": self.settings_problem or None,
                "healed": self.state.healed or None,
            }
        )


def index_report(root: Path, conn: sqlite3.Connection, state: IndexState) -> IndexReport:
    from lore.yamlio import WITH_LIBYAML

    path = index_path(root)
    active = conn.execute("SELECT count(*) FROM notes WHERE active = 1").fetchone()[0]
    skipped = conn.execute("SELECT path, problem FROM skipped ORDER BY path").fetchall()
    meta = read_meta(conn)
    size = sum(
        Path(f"{path}{suffix}").stat().st_size
        for suffix in ("", "-wal")
        if Path(f"{path}{suffix}").exists()
    )
    return IndexReport(
        vault=str(root),
        index_path=str(path),
        engine="fts5",
        state=state,
        active=active,
        inactive=state.notes - active,
        size_bytes=size,
        sqlite_version=sqlite3.sqlite_version,
        libyaml=WITH_LIBYAML,
        skipped=[(p, m) for p, m in skipped],
        uncommitted=uncommitted_notes(root) if state.kind == "git" else [],
        settings_problem=meta.get("settings_problem", ""),
        branch=meta.get("branch", ""),
    )


def uncommitted_notes(root: Path) -> list[str]:
    """Notes changed in the working tree but not committed (so not served)."""
    result = git.run_git(
        ["status", "--porcelain", "-z", "--untracked-files=all", "--", f"{NOTES_DIR}/"],
        root,
        check=False,
    )
    paths = []
    for record in result.stdout.split(b"\0"):
        if len(record) > 3:
            paths.append(record[3:].decode("utf-8", "replace"))
    return sorted(paths)


def unavailable_json(vault: str, index: str, error: str) -> dict[str, Any]:
    """`lore index --json` when no index can be used: recall scans the files."""
    return versioned(
        {"vault": vault, "index": index, "engine": "scan", "action": "unavailable", "error": error}
    )


def damage_json(vault: str, index: str, problems: list[str], fix: str) -> dict[str, Any]:
    """`lore index --check --json` on a damaged index (nothing was changed)."""
    return versioned(
        {"vault": vault, "index": index, "action": "checked", "integrity": problems, "fix": fix}
    )
