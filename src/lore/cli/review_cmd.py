"""`lore review [PR]`: list memory pull requests, or review one and approve, reject or merge."""

from __future__ import annotations

import argparse
import difflib
import sys
from typing import Any

from lore.cli.options import add_json, add_no_semantic, add_vault
from lore.cli.output import console, notice, print_json, safe
from lore.curator.report.document import summary_line
from lore.curator.report.markdown import reading_order
from lore.errors import ExitCode, UsageError
from lore.team import review
from lore.team.review import memory_prs_json
from lore.vaults import one_vault

EPILOG = """\
examples:
  lore review                       # open pull requests labelled `lore`, with the curator check
  lore review 12                    # pull request #12: note, agent view, findings, similar notes
  lore review lore/billing--x--2026-11-02   # a local branch, against the default branch
  lore review 12 --approve
  lore review 12 --request-changes "Say why, not only what."
  lore review 12 --merge

The optional model review ([curator.semantic] in lore.toml) runs as in CI, with
`gh auth token` for the github provider, and says when it was skipped and why.
In a terminal, reviewing a pull request ends with a choice: approve, request
changes, merge or skip. Approving and merging go through `gh` with your account.
Exit code 1 when the curator finds errors in the change.
"""


def register(sub: Any, name: str, help_text: str) -> None:
    parser = sub.add_parser(
        name,
        help=help_text,
        description="List the open memory pull requests, or review one: the note as it will "
        "be merged, what an agent will see, the curator's findings and the three most similar "
        "active notes, each marked when the curator takes the new note for its replacement, "
        "a duplicate or a contradiction; when it flags none, the list asks whether the new "
        "note replaces one of them.",
        epilog=EPILOG,
    )
    parser.add_argument("target", nargs="?", metavar="PR", help="a pull request number or a branch")
    action = parser.add_mutually_exclusive_group()
    action.add_argument("--approve", action="store_true", help="approve the pull request")
    action.add_argument(
        "--request-changes", metavar="MESSAGE", help="request changes, saying what to change"
    )
    action.add_argument("--merge", action="store_true", help="merge the pull request")
    add_json(parser)
    add_no_semantic(parser)
    add_vault(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    vault = one_vault(args.vault, reviewing=True)
    wants_action = args.approve or args.merge or args.request_changes is not None
    if args.target is None:
        if wants_action:
            raise UsageError("Name the pull request to act on, e.g. `lore review 12 --approve`.")
        return _list(review.list_memory_prs(vault.root), args.json)
    number = int(args.target.lstrip("#")) if args.target.lstrip("#").isdigit() else None
    if number is None:
        if wants_action:
            raise UsageError("Approving and merging need a pull request number, not a branch.")
        result = review.review_branch(vault.root, args.target, semantic=args.semantic)
    else:
        result = review.review_pr(vault.root, number, semantic=args.semantic)
    code = ExitCode.PROBLEMS_FOUND if result.errors else ExitCode.OK
    if args.json:
        print_json(result.to_json())
    else:
        _show(result)
    if number is None:
        return code
    choice = None
    if args.approve:
        choice = ("approve", "")
    elif args.merge:
        choice = ("merge", "")
    elif args.request_changes is not None:
        choice = ("request-changes", args.request_changes)
    elif not args.json and sys.stdin.isatty() and sys.stdout.isatty():
        choice = _ask()
    if choice is not None:
        review.act(vault.root, number, *choice)

        notice(f"#{number}: {choice[0]} done.")
    return code


def _ask() -> tuple[str, str] | None:
    from rich.markup import escape
    from rich.prompt import Prompt

    answer = Prompt.ask(
        escape("[a]pprove, [r]equest changes, [m]erge or [s]kip"),  # letters, not markup
        choices=["a", "r", "m", "s"],
        default="s",
    )
    if answer == "a":
        return ("approve", "")
    if answer == "m":
        return ("merge", "")
    if answer == "r":
        return ("request-changes", Prompt.ask("What should change"))
    return None


def _list(rows: list[Any], as_json: bool) -> int:
    if as_json:
        print_json(memory_prs_json(rows))
        return ExitCode.OK
    out = console()
    if not rows:
        out.print("No open memory pull requests.")
        return ExitCode.OK
    from rich.table import Table

    colours = {"passed": "green", "failed": "red", "running": "yellow"}
    table = Table(show_edge=False, header_style="bold")
    table.add_column("#", justify="right")
    table.add_column("pull request", overflow="fold", ratio=1)
    table.add_column("curator")
    for row in rows:
        who = f" [dim]by {safe(row.author)}[/]" if row.author else ""
        colour = colours.get(row.curator, "dim")
        table.add_row(
            str(row.number),
            f"[bold]{safe(row.title)}[/]{who}\n[dim]{safe(row.url)}[/]",
            f"[{colour}]{row.curator}[/]",
        )
    out.print(table)
    return ExitCode.OK


_MARKS = {
    "replacement": "[magenta]may be replaced by this note[/]",
    "duplicate": "[yellow]likely duplicate[/]",
    "contradiction": "[red]likely contradiction[/]",
}


def _similar(note: Any) -> str:
    """One pair of the "most similar" list: one figure for how alike, then what the
    curator makes of it (for a duplicate, the words both say; for a contradiction, the
    two clauses and how they differ)."""
    mark = f" {_MARKS[note.verdict]}" if note.verdict in _MARKS else ""
    text = (
        f"  [dim]{note.score:.0%} alike[/]{mark}  [bold]{safe(note.title)}[/]\n"
        f"    [cyan]{safe(note.id)}[/]\n    {safe(note.summary)}"
    )
    if note.verdict == "replacement":
        if note.mine:
            text += f'\n    [dim]this note:[/] "{safe(note.mine)}"'
        text += f"\n    [dim]({safe(note.detail)})[/]\n    [dim]add:[/] {safe(note.suggestion)}"
    elif note.verdict == "contradiction":
        text += (
            f'\n    [dim]this note:[/] "{safe(note.mine)}"'
            f'\n    [dim]that note:[/] "{safe(note.theirs)}"\n    [dim]({safe(note.detail)})[/]'
        )
    elif note.verdict == "duplicate" and note.detail:
        # The judgement's detail repeats the likeness as figures; the words are the news.
        words = note.detail.split("; both say ", 1)
        said = f"both say {words[1]}" if len(words) == 2 else note.detail
        text += f"\n    [dim]({safe(said)})[/]"
    return text


def _agent_view(text: str, preview: str) -> str | None:
    """What an agent sees, only where it differs from the file: a diff, or None."""
    if text.rstrip("\n") == preview.rstrip("\n"):
        return None
    lines = difflib.unified_diff(
        text.splitlines(),
        preview.splitlines(),
        "as merged",
        "as an agent sees it",
        lineterm="",
        n=1,
    )
    return "\n".join(list(lines)[2:])


def _verdict(result: Any) -> str:
    """The first line: whether the change can be merged, and the count (as the PR comment)."""
    line = summary_line(result)
    if result.errors:
        return f"[bold red]Blocked:[/] {line} Errors block the merge; fix them first."
    if result.warnings:
        return f"[bold yellow]Passes, with warnings:[/] {line} Warnings are yours to judge."
    return f"[bold green]Passes:[/] {line}"


def _show(result: Any) -> None:
    from rich.panel import Panel

    out = console()
    out.print(_verdict(result))
    title = f" — {safe(result.title)}" if result.title else ""
    out.print(f"[bold]Review of {safe(result.target)}[/]{title}")
    if result.url:
        out.print(f"[dim]{safe(result.url)}[/]")
    if result.model_review is not None:  # advisory: ran, ran in part, or skipped and why
        colour = "dim" if result.model_review.state == "ran" else "yellow"
        out.print(f"  [{colour}]{safe(result.model_review.line)}[/]")
    for finding in reading_order(result.findings):
        colour = "red" if finding.is_error else "yellow"
        where = f"{finding.path}:{finding.line}" if finding.line else finding.path
        out.print(
            f"  [{colour}]{finding.severity}[/] {safe(finding.rule)} {safe(where)}: "
            f"{safe(finding.message)}"
        )
        if finding.suggestion:
            out.print(f"    [dim]fix:[/] {safe(finding.suggestion)}")
    for note in result.notes:
        # Headings are lines of their own, never a panel's title, so they are never cut.
        out.print(f"\n[bold]{safe(note.path)}[/] [dim]as it will be merged[/]")
        out.print(Panel(safe(note.text.rstrip("\n"))))
        differs = _agent_view(note.text, note.preview)
        if differs is None:
            out.print("[dim]An agent will see it exactly as above.[/]")
        else:
            out.print("[bold]What an agent will see[/] [dim]differs (- the file, + the agent):[/]")
            out.print(Panel(safe(differs)))
        asked = note.asks_replacement and note.similar
        out.print(
            "[bold]Does this replace one of these?[/]"
            if asked
            else "[bold]Most similar active notes[/]"
        )
        if not note.similar:
            out.print("  [dim]none[/]")
        for pair in note.similar:
            out.print(_similar(pair))
