"""Helpers for tests: real git repositories, note text, and a vault built from the seed."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

# The suite's "today" (`LORE_TODAY`, set for every test by tests/conftest.py unless a test
# sets its own): the day after the commits below, so no test depends on the real date.
SUITE_TODAY = "2026-11-02"

GIT_IDENTITY = {
    "GIT_AUTHOR_NAME": "Test Author",
    "GIT_AUTHOR_EMAIL": "author@example.invalid",
    "GIT_COMMITTER_NAME": "Test Committer",
    "GIT_COMMITTER_EMAIL": "committer@example.invalid",
    "GIT_AUTHOR_DATE": "2026-11-01T12:00:00+00:00",
    "GIT_COMMITTER_DATE": "2026-11-01T12:00:00+00:00",
}


def git(cwd: Path, *args: str) -> str:
    env = {**os.environ, **GIT_IDENTITY}
    result = subprocess.run(
        ["git", "-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return result.stdout.strip()


def note_text(
    title: str = "Integration tests use httpx against a running container",
    *,
    type: str = "convention",
    tags: str = "[service/billing, tool/httpx, pattern/testing]",
    confidence: str = "high",
    date: str = "2026-11-02",
    body: str = "## What\nBilling integration tests call the running container over HTTP.\n",
    **extra: str,
) -> str:
    lines = [
        "---",
        f"title: {title}",
        f"type: {type}",
        f"tags: {tags}",
        f"confidence: {confidence}",
        f"date: {date}",
    ]
    lines += [f"{key}: {value}" for key, value in extra.items()]
    lines.append("---")
    return "\n".join(lines) + "\n" + body


def set_user_model(section: dict[str, Any] | None) -> None:
    """The user config's (`$LORE_CONFIG`) `[curator.semantic]`, its other keys kept; None
    removes it. Where a person turns a model on for their own runs, or names an endpoint
    of their own: lore sends a key to an endpoint only when the user's config names it."""
    from lore.config import load_config, save_config

    config = load_config()
    if section is None:
        config.extra.pop("curator", None)
    else:
        config.extra["curator"] = {"semantic": section}
    save_config(config)


def block_state_dir(root: Path) -> None:
    """Make the vault's state folder unusable: a file where the folder should be (an
    index already there is moved out of the way first)."""
    from lore.paths import state_dir

    folder = state_dir(root)
    if folder.exists():
        folder.rename(folder.with_name(folder.name + "-moved"))
    folder.write_text("not a folder")


def proposal_worktree(root: Path, name: str) -> Path:
    """Where lore keeps the worktree of the proposal `name` of the vault at `root`."""
    from lore.paths import state_dir

    return state_dir(root) / "proposals" / name


class Vault:
    """A real vault: the default seed plus notes, as a git repository with commits."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def write(self, note_id: str, text: str) -> Path:
        path = self.root / "notes" / f"{note_id}.md"
        path.write_text(text, encoding="utf-8")
        return path

    def remove(self, note_id: str) -> None:
        (self.root / "notes" / f"{note_id}.md").unlink()

    def commit(self, message: str = "update notes") -> str:
        git(self.root, "add", "-A")
        git(self.root, "commit", "-q", "-m", message)
        return git(self.root, "rev-parse", "HEAD")

    def set_repos(self, *repos: str) -> None:
        taxonomy = self.root / "_taxonomy.md"
        text = taxonomy.read_text(encoding="utf-8")
        lines = "\n".join(f"- `{repo}` — Repository {repo}." for repo in repos)
        taxonomy.write_text(
            text.replace("- `example-service` — Replace with your repositories.", lines),
            encoding="utf-8",
        )


def run_in_terminal(
    args: list[str], *, cwd: Path, answers: list[tuple[str, bytes]], timeout: float = 120
) -> tuple[int, str]:
    """Run a command on a real pseudo-terminal, typing each answer once its prompt shows.

    `answers` pairs a piece of the prompt with the bytes to type (b"\\x04" is Ctrl-D).
    Returns the exit code and everything the terminal showed.
    """
    import pty
    import select
    import time

    master, slave = pty.openpty()
    env = {**os.environ, "TERM": "dumb", "COLUMNS": "160"}
    process = subprocess.Popen(
        args, stdin=slave, stdout=slave, stderr=slave, cwd=cwd, env=env, close_fds=True
    )
    os.close(slave)
    output = b""
    pending = list(answers)
    deadline = time.monotonic() + timeout
    try:
        while True:
            if time.monotonic() > deadline:
                process.kill()
                raise AssertionError(
                    f"no exit after {timeout} s: {output.decode(errors='replace')}"
                )
            ready, _, _ = select.select([master], [], [], 0.1)
            if ready:
                try:
                    chunk = os.read(master, 4096)
                except OSError:  # EIO: the child closed the terminal
                    chunk = b""
                if not chunk:
                    break
                output += chunk
            if pending and pending[0][0].encode() in output:
                os.write(master, pending.pop(0)[1])
            elif not ready and process.poll() is not None:
                break
    finally:
        os.close(master)
    return process.wait(), output.decode("utf-8", "replace")


@contextmanager
def local_http_server(handler: type[BaseHTTPRequestHandler]) -> Iterator[int]:
    """A real HTTP server on 127.0.0.1, served from a thread, for a stand-in of a web API
    that cannot be reached from a test; yields its port."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()


def load_script(path: Path, name: str) -> Any:
    """A script of eval/ or bench/ imported as module `name` (its folder on sys.path, for
    the scripts it imports in turn)."""
    sys.path.insert(0, str(path.parent))
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
