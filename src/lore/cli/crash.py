"""Unexpected errors: one line for the user, the traceback in a log file."""

from __future__ import annotations

import sys
import time
import traceback

from lore import __version__
from lore.paths import log_dir


def report_crash(exc: BaseException) -> str:
    """Write the traceback to a log file and return the one-line message to print."""
    summary = f"{type(exc).__name__}: {exc}".splitlines()[0][:300]
    try:
        folder = log_dir()
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"crash-{time.strftime('%Y%m%d-%H%M%S')}.log"
        with path.open("a", encoding="utf-8") as log:
            log.write(f"lore {__version__} on Python {sys.version.split()[0]}\n")
            log.write(f"argv: {sys.argv!r}\n")
            log.write("".join(traceback.format_exception(exc)))
    except OSError:
        return f"internal error ({summary}); the log could not be written."
    return f"internal error ({summary}). Details: {path}"
