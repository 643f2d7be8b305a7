"""`lore.files.FileLock` between real processes: on this platform, and through the Windows code.

Windows cannot run here, so its `msvcrt` module is the one stand-in: a module with the
documented interface of `msvcrt.locking` (https://docs.python.org/3/library/msvcrt.html
#msvcrt.locking — `LK_NBLCK` locks bytes from the file's current position and raises
`OSError` when another process holds them; `LK_UNLCK` unlocks them), backed by real
byte-range locks (`fcntl.lockf`), so two processes really contend. `sys.platform` is
set to "win32" before lore.files is imported, and lore's own Windows branch runs.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

STAND_IN = textwrap.dedent(
    """
    import fcntl, os, sys, types
    msvcrt = types.ModuleType("msvcrt")
    msvcrt.LK_NBLCK, msvcrt.LK_UNLCK = 2, 0
    def locking(fd, mode, nbytes):
        start = os.lseek(fd, 0, os.SEEK_CUR)
        if mode == msvcrt.LK_UNLCK:
            fcntl.lockf(fd, fcntl.LOCK_UN, nbytes, start)
            return
        try:
            fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, nbytes, start)
        except OSError as exc:
            raise OSError(36, "Resource deadlock avoided") from exc  # what Windows says
    msvcrt.locking = locking
    sys.modules["msvcrt"] = msvcrt
    sys.platform = "win32"
    """
)

HOLD = """
from pathlib import Path
from lore.files import FileLock
lock = FileLock(Path({path!r}))
lock.acquire()
print("held", flush=True)
import sys
sys.stdin.readline()  # hold it until told
lock.release()
print("released", flush=True)
"""

TRY = """
from pathlib import Path
from lore.files import FileLock, LockTimeout
import lore.files
assert lore.files.sys.platform == {platform!r}
try:
    with FileLock(Path({path!r}), timeout=0):  # one try, no waiting
        print("acquired")
except LockTimeout:
    print("timed out")
"""


def python(code: str, windows: bool, **popen: object) -> subprocess.Popen[str]:
    prelude = STAND_IN if windows else ""
    return subprocess.Popen(
        [sys.executable, "-c", prelude + code],
        text=True,
        **popen,  # type: ignore[call-overload]
    )


@pytest.mark.parametrize("windows", [False, True], ids=["this-platform", "windows-code"])
def test_one_process_at_a_time(tmp_path: Path, windows: bool) -> None:
    path = str(tmp_path / "work.lock")
    platform = "win32" if windows else sys.platform
    holder = python(HOLD.format(path=path), windows, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        assert holder.stdout is not None and holder.stdin is not None
        assert holder.stdout.readline().strip() == "held"
        waiting = python(TRY.format(path=path, platform=platform), windows, stdout=subprocess.PIPE)
        out, _ = waiting.communicate(timeout=60)
        assert out.strip() == "timed out"  # the other process holds it
        holder.stdin.write("\n")
        holder.stdin.flush()
        assert holder.stdout.readline().strip() == "released"
        holder.wait(timeout=60)
        again = python(TRY.format(path=path, platform=platform), windows, stdout=subprocess.PIPE)
        out, _ = again.communicate(timeout=60)
        assert out.strip() == "acquired"
    finally:
        if holder.poll() is None:
            holder.kill()


def test_a_killed_holder_lets_go(tmp_path: Path) -> None:
    """The lock is the system's: it goes with the process, whatever ends it."""
    path = str(tmp_path / "work.lock")
    holder = python(HOLD.format(path=path), False, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert holder.stdout is not None
    assert holder.stdout.readline().strip() == "held"
    holder.kill()
    holder.wait(timeout=60)
    again = python(TRY.format(path=path, platform=sys.platform), False, stdout=subprocess.PIPE)
    out, _ = again.communicate(timeout=60)
    assert out.strip() == "acquired"  # at the first try
