"""Shared fault helpers: real damage to real files, real processes, real mounts.

Every fault here is the real thing, done to real files in `tmp_path`: pages of a
SQLite file overwritten after a WAL checkpoint, tables dropped, a folder where a
file should be, a read-only folder or a full disk (a bind mount remounted read-only,
or a small tmpfs, in a private mount namespace: `unshare -m`, as root; skipped with
the reason otherwise), a process killed with SIGKILL at a moment it announces, and
processes racing each other. docs/reliability.md lists what lore promises under each
fault and the test that proves it.

Sections: running lore (in-process and as a process), "nothing was lost", the vault
the index faults start from, damage to a SQLite file, mounts, killing and racing.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from lore.index.schema import APPLICATION_ID, SCHEMA_VERSION
from lore.paths import index_path
from lore.vault.seed import seed_files, write_files
from tests.support import Vault, git, note_text

TODAY = "2026-11-20"


@pytest.fixture(autouse=True)
def pinned_day(monkeypatch: pytest.MonkeyPatch) -> None:
    """Statuses and the index's freshness depend on the date: pin it."""
    monkeypatch.setenv("LORE_TODAY", TODAY)


@pytest.fixture(autouse=True)
def no_kept_connection() -> Iterator[None]:
    """Recall keeps its index connection per thread; no test inherits another's."""
    yield
    from lore.index.read import forget_kept_index

    forget_kept_index()


# --- running lore -------------------------------------------------------------------


class Outcome:
    """What a lore command did: exit code, stdout and stderr (text)."""

    def __init__(self, code: int, out: str, err: str) -> None:
        self.code = code
        self.out = out
        self.err = err

    @property
    def said(self) -> str:
        """stdout and stderr with line wrapping undone (rich wraps at the terminal width)."""
        return " ".join(f"{self.out}\n{self.err}".split())

    def json(self) -> Any:
        assert self.out.strip(), f"no JSON on stdout (exit {self.code}, stderr {self.err!r})"
        return json.loads(self.out)

    def __repr__(self) -> str:
        return f"Outcome(code={self.code}, out={self.out[:300]!r}, err={self.err[:500]!r})"


@pytest.fixture
def lore_cli(capsys: pytest.CaptureFixture[str]) -> Callable[..., Outcome]:
    """Run `lore ARGS…` in this process (the CLI's own `main`), capturing its output."""
    from lore.cli.main import main

    def run(*args: str) -> Outcome:
        capsys.readouterr()
        code = main(list(args))
        captured = capsys.readouterr()
        return Outcome(code, captured.out, captured.err)

    return run


def lore_process(
    args: list[str],
    *,
    stdin: bytes | None = None,
    env: dict[str, str] | None = None,
    cwd: Path | None = None,
    prefix: list[str] | None = None,
    timeout: float = 60,
) -> Outcome:
    """Run `python -m lore ARGS…` as a process (after `prefix`, e.g. a mount namespace)."""
    result = subprocess.run(
        [*(prefix or []), sys.executable, "-m", "lore", *args],
        input=stdin,
        capture_output=True,
        env={**os.environ, **(env or {})},
        cwd=cwd,
        timeout=timeout,
        check=False,
    )
    return Outcome(
        result.returncode,
        result.stdout.decode("utf-8", "replace"),
        result.stderr.decode("utf-8", "replace"),
    )


# --- nothing was lost ---------------------------------------------------------------


