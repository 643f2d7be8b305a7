"""A reader that goes away (`lore curate … | head -1`) never changes a command's exit code.

Python ignores SIGPIPE, so a write to a pipe whose reader has exited raises
`BrokenPipeError` wherever the command happens to be printing; caught at the top, the
command's own result (1 for a failed check) would be lost. While a command runs, its
stdout and stderr are wrapped: the first write to a closed pipe points that stream at
the null device, every later write is dropped, and the command finishes its work and
returns its own exit code, as if its reader had read everything. `lore recall … | head`
stays 0 and a failing `lore curate … | head` stays 1 under `set -o pipefail`.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TextIO


class ReaderTolerantStream:
    """`sys.stdout` or `sys.stderr` while a command runs: a closed pipe drops the output."""

    def __init__(self, stream: TextIO) -> None:
        self.wrapped = stream
        self.reader_gone = False

    def write(self, text: str) -> int:
        if not self.reader_gone:
            try:
                return self.wrapped.write(text)
            except BrokenPipeError:
                self._silence()
        return len(text)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        if self.reader_gone:
            return
        try:
            self.wrapped.flush()
        except BrokenPipeError:
            self._silence()

    def _silence(self) -> None:
        """Point the stream's descriptor at the null device, so that what is still
        buffered (and the interpreter's last flush) goes nowhere instead of failing."""
        self.reader_gone = True
        try:
            descriptor = self.wrapped.fileno()
        except (OSError, ValueError, AttributeError):
            return  # not a real file (a test's capture): nothing is buffered below it
        devnull = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(devnull, descriptor)
        finally:
            os.close(devnull)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.wrapped, name)


class reader_tolerant:  # noqa: N801 - used as `with reader_tolerant():`, like a function
    """While the block runs, stdout and stderr drop what a gone reader would not read."""

    def __enter__(self) -> None:
        self.streams = (sys.stdout, sys.stderr)
        if sys.stdout is not None:
            sys.stdout = ReaderTolerantStream(sys.stdout)
        if sys.stderr is not None:
            sys.stderr = ReaderTolerantStream(sys.stderr)

    def __exit__(self, *_exc: object) -> None:
        for stream in (sys.stdout, sys.stderr):
            if isinstance(stream, ReaderTolerantStream):
                stream.flush()  # a write still buffered finds out now, not at exit
        if isinstance(sys.stdout, ReaderTolerantStream):
            sys.stdout = self.streams[0]
        if isinstance(sys.stderr, ReaderTolerantStream):
            sys.stderr = self.streams[1]
