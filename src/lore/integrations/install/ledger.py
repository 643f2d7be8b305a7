"""Backups of agent files before lore first changes them, and atomic writes.

`$LORE_HOME/installs/ledger.json` records, for every file an installer changed:
whether it existed, where its original bytes are kept (`installs/backups/`), and
the hash of what lore last wrote. Uninstalling puts the original bytes back when
the file still holds exactly what lore wrote; otherwise the caller removes only
lore's entries from the current content, so nobody's later edits are lost.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import time
from pathlib import Path
from typing import Any

from lore.files import write_atomic
from lore.paths import lore_home
from lore.record import Record

LEDGER_VERSION = 1


def digest(data: bytes | None) -> str | None:
    return None if data is None else hashlib.sha256(data).hexdigest()


def read_bytes(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


class Entry(Record):
    __slots__ = ("backup", "existed", "written")

    def __init__(self, existed: bool, backup: str | None, written: str | None) -> None:
        self.existed = existed
        self.backup = backup  # path of the saved original bytes (None when it did not exist)
        self.written = written  # sha256 of what lore last wrote (None: lore removed it)


class Ledger:
    def __init__(self, home: Path | None = None) -> None:
        self.folder = (home or lore_home()) / "installs"
        self.path = self.folder / "ledger.json"
        self._files: dict[str, dict[str, Any]] = {}
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            if data.get("version") == LEDGER_VERSION and isinstance(data.get("files"), dict):
                self._files = data["files"]
        except (OSError, ValueError, AttributeError):
            pass

    def get(self, path: Path) -> Entry | None:
        raw = self._files.get(str(path))
        if not isinstance(raw, dict):
            return None
        return Entry(bool(raw.get("existed")), raw.get("backup"), raw.get("written"))

    def remember_original(self, path: Path, original: bytes | None) -> Path | None:
        """Save the original bytes before the first change; returns the backup's path."""
        entry = self.get(path)
        if entry is not None:
            return Path(entry.backup) if entry.backup else None
        backup: Path | None = None
        if original is not None:
            key = hashlib.sha256(str(path).encode("utf-8", "surrogateescape")).hexdigest()[:16]
            stamp = time.strftime("%Y%m%d-%H%M%S")
            backup = self.folder / "backups" / f"{key}-{stamp}-{path.name}"
            write_atomic(backup, original)
        self._files[str(path)] = {
            "existed": original is not None,
            "backup": str(backup) if backup else None,
            "written": None,
        }
        return backup

    def wrote(self, path: Path, data: bytes | None) -> None:
        if str(path) in self._files:
            self._files[str(path)]["written"] = digest(data)

    def original(self, path: Path) -> tuple[bool, bytes | None] | None:
        """(existed, original bytes) when lore changed this file and kept a backup."""
        entry = self.get(path)
        if entry is None:
            return None
        if not entry.existed:
            return False, None
        data = read_bytes(Path(entry.backup)) if entry.backup else None
        return (True, data) if data is not None else None

    def forget(self, path: Path) -> None:
        raw = self._files.pop(str(path), None)
        if isinstance(raw, dict) and raw.get("backup"):
            with contextlib.suppress(OSError):
                Path(raw["backup"]).unlink()

    def save(self) -> None:
        data = {"version": LEDGER_VERSION, "files": self._files}
        write_atomic(self.path, (json.dumps(data, indent=2, sort_keys=True) + "\n").encode())
