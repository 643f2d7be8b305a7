"""The background launcher: detached, never waits, at most once per interval, locked, time-limited.

Tested with harmless commands (a Python one-liner that writes a file or sleeps).
"""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import pytest

from lore.files import FileLock
from lore.integrations.launcher import launch_once, main
from tests.held import held_command
from tests.integrations.conftest import wait_for_log


def write_file(target: Path) -> list[str]:
    return [sys.executable, "-c", f"open({str(target)!r}, 'w').write('ran')"]


def test_runs_the_command_detached_and_logs_it(isolated_home: Path, tmp_path: Path) -> None:
    target = tmp_path / "ran.txt"
    assert launch_once("job", write_file(target), interval_s=60, timeout_s=30)
    assert "exit 0" in wait_for_log(isolated_home / "lore-home", "job")
    assert target.read_text() == "ran"


def test_never_waits_for_the_command(isolated_home: Path, tmp_path: Path) -> None:
    """The command cannot end before the test releases it, and launch_once has returned
    before that: it did not wait (a join with a bound guards only against a hang)."""
    release = tmp_path / "release"
    returned: list[bool] = []
    start = threading.Thread(
        target=lambda: returned.append(
            launch_once("blocked", held_command(release), interval_s=60, timeout_s=600)
        )
    )
    start.start()
    start.join(60)
    assert returned == [True]
    assert not (isolated_home / "lore-home" / "background" / "blocked.log").exists()
    release.touch()
    assert "exit 0" in wait_for_log(isolated_home / "lore-home", "blocked")


def test_kills_the_command_at_the_time_limit(isolated_home: Path, tmp_path: Path) -> None:
    assert launch_once("sleeper", held_command(tmp_path / "never"), interval_s=60, timeout_s=1)
    log = wait_for_log(isolated_home / "lore-home", "sleeper")
    assert "killed at the 1 s limit" in log


def test_at_most_once_per_interval(isolated_home: Path, tmp_path: Path) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    assert launch_once("throttled", write_file(first), interval_s=3600, timeout_s=30)
    assert not launch_once("throttled", write_file(second), interval_s=3600, timeout_s=30)
    wait_for_log(isolated_home / "lore-home", "throttled")
    assert first.exists() and not second.exists()
    assert launch_once("throttled", write_file(second), interval_s=0, timeout_s=30)


def test_a_running_job_is_not_started_twice(isolated_home: Path, tmp_path: Path) -> None:
    folder = isolated_home / "lore-home" / "background"
    folder.mkdir(parents=True)
    with FileLock(folder / "busy.lock"):  # as if a runner were working on it
        assert not launch_once("busy", write_file(tmp_path / "x"), interval_s=0, timeout_s=30)
        code = main(
            [
                "--lock",
                str(folder / "busy.lock"),
                "--log",
                str(folder / "busy.log"),
                "--timeout",
                "5",
                "--",
                *write_file(tmp_path / "y"),
            ]
        )
        assert code == 0 and not (tmp_path / "y").exists()  # the second runner stood down


def test_bad_arguments(isolated_home: Path) -> None:
    with pytest.raises(ValueError):
        launch_once("../escape", ["true"], interval_s=1, timeout_s=1)
    assert main(["--lock", "x"]) == 2
