"""Unexpected errors: one line for the user, the traceback in a log file — and no secret in either.

A crash can happen with anything on the command line (`lore remember --title …`), and
an exception's message can quote what it choked on. So the log records the command
and its option names but never a value (`--title <42 characters>`), no environment
values, and everything it writes, the one-line summary included, passes through the
secret scanner first.
"""

from __future__ import annotations

import sys
import time
import traceback
from collections.abc import Sequence

from lore import __version__
from lore.cli.commands import COMMANDS
from lore.paths import log_dir
from lore.sanitize.secret_scan import redact, scan_secrets


def redacted_argv(argv: Sequence[str]) -> list[str]:
    """The command line with every value replaced by its length: options and command only."""
    shown: list[str] = []
    for position, arg in enumerate(argv):
        if position == 0:
            shown.append(arg.rsplit("/", 1)[-1])
        elif position == 1 and arg in COMMANDS:
            shown.append(arg)
        elif arg.startswith("-") and not arg.startswith("---"):
            name, equals, value = arg.partition("=")
            shown.append(f"{name}=<{len(value)} characters>" if equals else name)
        else:
            shown.append(f"<{len(arg)} characters>")
    return shown


def scrub(text: str) -> str:
    """`text` with every value the secret scanner recognises replaced by its mask."""
    return redact(text, {match.value for match in scan_secrets(text)})


def report_crash(exc: BaseException) -> str:
    """Write the traceback to a log file and return the one-line message to print."""
    summary = scrub(f"{type(exc).__name__}: {exc}".splitlines()[0][:300])
    try:
        folder = log_dir()
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"crash-{time.strftime('%Y%m%d-%H%M%S')}.log"
        text = (
            f"lore {__version__} on Python {sys.version.split()[0]}\n"
            f"argv: {redacted_argv(sys.argv)!r}\n" + "".join(traceback.format_exception(exc))
        )
        with path.open("a", encoding="utf-8") as log:
            log.write(scrub(text))
    except OSError:
        return f"internal error ({summary}); the log could not be written."
    return f"internal error ({summary}). Details: {path}"
