"""`lore drift`: notes whose files changed in a code repository after they were written."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from lore.cli.options import add_json, add_resume, add_vault
from lore.cli.output import DelayedProgress, console, print_json, safe
from lore.errors import ExitCode, UsageError
from lore.team.drift import find_drift, propose_drift
from lore.team.proposals.changes import resume_change
from lore.vault.git import find_git_dir
from lore.vaults import one_vault

EPILOG = """\
examples:
  lore drift --code-repo ~/src/payments-api
  lore drift --code-repo . --since origin/main@{1} --json
  lore drift --code-repo . --since "$BEFORE" --propose     # what the workflow runs
  lore drift --resume drift-payments-api-1a2b3c4d          # finish one whose push failed

A note drifts when a file in its files_touched is modified, renamed or deleted by a
commit made after the note's date (renames are followed). Only active notes whose
repo lists the code repository are checked. --propose opens one vault pull request
that lowers each drifted note's confidence one level and corrects renamed files in
files_touched. Exit code 1 when notes drifted and --propose was not given (or the
proposal could not be pushed).
"""


def register(sub: Any, name: str, help_text: str) -> None:
    parser = sub.add_parser(
        name,
        help=help_text,
        description="Find the active notes about a code repository whose files were "
        "modified, renamed or deleted after the note's date, and optionally propose "
        "marking them for review.",
        epilog=EPILOG,
    )
    parser.add_argument(
        "--code-repo",
        metavar="PATH",
        help="the root of the code repository's git checkout (required unless --resume)",
    )
    add_resume(parser)
    parser.add_argument(
        "--since",
        metavar="REV",
        help="only look at the commits after REV (REV..HEAD); default: all history",
    )
    parser.add_argument(
        "--repo",
        metavar="NAME",
        help="the repository's name as notes write it in `repo` (default: from its origin "
        "URL, else its folder name)",
    )
    add_json(parser)
    parser.add_argument(
        "--propose",
        action="store_true",
        help="open one vault pull request marking the drifted notes for review",
    )
    add_vault(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    vault = one_vault(args.vault).root
    if args.resume:
        done = resume_change(vault, args.resume)
        if args.json:
            print_json(done.to_json())
        else:
            console().print(f"{safe(done.pr_url or done.branch)} ({done.status})")
        return ExitCode.OK
    code_repo = Path(args.code_repo) if args.code_repo else _code_repo_here(vault)

    progress = DelayedProgress("Reading the code's history")  # on a terminal, after a second
    try:
        report = find_drift(vault, code_repo, since=args.since, repo=args.repo, progress=progress)
    finally:
        progress.close()
    outcome = propose_drift(vault, report) if args.propose and report.notes else None
    # 1 while drifted notes are left unmarked; with --propose they are marked (or were already)
    code = ExitCode.PROBLEMS_FOUND if report.notes and not args.propose else ExitCode.OK
    if args.json:
        data = report.to_json()
        proposal = outcome.to_json() if outcome is not None else None
        if proposal is not None:
            proposal.pop("path", None)  # a change to several notes has no single path
        data["proposal"] = proposal
        print_json(data)
        return code

    out = console()
    if not report.notes:
        out.print(f"No drift: {_counted(report)}")
        return code
    out.print(
        f"[bold]{len(report.notes)}[/] of the {report.checked} note(s) about "
        f"[bold]{safe(report.repo)}[/] that name files drifted (code at {report.head[:12]}):"
    )
    colours = {"modified": "yellow", "renamed": "cyan", "deleted": "red"}
    for note in report.notes:
        out.print()
        out.print(f"[bold]{safe(note.id)}[/]  [dim]{safe(note.date)} · {note.confidence}[/]")
        out.print(f"  {safe(note.title)}")
        for item in note.files:
            where = f" -> {safe(item.new_path)}" if item.new_path else ""
            colour = colours.get(item.status, "white")
            out.print(f"  [{colour}]{item.status:<8}[/] {safe(item.path)}{where}")
        for commit in note.commits:
            out.print(
                f"    [dim]{commit.sha[:10]} {safe(commit.date[:10])}[/] {safe(commit.subject)}"
            )
    out.print()
    if outcome is not None:
        target = outcome.pr_url or f"the branch {outcome.branch}"
        out.print(f"Proposed marking them for review: {safe(target)} ({outcome.status})")
        for step in outcome.next_steps:
            out.print(f"  {safe(step)}")
    elif args.propose:
        out.print("Nothing to propose: every drifted note is already marked (confidence low).")
    else:
        out.print("[dim]Run with --propose to open a vault pull request that marks them.[/]")
    return code


def _code_repo_here(vault: Path) -> Path:
    """No --code-repo: the git repository the user stands in, unless it is the vault."""
    found = find_git_dir(Path.cwd())
    if found is None or found[0].resolve() == vault.resolve():
        where = "the vault" if found is not None else "no git repository"
        raise UsageError(
            f"lore drift checks a code repository, and you are in {where}.",
            fix="Run it inside the code repository's checkout, or pass --code-repo PATH.",
        )
    return found[0]


def _counted(report: Any) -> str:
    """What was checked, in words: every active note about the repository is counted,
    and those that name files are the ones that can drift."""
    repo = f"[bold]{safe(report.repo)}[/]"
    if not report.about:
        return f"no active note is about {repo} (none lists it in `repo`)."
    if not report.checked:
        return (
            f"{report.about} active note(s) are about {repo}, and none names files "
            "(`files_touched`), so none can drift."
        )
    return (
        f"{report.about} active note(s) are about {repo}; the {report.checked} that name "
        "files have none changed since they were written."
    )
