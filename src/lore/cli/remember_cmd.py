"""`lore remember`: draft a note, check it, and propose it as a pull request."""

from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lore.cli.drafts_cmd import show_saved
from lore.cli.options import (
    add_dry_run,
    add_force,
    add_json,
    add_resume,
    add_timeout,
    add_vault,
    add_yes,
)
from lore.cli.output import console, notice, print_json, safe
from lore.errors import ExitCode, ProposalError, UsageError, on_stop, signals_held
from lore.files import write_atomic
from lore.paths import lore_home
from lore.taxonomy import parse_taxonomy
from lore.team.drafts.draft import (
    NoteInput,
    editor_template,
    input_from_json,
    input_from_note_file,
    split_list,
)
from lore.team.drafts.save import DraftRefused, masked, save_draft
from lore.team.proposals.note import (
    discard,
    failure_json,
    outcome_json,
    resume,
    start_proposal,
    submit,
)
from lore.team.proposals.unlisted import add_to_taxonomy, unlisted
from lore.vault.resolved import Vault
from lore.vaults import one_vault

if TYPE_CHECKING:
    from lore.curator.finding import Finding
    from lore.team.proposals.branches import Outcome
    from lore.team.proposals.note import Proposal

EPILOG = """\
examples:
  lore remember --title "Alembic migrations set a 5 s lock timeout" --type convention \\
      --tag tool/alembic,tool/postgres --repo payments-api \\
      --what "Every migration sets lock_timeout = '5s' before DDL." \\
      --why "A blocked ALTER TABLE queued every write behind it (incident 2025-06-02)."
  lore remember --from-file draft.md
  echo '{"title": "...", "type": "gotcha", "tags": ["tool/kafka"], "what": "..."}' \\
      | lore remember --stdin --yes --json
  lore remember                      # opens $EDITOR with a template
  lore remember --resume billing--retries-use-backoff--2026-11-02

The note is checked with the curator's rules and the secret scan, shown, and after
you confirm (--yes skips the question) committed on a branch lore/<id> in a
separate worktree, pushed, and opened as a pull request with `gh`. Your checkout
of the vault is never touched. If the push or the pull request fails, the branch
and the note stay: finish with --resume <id>. A note with a secret is never
committed, whatever the flags. The JSON schema for --stdin is in docs/cli.md.
With --draft the checked note is kept in the local drafts inbox instead (no branch,
no push, no question asked): `lore drafts` lists, edits and proposes drafts.
"""

FLAG_FIELDS = (
    "title",
    "type",
    "tags",
    "confidence",
    "repo",
    "services",
    "what",
    "why",
    "how",
    "gotchas",
    "related",
    "files_touched",
    "supersedes",
    "depends_on",
    "expires",
    "source",
    "scope",
    "id",
    "author",
)


