"""The MCP server keeps answering while its index is damaged under it.

One real `lore mcp` server (started once for the module, as an agent keeps it for a
session) is driven by the official SDK's stdio client. Each case damages the index
the running server has open, then asks for a note with `get_note` and searches with
`recall`: the server's kept connection must notice, heal and answer.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.faults.conftest import SHOWN, TODAY, FaultVault
from tests.faults.test_index_faults import DAMAGES, HEALED, READS, Damage

mcp = pytest.importorskip("mcp", reason="the [mcp] extra is not installed")

from mcp import ClientSession, StdioServerParameters, stdio_client  # noqa: E402


class McpClient:
    """A synchronous handle on a live MCP session (its event loop runs in a thread)."""

    def __init__(self, portal: Any, session: ClientSession) -> None:
        self.portal = portal
        self.session = session

    def call(self, tool: str, arguments: dict[str, Any]) -> Any:
        return self.portal.call(self.session.call_tool, tool, arguments)


def server_params(root: Path, home: Path, prefix: list[str] | None = None) -> StdioServerParameters:
    command = [*(prefix or []), sys.executable, "-m", "lore", "mcp"]
    return StdioServerParameters(
        command=command[0],
        args=command[1:],
        env={
            "LORE_VAULT": str(root),
            "LORE_HOME": str(home / "lore-home"),
            "LORE_CONFIG": str(home / "config.toml"),
            "LORE_TODAY": TODAY,
            "HOME": str(home),
            "GIT_CONFIG_NOSYSTEM": "1",
            "PATH": os.environ.get("PATH", ""),
            **{k: v for k, v in os.environ.items() if k == "PYTHONPATH"},
        },
        cwd=str(home),
    )


@asynccontextmanager
async def _session(params: StdioServerParameters) -> AsyncIterator[ClientSession]:
    with open(os.devnull, "w") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            yield session


@contextmanager
def mcp_client(params: StdioServerParameters) -> Iterator[McpClient]:
    from anyio.from_thread import start_blocking_portal

    with (
        start_blocking_portal() as portal,
        portal.wrap_async_context_manager(_session(params)) as session,
    ):
        yield McpClient(portal, session)


@pytest.fixture(scope="module")
def served(
    template_vault: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[FaultVault, McpClient]]:
    base = tmp_path_factory.mktemp("mcp-faults")
    root = base / "vault"
    shutil.copytree(template_vault, root, symlinks=True)
    (base / "home").mkdir()
    with mcp_client(server_params(root, base / "home")) as client:
        yield FaultVault(root), client


def assert_note(result: Any) -> None:
    assert not result.is_error, result.content[0].text
    note = result.structured_content
    assert (note["id"], note["title"]) == (SHOWN, "Runbook step 7 for topic7")
    assert "keyword7" in note["body"] and note["active"] is True


@pytest.mark.parametrize("damage", DAMAGES, ids=repr)
def test_get_note_heals_under_a_running_server(
    damage: Damage, served: tuple[FaultVault, McpClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    vault, client = served
    monkeypatch.setenv("LORE_TODAY", TODAY)
    from lore.index.build import open_index

    open_index(vault.root)[0].close()  # sound again after the case before
    for suffix in ("", "-wal", "-shm"):
        aside = Path(f"{vault.aside}{suffix}")
        if aside.is_dir():
            shutil.rmtree(aside)
        aside.unlink(missing_ok=True)
    assert_note(client.call("get_note", {"id": SHOWN}))  # the server holds the index open
    damage.make(vault.index)

    assert_note(client.call("get_note", {"id": SHOWN}))
    if damage.met_by(READS["get_note"]) and not damage.old:
        assert vault.aside.exists(), "the damaged file is kept aside"
        assert vault.index_is_sound()
    recalled = client.call("recall", {"query": "topic7 keyword7", "limit": 3})
    assert not recalled.is_error, recalled.content[0].text
    data = recalled.structured_content
    assert data["results"][0]["id"] == SHOWN
    assert data["engine"] == "fts5", data.get("notices")
    if damage.met_by(READS["recall"]) and not damage.old:
        assert vault.index_is_sound()
        assert any(HEALED in n for n in data.get("notices", [])) or vault.aside.exists()
    vault.assert_nothing_lost()
