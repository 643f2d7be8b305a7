"""Fixtures for the agent integrations: a team vault, a work repository, hook runners."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from lore.index.build import open_index
from lore.integrations.agents import AGENT_NAMES
from tests.support import Vault, git, note_text

FIXTURES = Path(__file__).resolve().parent / "fixtures"
AGENTS = AGENT_NAMES  # the agents table
TODAY = "2026-11-20"

TEAM_NOTES = {
    "billing--integration-tests-use-httpx--2026-11-02": note_text(
        "Integration tests use httpx against a running container",
        type="convention",
        repo="payments-api",
        author="octocat",
    ),
    "postgres--pgbouncer-transaction-pooling--2025-03-11": note_text(
        "PgBouncer runs in transaction pooling mode",
        type="decision",
        tags="[tool/postgres, tool/pgbouncer]",
        author="hubot",
        body="## What\nEvery production database sits behind PgBouncer in transaction mode.\n",
    ),
    "postgres--migrations-set-lock-timeout--2025-06-02": note_text(
        "Migrations set a lock timeout before altering hot tables",
        type="gotcha",
        tags="[tool/postgres, tool/alembic]",
        body="## What\nAn ALTER TABLE that waits on a lock blocks every query behind it.\n",
    ),
    "web--react-query-default-stale-time--2025-07-01": note_text(
        "React Query staleTime defaults to zero",
        type="gotcha",
        tags="[service/web, tool/react]",
        repo="web-app",
        body="## What\nEvery mount refetches unless staleTime is set.\n",
    ),
    "deploy--black-friday-change-freeze--2025-11-10": note_text(
        "No deploys during the Black Friday change freeze",
        type="runbook",
        tags="[pattern/testing]",
        body="## What\nFrom Thursday to Monday only hotfixes approved by the on-call lead ship.\n",
    ),
}


@pytest.fixture(autouse=True)
def pinned_day(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LORE_TODAY", TODAY)


@pytest.fixture
def team_vault(make_vault: Callable[..., Vault], monkeypatch: pytest.MonkeyPatch) -> Vault:
    vault = make_vault(TEAM_NOTES)
    conn, _ = open_index(vault.root)
    conn.close()
    monkeypatch.setenv("LORE_VAULT", str(vault.root))
    return vault


@pytest.fixture
def work_repo(tmp_path: Path) -> Path:
    """A checkout of payments-api: the repository the agent works in."""
    repo = tmp_path / "work" / "payments-api-checkout"
    repo.mkdir(parents=True)
    git(repo, "init", "-q")
    git(repo, "remote", "add", "origin", "https://github.com/acme/payments-api.git")
    return repo


def payload(agent: str, event: str, cwd: Path, prompt: str = "") -> bytes:
    text = (FIXTURES / "payloads" / f"{agent}.{event}.json").read_text(encoding="utf-8")
    text = text.replace("{CWD}", json.dumps(str(cwd))[1:-1])
    text = text.replace("{PROMPT}", json.dumps(prompt)[1:-1])
    return text.encode("utf-8")


class HookRun:
    def __init__(self, result: subprocess.CompletedProcess[bytes]) -> None:
        self.code = result.returncode
        self.stdout = result.stdout
        self.stderr = result.stderr

    def json(self) -> dict[str, object]:
        data = json.loads(self.stdout)
        assert isinstance(data, dict)
        return data

    def context(self) -> str:
        data = self.json()
        if "hookSpecificOutput" in data:
            inner = data["hookSpecificOutput"]
            assert isinstance(inner, dict)
            return str(inner["additionalContext"])
        return str(data.get("additional_context") or data.get("additionalContext"))


def run_hook(
    event: str,
    agent: str | None,
    stdin: bytes,
    *,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    watchdog: bool = True,
) -> HookRun:
    """`lore hook EVENT` as an agent runs it. `watchdog=False` disarms the hook's own time
    limit, so that a hook that waited for something the test holds would hang (and the
    generous `timeout` below fail the test) instead of being cut short silently."""
    command = [sys.executable, "-m", "lore", "hook", event]
    if not watchdog:
        command[1:3] = ["-c", NO_WATCHDOG]
    if agent:
        command += ["--agent", agent]
    result = subprocess.run(
        command,
        input=stdin,
        capture_output=True,
        cwd=cwd,
        env={**os.environ, **(env or {})},
        timeout=120,
    )
    return HookRun(result)


NO_WATCHDOG = (
    "from lore.cli import hook_cmd\n"
    "hook_cmd.HARD_LIMIT_S = 0\n"
    "from lore.cli.main import main\n"
    "raise SystemExit(main())\n"
)


def wait_for_log(home: Path, prefix: str, timeout: float = 40.0) -> str:
    """Wait until a background job whose name starts with `prefix` has logged its outcome."""
    folder = home / "background"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        logs = sorted(folder.glob(f"{prefix}*.log")) if folder.is_dir() else []
        text = "".join(log.read_text(encoding="utf-8") for log in logs)
        if text:
            return text
        time.sleep(0.05)
    raise AssertionError(f"no background job {prefix}* finished within {timeout} s")