def register(sub: Any, name: str, help_text: str) -> None:
    parser = sub.add_parser(
        name,
        help=help_text,
        description="Draft a note, check it with the curator's rules and the secret scan, "
        "and propose it to the team's vault as a pull request.",
        epilog=EPILOG,
    )
    note = parser.add_argument_group("the note (flags)")
    note.add_argument("--title", help="one line that states the fact itself")
    note.add_argument("--type", help="a type from _taxonomy.md: decision, gotcha, convention, …")
    note.add_argument(
        "--tag",
        dest="tags",
        action="append",
        default=[],
        metavar="TAG",
        help="a dimension/name tag from _taxonomy.md (repeatable, or comma-separated)",
    )
    note.add_argument(
        "--confidence", choices=("high", "medium", "low"), help="how sure (default: medium)"
    )
    note.add_argument(
        "--repo",
        action="append",
        default=[],
        metavar="NAME",
        help="a repository the note is about (repeatable; none means org-wide)",
    )
    note.add_argument(
        "--service",
        dest="services",
        action="append",
        default=[],
        metavar="NAME",
        help="a service the note is about (repeatable)",
    )
    note.add_argument("--what", help="the one-line summary first, then details (## What)")
    note.add_argument("--why", help="what made it true: the incident, constraint or measure")
    note.add_argument("--how", help="the concrete steps, commands or settings (## How)")
    note.add_argument("--gotchas", help="edge cases that bite (## Gotchas)")
    note.add_argument(
        "--related", action="append", default=[], metavar="ID", help="a related note id"
    )
    note.add_argument(
        "--files",
        dest="files_touched",
        action="append",
        default=[],
        metavar="PATH",
        help="files the note is about, relative to their repository (comma-separated)",
    )
    note.add_argument(
        "--supersedes",
        action="append",
        default=[],
        metavar="ID",
        help="a note this one replaces (repeatable)",
    )
    note.add_argument(
        "--depends-on",
        dest="depends_on",
        action="append",
        default=[],
        metavar="ID",
        help="a note this one holds only while it holds (repeatable)",
    )
    note.add_argument("--expires", metavar="DATE", help="YYYY-MM-DD after which it drops out")
    note.add_argument("--source", metavar="URL", help="the PR, issue or incident it came from")
    note.add_argument("--scope", help="the id's first part (default: the repo, service or tag)")
    note.add_argument("--id", help="the whole id, {scope}--{topic}--{YYYY-MM-DD}")
    note.add_argument("--author", help="GitHub handle (default: from `gh api user` or git)")
    source = parser.add_argument_group("other inputs")
    source.add_argument(
        "--from-file", metavar="PATH", help="propose a note file written by hand ('-': stdin)"
    )
    source.add_argument(
        "--stdin", action="store_true", help="read the note as JSON from stdin (for agents)"
    )
    add_resume(source, metavar="ID")
    parser.add_argument(
        "--agent", metavar="NAME", help="the agent proposing it; labels the PR agent-authored"
    )
    parser.add_argument(
        "--draft",
        action="store_true",
        help="check the note and keep it in the local drafts inbox instead (`lore drafts`)",
    )
    parser.add_argument(
        "--add-to-taxonomy",
        action="store_true",
        help="list a repository or tag the note names that _taxonomy.md lacks there, in "
        "the same pull request (on a terminal, lore asks)",
    )
    add_yes(parser)
    add_dry_run(parser)
    add_force(parser)
    add_json(parser)
    add_timeout(parser, default=60.0)
    add_vault(parser)
    parser.set_defaults(handler=run)


def _flag_input(args: argparse.Namespace) -> NoteInput | None:
    values: dict[str, Any] = {}
    for key in FLAG_FIELDS:
        value = getattr(args, key, None)
        if isinstance(value, list):
            if value:
                values[key] = split_list(value)
        elif value:
            values[key] = value
    return NoteInput(**values) if values else None


def _read_input(args: argparse.Namespace) -> tuple[NoteInput, Path | None]:
    """(NoteInput, the editor's draft file when the note came from the editor)."""
    flags = _flag_input(args)
    chosen = [bool(flags), bool(args.from_file), args.stdin]
    if sum(chosen) > 1:
        raise UsageError(
            "Give the note one way: flags, --from-file or --stdin.",
            fix="Put every field in the file or the JSON, or use only flags.",
        )
    if args.stdin:
        text = sys.stdin.read()
        if text.lstrip().startswith("---"):
            return input_from_note_file(text.encode("utf-8"), "stdin"), None
        return input_from_json(text), None
    if args.from_file:
        if args.from_file == "-":
            return input_from_note_file(sys.stdin.buffer.read(), "stdin"), None
        path = Path(args.from_file).expanduser()
        try:
            raw = path.read_bytes()
        except OSError as exc:
            raise UsageError(f"{path}: cannot be read ({exc.strerror}).") from None
        return input_from_note_file(raw, str(path)), None
    if flags is not None:
        return flags, None
    return _from_editor(args)