class VaultSnapshot:
    """Every committed and working-tree byte of a vault outside `.git/` (where lore keeps
    its state) and `.lore/`, and its HEAD."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.head = git(root, "rev-parse", "HEAD")
        self.files = tree_digest(root)

    def assert_unchanged(self) -> None:
        assert git(self.root, "rev-parse", "HEAD") == self.head, "a commit was lost or made"
        assert tree_digest(self.root) == self.files, "a file of the vault changed"
        status = git(self.root, "status", "--porcelain", "--untracked-files=all")
        assert status == "", f"the working tree changed:\n{status}"


def tree_digest(root: Path) -> dict[str, str]:
    digests = {}
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root).as_posix()
        if relative.startswith((".lore/", ".git/")) or relative in (".lore", ".git"):
            continue
        if path.is_file():
            digests[relative] = hashlib.sha256(path.read_bytes()).hexdigest()
    return digests


def file_digest(path: Path) -> str:
    """The bytes at `path` (a folder: its listing), to show a check left them alone."""
    if path.is_dir():
        return "folder:" + ",".join(sorted(p.name for p in path.iterdir()))
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.exists() else "missing"


# --- the vault the index faults start from ------------------------------------------

SUPERSEDED = "postgres--pool-size-20--2025-01-10"


def fault_notes() -> dict[str, str]:
    """30 notes with bodies long enough that each table spans several pages."""
    filler = " ".join(f"detail{n} of the runbook step" for n in range(60))
    notes = {
        f"ops--runbook-step-{n:02d}--2026-10-{n % 28 + 1:02d}": note_text(
            f"Runbook step {n} for topic{n}",
            type="runbook",
            tags="[pattern/testing]",
            body=f"## What\nStep {n} names topic{n} and keyword{n}.\n\n## How\n{filler}\n",
        )
        for n in range(28)
    }
    notes[SUPERSEDED] = note_text(
        "The database pool has 20 connections",
        type="decision",
        tags="[tool/postgres]",
        body="## What\nThe pool has 20 connections.\n",
    )
    notes["postgres--pool-size-50--2026-11-01"] = note_text(
        "The database pool has 50 connections",
        type="decision",
        tags="[tool/postgres]",
        supersedes=f"[{SUPERSEDED}]",
        author="octocat",
        body="## What\nThe pool grew to 50 connections after the pgbouncer change.\n",
    )
    return notes


SHOWN = "ops--runbook-step-07--2026-10-08"  # the note `show` and `get_note` read


@pytest.fixture(scope="session")
def template_vault(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A committed vault of 30 notes with a built index; tests work on copies of it."""
    root = tmp_path_factory.mktemp("fault-template") / "vault"
    root.mkdir()
    write_files(root, seed_files())
    vault = Vault(root)
    vault.set_repos("payments-api")
    for note_id, text in fault_notes().items():
        vault.write(note_id, text)
    home = tmp_path_factory.mktemp("fault-template-home")
    env = {"HOME": str(home), "GIT_CONFIG_NOSYSTEM": "1", "GIT_TEMPLATE_DIR": ""}
    with pytest.MonkeyPatch.context() as patch:
        for key, value in {**env, "LORE_TODAY": TODAY, "LORE_HOME": str(home / "lh")}.items():
            patch.setenv(key, value)
        git(root, "init", "-q")
        vault.commit("thirty notes")
        from lore.index.build import open_index

        conn, state = open_index(root)
        conn.close()
    assert state.notes == len(fault_notes())
    return root


class FaultVault:
    """A fresh copy of the template vault, its index, and a snapshot to compare against."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.index = index_path(root)
        self.before = VaultSnapshot(root)

    @property
    def aside(self) -> Path:
        return self.index.with_name("index.db.aside")

    def add_note(self, note_id: str, title: str) -> None:
        """A commit the index has not seen yet (the index is then stale)."""
        Vault(self.root).write(note_id, note_text(title))
        Vault(self.root).commit(f"add {note_id}")
        self.before = VaultSnapshot(self.root)

    def assert_nothing_lost(self) -> None:
        self.before.assert_unchanged()

    def index_is_sound(self) -> bool:
        return index_is_sound(self.index)


def index_is_sound(path: Path) -> bool:
    """lore's index of the current schema, passing SQLite's and FTS5's full checks.

    The test's own check, written without lore's code, so that it judges lore.
    """
    if not path.is_file():
        return False
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        header = (
            conn.execute("PRAGMA application_id").fetchone()[0],
            conn.execute("PRAGMA user_version").fetchone()[0],
        )
        if header != (APPLICATION_ID, SCHEMA_VERSION) or conn.execute(
            "PRAGMA quick_check"
        ).fetchall() != [("ok",)]:
            return False
        conn.execute("BEGIN")
        conn.execute("INSERT INTO notes_fts(notes_fts, rank) VALUES ('integrity-check', 1)")
        conn.execute("ROLLBACK")
        return bool(conn.execute("SELECT count(*) FROM notes").fetchone()[0])
    except sqlite3.Error:
        return False
    finally:
        conn.close()


@pytest.fixture
def fault_vault(
    template_vault: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> FaultVault:
    root = tmp_path / "vault"
    shutil.copytree(template_vault, root, symlinks=True)
    monkeypatch.setenv("LORE_VAULT", str(root))
    return FaultVault(root)


# --- damage to a SQLite file --------------------------------------------------------

PAGE = 4096


def checkpoint(path: Path) -> None:
    """Fold the WAL into the database file, so that damage to the file is what is read."""
    conn = sqlite3.connect(path)
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()


def root_page(path: Path, name: str) -> int:
    conn = sqlite3.connect(path)
    try:
        row = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = ?", (name,)).fetchone()
    finally:
        conn.close()
    assert row and row[0] > 0, f"no table {name} in {path}"
    return int(row[0])


def page_count(path: Path) -> int:
    checkpoint(path)
    return path.stat().st_size // PAGE


def overwrite_page(path: Path, page: int, fill: bytes = b"\xab") -> None:
    """Overwrite page `page` (1-based) of the database file with `fill` bytes."""
    checkpoint(path)
    with path.open("r+b") as handle:
        handle.seek((page - 1) * PAGE)
        handle.write(fill * PAGE)


def drop_table(path: Path, name: str) -> None:
    conn = sqlite3.connect(path)
    try:
        conn.execute(f'DROP TABLE "{name}"')
        conn.commit()
    finally:
        conn.close()
    checkpoint(path)


def remove_index_files(path: Path) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)


def truncate_to_pages(path: Path, pages: int) -> None:
    checkpoint(path)
    with path.open("r+b") as handle:
        handle.truncate(pages * PAGE)


def make_foreign_database(path: Path) -> None:
    remove_index_files(path)
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE notes (x)")
    conn.execute("PRAGMA application_id = 12345")
    conn.commit()
    conn.close()


def make_directory(path: Path) -> None:
    remove_index_files(path)
    path.mkdir()
    (path / "something").write_text("a folder where the index file should be\n")


# --- mounts: a read-only folder, a full disk ----------------------------------------


@cache
def private_mounts_available() -> bool:
    """Root, and `unshare -m` can mount a tmpfs in a private mount namespace."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0 or shutil.which("unshare") is None:
        return False
    probe = subprocess.run(
        ["unshare", "-m", "sh", "-c", "mount -t tmpfs -o size=4k tmpfs /mnt && umount /mnt"],
        capture_output=True,
        check=False,
        timeout=30,
    )
    return probe.returncode == 0


