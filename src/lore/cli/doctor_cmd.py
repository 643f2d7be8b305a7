"""`lore doctor`: every resolved path, the tools lore needs, and what to fix."""

from __future__ import annotations

import argparse
from typing import Any

from lore.cli.options import add_json, add_vault
from lore.cli.output import console, print_json, safe
from lore.errors import ExitCode
from lore.team.doctor import diagnose

EPILOG = """\
examples:
  lore doctor
  lore doctor --offline --json

Exit code 1 when something needs fixing; each problem comes with its fix.
"""


def register(sub: Any, name: str, help_text: str) -> None:
    parser = sub.add_parser(
        name,
        help=help_text,
        description="Print every path lore resolves, the versions of git, gh and SQLite, "
        "whether gh is signed in, the state of each vault, and what to fix.",
        epilog=EPILOG,
    )
    parser.add_argument(
        "--offline", action="store_true", help="skip the one network check (gh's sign-in)"
    )
    add_json(parser)
    add_vault(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    report = diagnose(vault_flag=args.vault, network=not args.offline)
    code = ExitCode.PROBLEMS_FOUND if report.problems else ExitCode.OK
    if args.json:
        print_json(report.to_json())
        return code

    out = console()
    out.print(f"[bold]lore {safe(report.version)}[/]")
    out.print("\n[bold]Paths[/]")
    for name, value in report.paths.items():
        out.print(f"  {name:<13} {safe(value) if value else '[dim]—[/]'}")
    out.print("\n[bold]Checks[/]")
    marked = 0  # the count at the end is of the lines marked "fix" above it
    for check in report.checks:
        marked += check.ok is False
        mark = {True: "[green]ok[/]  ", False: "[red]fix[/] ", None: "[dim]info[/]"}[check.ok]
        out.print(f"  {mark} {check.name:<16} {safe(check.value)}")
        if check.fix and check.ok is not True:
            out.print(f"         [dim]{safe(check.fix)}[/]")
    if report.vaults:
        out.print("\n[bold]Vaults[/]")
        for state in report.vaults:
            marked += bool(state.problem)
            mark = "[red]fix[/] " if state.problem else "[green]ok[/]  "
            status = state.problem or "ok"
            out.print(f"  {mark} {safe(state.name):<16} {safe(state.path)} {safe(status)}")
    if marked:
        out.print(f"\n[red]{marked} thing(s) to fix[/] (marked fix above).")
    else:
        out.print("\n[green]All good.[/]")
    return code