def _from_editor(args: argparse.Namespace) -> tuple[NoteInput, Path | None]:
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise UsageError(
            "No note given.",
            fix="Use --title/--type/--tag/--what, --from-file PATH or --stdin (JSON); "
            "in a terminal, `lore remember` alone opens $EDITOR.",
        )
    vault = one_vault(args.vault)
    try:
        taxonomy = parse_taxonomy((vault.root / "_taxonomy.md").read_text(encoding="utf-8"))
        types = list(taxonomy.types)
    except OSError:
        types = []
    draft = lore_home() / "drafts" / f"remember-{time.strftime('%Y%m%d-%H%M%S')}.md"
    write_atomic(draft, editor_template(types).encode("utf-8"), mode=0o600)
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
    try:
        subprocess.run([*shlex.split(editor), str(draft)], check=True)
    except (OSError, subprocess.CalledProcessError) as exc:
        raise UsageError(
            f"The editor ({editor}) failed: {exc}.",
            fix=f"Set $EDITOR, or finish the draft and run `lore remember --from-file {draft}`.",
        ) from None
    raw = draft.read_bytes()
    if b"\ntitle: \n" in raw or b"\ntitle:\n" in raw:
        draft.unlink(missing_ok=True)
        raise UsageError("The title is empty, so nothing was proposed.")
    try:
        return input_from_note_file(raw, str(draft)), draft
    except Exception:
        notice(f"Your draft is kept in {draft}; fix it and run lore remember --from-file {draft}")
        raise


def run(args: argparse.Namespace) -> int:
    if args.timeout <= 0:
        raise UsageError("--timeout must be a positive number of seconds.")
    if args.draft:
        return _save_draft(args)
    if args.resume:
        return _resume(args)
    asking = not (args.yes or args.dry_run or args.json)
    if (args.stdin or args.from_file == "-") and asking:
        raise UsageError(
            "The note comes from stdin, so lore cannot ask for confirmation there.",
            fix="Add --yes to propose it (or --dry-run to only check it).",
        )
    data, draft_file = _read_input(args)
    if args.agent:
        data.agent = args.agent
    if asking and not sys.stdin.isatty():
        raise UsageError(
            "lore asks before proposing, but this is not a terminal.",
            fix="Add --yes to propose without asking (or --dry-run to only check the note).",
        )
    if args.json and not (args.yes or args.dry_run):
        raise UsageError("--json needs --yes or --dry-run: it cannot ask for confirmation.")
    vault = Vault.of(one_vault(args.vault))
    proposal = start_proposal(
        vault, data, timeout=args.timeout, dry_run=args.dry_run, cwd=Path.cwd()
    )
    found = unlisted(proposal)
    if found and args.add_to_taxonomy:
        add_to_taxonomy(proposal, found)
    elif found and not asking:  # nobody to ask: say how, as the finding's fix does not
        proposal.notices.append(
            f"{found.describe().capitalize()} is not in _taxonomy.md: add --add-to-taxonomy "
            "to list it there in the same pull request."
        )
    if args.dry_run:
        discard(proposal)
        _show_draft(proposal, args.json, dry_run=True)
        blocked = proposal.secrets or (proposal.errors and not args.force)
        return ExitCode.PROBLEMS_FOUND if blocked else ExitCode.OK
    if not args.json:
        _show_draft(proposal, False, dry_run=False)
    if asking and found and not args.add_to_taxonomy and not proposal.secrets:
        question = f"Add {found.describe()} to _taxonomy.md in the same pull request?"
        if _confirmed(proposal, question):
            add_to_taxonomy(proposal, found)
            notice(proposal.notices[-1])
    blocked = proposal.secrets or (proposal.errors and not args.force)
    question = f"Propose {proposal.note.path} as a pull request?"
    if asking and not blocked and not _confirmed(proposal, question):
        discard(proposal)
        sys.stderr.write("lore: nothing was proposed.\n")
        return ExitCode.OK
    try:
        outcome = submit(proposal, force=args.force, timeout=args.timeout)
    except ProposalError as exc:
        if draft_file is not None:
            exc.fix = f"{exc.fix or ''} Your draft is kept in {draft_file}.".strip()
        if args.json:
            return _json_failure(exc, proposal)
        raise
    if draft_file is not None:
        draft_file.unlink(missing_ok=True)
    _show_outcome(outcome, args.json, proposal.findings)
    return ExitCode.OK