needs_private_mounts = pytest.mark.skipif(
    not private_mounts_available(),
    reason="a read-only folder or a full disk needs root and `unshare -m` (a private mount "
    "namespace); as another user chmod does not stop root and a real disk cannot be filled",
)


def read_only(folder: Path) -> str:
    """Shell lines that make `folder` read-only (a bind mount remounted read-only)."""
    quoted = _quote(folder)
    return f"mount --bind {quoted} {quoted} && mount -o remount,bind,ro {quoted}"


def full_disk(folder: Path, *, keep: Path | None = None, size_kib: int = 512) -> str:
    """Shell lines that put `folder` on a small tmpfs, with `keep`'s files, then fill it."""
    quoted = _quote(folder)
    lines = [f"mount -t tmpfs -o size={size_kib}k tmpfs {quoted}"]
    if keep is not None:
        lines.append(f"cp -a {_quote(keep)}/. {quoted}/")
    lines.append(f"(dd if=/dev/zero of={quoted}/filler bs=4k 2>/dev/null || true)")
    return " && ".join(lines)


def in_private_mounts(setup: str) -> list[str]:
    """A command prefix: run the rest in a private mount namespace after `setup`."""
    return ["unshare", "-m", "sh", "-c", f'set -e; {setup}; exec "$@"', "lore-fault"]


def _quote(path: Path) -> str:
    return "'" + str(path).replace("'", "'\\''") + "'"


# --- killing and racing ------------------------------------------------------------

READY = "READY"


def start_until_ready(code: str, *, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    """Start `python -c CODE` and wait until it prints READY (the chosen moment)."""
    process = subprocess.Popen(
        [sys.executable, "-c", code],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **(env or {})},
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    if line.strip() != READY:
        process.kill()
        _, err = process.communicate(timeout=30)
        raise AssertionError(f"the process never reached its moment: {line!r} {err}")
    return process


def kill_9(process: subprocess.Popen[str]) -> None:
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=30)
    assert process.returncode == -signal.SIGKILL


def run_together(codes: list[str], folder: Path, *, timeout: float = 120) -> list[Outcome]:
    """Start every `python -c CODE` at once (they wait for a start file), then wait."""
    start = folder / "start-now"
    prelude = f"import os, time\nwhile not os.path.exists({str(start)!r}): time.sleep(0.005)\n"
    processes = [
        subprocess.Popen(
            [sys.executable, "-c", prelude + code],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for code in codes
    ]
    try:
        time.sleep(0.3)  # let every interpreter start and reach the start line
        start.write_text("go")
        outcomes = []
        for process in processes:
            out, err = process.communicate(timeout=timeout)
            outcomes.append(Outcome(process.returncode, out, err))
        return outcomes
    finally:
        start.unlink(missing_ok=True)
        for process in processes:
            if process.poll() is None:
                process.kill()
