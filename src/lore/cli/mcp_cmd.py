"""`lore mcp`: serve the vault to an agent over MCP (stdio)."""

from __future__ import annotations

import argparse
from typing import Any

from lore.cli.options import add_vault
from lore.errors import UsageError

EPILOG = """\
tools:
  recall(query, repo?, type?, tag?, include_inactive?, limit?)
                                 ranked recall, as `lore recall --json` (read-only)
  get_note(id)                   one note in full, sanitized, with its vault commit (read-only)
  remember(title, type, tags, what, …)
                                 propose a note as a pull request, as `lore remember`
                                 (a note the curator blocked is an error result)
  list_proposals()               open proposals and their curator status (read-only)

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