def _confirmed(proposal: Proposal, question: str) -> bool:
    """Ask on the terminal. Ctrl-C, a closed terminal or SIGTERM at the prompt: nothing was
    agreed to, so nothing is left (lore.errors.stop_like_ctrl_c says how the signals are met)."""
    from rich.prompt import Confirm

    with on_stop(lambda: discard(proposal)):
        try:
            return bool(Confirm.ask(question, console=console(), default=False))
        except BaseException:
            with signals_held():
                discard(proposal)
            raise


def _save_draft(args: argparse.Namespace) -> int:
    """`--draft`: check the note and keep it in the drafts inbox (lore.team.drafts.inbox)."""
    if args.resume or args.dry_run or args.force:
        raise UsageError(
            "--draft keeps the note in the drafts inbox; it takes no --resume, --dry-run "
            "or --force.",
            fix="Propose a draft later with `lore drafts propose ID`.",
        )
    data, draft_file = _read_input(args)
    if args.agent:
        data.agent = args.agent
    vault = one_vault(args.vault)
    try:
        saved = save_draft(vault.root, data, origin="remember")
    except DraftRefused as exc:
        if draft_file is not None:  # the editor's file: keep the text, never the secret
            write_atomic(draft_file, masked(draft_file.read_text("utf-8")).encode("utf-8"))
            exc.fix = f"{exc.fix} Your text is kept in {draft_file}, the secret masked."
        if args.json:
            print_json(exc.to_json())
            return int(exc.exit_code)
        raise
    if draft_file is not None:
        draft_file.unlink(missing_ok=True)
    return show_saved(saved, args.json)


def _resume(args: argparse.Namespace) -> int:
    vault = Vault.of(one_vault(args.vault))
    try:
        outcome = resume(vault, args.resume, force=args.force, timeout=args.timeout)
    except ProposalError as exc:
        if args.json:
            return _json_failure(exc, None)
        raise
    _show_outcome(outcome, args.json, [])
    return ExitCode.OK


def _json_failure(exc: ProposalError, proposal: Proposal | None) -> int:
    print_json(failure_json(exc, proposal, "failed"))
    return int(exc.exit_code)


def _show_draft(proposal: Proposal, as_json: bool, *, dry_run: bool) -> None:
    if as_json:
        print_json(proposal.draft_json())
        return
    for message in proposal.notices:
        notice(message)
    out = console()
    base = proposal.base_ref.removeprefix("refs/remotes/")
    where = f"branch {safe(proposal.branch)}, from {safe(base)}"
    out.print(f"[bold]{safe(proposal.note.path)}[/] [dim]({where})[/]")
    out.rule(style="dim")
    out.print(safe(proposal.display_text), end="")
    out.rule(style="dim")
    if not proposal.findings:
        out.print("[green]The curator's rules found no problems.[/]")
    for finding in proposal.findings:
        colour = "red" if finding.is_error else "yellow"
        where = f"line {finding.line}: " if finding.line else ""
        out.print(
            f"[{colour}]{finding.severity}[/] [bold]{safe(finding.rule)}[/] {where}"
            f"{safe(finding.sentences())}"
        )
    if dry_run:
        out.print("[dim]Dry run: nothing was proposed.[/]")


def _show_outcome(outcome: Outcome, as_json: bool, findings: list[Finding]) -> None:
    if as_json:
        print_json(outcome_json(outcome, findings))
        return
    for message in outcome.notices:
        notice(message)
    out = console()
    if outcome.status == "opened":
        out.print(f"[green]Opened[/] {safe(outcome.pr_url)}")
        out.print(
            "[dim]The curator checks it in CI; a reviewer merges it. `lore proposals` shows it.[/]"
        )
    for step in outcome.next_steps:
        out.print(safe(step))
