"""`lore proposals`: the open proposals of each vault, with the curator's verdict."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from lore.cli.options import add_json, add_vault
from lore.cli.output import console, notice, print_json, safe
from lore.errors import UsageError
from lore.team.proposals.listing import discard_proposal, list_proposals, proposals_json
from lore.vaults import chosen_vaults, one_vault
from lore.versioned import versioned

EPILOG = """\
examples:
  lore proposals
  lore proposals team --json
  lore proposals discard billing--retries-are-capped--2026-11-02

Lists the pull requests whose branch starts with lore/ (through `gh`, with the
curator check's state), branches pushed to a remote that is not GitHub, and local
proposals that stopped before their pull request was opened — finish those with
`lore remember --resume ID`, or remove one with `lore proposals discard ID` (its
worktree and local branch; a copy of the note is kept under lore's home folder).
"""


def register(sub: Any, name: str, help_text: str) -> None:
    parser = sub.add_parser(
        name,
        help=help_text,
        description="List the open proposals (lore/ pull requests) of each vault.",
        epilog=EPILOG,
    )
    parser.add_argument(
        "names",
        nargs="*",
        metavar="NAME",
        help="registered vaults to list; or `discard ID…` to remove unfinished proposals",
    )
    add_json(parser)
    add_vault(parser, every=True)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if args.names[:1] == ["discard"]:
        return _discard(args)
    listings = [
        (ref.name, list_proposals(ref.root)) for ref in chosen_vaults(args.vault, args.names)
    ]
    if args.json:
        print_json(proposals_json(listings))
        return 0
    from rich.table import Table

    out = console()
    colours = {"passed": "green", "failed": "red", "running": "yellow"}
    for name, listing in listings:
        for message in listing.notices:
            notice(f"[{name}] {message}")
        if not listing.rows:
            out.print(f"[bold]{safe(name)}[/]: no open proposals.")
            continue
        table = Table(title=f"{name}", title_justify="left", show_edge=False, header_style="bold")
        table.add_column("proposal", overflow="fold", ratio=1)
        table.add_column("state")
        table.add_column("curator")
        for row in listing.rows:
            text = f"[bold]{safe(row.title)}[/]\n" if row.title else ""
            text += f"[cyan]{safe(row.id)}[/]"
            if row.url:
                text += f"\n{safe(row.url)}"
            if row.author:
                text += f" [dim]by {safe(row.author)}[/]"
            if row.next_step:
                text += f"\n[dim]{safe(row.next_step)}[/]"
            colour = colours.get(row.curator, "dim")
            table.add_row(text, row.state, f"[{colour}]{row.curator}[/]")
        out.print(table)
    return 0


def _discard(args: argparse.Namespace) -> int:
    """`lore proposals discard ID…`: remove proposals that never left this machine."""
    ids = args.names[1:]
    if not ids:
        raise UsageError("Name the proposal to discard: `lore proposals discard ID`.")
    root = one_vault(args.vault).root
    said: list[str] = []
    for note_id in ids:
        messages = discard_proposal(root, note_id)
        said += messages
        if not args.json:
            for message in messages:
                notice(message)
            sys.stdout.write(f"Discarded the proposal {note_id}.\n")
    if args.json:
        print_json(versioned({"discarded": ids, "notices": said}))
    return 0
