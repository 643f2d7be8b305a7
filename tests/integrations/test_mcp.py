"""`lore mcp`, driven by the official SDK's own stdio client against a real vault.

One server process serves every check (starting it costs about a second).
"""

from __future__ import annotations

import json
import keyword
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support import Vault

mcp = pytest.importorskip("mcp", reason="the [mcp] extra is not installed")

from mcp import ClientSession, StdioServerParameters, stdio_client  # noqa: E402


def run_session(vault: Vault, cwd: Path, steps: Any) -> Any:
    import anyio

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "lore", "mcp"],
        env={
            "LORE_VAULT": str(vault.root),
            "LORE_HOME": os.environ["LORE_HOME"],
            "LORE_TODAY": os.environ["LORE_TODAY"],
            "HOME": os.environ["HOME"],
            "GIT_CONFIG_NOSYSTEM": "1",
        },
        cwd=str(cwd),
    )

    async def main() -> Any:
        with open(os.devnull, "w") as errlog:
            async with (
                stdio_client(params, errlog=errlog) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                return await steps(session)

    return anyio.run(main)


def test_tools_over_stdio(team_vault: Vault, work_repo: Path) -> None:
    async def steps(session: ClientSession) -> dict[str, Any]:
        out: dict[str, Any] = {"tools": (await session.list_tools()).tools}
        out["recall"] = await session.call_tool(
            "recall", {"query": "billing integration tests httpx", "limit": 3}
        )
        out["get_note"] = await session.call_tool(
            "get_note", {"id": "billing--integration-tests-use-httpx--2026-11-02"}
        )
        out["bad"] = {
            "traversal": await session.call_tool("get_note", {"id": "../../../etc/passwd"}),
            "path": await session.call_tool("get_note", {"id": "notes/x--y--2026-01-01.md"}),
            "long": await session.call_tool("get_note", {"id": "a--b--2026-01-01" * 40}),
            "unknown": await session.call_tool("get_note", {"id": "billing--nope--2026-11-02"}),
            "not-a-string": await session.call_tool("get_note", {"id": 42}),
            "empty": await session.call_tool("recall", {"query": "   "}),
            "controls": await session.call_tool("recall", {"query": "\u202e\u200b\x00"}),
            "huge": await session.call_tool("recall", {"query": "x " * 400}),
            "limit": await session.call_tool("recall", {"query": "postgres", "limit": 500}),
            # the SDK would coerce true to 1: the schema (strict) must refuse it first
            "bool-limit": await session.call_tool("recall", {"query": "postgres", "limit": True}),
            "string-limit": await session.call_tool("recall", {"query": "pg", "limit": "3"}),
            "repo": await session.call_tool("recall", {"query": "postgres", "repo": "../../x"}),
            "missing": await session.call_tool("recall", {}),
            "unknown-tool": await session.call_tool("remember_everything", {}),
        }
        out["fts"] = await session.call_tool(
            "recall", {"query": 'NEAR("postgres" pgbouncer) OR * ^ : AND "unclosed'}
        )
        return out

    out = run_session(team_vault, work_repo, steps)

    tools = out["tools"]
    # deterministic order
    assert [tool.name for tool in tools] == [
        "recall", "get_note", "remember", "list_proposals", "taxonomy",
    ]  # fmt: skip
    for tool in tools:
        assert tool.name.isidentifier() and not keyword.iskeyword(tool.name)
        for name in tool.input_schema["properties"]:
            assert name.isidentifier() and not keyword.iskeyword(name), (tool.name, name)
        assert tool.annotations.read_only_hint is (tool.name != "remember")
        assert tool.annotations.destructive_hint is False
        assert tool.description and not tool.description.startswith(" ")
    assert tools[1].input_schema["required"] == ["id"]

    recall = out["recall"]
    assert not recall.is_error
    data = recall.structured_content
    assert data["version"] == 1 and data["engine"] == "fts5" and data["repo"] == "payments-api"
    assert data["results"][0]["id"] == "billing--integration-tests-use-httpx--2026-11-02"
    assert data["vault"]["commit"] and "never instructions" in data["notice"]
    assert json.loads(recall.content[0].text) == data

    note = out["get_note"].structured_content
    assert note["id"] == "billing--integration-tests-use-httpx--2026-11-02"
    assert note["author"] == "octocat" and note["date"] == "2026-11-02"
    assert note["vault"]["commit"] == data["vault"]["commit"]
    assert note["body"].startswith("## What") and note["active"] is True

    for name, result in out["bad"].items():
        assert result.is_error, name
        text = result.content[0].text
        assert "Traceback" not in text and len(text) < 600, (name, text)
    bad = {name: result.content[0].text for name, result in out["bad"].items()}
    assert "is not a note id" in bad["traversal"] and "is not a note id" in bad["path"]
    assert "Did you mean billing--integration-tests-use-httpx--2026-11-02?" in bad["unknown"]
    assert "query is empty" in bad["empty"] and "query is empty" in bad["controls"]
    assert "from 1 to 20" in bad["limit"] and "repository name" in bad["repo"]
    assert "valid integer" in bad["bool-limit"] and "valid integer" in bad["string-limit"]

    assert not out["fts"].is_error  # FTS5 syntax in a query is searched as words


def test_tool_logic_without_transport(team_vault: Vault, work_repo: Path) -> None:
    from mcp.server.mcpserver.exceptions import ToolError

    from lore.integrations.mcp_server import VaultTools

    tools = VaultTools(None, work_repo)
    assert tools.recall("pgbouncer pooling", limit=1)["results"][0]["id"] == (
        "postgres--pgbouncer-transaction-pooling--2025-03-11"
    )
    with pytest.raises(ToolError, match="not a note id"):
        tools.get_note("x" * 500)
    lost = VaultTools(str(work_repo / "nowhere"), work_repo)
    with pytest.raises(ToolError, match="does not exist"):
        lost.recall("anything")


def test_remember_proposes_on_a_branch_and_never_touches_main(
    team_vault: Vault, work_repo: Path
) -> None:
    from lore.integrations.mcp_server import VaultTools
    from tests.support import git

    git(team_vault.root, "config", "user.name", "Agent User")
    git(team_vault.root, "config", "user.email", "agent@example.invalid")
    tools = VaultTools(None, work_repo)
    main_before = git(team_vault.root, "rev-parse", "main")
    note = {
        "title": "Ledger exports run after the nightly reconcile job",
        "type": "gotcha",
        "tags": ["service/billing"],
        "what": "Ledger CSV exports must start after the nightly reconcile job finishes.",
        "why": "An export that starts earlier misses the day's adjustments.",
        "repo": "payments-api",
    }
    done = tools.remember(**note)  # type: ignore[arg-type]
    # The vault has no remote here, so the proposal stays a local branch to push later.
    assert done["status"] == "committed", done
    branch = done["branch"]
    assert branch == f"lore/{done['id']}"
    assert git(team_vault.root, "rev-parse", "main") == main_before
    added = git(team_vault.root, "diff", "--name-only", "main", branch)
    assert added == f"notes/{done['id']}.md"
    listed = tools.list_proposals()
    assert [p["id"] for p in listed["vaults"][0]["proposals"]] == [done["id"]]

    token = "ghp_" + "x9K2mQ7vL4pR8sT1wZ6yB3nC5dF0gH2jK4lM"  # built at run time: no literal token
    blocked = tools.remember(**{**note, "title": "Deploy token", "what": f"Use {token} to deploy."})  # type: ignore[arg-type]
    assert blocked["status"] == "blocked"
    assert any(f["rule"].startswith("secret/") for f in blocked["findings"])
    assert token not in json.dumps(blocked)
    branches = git(team_vault.root, "branch", "--list", "lore/*")
    assert branches.count("lore/") == 1  # the blocked note left no branch behind
