"""The user config file (TOML): the vaults this machine knows and which is the default.

```toml
default = "team"

[vaults.team]
path = "~/lore/team"
remote = "https://github.com/acme/team-vault.git"
priority = 10
```
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lore.errors import UsageError
from lore.paths import config_path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib


@dataclass(frozen=True)
class VaultEntry:
    name: str
    path: str
    remote: str | None = None
    priority: int = 0


@dataclass
class Config:
    path: Path
    vaults: dict[str, VaultEntry] = field(default_factory=dict)
    default: str | None = None

    def default_vault(self) -> VaultEntry | None:
        if self.default and self.default in self.vaults:
            return self.vaults[self.default]
        if len(self.vaults) == 1:
            return next(iter(self.vaults.values()))
        return None


def load_config(path: Path | None = None) -> Config:
    """Read the user config; a missing file is an empty config, a broken one an error."""
    target = path or config_path()
    try:
        raw = target.read_bytes()
    except FileNotFoundError:
        return Config(path=target)
    try:
        data: dict[str, Any] = tomllib.loads(raw.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise UsageError(
            f"{target}: the config file is not valid TOML ({exc}).",
            fix="Fix the line it names, or move the file away to start afresh.",
        ) from None
    config = Config(path=target, default=data.get("default"))
    vaults = data.get("vaults", {})
    if not isinstance(vaults, dict):
        raise UsageError(f"{target}: 'vaults' must be a table.", fix="Use [vaults.NAME] sections.")
    for name, entry in vaults.items():
        if not isinstance(entry, dict) or not isinstance(entry.get("path"), str):
            raise UsageError(
                f"{target}: the vault '{name}' has no path.",
                fix=f'Add path = "..." under [vaults.{name}].',
            )
        config.vaults[name] = VaultEntry(
            name=name,
            path=str(Path(entry["path"]).expanduser()),
            remote=entry.get("remote"),
            priority=int(entry.get("priority", 0)),
        )
    return config
