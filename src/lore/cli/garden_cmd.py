"""`lore garden`: audit the vault and, with --propose, open one cleanup pull request."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from lore.cli.options import add_json, add_resume, add_timeout, add_vault
from lore.cli.output import console, print_json, safe
from lore.errors import ExitCode
from lore.team.garden import audit, garden_json, propose_garden
from lore.team.proposals.changes import resume_change
from lore.vaults import one_vault

if TYPE_CHECKING:
    from lore.team.garden import GardenPlan
    from lore.team.proposals.branches import Outcome

EPILOG = """\
examples:
  lore garden                     # what the gardener would change, nothing is written
  lore garden --propose           # open the cleanup pull request
  lore garden --json
  lore garden --resume garden-2026-11-02   # finish one whose push or PR failed

The gardener reads the remote's default branch, never your checkout. It archives
(moves to archive/, keeping the id and history) expired notes, notes superseded
longer than [garden] archive_superseded_after_days and notes whose depends_on is
not active; fixes [[links]] to renamed notes; removes taxonomy tags and repos no
note uses; and lists old low-confidence notes for a person. Settings: the
[garden] section of lore.toml. Exit code 1 when there is something to clean up.
"""


def register(sub: Any, name: str, help_text: str) -> None:
    parser = sub.add_parser(
        name,
        help=help_text,
        description="Audit the whole vault for expired, superseded and stale notes, broken "
        "links and unused taxonomy entries; propose the cleanup as one pull request.",
        epilog=EPILOG,
    )
    parser.add_argument(
        "--propose", action="store_true", help="commit the cleanup on a branch and open the PR"
    )
    add_resume(parser)
    add_json(parser)
    add_timeout(parser, default=60.0)
    add_vault(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    vault = one_vault(args.vault)
    if args.resume:
        _show_outcome(resume_change(vault.root, args.resume, timeout=args.timeout), args.json)
        return ExitCode.OK
    plan = audit(vault.root, timeout=args.timeout)
    outcome = propose_garden(vault.root, plan, timeout=args.timeout) if args.propose else None
    if args.json:
        print_json(garden_json(plan, outcome))
    else:
        _show_plan(plan)
        if outcome is not None:
            _show_outcome(outcome, False)
        elif plan.has_changes and not args.propose:
            console().print(
                "[dim]Nothing was changed. Run `lore garden --propose` to open the PR.[/]"
            )
    return ExitCode.PROBLEMS_FOUND if plan.items and not args.propose else ExitCode.OK


def _show_plan(plan: GardenPlan) -> None:
    out = console()
    if not plan.items:
        out.print(f"[green]The vault is tidy[/] ({safe(plan.base_branch)} at {plan.commit[:12]}).")
        return
    colours = {"archive": "yellow", "edit": "cyan", "report": "magenta"}
    out.print(f"[bold]The gardener's audit[/] of {safe(plan.base_branch)} at {plan.commit[:12]}:")
    for item in plan.items:
        colour = colours.get(item.action, "white")
        out.print(
            f"  [{colour}]{item.action:<7}[/] [bold]{safe(item.kind)}[/] {safe(item.path)}"
            f"\n          [dim]{safe(item.message)}[/]"
        )


def _show_outcome(outcome: Outcome, as_json: bool) -> None:
    if as_json:
        print_json(garden_json(None, outcome))
        return
    out = console()
    if outcome.pr_url:
        out.print(f"[green]Opened[/] {safe(outcome.pr_url)} from {safe(outcome.branch)}.")
    for step in outcome.next_steps:
        out.print(safe(step))
