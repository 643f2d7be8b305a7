"""Resolved paths: flag > environment > user config > platform default.

Nothing here creates a file or a folder; callers create what they write to.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

INDEX_DIR = ".lore"
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


def index_path(vault_root: Path) -> Path:
    return vault_root / INDEX_DIR / INDEX_FILE


def drafts_dir(vault_root: Path) -> Path:
    """One vault's drafts inbox (`lore drafts`): `$LORE_HOME/drafts/<name>-<hash>/`.

    The folder is named after the vault's folder and a hash of its resolved path, so two
    clones never share an inbox and the name still says which vault it serves. It lives
    under `$LORE_HOME`, outside every git repository: a draft is never pushed.
    """
    import hashlib
    import re

    resolved = os.path.realpath(vault_root)
    name = "-".join(re.findall(r"[a-z0-9]+", Path(resolved).name.lower())[:4]) or "vault"
    digest = hashlib.sha256(resolved.encode("utf-8", "surrogateescape")).hexdigest()[:12]
    return lore_home() / "drafts" / f"{name}-{digest}"
