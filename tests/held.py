"""Programs that wait until the test releases them: an order the test controls, not a time.

"lore did not wait for X" is tested by making X unable to end before the test says so,
and checking that lore has finished before that: no clock, so no loaded machine can
make it fail. Each program also gives up by itself after two minutes, so that a test
that fails leaves nothing running; a test that waited that long has failed anyway.
"""

from __future__ import annotations

import sys
from pathlib import Path

_WAIT = """\
import os, sys, time
open(sys.argv[2], "w").close()
for _ in range(6000):
    if os.path.exists(sys.argv[1]):
        break
    time.sleep(0.02)
else:
    open(sys.argv[2] + ".gave-up", "w").close()
"""


def held_command(release: Path) -> list[str]:
    """A command that starts (creating `release` + ".started"), then waits until the file
    `release` exists; when it gives up instead, it leaves `release` + ".started.gave-up"."""
    return [sys.executable, "-c", _WAIT, str(release), f"{release}.started"]


def held_program(path: Path, release: Path) -> Path:
    """`held_command` as an executable at `path`, for a setting that names a program (an
    ssh command, a signing program); it ignores the arguments it is given."""
    command = " ".join(f"'{part}'" for part in held_command(release))
    path.write_text(f"#!/bin/sh\nexec {command}\n", encoding="utf-8")
    path.chmod(0o755)
    return path


def started(release: Path) -> bool:
    return Path(f"{release}.started").exists()


def gave_up(release: Path) -> bool:
    return Path(f"{release}.started.gave-up").exists()
