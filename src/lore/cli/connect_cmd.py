"""`lore connect`: clone an existing vault, register it and build its index."""

from __future__ import annotations

import argparse
from typing import Any

from lore.cli.options import add_json
from lore.cli.output import console, print_json, safe
from lore.team.connect import connect_vault

EPILOG = """\
examples:
  lore connect acme/team-memory
  lore connect acme/org-memory --name org --priority 5
  lore connect git@gitlab.example.com:platform/vault.git --path ~/vaults/platform
  lore connect ~/src/team-memory           # a checkout you already have: used in place

OWNER/REPO is cloned from GitHub with the GitHub CLI's credentials when it is
installed; git never prompts. Clones go to $LORE_HOME/vaults/NAME unless --path says
otherwise. The first vault connected becomes the default; with several, `lore
recall` searches all of them and labels each result with its vault.
"""


def register(sub: Any, name: str, help_text: str) -> None:
    parser = sub.add_parser(
        name,
        help=help_text,
        description="Clone an existing vault (OWNER/REPO, a git URL or a local path), "
        "register it in your config and build its index.",
        epilog=EPILOG,
    )
    parser.add_argument("source", metavar="OWNER/REPO|URL|PATH", help="the vault to connect")
    parser.add_argument("--name", help="its name in your config (default: the repository's)")
    parser.add_argument("--path", help="where to clone it (default: $LORE_HOME/vaults/NAME)")
    parser.add_argument(
        "--priority",
        type=int,
        metavar="N",
        help="order among several vaults: higher is listed and searched first (default 0)",
    )
    parser.add_argument(
        "--default", dest="make_default", action="store_true", help="make it the default vault"
    )
    add_json(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    result = connect_vault(
        args.source,
        name=args.name,
        path=args.path,
        make_default=args.make_default,
        priority=args.priority,
    )
    if args.json:
        print_json(result.to_json())
        return 0

    out = console()
    how = "Cloned" if result.cloned else "Registered"
    out.print(
        f"[green]{how}[/] [bold]{safe(result.name)}[/] in {safe(str(result.path))}"
        + (" [dim](default vault)[/]" if result.default else "")
    )
    out.print(f"Index: {safe(result.index)}, {result.notes} note(s).")
    out.print("Try: lore recall <question>   ·   keep it fresh: lore sync")
    return 0
