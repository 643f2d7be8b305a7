"""An advisory file lock so that only one process at a time writes the index.

Readers never take it (WAL lets them read during a write). A writer takes it,
then re-checks whether another process already did the work.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from types import TracebackType

if sys.platform != "win32":
    import fcntl


class LockTimeout(Exception):
    """Another process held the lock for longer than we were willing to wait."""


class FileLock:
    def __init__(self, path: Path, timeout: float = 30.0, poll: float = 0.02) -> None:
        self.path = path
        self.timeout = timeout
        self.poll = poll
        self._fd: int | None = None

    def acquire(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        if sys.platform == "win32":  # pragma: no cover - best effort there: no lock
            self._fd = fd
            return
        deadline = time.monotonic() + self.timeout
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    os.close(fd)
                    raise LockTimeout(str(self.path)) from None
                time.sleep(self.poll)
                continue
            self._fd = fd
            return

    def release(self) -> None:
        if self._fd is None:
            return
        if sys.platform != "win32":
            fcntl.flock(self._fd, fcntl.LOCK_UN)
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
