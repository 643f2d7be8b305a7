"""`lore import KIND PATH…`: bring ADRs, agent files and other tools' memories in as proposals."""

from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lore.cli.options import (
    add_dry_run,
    add_force,
    add_json,
    add_resume,
    add_timeout,
    add_vault,
    add_yes,
)
from lore.cli.output import DelayedProgress, console, notice, print_json, safe
from lore.errors import ExitCode, LoreError, NoteError, UsageError
from lore.files import write_atomic
from lore.note.parse import parse_note
from lore.paths import lore_home
from lore.team.drafts.draft import split_list
from lore.team.garden import change_json
from lore.team.imports.batch import recheck
from lore.team.imports.inbox import save_to_inbox
from lore.team.imports.propose import blocked, propose_plan
from lore.team.imports.run import open_vault, plan_import
from lore.team.proposals.changes import resume_change
from lore.team.proposals.note import failure_json
from lore.vaults import one_vault
from lore.versioned import versioned

if TYPE_CHECKING:
    from lore.team.imports.model import Candidate, ImportPlan
    from lore.team.imports.propose import ProposeResult
    from lore.team.imports.vault_view import VaultView

from lore.team.imports.kinds import KINDS, MEMORY_KINDS, REVIEWED

EPILOG = """\
kinds:
  adr PATH…           Architecture Decision Records (Nygard/adr-tools, MADR 2-4, log4brains,
                      one folder per ADR), one decision note each; folders are walked
  agents-md [PATH…]   CLAUDE.md, AGENTS.md, GEMINI.md, .github/copilot-instructions.md,
                      .cursor/rules/*.mdc, .cursorrules of the repositories (default: this one),
                      one note per convention, gotcha or runbook
  foldcrumbs DIR      a foldcrumbs memory folder, one note per memory you keep
  basic-memory DIR    a basic-memory project, one note per entity you keep
  claude-memory [DIR] Claude Code's auto memory of this repository (default:
                      ~/.claude/projects/<this repository>/memory), one draft per fact
  gemini-memory [FILE]
                      the facts Gemini CLI saved (default: ~/.gemini/GEMINI.md, its
                      "## Gemini Added Memories" section), one draft per fact
  codex-memory [DIR]  Codex's memories (default: ~/.codex/memories, its MEMORY.md), one
                      draft per fact

examples:
  lore import adr docs/adr --dry-run           # what would be proposed, and why not the rest
  lore import adr docs/adr --dry-run --json    # the same as one JSON object
  lore import adr docs/adr --yes               # propose the batch as one pull request
  lore import agents-md ~/src/api ~/src/web    # review each candidate: keep, edit or drop
  lore import foldcrumbs ~/foldcrumbs/memory --repo payments-api
  lore import claude-memory                     # this repository's Claude Code memories
  lore import --resume import-adr-2026-11-02   # finish one whose push or PR failed

Every note keeps its source's own words and is checked by the curator against the
vault, its open proposals and the rest of the batch. Running an import again proposes
nothing the vault or an open proposal already holds. Agent files and personal stores
are shown one candidate at a time ([k]eep, [e]dit, [d]rop, keep [a]ll the rest,
drop the [r]est, [q]uit); --yes keeps them all. An agent's own memories go to your
drafts inbox, never to a pull request: facts about you are left out, and `lore drafts`
shows, edits and proposes the rest; a fact imported once is not offered again. Exit
code 1 when the curator found errors (those notes are not proposed unless --force).
docs/import.md has the details.
"""


