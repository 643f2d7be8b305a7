"""A secret that reached a note is masked in every view lore prints of it.

The curator refuses a note with a secret, but one can still be in front of a person: a
pull request under review, a note merged before the curator ran, a draft edited by
hand. Each view here is run on such a note — fake tokens in the title and the body —
and neither token may appear in what it prints (stdout or stderr): review (text and
JSON), show (terminal, pipe, JSON), proposals, drafts (list and show), curate in every
format, and the MCP server's tools (recall, get_note, list_proposals) through the
official SDK client.

`lore recall` and the hooks are the one exception, on purpose: they serve only the
reviewed branch, whose notes passed the secret scan before merge, and they run as fresh
processes many times a session — the scanner's import alone (~100 ms, `dataclasses`
and 44 compiled patterns) is several recalls' worth (docs/performance.md).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from lore.cli.main import main
from tests.support import Vault, git, note_text

AWS = "AKIAQ3JZ7RWXN5TLB2KD"  # made up: the AWS access key id format, not a real key
GITHUB = "ghp_Zq8rT1vY6mK3pL0sW9xN4bC7dF2hJ5gA1eQ3"  # made up: a GitHub token's format
TOKENS = (AWS, GITHUB)
MERGED = "billing--export-credentials--2026-10-01"
PROPOSED = "billing--rotate-export-keys--2026-11-02"


def leaky_note(title: str) -> str:
    return note_text(
        f"{title} {GITHUB}",
        body=f"## What\nThe export job signs in with {AWS} and the token {GITHUB}.\n",
    )


def assert_masked(text: str, view: str) -> None:
    for token in TOKENS:
        assert token not in text, f"{view} printed {token[:4]}…"


@pytest.fixture
def leaky_vault(make_vault: Any) -> Vault:
    """A committed note holding both tokens (merged before any curator), and a branch
    `lore/<id>` proposing another."""
    vault: Vault = make_vault({MERGED: leaky_note("Export credentials")})
    git(vault.root, "checkout", "-q", "-b", f"lore/{PROPOSED}")
    vault.write(PROPOSED, leaky_note("Rotate export keys"))
    vault.commit("propose a note")
    git(vault.root, "checkout", "-q", "main")
    return vault


def lore(*args: str, vault: Vault, tty: bool = False) -> str:
    """`lore ARGS` as a process; the output of both streams."""
    done = subprocess.run(
        [sys.executable, "-m", "lore", *args],
        cwd=vault.root, capture_output=True, text=True, timeout=180,
        env={**os.environ, "LORE_VAULT": str(vault.root)},
    )  # fmt: skip
    assert "Traceback" not in done.stderr, done.stderr
    return done.stdout + done.stderr


@pytest.mark.parametrize(
    "args",
    [
        ("review", f"lore/{PROPOSED}"),
        ("review", f"lore/{PROPOSED}", "--json"),
        ("show", MERGED),
        ("show", MERGED, "--json"),
        ("proposals",),
        ("proposals", "--json"),
        ("curate", "--base", "main", "--head", f"lore/{PROPOSED}"),
        ("curate", "--base", "main", "--head", f"lore/{PROPOSED}", "--format", "json"),
        ("curate", "--base", "main", "--head", f"lore/{PROPOSED}", "--format", "markdown"),
        ("curate", "--base", "main", "--head", f"lore/{PROPOSED}", "--format", "github"),
        ("curate", "--all"),
    ],
    ids=" ".join,
)
def test_each_command_masks_the_tokens(leaky_vault: Vault, args: tuple[str, ...]) -> None:
    assert_masked(lore(*args, vault=leaky_vault), " ".join(args))


def test_show_on_a_terminal_masks_the_tokens(
    leaky_vault: Vault, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    main(["show", MERGED, "--vault", str(leaky_vault.root)])
    captured = capsys.readouterr()
    assert "Export credentials" in captured.out
    assert_masked(captured.out + captured.err, "show on a terminal")


def test_a_draft_edited_by_hand_is_shown_masked(leaky_vault: Vault) -> None:
    from lore.team.drafts.inbox import inbox_dir

    folder = inbox_dir(leaky_vault.root)
    folder.mkdir(parents=True, exist_ok=True)
    draft = "billing--hand-edited--2026-11-02"
    (folder / f"{draft}.md").write_text(leaky_note("Hand edited"), encoding="utf-8")
    (folder / f"{draft}.json").write_text(
        json.dumps({"saved": "2026-11-02", "origin": "remember", "findings": []}),
        encoding="utf-8",
    )
    for args in (("drafts",), ("drafts", "--json"), ("drafts", "show", draft)):
        assert_masked(lore(*args, vault=leaky_vault), " ".join(args))
    shown = lore("drafts", "show", draft, "--json", vault=leaky_vault)
    assert_masked(shown, "drafts show --json")
    assert "Hand edited" in shown


def test_the_mcp_tools_mask_the_tokens(leaky_vault: Vault, tmp_path: Path) -> None:
    pytest.importorskip("mcp", reason="the [mcp] extra is not installed")
    import anyio
    from mcp import ClientSession, StdioServerParameters, stdio_client

    params = StdioServerParameters(
        command=sys.executable, args=["-m", "lore", "mcp"], cwd=str(tmp_path),
        env={key: os.environ[key] for key in ("HOME", "LORE_HOME", "LORE_TODAY", "PATH")
             if key in os.environ} | {"LORE_VAULT": str(leaky_vault.root)},
    )  # fmt: skip

    async def steps() -> list[str]:
        with open(os.devnull, "w") as errlog:
            async with (
                stdio_client(params, errlog=errlog) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                calls = [
                    await session.call_tool("recall", {"query": "export credentials"}),
                    await session.call_tool("get_note", {"id": MERGED}),
                    await session.call_tool("list_proposals", {}),
                ]
                return [
                    json.dumps(call.structured_content)
                    + "".join(getattr(part, "text", "") for part in call.content)
                    for call in calls
                ]

    for answer in anyio.run(steps):
        assert_masked(answer, "the MCP server")
