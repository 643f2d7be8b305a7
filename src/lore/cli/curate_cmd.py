"""`lore curate`: review notes with the curator's rules (text, JSON, GitHub or markdown).

Argument parsing and output only; the review is `lore.curator.run.curate`.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lore.errors import UsageError

if TYPE_CHECKING:
    from lore.curator.finding import Finding
    from lore.curator.run import CurateResult

DESCRIPTION = """\
Check notes against the vault's taxonomy and conventions, and scan them for
secrets, hidden or injected instructions, duplicates and contradictions.

  lore curate --base origin/main --head HEAD   the notes a pull request adds or changes,
                                               checked against the vault at the base; every
                                               commit of the range is scanned for secrets
  lore curate notes/x.md drafts/               these files (folders: their .md files)
  lore curate --all                            audit the whole vault

Formats: text (for people), json ({"version": 1, "findings": [...]}), github
(workflow-command annotations, and a job summary in $GITHUB_STEP_SUMMARY), markdown
(a pull-request comment, with each note as an agent will see it). --report FILE also
writes the markdown comment to FILE from the same review, so a workflow runs the
review (and the optional model review) once for its annotations and its comment.

Exit codes: 0 no errors (warnings allowed), 1 errors found, 2 bad usage."""


def register(subparsers: Any, name: str, help_text: str) -> None:
    from lore.cli.main import add_vault_option

    parser = subparsers.add_parser(
        name,
        help=help_text,
        description=DESCRIPTION,
    )
    add_vault_option(parser)
    parser.add_argument("paths", nargs="*", metavar="PATH", help="note files or folders to check")
    parser.add_argument(
        "--base", metavar="REF", help="the pull request's base (branch, tag or commit)"
    )
    parser.add_argument(
        "--head", metavar="REF", help="the pull request's head (default: HEAD when --base is given)"
    )
    parser.add_argument(
        "--all", dest="all_notes", action="store_true", help="check every note in the vault"
    )
    parser.add_argument(
        "--format",
        choices=("text", "json", "github", "markdown"),
        default="text",
        help="output format (default: text)",
    )
    parser.add_argument(
        "--report",
        metavar="FILE",
        type=Path,
        help="also write the markdown pull-request comment to FILE (whatever --format is)",
    )
    parser.add_argument(
        "--no-semantic",
        dest="semantic",
        action="store_false",
        help="skip the optional model review even when lore.toml enables it",
    )
    parser.set_defaults(handler=run)


def _vault_root(flag: str | None) -> Path:
    """--vault, then $LORE_VAULT, then the current folder if it is a vault, then the config."""
    from lore.vaults import one_vault

    return one_vault(flag, here=Path.cwd()).root


def run(args: argparse.Namespace) -> int:
    from lore.curator.run import curate

    if args.head is not None and args.base is None:
        raise UsageError("--head needs --base.", fix="Add --base REF, e.g. origin/main.")
    root = _vault_root(args.vault)
    from lore.cli.output import DelayedProgress

    progress = DelayedProgress("Checking notes")  # on a terminal, after a second
    try:
        result = curate(
            root,
            base=args.base,
            head=args.head,
            paths=args.paths,
            all_notes=args.all_notes,
            semantic=args.semantic,
            progress=progress,
        )
    finally:
        progress.close()
    if result.notices:
        from lore.cli.output import notice

        for message in result.notices:  # about the index (healed, or not usable): stderr
            notice(message)
    if args.report is not None:
        _write_report(args.report, result)
    if args.format == "json":
        from lore.cli.output import print_json
        from lore.curator.report.formats import to_json

        print_json(to_json(result))
    elif args.format == "github":
        from lore.curator.report.formats import to_github, to_markdown

        sys.stdout.write("\n".join(to_github(result)) + "\n")
        summary = os.environ.get("GITHUB_STEP_SUMMARY")
        if summary:
            try:
                with Path(summary).open("a", encoding="utf-8") as handle:
                    handle.write(to_markdown(result, previews=False))
            except OSError as exc:
                sys.stderr.write(f"lore: could not write the job summary ({exc.strerror}).\n")
    elif args.format == "markdown":
        from lore.curator.report.formats import to_markdown

        sys.stdout.write(to_markdown(result))
    else:
        _print_text(result)
    return result.exit_code


def _write_report(path: Path, result: CurateResult) -> None:
    from lore.curator.report.formats import to_markdown
    from lore.files import write_atomic

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, to_markdown(result).encode("utf-8"))
    except OSError as exc:
        raise UsageError(
            f"Cannot write the report to {path}: {exc.strerror or exc}.",
            fix="Pass --report a file in a folder you can write to.",
        ) from None


def _print_text(result: CurateResult) -> None:
    from rich.table import Table

    from lore.cli.output import console, safe
    from lore.curator.report.formats import summary_line

    out = console()
    by_path: dict[str, list[Finding]] = {}
    for finding in result.findings:
        by_path.setdefault(finding.path, []).append(finding)
    for path, findings in by_path.items():
        out.print(f"[bold]{safe(path or '(vault)')}[/bold]")
        table = Table.grid(padding=(0, 1))
        table.add_column(justify="right", min_width=5)
        table.add_column(min_width=7)
        table.add_column(overflow="fold")
        for finding in findings:
            colour = "red" if finding.is_error else "yellow"
            text = f"[dim]{safe(finding.rule)}[/dim]  {safe(finding.message)}"
            if finding.suggestion:
                text += f"\n[dim]→ {safe(finding.suggestion)}[/dim]"
            table.add_row(str(finding.line or ""), f"[{colour}]{finding.severity}[/{colour}]", text)
        out.print(table)
    style = "red" if result.errors else ("yellow" if result.warnings else "green")
    out.print(f"[{style}]{safe(summary_line(result))}[/{style}]")
