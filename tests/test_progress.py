"""Long commands show their progress on a terminal's stderr, and nothing on a pipe.

`curate --all`, the first index build whichever command starts it (here `lore recall`
on a fresh clone) and `drift` report stages and counts to `lore.cli.output.
DelayedProgress`, which draws a bar once the work has taken `PROGRESS_DELAY` seconds,
only when stderr is a terminal. The tests run the CLI in this process with stderr on
a real pseudo-terminal (or a real pipe) and the delay set to 0, so that the small
vaults here are slow enough to show it.
"""

from __future__ import annotations

import io
import os
import pty
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from lore.cli import output
from lore.cli.main import main
from lore.index import fill
from tests.support import Vault, git, note_text


def _notes(count: int) -> dict[str, str]:
    return {
        f"scope--note-{number}--2026-01-{1 + number % 28:02d}": note_text(
            f"Note {number} about retries and timeouts",
            date=f"2026-01-{1 + number % 28:02d}",
            repo="payments-api",
            files_touched="[src/app.py]",
            body=f"## What\nRetries wait {number} seconds between attempts.\n",
        )
        for number in range(count)
    }


def _run(args: list[str], *, terminal: bool, monkeypatch: pytest.MonkeyPatch) -> tuple[int, str]:
    """`lore ARGS` in this process, stderr on a terminal or a pipe; its code and stderr."""
    monkeypatch.setattr(output, "PROGRESS_DELAY", 0.0)
    monkeypatch.setenv("TERM", "xterm")
    monkeypatch.setenv("COLUMNS", "120")
    reader, writer = pty.openpty() if terminal else os.pipe()
    chunks: list[bytes] = []

    def drain() -> None:
        while True:
            try:
                data = os.read(reader, 65536)
            except OSError:  # the terminal's other side closed
                return
            if not data:
                return
            chunks.append(data)

    thread = threading.Thread(target=drain)
    thread.start()
    stderr = open(writer, "w", encoding="utf-8", closefd=False)  # noqa: SIM115 - closed below
    monkeypatch.setattr(sys, "stderr", stderr)
    monkeypatch.setattr(sys, "stdout", io.StringIO())
    try:
        code = main(args)
    finally:
        stderr.flush()
        stderr.close()
        os.close(writer)
        thread.join(timeout=10)
        os.close(reader)
    return code, b"".join(chunks).decode("utf-8", errors="replace")


@pytest.mark.parametrize("terminal", [True, False])
def test_curate_all_shows_progress_on_a_terminal_only(
    make_vault: Callable[..., Vault], monkeypatch: pytest.MonkeyPatch, terminal: bool
) -> None:
    vault = make_vault(_notes(40))
    args = ["curate", "--all", "--format", "json", "--vault", str(vault.root)]
    code, shown = _run(args, terminal=terminal, monkeypatch=monkeypatch)
    assert code in (0, 1)
    if terminal:
        # the notes checked a batch at a time, then every pair rule on each note in one pass
        assert "Checking notes " in shown
        assert "Checking notes: duplicate, contradiction, lifecycle" in shown
    else:
        assert shown == ""


@pytest.mark.parametrize("terminal", [True, False])
def test_the_first_index_build_shows_progress_on_a_terminal_only(
    make_vault: Callable[..., Vault], monkeypatch: pytest.MonkeyPatch, terminal: bool
) -> None:
    vault = make_vault(_notes(30))  # a fresh clone: no index yet
    args = ["recall", "retries", "--json", "--vault", str(vault.root)]
    code, shown = _run(args, terminal=terminal, monkeypatch=monkeypatch)
    assert code == 0
    assert ("Indexing notes" in shown) is terminal
    if not terminal:
        assert shown == ""
    assert fill.BUILD_PROGRESS is None  # set for the command only


@pytest.mark.parametrize("terminal", [True, False])
def test_drift_shows_progress_on_a_terminal_only(
    make_vault: Callable[..., Vault],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    terminal: bool,
) -> None:
    vault = make_vault(_notes(5))
    code_repo = tmp_path / "payments-api"
    (code_repo / "src").mkdir(parents=True)
    git(code_repo, "init", "-q")
    for number in range(3):
        (code_repo / "src" / "app.py").write_text(f"# version {number}\n", encoding="utf-8")
        git(code_repo, "add", "-A")
        git(code_repo, "commit", "-q", "-m", f"change {number}")
    args = ["drift", "--code-repo", str(code_repo), "--repo", "payments-api", "--json"]
    code, shown = _run(
        [*args, "--vault", str(vault.root)], terminal=terminal, monkeypatch=monkeypatch
    )
    assert code == 1  # every note's file changed after its date
    if terminal:
        assert "Following the notes' files" in shown
    else:
        assert shown == ""
