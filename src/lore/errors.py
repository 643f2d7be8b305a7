"""Error types and the exit codes of the command-line contract (DESIGN.md section 3).

The library raises these; only `lore.cli` turns them into a message and an exit code.
"""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    OK = 0
    PROBLEMS_FOUND = 1  # the command ran and found problems (curator errors)
    BAD_INPUT = 2  # bad usage or bad input the user must fix
    INTERNAL = 3  # an unexpected internal error; details in a log file
    INTERRUPTED = 130


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


class UsageError(LoreError):
    """The command was called wrongly (bad flag values, missing arguments)."""


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
