"""Start a command in the background from a hook: detached, locked, time-limited, throttled.

`launch_once(name, argv, …)` returns at once. It starts nothing when the same job
was started less than `interval_s` ago (a stamp file's time) or is still running
(its lock is held); otherwise it touches the stamp and starts this module as a
detached runner (its own session, no inherited terminal or pipes), which takes the
job's lock, runs the command, kills its whole process group after `timeout_s`, and
appends one line to the job's log. Two hooks racing past the stamp both start a
runner; the second finds the lock taken and exits. State lives in
`$LORE_HOME/background/`: `NAME.stamp`, `NAME.lock`, `NAME.log`.

    python -m lore.integrations.launcher --lock L --log G --timeout S -- ARGV…
"""

from __future__ import annotations

import os
import re
import sys
import time
from pathlib import Path

from lore.files import FileLock, LockTimeout
from lore.paths import lore_home

TYPE_CHECKING = False
if TYPE_CHECKING:
    import subprocess

STATE_DIR = "background"
LOG_LIMIT = 64 * 1024  # the log is trimmed to its last half when it grows past this
_NAME = re.compile(r"^[a-z0-9][a-z0-9._-]{0,80}$")


def state_dir() -> Path:
    return lore_home() / STATE_DIR


def launch_once(
    name: str,
    argv: list[str],
    *,
    interval_s: float,
    timeout_s: float,
    env: dict[str, str] | None = None,
    folder: Path | None = None,
) -> bool:
    """Start `argv` in the background unless it ran recently or still runs; never waits."""
    if not _NAME.match(name) or not argv:
        raise ValueError(f"bad background job: {name!r} {argv!r}")
    base = folder or state_dir()
    base.mkdir(parents=True, exist_ok=True)
    stamp = base / f"{name}.stamp"
    lock_path = base / f"{name}.lock"
    now = time.time()
    try:
        if now - stamp.stat().st_mtime < interval_s:
            return False
    except OSError:
        pass
    if _is_locked(lock_path):
        return False
    stamp.touch()
    os.utime(stamp, (now, now))  # the stamp is read against this process's clock
    runner = [
        sys.executable,
        "-m",
        "lore.integrations.launcher",
        "--lock",
        str(lock_path),
        "--log",
        str(base / f"{name}.log"),
        "--timeout",
        f"{timeout_s:g}",
        "--",
        *argv,
    ]
    _spawn_detached(runner, env)
    return True


def _is_locked(path: Path) -> bool:
    lock = FileLock(path, timeout=0)
    try:
        lock.acquire()
    except LockTimeout:
        return True
    except OSError:
        return False
    lock.release()
    return False


def _spawn_detached(argv: list[str], env: dict[str, str] | None) -> None:
    import subprocess  # only when a job starts: hooks that start nothing never load it

    options: dict[str, object] = {}
    if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
        flags = subprocess.DETACHED_PROCESS | subprocess.CREATE_NEW_PROCESS_GROUP
        options["creationflags"] = flags
    else:
        options["start_new_session"] = True
    subprocess.Popen(
        argv,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        close_fds=True,
        env=env,
        **options,  # type: ignore[call-overload]
    )


def run_locked(argv: list[str], lock_path: Path, log_path: Path, timeout_s: float) -> int:
    """The runner's side: take the lock (or leave), run, enforce the time limit, log."""
    lock = FileLock(lock_path, timeout=0)
    try:
        lock.acquire()
    except (LockTimeout, OSError):
        return 0
    started = time.monotonic()
    try:
        outcome = _run_with_limit(argv, timeout_s)
    finally:
        lock.release()
    _log(log_path, f"{outcome} after {time.monotonic() - started:.1f} s: {' '.join(argv)[:300]}")
    return 0


def _run_with_limit(argv: list[str], timeout_s: float) -> str:
    import subprocess

    options: dict[str, object] = {}
    if sys.platform != "win32":
        options["start_new_session"] = True
    try:
        process = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            **options,  # type: ignore[call-overload]
        )
    except OSError as exc:
        return f"could not start ({exc.strerror or exc})"
    try:
        code = process.wait(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        _kill_group(process)
        return f"killed at the {timeout_s:g} s limit"
    return f"exit {code}"


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    import subprocess

    if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
        process.kill()
        process.wait()
        return
    import signal

    for sig, grace in ((signal.SIGTERM, 2.0), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(process.pid, sig)
        except OSError:
            break
        try:
            process.wait(timeout=grace)
            break
        except subprocess.TimeoutExpired:
            continue


def _log(path: Path, message: str) -> None:
    line = f"{time.strftime('%Y-%m-%d %H:%M:%S')} {message}\n"
    try:
        if path.exists() and path.stat().st_size > LOG_LIMIT:
            tail = path.read_bytes()[-LOG_LIMIT // 2 :]
            path.write_bytes(tail[tail.find(b"\n") + 1 :])
        with path.open("a", encoding="utf-8") as handle:
            handle.write(line)
    except OSError:
        pass


def main(args: list[str]) -> int:
    """Parse the runner's few arguments by hand: this process should start fast."""
    try:
        split = args.index("--")
        options, argv = args[:split], args[split + 1 :]
        values = dict(zip(options[::2], options[1::2], strict=True))
        return run_locked(
            argv, Path(values["--lock"]), Path(values["--log"]), float(values["--timeout"])
        )
    except (ValueError, KeyError):
        return 2


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
