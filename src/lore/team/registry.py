"""Registering vaults in the user config, and the list of vaults a command works on.

`register` adds or updates one vault in the config (written atomically); the first
vault registered becomes the default. Which vaults a command uses is decided in
`lore.vaults`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from lore.config import Config, VaultEntry, check_vault_name, load_config, save_config
from lore.errors import UsageError
from lore.files import FileLock, LockTimeout
from lore.note.ids import slugify
from lore.paths import config_path


def name_from(text: str) -> str:
    """A vault name from a repository or folder name: `Team-Vault.git` -> `team-vault`."""
    base = text.rstrip("/").rsplit("/", 1)[-1].removesuffix(".git")
    name = slugify(base, 8) or "vault"
    return check_vault_name(name[:63])


@contextmanager
def _config_lock() -> Iterator[None]:
    """Two `lore connect`s at once must not drop each other's vault."""
    path = config_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        lock = FileLock(path.with_name(f".{path.name}.lock"), timeout=30)
        lock.acquire()
    except (OSError, LockTimeout):
        yield  # a read-only folder or a stuck lock: write without it
        return
    try:
        yield
    finally:
        lock.release()


def register(
    name: str,
    path: Path,
    *,
    remote: str | None,
    priority: int | None = None,
    make_default: bool = False,
) -> tuple[Config, bool]:
    """Add (or update) a vault in the user config; returns (config, it is the default)."""
    check_vault_name(name)
    with _config_lock():
        config = load_config()
        existing = config.vaults.get(name)
        if existing is not None and Path(existing.path).resolve() != path.resolve():
            raise UsageError(
                f"A vault named '{name}' is already registered, at {existing.path}.",
                fix="Choose another name with --name, or remove it first with "
                f"`lore vaults --remove {name}`.",
            )
        same_folder = config.find_by_path(path)
        if same_folder is not None and same_folder.name != name:
            raise UsageError(
                f"{path} is already registered as the vault '{same_folder.name}'.",
                fix="Use that name, or remove it first with "
                f"`lore vaults --remove {same_folder.name}`.",
            )
        config.vaults[name] = VaultEntry(
            name=name,
            path=str(path.resolve()),
            remote=remote if remote is not None else (existing.remote if existing else None),
            priority=priority if priority is not None else (existing.priority if existing else 0),
            extra=existing.extra if existing else None,
        )
        if make_default or config.default not in config.vaults:
            config.default = name
        save_config(config)
    return config, config.default == name


def unregister(name: str) -> Config:
    """Forget a vault (its folder stays); the next by priority becomes the default."""
    with _config_lock():
        config = load_config()
        if name not in config.vaults:
            raise UsageError(
                f"No vault is registered as '{name}'.", fix="`lore vaults` lists them."
            )
        del config.vaults[name]
        if config.default == name:
            config.default = config.ordered()[0].name if config.vaults else None
        save_config(config)
    return config


def set_default(name: str) -> Config:
    with _config_lock():
        config = load_config()
        if name not in config.vaults:
            raise UsageError(
                f"No vault is registered as '{name}'.", fix="`lore vaults` lists them."
            )
        config.default = name
        save_config(config)
    return config
