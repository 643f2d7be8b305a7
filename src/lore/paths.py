"""Resolved paths: flag > environment > user config > platform default.

Nothing here creates a file or a folder; callers create what they write to.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from lore.errors import VaultError
from lore.record import Record

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


class VaultLocation(Record):
    __slots__ = ("how", "name", "root")

    def __init__(self, root: Path, name: str, how: str) -> None:
        self.root = root
        self.name = name
        self.how = how  # which rule found it: flag, env, config


def resolve_vault(flag: str | None = None) -> VaultLocation:
    """Find the vault to use, or raise `VaultError` saying how to name one.

    `flag` is a folder, or the name of a vault registered in the user config.
    """
    if flag:
        if not Path(flag).expanduser().exists() and "/" not in flag:
            from lore.config import load_config

            config = load_config()
            entry = config.vaults.get(flag)
            if entry is not None:
                return _checked(
                    Path(entry.path), f"the vault '{flag}' in {config.path}", "config", name=flag
                )
        return _checked(Path(flag), "--vault", "flag")
    env = os.environ.get("LORE_VAULT")
    if env:
        return _checked(Path(env), "LORE_VAULT", "env")
    from lore.config import load_config

    config = load_config()
    entry = config.default_vault()
    if entry is not None:
        return _checked(
            Path(entry.path),
            f"the vault '{entry.name}' in {config.path}",
            "config",
            name=entry.name,
        )
    raise VaultError(
        "No vault is configured.",
        fix="Pass --vault PATH, set LORE_VAULT, or try `lore demo` to create a demo vault.",
    )


def _checked(path: Path, source: str, how: str, name: str | None = None) -> VaultLocation:
    root = path.expanduser()
    if not root.is_dir():
        raise VaultError(
            f"The vault folder {root} (from {source}) does not exist.",
            fix="Check the path, or create a vault with `lore init`.",
        )
    if not (root / NOTES_DIR).is_dir() and not (root / "_taxonomy.md").is_file():
        raise VaultError(
            f"{root} (from {source}) is not a lore vault: it has no notes/ folder "
            "and no _taxonomy.md.",
            fix="Point at the vault's top folder.",
        )
    return VaultLocation(root.resolve(), name or root.resolve().name, how)
