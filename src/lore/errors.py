"""Error types and the exit codes of the command-line contract (DESIGN.md section 3).

The library raises these; only `lore.cli` turns them into a message and an exit code.
"""

from __future__ import annotations

from enum import IntEnum

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable


class ExitCode(IntEnum):
    OK = 0
    PROBLEMS_FOUND = 1  # the command ran and found problems (curator errors)
    BAD_INPUT = 2  # bad usage or bad input the user must fix
    INTERNAL = 3  # an unexpected internal error; details in a log file
    INTERRUPTED = 130
    READER_GONE = 141  # 128 + SIGPIPE, as a shell reports a tool its pipe's reader left


class Stopped(KeyboardInterrupt):
    """SIGHUP (the terminal closed) or SIGTERM, raised where the process is, like Ctrl-C:
    everything that cleans up on Ctrl-C (a proposal not yet agreed to, a lock, a temporary
    file) cleans up on these too. The exit code is 128 + the signal's number."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


_STOPPING = ("SIGHUP", "SIGTERM")
# What to undo if SIGHUP or SIGTERM arrives now (innermost last), and the signals held
# while a clean-up runs (None when none runs).
_ON_STOP: list[Callable[[], None]] = []
_HELD: list[list[int]] = []


def stop_like_ctrl_c() -> None:
    """From now on SIGHUP and SIGTERM clean up as Ctrl-C does, then raise `Stopped` (by
    default they end the process with nothing cleaned up). Called by the entry point.

    A closed terminal gives an end of input and, a few instructions later, its SIGHUP:
    the clean-up the end of input started must not be cut short, nor run twice at once.
    So a signal that lands while a clean-up runs (`signals_held`) waits for its end; one
    that lands before runs the clean-ups registered with `on_stop` itself (they are
    idempotent), then raises.
    """
    import signal

    numbers = [getattr(signal, name) for name in _STOPPING if hasattr(signal, name)]

    def stop(signum: int, _frame: object) -> None:
        if _HELD:
            _HELD[-1].append(signum)
            return
        for number in numbers:  # a second signal must not cut the clean-up short
            signal.signal(number, signal.SIG_IGN)
        import contextlib

        for clean_up in reversed(_ON_STOP):
            with contextlib.suppress(Exception):  # the rest must still run
                clean_up()
        raise Stopped(signum)

    for number in numbers:
        signal.signal(number, stop)


class on_stop:  # noqa: N801 - used as `with on_stop(undo):`, like a function
    """While the block runs, SIGHUP or SIGTERM first calls `clean_up` (idempotent)."""

    def __init__(self, clean_up: Callable[[], None]) -> None:
        self.clean_up = clean_up

    def __enter__(self) -> None:
        _ON_STOP.append(self.clean_up)

    def __exit__(self, *_exc: object) -> None:
        _ON_STOP.remove(self.clean_up)


class signals_held:  # noqa: N801 - used as `with signals_held():`, like a function
    """Run a clean-up to its end: SIGHUP and SIGTERM arriving meanwhile are raised, as
    `Stopped`, once it is done."""

    def __enter__(self) -> None:
        _HELD.append([])

    def __exit__(self, *_exc: object) -> None:
        caught = _HELD.pop()
        if caught:
            raise Stopped(caught[0])


class LoreError(Exception):
    """Base of every error lore reports to a user as one clear sentence."""

    exit_code: ExitCode = ExitCode.BAD_INPUT

    def __init__(self, message: str, *, fix: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.fix = fix

    def __str__(self) -> str:
        if self.fix:
            return f"{self.message} {self.fix}"
        return self.message


class StateUnwritable(LoreError):
    """lore's machine-local folder for a vault (`lore.paths.state_dir`) cannot be made or
    written: a file or a link where the folder should be, no permission, a full disk.
    Every command that writes there says the same sentence (`lore.vault.local_state`)."""

    def __init__(self, folder: object, why: str) -> None:
        super().__init__(
            f"Cannot write lore's state folder {folder}: {why.rstrip('.')}.",
            fix="Move it away or make it writable (lore creates the folder); until then "
            "recall and show read the committed notes from the files, more slowly.",
        )
        self.why = why


class UsageError(LoreError):
    """The command was called wrongly (bad flag values, missing arguments)."""


class BadArguments(UsageError):
    """argparse's own complaint (an unknown option, a bad value), with the usage of the
    command that was typed, so that it reads as argparse would print it."""

    def __init__(self, message: str, *, usage: str, prog: str) -> None:
        super().__init__(message, fix=" ".join(usage.split()))
        self.usage = usage
        self.prog = prog


class VaultError(LoreError):
    """No vault could be found, or the vault is not usable as it is."""


class NoteNotFound(LoreError):
    """A note id names no note in the vault."""


class GitError(LoreError):
    """A git command failed in a way the user must look at."""


class Problem:
    """One problem found in a file: where it is, what is wrong, and how to fix it.

    Parsers return problems rather than raising, so that the curator can report all
    of them at once while the index skips the file with the first one.
    """

    __slots__ = ("code", "fix", "line", "message", "path", "severity")

    def __init__(
        self,
        code: str,
        message: str,
        *,
        path: str,
        line: int | None = None,
        fix: str | None = None,
        severity: str = "error",
    ) -> None:
        self.code = code
        self.message = message
        self.path = path
        self.line = line
        self.fix = fix
        self.severity = severity

    def sentence(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        text = f"{where}: {self.message}"
        if self.fix:
            text += f" {self.fix}"
        return text

    def __repr__(self) -> str:
        return f"Problem({self.code!r}, {self.sentence()!r})"


class NoteError(LoreError):
    """A note file cannot be read as a note; carries every problem found."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = problems
        first = problems[0]
        super().__init__(first.sentence())


class GhError(LoreError):
    """The GitHub CLI is missing, not signed in, or a `gh` command failed.

    `kind` is "missing", "auth", "timeout" or "failed", so callers can say what to do.
    """

    def __init__(
        self, message: str, *, kind: str = "failed", fix: str | None = None, stderr: str = ""
    ) -> None:
        super().__init__(message, fix=fix)
        self.kind = kind
        self.stderr = stderr  # what gh printed, for callers that recognise a case


class ProposalError(LoreError):
    """A proposal was kept but not finished (blocked by the curator, a push or a PR failed).

    Nothing is lost: the message says where the note is and how to finish it.
    """

    exit_code = ExitCode.PROBLEMS_FOUND
