"""Writing files safely: an atomic write, and an advisory lock between processes.

`write_atomic` leaves readers with the old contents or the new, never a mix (a
temporary file in the same folder, fsynced, renamed over the target). A target that
is a symbolic link (a dotfiles repository, say) is written through the link, which
stays a link. `FileLock` lets one process at a time do a piece of work (build the
index, sync the vault, edit the user config); readers never take it.

The lock is the operating system's own, held on an open file and let go when the
process ends however it ends: `flock` on Linux and macOS, `msvcrt.locking` on Windows
(a one-byte region at the file's start, the Windows API's `LockFile`). It is written
here rather than taken from `filelock`, the kept library for it, on a measured cost:
the hooks take this lock, and `import filelock` (4.x) pulls in `inspect`, `secrets`,
`hmac` and `platform`, 3.7 times what `import lore.files` costs above a bare interpreter
(bench/bench_lock_import.py, docs/performance.md), for the same two system calls.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from types import TracebackType

if sys.platform == "win32":  # pragma: no cover - exercised on Windows (and by a stand-in)
    import msvcrt

    def _try_lock(fd: int) -> bool:
        os.lseek(fd, 0, os.SEEK_SET)
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:  # another process holds the region
            return False
        return True

    def _unlock(fd: int) -> None:
        os.lseek(fd, 0, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)

else:
    import fcntl

    def _try_lock(fd: int) -> bool:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True

    def _unlock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)


def write_atomic(path: Path, data: bytes, *, mode: int | None = None) -> None:
    """Write a file so that readers see the old or the new contents, never a mix.

    A temporary file in the same folder is written and fsynced, then renamed over the
    target; the folder is fsynced too where the platform allows it. When `path` is a
    symbolic link, its target is written and the link is kept.
    """
    if path.is_symlink():
        path = Path(os.path.realpath(path))
    path.parent.mkdir(parents=True, exist_ok=True)
    if mode is None:
        try:
            mode = path.stat().st_mode & 0o777
        except FileNotFoundError:
            mode = 0o644
    temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        temp.replace(path)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    if sys.platform != "win32":
        try:
            folder = os.open(path.parent, os.O_RDONLY)
        except OSError:
            return
        try:
            os.fsync(folder)
        except OSError:
            pass
        finally:
            os.close(folder)


class LockTimeout(Exception):
    """Another process held the lock for longer than we were willing to wait."""


class FileLock:
    """An exclusive advisory lock on `path` (created if missing), waiting up to `timeout`."""

    def __init__(self, path: Path, timeout: float = 30.0, poll: float = 0.02) -> None:
        self.path = path
        self.timeout = timeout
        self.poll = poll
        self._fd: int | None = None

    def acquire(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        deadline = time.monotonic() + self.timeout
        while not _try_lock(fd):
            if time.monotonic() >= deadline:
                os.close(fd)
                raise LockTimeout(str(self.path))
            time.sleep(self.poll)
        self._fd = fd

    def release(self) -> None:
        if self._fd is None:
            return
        _unlock(self._fd)
        os.close(self._fd)
        self._fd = None

    def __enter__(self) -> FileLock:
        self.acquire()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.release()
