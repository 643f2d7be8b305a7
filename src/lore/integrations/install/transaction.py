"""All or nothing for the files an installer changes: check, stage, commit, or undo.

An install or uninstall touches several of the user's files (settings, MCP configs,
skills) and lore's own (the ledger, backups). Either every one is updated, or none is
and the user's bytes are as they were:

1. **check** — before anything is written, every file to change must be changeable:
   a regular file with a write bit (a read-only file is the user's decision), that
   this process can open for writing (an immutable file cannot be), in a folder that
   exists or can be created and is writable. The first that is not is an
   `InstallError` (exit 2) naming the file and what to do.
2. **commit** — lore's own files (the ledger, which lists the folders about to be
   created) first; then missing folders are created and each new content is written
   beside its target under a temporary name, through `write_atomic` (fsynced) — a full
   disk fails here, while every target still holds its old bytes; then each target is
   renamed into place or deleted. Should a step fail, whatever was already replaced
   gets its old bytes back, the ledger included.

On any failure, Ctrl-C included, the temporary files, new backups and created folders
are removed. A file that is a symbolic link (a dotfiles repository) is changed at its
target and stays a link. Temporary files left by a killed run (`.NAME.lore-PID.tmp`)
are removed by the next one.
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
from pathlib import Path
from types import TracebackType

from lore.errors import LoreError
from lore.files import write_atomic

NOTHING_CHANGED = "Nothing was changed."


class InstallError(LoreError):
    """A file cannot be changed safely; nothing was written to it."""


def real_path(path: Path) -> Path:
    """Where the bytes of `path` live: the final target when it is a symbolic link."""
    return Path(os.path.realpath(path)) if path.is_symlink() else path


def describe(path: Path) -> str:
    real = real_path(path)
    return str(path) if real == path else f"{path} (a link to {real})"


class _Target:
    __slots__ = ("data", "old", "path", "real", "temp")

    def __init__(self, path: Path, data: bytes | None, old: bytes | None) -> None:
        self.path = path
        self.real = real_path(path)
        self.data = data  # None: delete it
        self.old = old
        self.temp: Path | None = None


class Transaction:
    """Queue changes with `write`, `own` and `add_file`, then `check()` and `commit()`, inside
    `with` (which undoes everything on an exception)."""

    def __init__(self) -> None:
        self._targets: list[_Target] = []  # the user's files, committed last
        self._own: list[_Target] = []  # lore's own state (ledger), committed first
        self._new_files: list[Path] = []  # new files of lore's (backups), kept on success
        self._applied: list[_Target] = []
        self.created_folders: list[Path] = []

    def write(self, path: Path, data: bytes | None, old: bytes | None) -> None:
        """Give `path` the bytes `data` (None: remove it); `old` is what it holds now."""
        self._targets.append(_Target(path, data, old))

    def own(self, path: Path, data: bytes, old: bytes | None) -> None:
        """One of lore's own files, committed before the user's files."""
        self._own.append(_Target(path, data, old))

    def add_file(self, path: Path, data: bytes) -> None:
        """A new file of lore's (a backup), written at once and removed on failure."""
        _remove_stale_temps(path.parent, None)
        try:
            write_atomic(path, data, mode=0o600)
        except OSError as exc:
            raise _write_error(path, exc) from None
        self._new_files.append(path)

    def __enter__(self) -> Transaction:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if exc is not None:
            self._undo()
        else:
            self._discard_temps()

    # ---- check ----

    def check(self) -> None:
        """Refuse, before anything is written, a change that could not be made."""
        for target in self._targets:
            _check(target)

    def missing_folders(self) -> list[Path]:
        """The folders `commit` will create for the files it writes, outermost first."""
        missing: list[Path] = []
        for target in self._targets:
            if target.data is None:
                continue
            folder, chain = target.real.parent, []
            while not folder.exists() and folder.parent != folder:
                chain.append(folder)
                folder = folder.parent
            missing += [path for path in reversed(chain) if path not in missing]
        return missing

    # ---- stage and commit ----

    def _stage(self, target: _Target, *, own: bool = False) -> None:
        folder = target.real.parent
        self.created_folders += _make_folders(folder)
        _remove_stale_temps(folder, None if own else target.real.name)
        target.temp = folder / f".{target.real.name}.lore-{os.getpid()}.tmp"
        try:
            mode: int | None = target.real.stat().st_mode & 0o777
        except FileNotFoundError:
            mode = None
        assert target.data is not None
        try:
            write_atomic(target.temp, target.data, mode=mode)
        except OSError as exc:
            target.temp = None
            if own:
                raise _write_error(target.path, exc, "lore's record of what it installed") from None
            raise _write_error(target.path, exc) from None

    def _apply(self, target: _Target) -> None:
        try:
            if target.data is None:
                with contextlib.suppress(FileNotFoundError):
                    target.real.unlink()
            else:
                assert target.temp is not None
                target.temp.replace(target.real)
                target.temp = None
        except OSError as exc:
            raise _write_error(target.path, exc) from None
        self._applied.append(target)

    def commit(self) -> None:
        """lore's own files first (so that its record lists every folder and file before
        they change), then the user's: each staged beside its target, then renamed."""
        for target in self._own:
            self._stage(target, own=True)
            self._apply(target)
        for target in self._targets:
            if target.data is not None:
                self._stage(target)
        for target in self._targets:
            self._apply(target)
        for folder in {target.real.parent for target in self._applied}:
            _fsync_folder(folder)

    # ---- undo ----

    def _undo(self) -> None:
        for target in reversed(self._applied):
            with contextlib.suppress(OSError):
                if target.old is None:
                    target.real.unlink(missing_ok=True)
                else:
                    write_atomic(target.real, target.old)
        self._applied = []
        self._discard_temps()
        for path in self._new_files:
            with contextlib.suppress(OSError):
                path.unlink()
        for folder in reversed(self.created_folders):
            with contextlib.suppress(OSError):
                folder.rmdir()
        self.created_folders = []

    def _discard_temps(self) -> None:
        for target in [*self._own, *self._targets]:
            if target.temp is not None:
                with contextlib.suppress(OSError):
                    target.temp.unlink()
                target.temp = None


