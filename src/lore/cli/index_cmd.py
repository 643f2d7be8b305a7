"""`lore index`: the local index's state; `--rebuild` and `--check`."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from lore.cli.options import add_json, add_vault
from lore.cli.output import DelayedProgress, console, notice, print_json, safe
from lore.errors import ExitCode
from lore.index.build import IndexUnavailable, IndexUnwritable, open_index
from lore.index.health import inspect_index, integrity_problems
from lore.index.status import damage_json, index_report, unavailable_json
from lore.paths import index_path
from lore.vaults import one_vault

if TYPE_CHECKING:
    from lore.index.status import IndexReport


def register(sub: Any, name: str, help_text: str) -> None:
    parser = sub.add_parser(
        name,
        help=help_text,
        description="Bring the vault's local index up to date and show its state: notes, "
        "the commit it reflects, notes that could not be read, and local edits that are "
        "not served because they are not committed. It serves the vault's reviewed branch "
        "(the remote's default branch as fetched), whatever is checked out. The index "
        "lives in the clone's git directory (<git dir>/lore/) and can be deleted at any "
        "time; a damaged one is moved aside and rebuilt.",
    )
    parser.add_argument("--rebuild", action="store_true", help="rebuild the index from scratch")
    parser.add_argument(
        "--check",
        action="store_true",
        help="run SQLite's and FTS5's full integrity checks on the index as it is, "
        "without repairing it; exit 1 if they fail",
    )
    add_json(parser)
    add_vault(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    vault = one_vault(args.vault)
    checked_sound = False
    if args.check and not args.rebuild:
        # The file as it is: --check reports damage and leaves the file alone.
        health = inspect_index(index_path(vault.root))
        if health.damaged:
            _show_damage(str(vault.root), str(health.path), health.problems, args.json)
            return ExitCode.PROBLEMS_FOUND
        checked_sound = health.state == "sound"
    progress = DelayedProgress("Indexing notes")
    try:
        conn, state = open_index(vault.root, rebuild=args.rebuild, progress=progress)
    except IndexUnwritable:
        raise  # exit 2 with the message: nothing was built, nothing to show
    except IndexUnavailable as exc:
        notice(f"{exc} Recall will scan the files instead (engine: scan).")
        if args.json:
            print_json(unavailable_json(str(vault.root), str(index_path(vault.root)), exc.message))
        return ExitCode.PROBLEMS_FOUND if args.check else ExitCode.OK
    finally:
        progress.close()
    try:
        report = index_report(vault.root, conn, state)
        fresh_and_checked = checked_sound and state.action == "fresh"
        problems = integrity_problems(conn) if args.check and not fresh_and_checked else []
    finally:
        conn.close()
    if state.healed:
        notice(state.healed)
    if args.json:
        data = report.to_json()
        if args.check:
            data["integrity"] = problems or "ok"
        print_json(data)
    else:
        _show(report, problems, args.check)
    return ExitCode.PROBLEMS_FOUND if problems else ExitCode.OK


REBUILD_ADVICE = (
    "The index is a cache of the committed notes, so no note is lost: run "
    "`lore index --rebuild` to move it aside and build it again."
)


def _show_damage(vault: str, index: str, problems: list[str], as_json: bool) -> None:
    if as_json:
        print_json(damage_json(vault, index, problems, REBUILD_ADVICE))
        return

    out = console()
    out.print(f"[bold]Vault[/]      {safe(vault)}")
    out.print(f"[bold]Index[/]      {safe(index)}")
    out.print("[red]Integrity check failed:[/]")
    for problem in problems:
        out.print(f"  {safe(problem)}")
    out.print(REBUILD_ADVICE)


def _show(report: IndexReport, problems: list[str], checked: bool) -> None:
    out = console()
    state = report.state
    done = {
        "fresh": "up to date",
        "updated": f"updated ({state.changed} changed note file(s), {state.seconds:.2f} s)",
        "rebuilt": f"rebuilt ({state.notes} notes, {state.seconds:.2f} s)",
        "statuses": "statuses refreshed for today",
    }[state.action]
    source = (
        f"{report.branch + ' at ' if report.branch else ''}commit {state.version[:12]}"
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
            "served until they are committed, reviewed and merged:[/]"
        )
        for path in report.uncommitted[:20]:
            out.print(f"  {safe(path)}")
    if checked:
        if problems:
            out.print("[red]Integrity check failed:[/]")
            for problem in problems:
                out.print(f"  {safe(problem)}")
            out.print(REBUILD_ADVICE)
        else:
            out.print("[green]Integrity check passed.[/]")
