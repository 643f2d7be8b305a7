"""Which vaults a hook reads.

`$LORE_VAULT` names one vault. Otherwise every vault registered in the user config
is read, in `lore.config.configured_vaults` order (the default first, then by
priority and name), which serves the list from a JSON copy while the config file is
unchanged: no TOML is parsed on the hook path. Folders that do not exist are
skipped; a broken config means no vaults (the hook stays silent, and `lore`
commands say what is wrong).
"""

from __future__ import annotations

import os
from pathlib import Path

from lore.errors import LoreError
from lore.record import Record


class VaultRef(Record):
    __slots__ = ("name", "root")

    def __init__(self, name: str, root: Path) -> None:
        self.name = name
        self.root = root


def hook_vaults() -> list[VaultRef]:
    """The vaults a hook should read, in order; only folders that exist."""
    env = os.environ.get("LORE_VAULT")
    if env:
        root = Path(env).expanduser()
        return [VaultRef(root.name, root)] if root.is_dir() else []
    from lore.config import configured_vaults

    try:
        entries = configured_vaults()
    except LoreError:
        return []
    refs = [VaultRef(entry.name, Path(entry.path).expanduser()) for entry in entries]
    return [ref for ref in refs if ref.root.is_dir()]
