"""Resolved paths: flag > environment > user config > platform default.

Nothing here creates a file or a folder; callers create what they write to.

A vault's machine-local state — the index with its WAL and lock, sync state, proposal
records and worktrees — lives where no commit can reach it, decided by `state_dir`
alone: `<git common dir>/lore/` for a vault at the top of a git work tree (shared by
its linked worktrees, like the refs it serves), else `$LORE_HOME/vaults/<id>/`. Older
lore kept it in `<vault>/.lore/` (`OLD_STATE_DIR`), which a commit can carry; nothing
reads or writes there any more except the one-time move in `lore.vault.local_state`.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

OLD_STATE_DIR = ".lore"  # older lore's folder in the work tree; the vault's .gitignore keeps it
STATE_DIR = "lore"  # under the git common dir
VAULTS_DIR = "vaults"  # under $LORE_HOME, for a vault that is not a git work tree
DRAFTS_DIR = "drafts"  # under $LORE_HOME: each vault's drafts inbox (`lore drafts`)
INDEX_FILE = "index.db"
NOTES_DIR = "notes"


def _platform_dir(env: str, posix_default: str, windows_env: str = "APPDATA") -> Path:
    value = os.environ.get(env)
    if value:
        return Path(value)
    if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
        return Path(os.environ.get(windows_env, Path.home())) / "lore"
    if sys.platform == "darwin":  # pragma: no cover - exercised on macOS only
        return Path.home() / "Library" / "Application Support" / "lore"
    return Path.home() / posix_default


def lore_home() -> Path:
    """Where lore keeps its own state and logs: `$LORE_HOME`, else the platform data dir."""
    value = os.environ.get("LORE_HOME")
    if value:
        return Path(value).expanduser()
    xdg = os.environ.get("XDG_STATE_HOME")
    if xdg and sys.platform not in ("win32", "darwin"):
        return Path(xdg) / "lore"
    return _platform_dir("LORE_HOME", ".local/state/lore", "LOCALAPPDATA")


def config_path() -> Path:
    """The user config: `$LORE_CONFIG`, else `<platform config dir>/lore/config.toml`."""
    value = os.environ.get("LORE_CONFIG")
    if value:
        return Path(value).expanduser()
    xdg = os.environ.get("XDG_CONFIG_HOME")
    if xdg and sys.platform not in ("win32", "darwin"):
        return Path(xdg) / "lore" / "config.toml"
    return _platform_dir("LORE_CONFIG_DIR", ".config/lore") / "config.toml"


def log_dir() -> Path:
    return lore_home() / "logs"


def state_dir(
    vault_root: Path, found: tuple[Path, Path] | None = None, *, searched: bool = False
) -> Path:
    """The vault's machine-local folder (see the module docstring); read from the files.

    `<common git dir>/lore` when `vault_root` is the top of a git work tree (what
    `git rev-parse --git-common-dir` says, without running git), else
    `$LORE_HOME/vaults/<folder name>-<8 hex digits of its resolved path>`. `found`: the
    caller has found that `vault_root` is the top of this (work tree, git dir) already;
    `searched`: the caller has looked, and it is not (`lore.vault.resolved.Vault`).
    """
    from lore.gitfiles import common_dir, find_git_dir

    if found is not None:
        return common_dir(found[1]) / STATE_DIR
    resolved = vault_root.resolve()
    if searched:
        return lore_home() / VAULTS_DIR / vault_key(resolved)
    found = find_git_dir(resolved, resolved=True)
    if found is not None and found[0] == resolved:
        return common_dir(found[1]) / STATE_DIR
    return lore_home() / VAULTS_DIR / vault_key(resolved)


def vault_key(vault_root: Path) -> str:
    """A vault's folder name under `$LORE_HOME`: `<folder name>-<8 hex of its resolved path>`."""
    import hashlib

    resolved = vault_root.resolve()
    digest = hashlib.sha256(str(resolved).encode("utf-8", "surrogateescape")).hexdigest()[:8]
    name = "".join(c if c.isalnum() or c in "._-" else "-" for c in resolved.name)[:40]
    return f"{name or 'vault'}-{digest}"


def index_path(vault_root: Path) -> Path:
    return state_dir(vault_root) / INDEX_FILE


def drafts_dir(vault_root: Path) -> Path:
    """One vault's drafts inbox (`lore drafts`): `$LORE_HOME/drafts/<name>-<hash>/`.

    Named as `state_dir` names a vault without git (`vault_key`), so two clones never
    share an inbox and the name still says which vault it serves. It lives under
    `$LORE_HOME`, outside every git repository: a draft is never pushed.
    """
    return lore_home() / DRAFTS_DIR / vault_key(vault_root)
