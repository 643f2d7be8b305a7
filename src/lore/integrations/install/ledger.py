"""What the installers changed: backups of agent files before lore first changed them.

`$LORE_HOME/installs/ledger.json` records, for every file an installer changed:
whether it existed, where its original bytes are kept (`installs/backups/`), and
the hash of what lore last wrote; and the folders lore created for them.
Uninstalling puts the original bytes back when the file still holds exactly what lore
wrote (otherwise the caller removes only lore's entries from the current content, so
nobody's later edits are lost), and removes the folders lore created once they are
empty. The ledger changes in memory; the caller writes `dumps()` in the same
transaction as the agent files (`transaction`).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import time
from pathlib import Path
from typing import Any

from lore.paths import lore_home
from lore.record import Record

LEDGER_VERSION = 1


def digest(data: bytes | None) -> str | None:
    return None if data is None else hashlib.sha256(data).hexdigest()


def read_bytes(path: Path) -> bytes | None:
    """A file's bytes, or None when it does not exist (a dangling link does not either)."""
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
        self._folders: list[str] = []
        try:
            self.raw: bytes | None = self.path.read_bytes()
        except OSError:
            self.raw = None
        try:
            data = json.loads(self.raw or b"")
            if data.get("version") == LEDGER_VERSION and isinstance(data.get("files"), dict):
                self._files = data["files"]
                folders = data.get("folders")
                if isinstance(folders, list):
                    self._folders = [f for f in folders if isinstance(f, str)]
        except (ValueError, AttributeError):
            pass

    def get(self, path: Path) -> Entry | None:
        raw = self._files.get(str(path))
        if not isinstance(raw, dict):
            return None
        return Entry(bool(raw.get("existed")), raw.get("backup"), raw.get("written"))

    def plan_original(self, path: Path, original: bytes | None) -> tuple[Path | None, bool]:
        """Note the original bytes before the first change: (backup path, whether the
        backup is new and must be written by the caller)."""
        entry = self.get(path)
        if entry is not None:
            return (Path(entry.backup) if entry.backup else None), False
        backup: Path | None = None
        if original is not None:
            key = hashlib.sha256(str(path).encode("utf-8", "surrogateescape")).hexdigest()[:16]
            stamp = time.strftime("%Y%m%d-%H%M%S")
            backup = self.folder / "backups" / f"{key}-{stamp}-{path.name}"
        self._files[str(path)] = {
            "existed": original is not None,
            "backup": str(backup) if backup else None,
            "written": None,
        }
        return backup, backup is not None

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

    def forget(self, path: Path) -> Path | None:
        """Drop the entry; returns its backup, for the caller to delete once committed."""
        raw = self._files.pop(str(path), None)
        if isinstance(raw, dict) and raw.get("backup"):
            return Path(raw["backup"])
        return None

    def add_folders(self, folders: list[Path]) -> None:
        for folder in folders:
            if str(folder) not in self._folders:
                self._folders.append(str(folder))

    def sweep_folders(self) -> list[Path]:
        """Remove the folders lore created that are now empty (deepest first); those removed."""
        removed: list[Path] = []
        for name in sorted(self._folders, key=lambda f: -len(Path(f).parts)):
            folder = Path(name)
            if not folder.is_dir() or folder.is_symlink():
                self._folders.remove(name)
                continue
            with contextlib.suppress(OSError):
                folder.rmdir()  # only an empty folder goes
                self._folders.remove(name)
                removed.append(folder)
        return removed

    def empty(self) -> bool:
        return not self._files and not self._folders

    def dumps(self) -> bytes:
        data: dict[str, Any] = {"version": LEDGER_VERSION, "files": self._files}
        if self._folders:
            data["folders"] = self._folders
        return (json.dumps(data, indent=2, sort_keys=True) + "\n").encode()
