"""Output helpers shared by the commands: JSON on stdout, rich for people, notes on stderr."""

from __future__ import annotations

import json
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from rich.console import Console


def print_json(data: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")


def error_json(message: str, fix: str | None, exit_code: int) -> dict[str, Any]:
    """A command asked for JSON that failed: `{"version": 1, "error": "…", "fix": "…" or
    null, "exit_code": N}` (docs/cli.md); `error` and `fix` as the commands' own results
    that carry them (`lore remember --json`, the drafts) name them."""
    from lore.versioned import versioned

    return versioned({"error": message, "fix": fix, "exit_code": exit_code})


# Wide enough for any line a command prints; what cannot be measured (a rule, a block of
# markdown) is laid out at the terminal's width instead ($COLUMNS, else 80).
_UNWRAPPED = 100_000


def console(stderr: bool = False) -> Console:
    """The console every command prints through.

    On a terminal, rich lays out for its width. Anywhere else (a pipe, a file, a CI
    log) nothing is hard-wrapped: each thing printed gets the width it needs — a line
    of text stays one line, a table is as wide as its widest row — so the output can
    be searched, copied and parsed as it was written.
    """
    from rich.console import Console
    from rich.measure import Measurement

    from lore.cli.parsing import terminal_columns

    class _Console(Console):
        def on_broken_pipe(self) -> None:
            # rich exits with status 1 here; `lore … | head` is not an error: let
            # `cli.main` handle it like any other write to a closed pipe.
            raise BrokenPipeError

        def print(self, *objects: Any, **options: Any) -> None:
            if self.is_terminal or "width" in options or not objects:
                super().print(*objects, **options)
                return
            measure_options = self.options.update_width(_UNWRAPPED)
            widths = []
            for thing in objects:
                rendered = self.render_str(thing) if isinstance(thing, str) else thing
                widths.append(Measurement.get(self, measure_options, rendered).maximum)
            widest = max(widths)
            fallback = terminal_columns()
            width = fallback if widest >= _UNWRAPPED else max(widest, 1)
            super().print(*objects, width=width, **options)

        def rule(self, *args: Any, **options: Any) -> None:
            if self.is_terminal:
                super().rule(*args, **options)
                return
            from rich.rule import Rule

            super().print(Rule(*args, **options), width=terminal_columns())

    terminal = (sys.stderr if stderr else sys.stdout).isatty()
    return _Console(
        stderr=stderr,
        highlight=False,
        soft_wrap=False,
        width=None if terminal else _UNWRAPPED,
    )


def typed_command() -> str:
    """The command that started this lore, as the user would type it again: `gh lore`
    under the gh extension, `lore` when that is what PATH finds, else the path that was
    run (`.venv/bin/lore`), else `python -m lore`."""
    import os
    import shlex
    import shutil
    from pathlib import Path

    if os.environ.get("LORE_GH_EXTENSION_DIR"):
        return "gh lore"
    argv0 = sys.argv[0] if sys.argv else ""
    if not argv0 or argv0.endswith(("__main__.py", "-c")) or argv0 == "-m":
        return shlex.join([sys.executable, "-m", "lore"])
    on_path = shutil.which("lore")
    try:
        if on_path and Path(on_path).samefile(argv0):
            return "lore"
    except OSError:
        pass
    return shlex.quote(argv0)


def notice(message: str) -> None:
    sys.stderr.write(f"lore: {message}\n")


def safe(text: str | None) -> str:
    """Note text for a terminal: banned characters removed, rich markup escaped."""
    from rich.markup import escape

    from lore.sanitize import sanitize_text

    return escape(sanitize_text(text or ""))


PROGRESS_DELAY = 1.0  # seconds of work before a progress bar appears
_SHOWN: list[DelayedProgress] = []  # the bar on the terminal: one at a time


class DelayedProgress:
    """A progress bar on stderr that appears only when the work takes over a second, and
    only on a terminal (nothing is written to a pipe or a file).

    Called as `progress(done, total)`, or `progress(done, total, label)` by work in
    stages (the label replaces the bar's text); a total of 0 is work of unknown length.
    While one bar is shown, another (an index build inside a longer command) stays
    hidden: the terminal shows one live display at a time.
    """

    def __init__(self, label: str, delay: float | None = None) -> None:
        import time

        self._label = label
        self._start = time.monotonic()
        self._delay = PROGRESS_DELAY if delay is None else delay
        self._progress: Any = None
        self._task: Any = None

    def __call__(self, done: int, total: int, label: str | None = None) -> None:
        import time

        stage = label is not None and label != self._label
        if label is not None:
            self._label = label
        if self._progress is None:
            if time.monotonic() - self._start < self._delay or not sys.stderr.isatty():
                return
            if _SHOWN:
                return
            from rich.progress import Progress

            self._progress = Progress(console=console(stderr=True), transient=True)
            self._progress.start()
            _SHOWN.append(self)
            self._task = self._progress.add_task(self._label, total=total or None)
        self._progress.update(
            self._task, completed=done, total=total or None, description=self._label
        )
        if stage:  # each stage drawn at least once, however quickly it passes
            self._progress.refresh()

    def close(self) -> None:
        if self._progress is not None:
            self._progress.stop()
            self._progress = None
            _SHOWN.remove(self)
