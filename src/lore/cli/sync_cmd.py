"""`lore sync`: fetch every registered vault, serve its reviewed branch's new tip, and
fast-forward its checkout."""

from __future__ import annotations

import argparse
from typing import Any

from lore.cli.options import add_json, add_timeout, add_vault
from lore.cli.output import console, print_json, safe
from lore.errors import ExitCode, LoreError, UsageError
from lore.team.sync import UNWRITABLE, sync_json, sync_vaults
from lore.vaults import chosen_vaults

EPILOG = """\
examples:
  lore sync                 # every registered vault
  lore sync team            # one vault, by name
  lore sync --vault ~/vaults/team --json
  lore sync --quiet         # for hooks: no output, skips a vault another sync is updating

Agents are served the reviewed branch as the remote has it (origin/main), so after
the fetch its new notes are served whatever the checkout is doing. The checkout is
only ever fast-forwarded: on local changes, a merge or rebase in progress, diverged
history or a rewritten upstream it is left as it is, with how to fix it; on another
branch (a pull request you are reviewing) or a detached HEAD, your local main is
fast-forwarded where that touches no file, and sync advises `git switch main`.
Offline, the last index keeps serving and sync says since when.
Exit code 1 when a vault could not be synced or its checkout needs you.
"""


def register(sub: Any, name: str, help_text: str) -> None:
    parser = sub.add_parser(
        name,
        help=help_text,
        description="Fetch each vault from its remote, bring its index up to the reviewed "
        "branch's new tip (what agents are served), and fast-forward its checkout.",
        epilog=EPILOG,
    )
    parser.add_argument("names", nargs="*", metavar="NAME", help="registered vaults to sync")
    parser.add_argument(
        "--quiet",
        "-q",
        action="store_true",
        help="print nothing; do not wait for another sync of the same vault (for hooks)",
    )
    add_timeout(parser, default=30.0)
    add_json(parser)
    add_vault(parser, every=True)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if args.timeout <= 0:
        raise UsageError("--timeout must be a positive number of seconds.")
    try:
        vaults = chosen_vaults(args.vault, args.names)
    except LoreError as exc:
        if args.quiet:  # from a hook: no vault is nothing to say
            return int(exc.exit_code)
        raise
    results = sync_vaults(vaults, timeout=args.timeout, wait=not args.quiet)
    code = ExitCode.OK if all(result.ok for result in results) else ExitCode.PROBLEMS_FOUND
    if any(result.status == UNWRITABLE for result in results):
        code = ExitCode.BAD_INPUT  # a file where lore's folder goes: as every command says
    if args.quiet:
        return code
    if args.json:
        print_json(sync_json(results))
        return code

    out = console()
    colours = {
        "updated": "green",
        "current": "green",
        "ahead": "yellow",
        "local": "dim",
        "busy": "dim",
        "offline": "yellow",
        "blocked": "red",
        "error": "red",
        "unwritable": "red",
    }
    for result in results:
        colour = colours.get(result.status, "white")
        out.print(
            f"[bold]{safe(result.name)}[/] [{colour}]{result.status}[/] {safe(result.message)}"
        )
        if result.fix:
            out.print(f"  [dim]{safe(result.fix)}[/]")
    return code
