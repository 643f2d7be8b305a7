"""`lore vaults`: the registered vaults and their state; change the default or remove one."""

from __future__ import annotations

import argparse
from typing import Any

from lore.cli.options import add_json
from lore.cli.output import console, print_json, safe
from lore.config import load_config
from lore.team.registry import set_default, unregister
from lore.team.sync import ago
from lore.team.vault_state import vault_states, vaults_json

EPILOG = """\
examples:
  lore vaults
  lore vaults --json
  lore vaults --default org
  lore vaults --remove old-team        # forgets it; the folder stays

For each vault: its folder, remote and priority, the commit checked out, how far it
is ahead of or behind the reviewed branch as of the last fetch, when it last synced,
and whether its index reflects the reviewed branch, which is what agents are served
(`--json`: "served"). Nothing is fetched or changed.
"""


def register(sub: Any, name: str, help_text: str) -> None:
    parser = sub.add_parser(
        name,
        help=help_text,
        description="List the vaults registered in your config, with their state.",
        epilog=EPILOG,
    )
    action = parser.add_mutually_exclusive_group()
    action.add_argument(
        "--default", dest="set_default", metavar="NAME", help="make NAME the default"
    )
    action.add_argument(
        "--remove", metavar="NAME", help="unregister NAME (its folder is left as it is)"
    )
    add_json(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if args.set_default:
        set_default(args.set_default)
    if args.remove:
        unregister(args.remove)
    config = load_config()
    states = vault_states(config)
    if args.json:
        print_json(vaults_json(config, states))
        return 0
    from rich.table import Table

    out = console()
    if not states:
        out.print(
            f"No vaults are registered in {safe(str(config.path))}. "
            "Connect one with `lore connect OWNER/REPO`, or create one with `lore init`."
        )
        return 0
    table = Table(show_edge=False, header_style="bold")
    table.add_column("vault", overflow="fold", ratio=1)
    table.add_column("commit")
    table.add_column("upstream")
    table.add_column("last sync")
    table.add_column("index")
    for state in states:
        label = f"[bold]{safe(state.name)}[/]" + (" [green](default)[/]" if state.default else "")
        label += f"\n[dim]{safe(state.path)}[/]"
        if state.remote:
            label += f"\n[dim]{safe(state.remote)}[/]"
        if state.priority:
            label += f"\n[dim]priority {state.priority}[/]"
        if state.problem:
            label += f"\n[yellow]{safe(state.problem)}[/]"
        if not state.exists:
            commit = "[red]missing[/]"
        elif not state.git:
            commit = "not git"
        else:
            commit = (state.commit or "none")[:12] + (
                f"\n{safe(state.branch)}" if state.branch else "\ndetached"
            )
        if state.upstream is None:
            upstream = "—"
        elif state.ahead is None or state.behind is None:
            upstream = safe(state.upstream)
        else:
            upstream = f"{safe(state.upstream)}\n↑{state.ahead} ↓{state.behind}"
        synced = ago(state.last_sync).split(" (")[0] if state.last_sync else "never"
        if state.index_fresh is None:
            index = "—"
        elif state.index_fresh:
            index = f"[green]fresh[/]\n{state.index_notes} notes"
        else:
            index = "[yellow]stale[/]" if state.index_notes is not None else "[yellow]none[/]"
        table.add_row(label, commit, upstream, synced, index)
    out.print(table)
    out.print(f"[dim]Config: {safe(str(config.path))}[/]")
    return 0
