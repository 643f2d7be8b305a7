"""`lore stats`: notes by type, repo and author, growth per week, what is going stale."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from lore.cli.options import add_json, add_vault
from lore.cli.output import console, notice, print_json, safe
from lore.errors import ExitCode, UsageError
from lore.team.stats import stats_json, vault_stats
from lore.vaults import one_vault

if TYPE_CHECKING:
    from rich.table import Table

    from lore.team.stats import VaultStats

EPILOG = """\
examples:
  lore stats
  lore stats --weeks 26
  lore stats --json

Counts come from the local index of the vault's checkout (run `lore sync` first
for the team's latest). Growth is notes per week of their `date`. Recall hit
counts are not recorded.
"""


def register(sub: Any, name: str, help_text: str) -> None:
    parser = sub.add_parser(
        name,
        help=help_text,
        description="Show the vault in numbers: notes by type, repo, author and confidence, "
        "notes per week, and expired, superseded and expiring notes.",
        epilog=EPILOG,
    )
    parser.add_argument(
        "--weeks", type=int, default=12, metavar="N", help="weeks of growth to show (default 12)"
    )
    add_json(parser)
    add_vault(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if not 1 <= args.weeks <= 520:
        raise UsageError("--weeks must be between 1 and 520.")
    vault = one_vault(args.vault)
    stats = vault_stats(vault.root, weeks=args.weeks)
    if stats.notices:
        for text in stats.notices:
            notice(text)
    if args.json:
        print_json(stats_json(vault.root, stats))
        return ExitCode.OK
    _show(stats)
    return ExitCode.OK


def _table(title: str, counts: dict[str, int], limit: int = 10) -> Table:
    from rich.table import Table

    table = Table(title=title, title_justify="left", show_edge=False, header_style="bold")
    table.add_column(title.rsplit(maxsplit=1)[-1], overflow="fold")
    table.add_column("notes", justify="right")
    for name, number in list(counts.items())[:limit]:
        table.add_row(safe(name), str(number))
    if len(counts) > limit:
        table.add_row(f"[dim]… {len(counts) - limit} more[/]", "")
    return table


def _show(stats: VaultStats) -> None:
    from rich.columns import Columns

    out = console()
    out.print(
        f"[bold]{stats.total}[/] notes: [green]{stats.active} active[/], "
        f"[dim]{stats.total - stats.active} inactive[/] (as of {stats.today})"
    )
    if stats.weekly:
        first, last = stats.weekly[0], stats.weekly[-1]
        total = sum(week.notes for week in stats.weekly)
        out.print(
            f"notes per week  [cyan]{stats.sparkline}[/]  {total} from {first.label} "
            f"to {last.label} (latest week: {last.notes})"
        )
    out.print(
        Columns(
            [
                _table("by type", stats.by_type),
                _table("by repo", stats.by_repo),
                _table("by author", stats.by_author),
                _table("by confidence", stats.by_confidence),
            ],
            padding=(1, 4),
        )
    )
    stale = stats.stale
    out.print(
        f"stale: [red]{stale['expired']} expired[/], [yellow]{stale['superseded']} superseded[/], "
        f"[yellow]{stale['depends_on_inactive']} depend on an inactive note[/]; "
        f"{stale['expiring_soon']} expire within 30 days"
    )
    for item in stats.expiring:
        out.print(f"  [dim]{safe(item['expires'])}[/] {safe(item['id'])} {safe(item['title'])}")
    if stale["expired"] or stale["superseded"] or stale["depends_on_inactive"]:
        out.print("[dim]`lore garden` proposes archiving the stale notes.[/]")
