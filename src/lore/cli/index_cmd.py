"""`lore index`: the local index's state; `--rebuild` and `--check`."""

from __future__ import annotations

import argparse
from typing import Any

from lore.errors import ExitCode


def register(sub: Any, name: str, help_text: str) -> None:
    from lore.cli.main import add_vault_option

    parser = sub.add_parser(
        name,
        help=help_text,
        description="Bring the vault's local index up to date and show its state: notes, "
        "the commit it reflects, notes that could not be read, and local edits that are "
        "not served because they are not committed. The index lives in <vault>/.lore/ "
        "and can be deleted at any time.",
    )
    parser.add_argument("--rebuild", action="store_true", help="rebuild the index from scratch")
    parser.add_argument(
        "--check",
        action="store_true",
        help="run SQLite's and FTS5's integrity checks; exit 1 if they fail",
    )
    parser.add_argument("--json", action="store_true", help="print the state as JSON")
    add_vault_option(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from lore.cli.output import DelayedProgress
    from lore.index.build import IndexUnavailable, open_index
    from lore.index.status import index_report, integrity_problems
    from lore.vaults import one_vault

    vault = one_vault(args.vault)
    progress = DelayedProgress("Indexing notes")
    try:
        conn, state = open_index(vault.root, rebuild=args.rebuild, progress=progress)
    except IndexUnavailable as exc:
        from lore.cli.output import notice

        notice(f"{exc} Recall will scan the files instead (engine: scan).")
        return ExitCode.PROBLEMS_FOUND if args.check else ExitCode.OK
    finally:
        progress.close()
    try:
        report = index_report(vault.root, conn, state)
        problems = integrity_problems(conn) if args.check else []
    finally:
        conn.close()
    if args.json:
        from lore.cli.output import print_json

        data = report.to_json()
        if args.check:
            data["integrity"] = problems or "ok"
        print_json(data)
    else:
        _show(report, problems, args.check)
    return ExitCode.PROBLEMS_FOUND if problems else ExitCode.OK


def _show(report: Any, problems: list[str], checked: bool) -> None:
    from lore.cli.output import console, safe

    out = console()
    state = report.state
    done = {
        "fresh": "up to date",
        "updated": f"updated ({state.changed} changed note file(s), {state.seconds:.2f} s)",
        "rebuilt": f"rebuilt ({state.notes} notes, {state.seconds:.2f} s)",
        "statuses": "statuses refreshed for today",
    }[state.action]
    source = (
        f"commit {state.version[:12]}"
        if state.kind == "git"
        else "the files (not a git repository)"
    )
    out.print(f"[bold]Vault[/]      {safe(report.vault)}")
    size = f"{report.size_bytes / 1024:.0f} KiB"
    out.print(f"[bold]Index[/]      {safe(report.index_path)} ({size}), {done}")
    out.print(f"[bold]Serves[/]     {source}")
    out.print(
        f"[bold]Notes[/]      {state.notes} ({report.active} active, {report.inactive} inactive)"
    )
    out.print(
        f"[bold]Engine[/]     fts5 on SQLite {report.sqlite_version}"
        + ("" if report.libyaml else " [yellow](PyYAML without libyaml: builds are ~4x slower)[/]")
    )
    if report.settings_problem:
        out.print(f"[yellow]lore.toml:[/] {safe(report.settings_problem)} Defaults are used.")
    if report.skipped:
        out.print(
            f"[yellow]{len(report.skipped)} note(s) could not be read and are not searched:[/]"
        )
        for _, problem in report.skipped:
            out.print(f"  {safe(problem)}")
    if report.uncommitted:
        out.print(
            f"[yellow]{len(report.uncommitted)} note file(s) have local changes that are not "
            "served until they are committed and reviewed:[/]"
        )
        for path in report.uncommitted[:20]:
            out.print(f"  {safe(path)}")
    if checked:
        if problems:
            out.print("[red]Integrity check failed:[/]")
            for problem in problems:
                out.print(f"  {safe(problem)}")
            out.print("Run `lore index --rebuild` to rebuild it.")
        else:
            out.print("[green]Integrity check passed.[/]")
