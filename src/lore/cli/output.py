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


def console(stderr: bool = False) -> Console:
    from rich.console import Console

    class _Console(Console):
        def on_broken_pipe(self) -> None:
            # rich exits with status 1 here; `lore … | head` is not an error: let
            # `cli.main` handle it like any other write to a closed pipe.
            raise BrokenPipeError

    return _Console(stderr=stderr, highlight=False, soft_wrap=False)


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