def _check(target: _Target) -> None:
    real = target.real
    try:
        info = real.stat()
    except FileNotFoundError:
        info = None
    except OSError as exc:
        raise _refusal(target.path, f"it cannot be read ({exc.strerror})") from None
    if info is None:
        if target.data is None:
            return
        folder = _nearest_existing(real.parent)
        if not folder.is_dir():
            raise _refusal(target.path, f"{folder} is a file, not a folder")
        if not os.access(folder, os.W_OK | os.X_OK):
            raise _refusal(target.path, f"the folder {folder} is not writable")
        return
    if not stat.S_ISREG(info.st_mode):
        raise _refusal(target.path, "it is not a regular file")
    if target.data is not None and not info.st_mode & 0o222:
        raise _refusal(
            target.path,
            f"it is read-only (mode {stat.filemode(info.st_mode)[1:]})",
            fix=f"Make it writable (chmod u+w {real}) and run the command again, or add "
            "lore's entries by hand as docs/agents/ shows.",
        )
    try:
        os.close(os.open(real, os.O_WRONLY | os.O_NONBLOCK))
    except OSError as exc:
        raise _refusal(target.path, f"it cannot be changed ({exc.strerror})") from None
    if not os.access(real.parent, os.W_OK | os.X_OK):
        raise _refusal(target.path, f"its folder {real.parent} is not writable")


def _refusal(path: Path, why: str, fix: str | None = None) -> InstallError:
    return InstallError(
        f"{describe(path)} cannot be changed: {why}. {NOTHING_CHANGED}",
        fix=fix
        or "Fix that and run the command again, or add lore's entries by hand as "
        "docs/agents/ shows.",
    )


def _write_error(path: Path, exc: OSError, what: str = "") -> InstallError:
    label = f"{describe(path)} ({what})" if what else describe(path)
    return InstallError(
        f"Could not write {label}: {exc.strerror or exc}. {NOTHING_CHANGED}",
        fix="Free some space or fix the permissions, then run the command again.",
    )


def _nearest_existing(folder: Path) -> Path:
    while not folder.exists() and folder.parent != folder:
        folder = folder.parent
    return folder


def _make_folders(folder: Path) -> list[Path]:
    """Create `folder` and its missing parents; the ones created, outermost first."""
    missing: list[Path] = []
    while not folder.exists():
        missing.append(folder)
        if folder.parent == folder:
            break
        folder = folder.parent
    created: list[Path] = []
    for path in reversed(missing):
        path.mkdir()
        created.append(path)
    return created


def _remove_stale_temps(folder: Path, name: str | None) -> None:
    """Temporary files of a run that was killed (its process is gone): those of the file
    `name` (ours, and `write_atomic`'s inside them), or any in lore's own folders (None)."""
    if name is None:
        pattern = re.compile(r"^\..+?\.(?:lore-)?(\d+)\.tmp$")
    else:
        pattern = re.compile(rf"^\.\.?{re.escape(name)}\.lore-(\d+)\.tmp(?:\.\d+\.tmp)?$")
    try:
        names = [entry.name for entry in os.scandir(folder)]
    except OSError:
        return
    for found in names:
        match = pattern.match(found)
        if match and int(match[1]) != os.getpid() and not _alive(int(match[1])):
            with contextlib.suppress(OSError):
                (folder / found).unlink()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def _fsync_folder(folder: Path) -> None:
    if os.name != "posix":  # pragma: no cover - Windows has no folder fsync
        return
    try:
        handle = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(handle)
    except OSError:
        pass
    finally:
        os.close(handle)