def register(sub: Any, name: str, help_text: str) -> None:
    parser = sub.add_parser(
        name,
        help=help_text,
        description="Bring what the team already knows into the vault: ADRs, agent "
        "instruction files, other memory tools' stores. The batch is checked by the curator "
        "and proposed as one pull request.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "kind",
        nargs="?",
        choices=KINDS,
        metavar="KIND",
        help=", ".join(KINDS[:-1]) + " or " + KINDS[-1],
    )
    parser.add_argument(
        "paths", nargs="*", metavar="PATH", help="the files or folders to import from"
    )
    parser.add_argument(
        "--repo",
        metavar="NAME",
        help="the repository the notes are about (default: each file's git origin)",
    )
    parser.add_argument(
        "--tag",
        dest="tags",
        action="append",
        default=[],
        metavar="TAG",
        help="a taxonomy tag for every note (repeatable, or comma-separated)",
    )
    add_dry_run(parser)
    add_json(parser)
    add_yes(parser)
    parser.add_argument(
        "--one-per-note",
        action="store_true",
        help="one pull request per note instead of one for the batch",
    )
    add_force(parser)
    add_resume(parser)
    add_timeout(parser, default=60.0)
    add_vault(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """`lore import`; with `--json`, a failure is a JSON object too (and one line on stderr)."""
    try:
        return _run(args)
    except LoreError as exc:
        if not args.json:
            raise
        print_json(failure_json(exc, None, "failed"))
        sys.stderr.write(f"lore: {exc}\n")
        return int(exc.exit_code)


def _run(args: argparse.Namespace) -> int:
    if args.timeout <= 0:
        raise UsageError("--timeout must be a positive number of seconds.")
    vault = one_vault(args.vault)
    if args.resume:
        outcome = resume_change(vault.root, args.resume, timeout=args.timeout)
        _show_outcomes([outcome], args.json, None)
        return ExitCode.OK
    if args.kind is None:
        raise UsageError(
            "Say what to import: lore import KIND PATH…",
            fix="KIND is one of: " + ", ".join(KINDS) + ".",
        )
    if not args.paths and args.kind not in ("agents-md", *MEMORY_KINDS):
        raise UsageError(
            f"lore import {args.kind} needs the folder to import from.",
            fix=f"E.g. lore import {args.kind} PATH.",
        )
    asking = not (args.yes or args.dry_run or args.kind in MEMORY_KINDS)
    if args.json and asking:
        raise UsageError("--json needs --yes or --dry-run: it cannot ask about each note.")
    if asking and not sys.stdin.isatty():
        raise UsageError(
            "lore asks before proposing, but this is not a terminal.",
            fix="Add --yes to keep every candidate and propose them (or --dry-run to only look).",
        )

    progress = _Progress()
    try:
        progress("Fetching the vault", 0, 0)
        view = open_vault(vault.root, timeout=args.timeout)
        plan = plan_import(
            view,
            args.kind,
            [Path(p).expanduser() for p in args.paths],
            repo=args.repo,
            tags=split_list(args.tags),
            progress=progress,
        )
    finally:
        progress.close()
    for message in plan.notices:
        notice(message)
    if args.dry_run:
        if args.json:
            print_json(plan.to_json())
        else:
            _show_plan(plan)
            _summary(plan, None, force=args.force)
        return ExitCode.PROBLEMS_FOUND if any(c.errors for c in plan.candidates) else ExitCode.OK
    if args.kind in MEMORY_KINDS:
        return _to_inbox(plan, args.json)
    if asking:
        if args.kind in REVIEWED:
            kept = _review(plan, view)
        else:
            _show_plan(plan)
            kept = bool(plan.candidates)
        if not kept or not _confirm(plan, force=args.force, one_per_note=args.one_per_note):
            sys.stderr.write("lore: nothing was proposed.\n")
            return ExitCode.OK

    progress = _Progress()
    try:
        result = propose_plan(
            plan,
            one_per_note=args.one_per_note,
            force=args.force,
            timeout=args.timeout,
            progress=progress,
        )
    finally:
        progress.close()
    if args.json:
        _print_result(plan, result)
    else:
        _show_outcomes(result.outcomes, False, result)
        _summary(plan, result, force=args.force)
    return ExitCode.PROBLEMS_FOUND if result.left_out or result.failed else ExitCode.OK


class _Progress:
    """One bar for the whole import, on stderr when it is a terminal (nothing on a pipe),
    whose text names each stage as it starts: fetching the vault, reading the sources,
    each step of the curator's check, proposing. Each stage is drawn at least once."""

    def __init__(self) -> None:
        self._bar = DelayedProgress("Importing")

    def __call__(self, label: str, done: int, total: int) -> None:
        self._bar(done, total, label)

    def close(self) -> None:
        self._bar.close()


# ---- showing the plan ----


def _show_plan(plan: ImportPlan) -> None:
    """The plan as a person reads it (on stdout): each note, its findings, the skips."""
    out = console()
    base = plan.base_ref[:12]
    what = "draft(s) for the drafts inbox, checked" if plan.kind in MEMORY_KINDS else "note(s)"
    out.print(
        f"[bold]lore import {safe(plan.kind)}[/]: {len(plan.candidates)} {what} against "
        f"{safe(plan.base_branch)} at {base}"
    )
    for candidate in plan.candidates:
        marks = " [red](errors)[/]" if candidate.errors else ""
        out.print(
            f"  [green]+[/] {safe(candidate.note.id)}{marks}  "
            f"[dim]{safe(candidate.draft.source)}[/]"
        )
        for finding in candidate.findings:
            colour = "red" if finding.is_error else "yellow"
            out.print(
                f"      [{colour}]{finding.severity}[/] {safe(finding.rule)} "
                f"{safe(finding.sentences())}"
            )
    if plan.added_repos:
        out.print(
            "  [cyan]_taxonomy.md[/]: adds "
            + ", ".join(safe(r) for r in plan.added_repos)
            + " under ## Repos"
        )
    for tag in plan.added_tags:
        out.print(
            f"  [cyan]_taxonomy.md[/]: proposes {safe(plan.new_tags[tag].removeprefix('- '))}"
        )
    if plan.unlisted_repos or plan.unlisted_tags:
        out.print(
            "  [cyan]_taxonomy.md[/] lacks what these drafts name, and a draft cannot add it: "
            "add these lines before proposing them"
        )
    for repo in plan.unlisted_repos:
        out.print(f"    under ## Repos: {safe(f'- `{repo}` — The {repo} repository.')}")
    for tag in plan.unlisted_tags:
        out.print(f"    under ## {safe(tag.split('/', 1)[0])}: {safe(plan.new_tags[tag])}")
    for skip in plan.skipped:
        out.print(f"  [yellow]-[/] {safe(skip.source)}: [dim]{safe(skip.reason)}[/]")


def _summary(plan: ImportPlan, result: ProposeResult | None, *, force: bool) -> None:
    """What was (or would be) proposed, counted as `propose_plan` counts it."""
    out = console(stderr=True)
    inbox = plan.kind in MEMORY_KINDS
    left = [] if inbox else (result.left_out if result else blocked(plan, force=force)[1])
    verb = "proposed" if result is not None else "would be proposed"
    what = "draft(s) would be saved to the drafts inbox" if inbox else f"note(s) {verb}"
    not_proposed = f", {len(left)} not proposed" if left else ""
    out.print(
        f"[bold]Summary[/]: {len(plan.candidates) - len(left)} {what}{not_proposed}, "
        f"{len(plan.skipped)} skipped."
    )
    for reason, count in plan.skip_reasons().most_common():
        out.print(f"  skipped {count}: {safe(reason)}")
    for skip in left:
        out.print(f"  not proposed: {safe(skip.source)}: {safe(skip.reason)}")
    counts = plan.findings_by_rule()
    if counts:
        out.print(
            "  findings: " + ", ".join(f"{safe(rule)} {n}" for rule, n in sorted(counts.items()))
        )
    if result is None:
        out.print(f"[dim]Dry run: nothing was {'saved' if inbox else 'proposed'}.[/]")


def _confirm(plan: ImportPlan, *, force: bool, one_per_note: bool) -> bool:
    """Ask to propose exactly what `propose_plan` will propose, and say what it will not."""
    from rich.prompt import Confirm

    out = console()
    ready, left = blocked(plan, force=force)
    for skip in left:
        out.print(f"  [red]not proposed[/] {safe(skip.source)}: {safe(skip.reason)}")
    if not ready:
        out.print("Nothing can be proposed.")
        return False
    lines = len([t for t in plan.added_tags if any(t in c.note.tags for c in ready)])
    lines += len(plan.added_repos)
    taxonomy = f", and {lines} line(s) of _taxonomy.md" if lines else ""
    how = f"as {len(ready)} pull requests" if one_per_note else "as one pull request"
    return Confirm.ask(
        f"Propose these {len(ready)} note(s){taxonomy} {how}?", console=out, default=False
    )


# ---- the review: keep, edit or drop each candidate ----


def _review(plan: ImportPlan, view: VaultView) -> bool:
    """Show each candidate and ask; True when some are kept (the plan is rechecked)."""
    from rich.prompt import Prompt

    out = console()
    kept: list[Candidate] = []
    changed = False
    queue = list(plan.candidates)
    total = len(queue)
    rest: str | None = None
    for number, candidate in enumerate(queue, start=1):
        if rest is not None:
            if rest == "a":
                kept.append(candidate)
            changed = changed or rest == "r"
            continue
        while True:
            out.rule(f"{number}/{total}  {safe(candidate.draft.source)}", style="dim")
            out.print(safe(candidate.text), end="")
            for note in candidate.draft.unmapped:
                out.print(f"[dim]  · {safe(note)}[/]")
            for finding in candidate.findings:
                colour = "red" if finding.is_error else "yellow"
                out.print(
                    f"[{colour}]{finding.severity}[/] {safe(finding.rule)} "
                    f"{safe(finding.sentences())}"
                )
            answer = Prompt.ask(
                "Keep, edit, drop, keep all the rest, drop the rest, quit",
                choices=["k", "e", "d", "a", "r", "q"],
                default="k",
                console=out,
            )
            if answer == "e":
                edited = _edit(candidate)
                if edited is not None:
                    candidate.text, candidate.note = edited
                    changed = True
                continue
            break
        if answer == "q":
            return False
        if answer in ("k", "a"):
            kept.append(candidate)
        else:
            changed = True
        if answer in ("a", "r"):
            rest = answer
    if not kept:
        plan.candidates = []
        return False
    plan.candidates = kept
    if changed:
        recheck(view, plan)
    _show_plan(plan)
    return True


def _edit(candidate: Candidate) -> tuple[str, Any] | None:
    """Open the note in $EDITOR; the edited text and note, or None when it does not parse."""
    draft = (
        lore_home() / "drafts" / f"import-{time.strftime('%Y%m%d-%H%M%S')}-{candidate.note.id}.md"
    )
    write_atomic(draft, candidate.text.encode("utf-8"), mode=0o600)
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
    try:
        subprocess.run([*shlex.split(editor), str(draft)], check=True)
        raw = draft.read_bytes()
        note = parse_note(raw, candidate.note.path)
    except (OSError, subprocess.CalledProcessError) as exc:
        notice(f"The editor ({editor}) failed: {exc}; the note is unchanged.")
        return None
    except NoteError as exc:
        notice(f"The edited note cannot be read ({exc}); it is unchanged.")
        return None
    finally:
        draft.unlink(missing_ok=True)
    return raw.decode("utf-8"), note


# ---- the result ----


def _to_inbox(plan: ImportPlan, as_json: bool) -> int:
    """An agent-memory import: the candidates saved as drafts, never proposed from here."""
    result = save_to_inbox(plan, plan.sources)
    if as_json:
        data = plan.to_json()
        data.update(result.to_json())
        print_json(data)
    else:
        _show_plan(plan)
        out = console()
        for draft_id, source in result.saved:
            out.print(f"  [green]drafted[/] {safe(draft_id)}  [dim]{safe(source)}[/]")
        for skip in result.refused:
            out.print(f"  [red]not saved[/] {safe(skip.source)}: {safe(skip.reason)}")
        if result.saved:
            out.print(
                f"{len(result.saved)} draft(s) saved to this vault's drafts inbox; nothing was "
                "proposed. Review them with `lore drafts`, then `lore drafts propose ID…`."
            )
        else:
            out.print("Nothing new to save: no draft was made.")
    return ExitCode.PROBLEMS_FOUND if result.refused else ExitCode.OK


def _show_outcomes(outcomes: list[Any], as_json: bool, result: ProposeResult | None) -> None:
    if as_json:
        print_json(versioned({"proposals": [change_json(o) for o in outcomes]}))
        return
    out = console()
    for outcome in outcomes:
        if outcome.pr_url:
            out.print(f"[green]Opened[/] {safe(outcome.pr_url)} from {safe(outcome.branch)}.")
        for step in outcome.next_steps:
            out.print(safe(step))
    if result is not None:
        for name, error in result.failed:
            out.print(f"[red]{safe(name)}[/]: {safe(str(error))}")


def _print_result(plan: ImportPlan, result: ProposeResult) -> None:
    data = plan.to_json()
    data["proposals"] = [change_json(o) for o in result.outcomes]
    data["not_proposed"] = [skip.to_json() for skip in result.left_out]
    print_json(data)
