"""What the machine-local state and reviewed-branch tests share.

The team loop's stand-ins come from tests/team/conftest.py (a local bare repository as
the GitHub remote, mapped by git's own `insteadOf`; a fake `gh` for GitHub's API, which
cannot be reached from a test). Here: the ways an agent is told about notes — recall
as JSON, `lore show --json`, the session-start digest, and MCP `get_note` through the
official SDK client — each returning the text it was given, so a test can look for
text that must never reach an agent.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from lore.cli.main import main
from tests.integrations.conftest import payload, run_hook
from tests.support import git
from tests.team.conftest import clone_of, fake_gh, remote, team_env  # pytest fixtures

__all__ = [
    "agent_views",
    "clone_of",
    "digest",
    "fake_gh",
    "lore_json",
    "mcp_get_note",
    "remote",
    "team_env",
    "tracked",
    "work_repo_for",
]


def lore_json(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, Any]:
    """Run `lore ARGS --json` in this process: (exit code, the JSON it printed)."""
    code = main([*args, "--json"])
    out = capsys.readouterr().out
    return code, json.loads(out) if out.strip() else None


def work_repo_for(tmp_path: Path) -> Path:
    """A checkout of payments-api: the repository an agent works in."""
    repo = tmp_path / "work" / "payments-api"
    if not repo.is_dir():
        repo.mkdir(parents=True)
        git(repo, "init", "-q")
        git(repo, "remote", "add", "origin", "https://github.com/acme/payments-api.git")
    return repo


def digest(vault: Path, work: Path) -> str:
    """The session-start digest a Claude Code session in `work` gets from `vault`."""
    run = run_hook(
        "session-start",
        "claude-code",
        payload("claude-code", "session-start", work),
        env={"LORE_VAULT": str(vault)},
    )
    assert run.code == 0, run.stderr
    return run.context() if run.stdout else ""


def mcp_get_note(vault: Path, cwd: Path, note_id: str) -> str:
    """MCP `get_note` through the official SDK client, as the text the agent receives."""
    pytest.importorskip("mcp", reason="the [mcp] extra is not installed")
    import anyio
    from mcp import ClientSession, StdioServerParameters, stdio_client

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "lore", "mcp"],
        env={
            "LORE_VAULT": str(vault),
            "LORE_HOME": os.environ["LORE_HOME"],
            "LORE_TODAY": os.environ.get("LORE_TODAY", "2026-11-02"),
            "HOME": os.environ["HOME"],
            "PATH": os.environ["PATH"],
            "GIT_CONFIG_NOSYSTEM": "1",
        },
        cwd=str(cwd),
    )

    async def steps() -> str:
        with open(os.devnull, "w") as errlog:
            async with (
                stdio_client(params, errlog=errlog) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                result = await session.call_tool("get_note", {"id": note_id})
                texts = [getattr(block, "text", "") for block in result.content]
                return json.dumps(result.structured_content) + "\n".join(texts)

    return str(anyio.run(steps))


def agent_views(
    capsys: pytest.CaptureFixture[str], vault: Path, work: Path, query: str, note_id: str
) -> dict[str, str]:
    """Everything an agent can be told about `note_id`: recall, show, digest, MCP."""
    code, recalled = lore_json(capsys, "recall", query, "--vault", str(vault), "--all")
    assert code == 0
    code, shown = lore_json(capsys, "show", note_id, "--vault", str(vault))
    assert code == 0
    return {
        "recall": json.dumps(recalled),
        "show": json.dumps(shown),
        "digest": digest(vault, work),
        "mcp": mcp_get_note(vault, work, note_id),
    }


def tracked(root: Path, path: str) -> list[str]:
    """The files under `path` that git tracks in the checkout."""
    return git(root, "ls-files", "--", path).split()
