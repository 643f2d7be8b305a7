"""Run pytest with the machine's clock moved ahead, to find a test that only passes today.

    python -m tests.clock_ahead --days 365 [PYTEST ARGS…]

Every test pins lore's own "today" (`LORE_TODAY`, tests/conftest.py), so the answers that
depend on the date are the same on any day. What that cannot catch is code — lore's, or
a test's — that reads the real clock instead: a date taken from `datetime.now()`, a child
process started without `LORE_TODAY`, a fixture dated "now" and compared with a pinned
day. `.ci/run` therefore runs the suite once more with every process's wall clock moved
ahead through libfaketime (`LD_PRELOAD`, inherited by every child: lore, git, Python),
so such a test fails a year before its day instead of on it. The monotonic clock is left
alone, so time-outs behave as usual.

Before pytest starts, a child process must see the moved clock; if it does not (no
libfaketime, or a platform it does not support), this exits 2 and says why rather than
letting the run pass without the clock moved.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from datetime import date, timedelta

PROBE = "import datetime; print(datetime.date.today().isoformat())"


def moved_clock_env(days: int) -> dict[str, str]:
    """The environment that moves every process's wall clock `days` ahead."""
    import libfaketime  # the test extra; loads its own build of libfaketime

    _, additions = libfaketime.get_reload_information()
    return {**os.environ, **additions, "FAKETIME": f"+{days}d", "FAKETIME_DID_REEXEC": "true"}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tests.clock_ahead", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--days", type=int, default=365, help="how far ahead (default 365)")
    args, pytest_args = parser.parse_known_args(argv)
    try:
        env = moved_clock_env(args.days)
    except (ImportError, RuntimeError) as exc:
        print(f"clock_ahead: libfaketime cannot be used here ({exc}).", file=sys.stderr)
        return 2
    seen = subprocess.run(
        [sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, check=False
    ).stdout.strip()
    wanted = (date.today() + timedelta(days=args.days)).isoformat()
    if seen != wanted:
        print(
            f"clock_ahead: a child process saw {seen or 'nothing'}, not {wanted}: "
            "the clock was not moved, so this run would prove nothing.",
            file=sys.stderr,
        )
        return 2
    print(f"clock_ahead: every process's clock reads {wanted}", file=sys.stderr)
    return subprocess.call([sys.executable, "-m", "pytest", *pytest_args], env=env)


if __name__ == "__main__":
    sys.exit(main())
