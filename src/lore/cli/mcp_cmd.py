"""`lore mcp`: serve the vault to an agent over MCP (stdio)."""

from __future__ import annotations

import argparse
from typing import Any

from lore.cli.options import add_vault
from lore.errors import UsageError

EPILOG = """\
tools, each with an example call:
  recall(query, also?, repo?, type?, tag?, include_inactive?, limit?)
      ranked recall, as `lore recall --json`; also: other phrasings, fused by rank
      {"query": "pgbouncer pooling", "also": ["postgres connection pool"], "limit": 5}
  get_note(id)
      notes in full, sanitized, with the vault commit (one id, or up to 10)
      {"id": ["postgres--pgbouncer-transaction-pooling--2025-03-11"]}
  remember(title, type, tags, what, why?, how?, confidence?, repo?, files_touched?,
           supersedes?, source?, draft?)
      propose a note as a pull request, as `lore remember` (a note the curator
      blocked is an error result); draft: true keeps it in the local drafts inbox
      {"title": "Ledger exports run after reconcile", "type": "gotcha",
       "tags": ["service/billing"], "what": "Start ledger exports after reconcile."}
  list_proposals()
      open proposals and their curator status
      {}
  taxonomy()
      the vault's types, tags, repos and conventions, for writing a note
      {}
  recent(since, type?, tag?, include_inactive?, limit?)
      notes added or changed since a day or a commit, newest first, as
      `lore recall --since … --json`
      {"since": "2026-11-01", "type": ["decision"]}

Every tool but remember is read-only. Arguments are checked against each tool's
published input schema; a single string where a list is expected is taken as a
list of one.

An agent starts this command itself; `lore install AGENT` writes the entry. It speaks
JSON-RPC on stdin/stdout, so run it by hand only to check that it starts (Ctrl-C ends
it). Needs the MCP extra: `gh lore` installs it; from a clone of gh-lore,
pipx install --force '.[mcp]'. See docs/mcp.md.
"""


def register(sub: Any, name: str, help_text: str) -> None:
    parser = sub.add_parser(
        name,
        help=help_text,
        description="Run lore's MCP server over stdio, on the official MCP Python SDK.",
        epilog=EPILOG,
    )
    add_vault(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    try:
        import mcp.server.lowlevel  # noqa: F401 - the SDK, which serve() imports anyway

        from lore.integrations.mcp_server import serve
    except ImportError as exc:
        raise UsageError(
            f"The MCP server needs the `mcp` package ({exc}).",
            fix="Install lore with its mcp extra: the `gh lore` extension does, "
            "or, in a clone of gh-lore, `pipx install --force '.[mcp]'`.",
        ) from None
    serve(args.vault)
    return 0
