"""`lore drafts`: the local inbox of checked notes not yet proposed (list, show, edit, …).

Argument parsing and output only: the inbox is `lore.team.drafts.inbox`, its expiry
`lore.team.drafts.expiry` and proposing `lore.team.drafts.propose`.
"""

from __future__ import annotations

import argparse
import os
import sys
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
from lore.cli.output import console, notice, print_json, safe
from lore.errors import ExitCode, ProposalError, UsageError
from lore.files import write_atomic
from lore.team.drafts.expiry import expired_dir, list_expired, restore_draft, sweep
from lore.team.drafts.inbox import (
    FILE_MODE,
    discard_drafts,
    edit_file,
    find_draft,
    inbox_dir,
    list_drafts,
)
from lore.vaults import one_vault
from lore.versioned import versioned

if TYPE_CHECKING:
    from lore.team.drafts.expiry import Sweep
    from lore.team.drafts.inbox import Draft
    from lore.team.drafts.propose import Batch
    from lore.team.drafts.save import Saved

EPILOG = """\
examples:
  lore drafts                          # the inbox (same as `lore drafts list`)
  lore drafts show billing--invoices-are-immutable--2026-11-02
  lore drafts edit billing--inv        # any unique start of an id will do
  lore drafts propose billing--inv web-app--econnreset   # one pull request for both
  lore drafts discard billing--inv
  lore drafts list --expired           # drafts moved out for their age
  lore drafts restore billing--inv

A draft is a note checked like `lore remember` checks one (the curator's rules and
the secret scan) but kept on this machine, in $LORE_HOME/drafts/, instead of being
proposed: `lore remember --draft`, the MCP remember tool with draft: true and
`lore capture` save them. Nothing in the inbox is ever pushed until you propose it.
A draft not saved or edited for [drafts] max_age_days (default 30; the user config,
else lore.toml) is moved out of the inbox with one notice that says where it is kept
and until when. See docs/agents/drafts.md.
"""

ACTIONS = ("list", "show", "edit", "propose", "discard", "restore")


def register(sub: Any, name: str, help_text: str) -> None:
    parser = sub.add_parser(
        name,
        help=help_text,
        description="The drafts inbox: notes checked and kept on this machine until you "
        "propose them (`lore remember --draft`, `lore capture`).",
        epilog=EPILOG,
    )
    add_json(parser)
    add_vault(parser)
    actions = parser.add_subparsers(dest="action", metavar="ACTION")

    def action(name: str, help_text: str) -> argparse.ArgumentParser:
        child: argparse.ArgumentParser = actions.add_parser(
            name, help=help_text, description=help_text[0].upper() + help_text[1:] + "."
        )
        add_json(child, again=True)
        add_vault(child, again=True)
        return child

    listing = action("list", "list the drafts, oldest first (the default action)")
    listing.add_argument(
        "--expired", action="store_true", help="list the drafts moved out for their age"
    )
    action("show", "print one draft and the findings of its last check").add_argument(
        "id", metavar="ID", help="a draft id, or a start of one that only one id has"
    )
    action("edit", "edit a draft in $VISUAL/$EDITOR; it is checked again").add_argument(
        "id", metavar="ID", help="a draft id, or a start of one"
    )
    propose = action("propose", "propose drafts as ONE pull request")
    propose.add_argument("ids", nargs="*", metavar="ID", help="the drafts to propose together")
    add_yes(propose)
    add_dry_run(propose)
    add_force(propose)
    add_resume(propose)
    add_timeout(propose, default=60.0)
    action("discard", "delete drafts for good").add_argument(
        "ids", nargs="+", metavar="ID", help="the drafts to delete"
    )
    action("restore", "bring an expired draft back into the inbox").add_argument(
        "id", metavar="ID", help="an expired draft's id, or a start of one"
    )
    parser.set_defaults(handler=run, action=None)


def run(args: argparse.Namespace) -> int:
    root = one_vault(args.vault).root
    swept = sweep(root)
    message = swept.notice()
    if message:
        notice(message)
    action = args.action or "list"
    handler = {
        "list": _list,
        "show": _show,
        "edit": _edit,
        "propose": _propose,
        "discard": _discard,
        "restore": _restore,
    }[action]
    return handler(root, args, swept)


# ---- list, show ----


def _list(root: Path, args: argparse.Namespace, swept: Sweep) -> int:
    expired = getattr(args, "expired", False)
    drafts = list_expired(root) if expired else list_drafts(root)
    folder = expired_dir(root) if expired else inbox_dir(root)
    if args.json:
        rows = [
            {**draft.summary_json(), "delete_after": draft.meta.get("delete_after")}
            if expired
            else draft.summary_json()
            for draft in drafts
        ]
        from lore.sanitize.secret_scan import mask_secrets_in

        rows = mask_secrets_in(rows)  # a draft edited by hand may hold one: never shown
        print_json(versioned({"inbox": str(folder), "drafts": rows, "expired": swept.to_json()}))
        return ExitCode.OK
    from rich.table import Table

    from lore.sanitize.secret_scan import mask_secrets

    out = console()
    if not drafts:
        what = "No draft has expired" if expired else "The drafts inbox is empty"
        out.print(f"{what} ({safe(str(folder))}).")
        return ExitCode.OK
    table = Table(show_edge=False, header_style="bold")
    table.add_column("draft", overflow="fold", ratio=1)
    table.add_column("deleted after" if expired else "saved")
    table.add_column("from")
    table.add_column("check")
    for draft in drafts:
        row = draft.summary_json()
        origin = row["origin"] + (f" ({row['agent']})" if row["agent"] else "")
        check = "[green]ok[/]"
        if row["errors"]:
            check = f"[red]{row['errors']} error(s)[/]"
        elif row["warnings"]:
            check = f"[yellow]{row['warnings']} warning(s)[/]"
        when = str(draft.meta.get("delete_after")) if expired else f"{row['saved']}"
        if not expired:
            when += f" [dim]({row['age_days']} d)[/]"
        table.add_row(
            f"[bold]{safe(mask_secrets(row['title']))}[/]\n[cyan]{safe(draft.id)}[/]",
            when,
            safe(origin),
            check,
        )
    out.print(table)
    if expired:
        out.print(f"[dim]Kept in {safe(str(folder))}; `lore drafts restore ID` brings one back.[/]")
    else:
        out.print("[dim]`lore drafts show ID`, `edit ID`, `propose ID…`, `discard ID…`[/]")
    return ExitCode.OK


def _show(root: Path, args: argparse.Namespace, swept: Sweep) -> int:
    draft = find_draft(root, args.id)
    if args.json:
        from lore.sanitize.secret_scan import mask_secrets_in

        shown = {**draft.summary_json(), "text": draft.text, "findings": draft.findings}
        print_json(versioned({**mask_secrets_in(shown), "expired": swept.to_json()}))
        return ExitCode.OK
    _print_draft(draft, draft.findings)
    return ExitCode.OK


def _print_draft(draft: Draft, findings: list[dict[str, Any]]) -> None:
    from lore.sanitize.secret_scan import mask_secrets

    out = console()
    row = draft.summary_json()
    origin = row["origin"] + (f", {row['agent']}" if row["agent"] else "")
    out.print(f"[bold]{safe(draft.id)}[/] [dim](saved {row['saved']}, {safe(origin)})[/]")
    out.print(f"[dim]{safe(str(draft.file))}[/]")
    out.rule(style="dim")
    out.print(safe(mask_secrets(draft.text)), end="" if draft.text.endswith("\n") else "\n")
    out.rule(style="dim")
    if not findings:
        out.print("[green]The curator's rules found no problems.[/]")
    for finding in findings:
        colour = "red" if finding.get("severity") == "error" else "yellow"
        where = f"line {finding['line']}: " if finding.get("line") else ""
        text = str(finding.get("message") or "")
        if finding.get("suggestion"):
            text += f" {finding['suggestion']}"
        out.print(
            f"[{colour}]{safe(str(finding.get('severity')))}[/] "
            f"[bold]{safe(str(finding.get('rule')))}[/] {where}{safe(text)}"
        )


def show_saved(saved: Saved, as_json: bool) -> int:
    """Print a draft just saved (also `lore remember --draft`); exit 1 on curator errors."""
    if as_json:
        print_json(saved.to_json())
    else:
        for message in saved.notices:
            notice(message)
        _print_draft(saved.draft, [finding.to_json() for finding in saved.findings])
        out = console()
        out.print(
            f"Saved as the draft [cyan]{safe(saved.draft.id)}[/]; nothing was proposed. "
            f"`lore drafts propose {safe(saved.draft.id)}` proposes it."
        )
    return ExitCode.PROBLEMS_FOUND if saved.errors else ExitCode.OK


# ---- edit ----


def _run_editor(path: Path) -> None:
    import shlex
    import subprocess

    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR")
    if not editor:
        if not (sys.stdin.isatty() and sys.stdout.isatty()):
            raise UsageError(
                "No editor is set and this is not a terminal.", fix="Set $VISUAL or $EDITOR."
            )
        editor = "vi"
    try:
        subprocess.run([*shlex.split(editor), str(path)], check=True)
    except (OSError, ValueError, subprocess.CalledProcessError) as exc:
        raise UsageError(
            f"The editor ({editor}) failed: {exc}.",
            fix=f"Your edit is kept in {path}; `lore drafts edit` opens it again.",
        ) from None


def _edit(root: Path, args: argparse.Namespace, swept: Sweep) -> int:
    from lore.team.drafts.save import update_draft

    draft = find_draft(root, args.id)
    edit = edit_file(draft)
    if not edit.exists():
        write_atomic(edit, draft.text.encode("utf-8"), mode=FILE_MODE)
    _run_editor(edit)
    raw = edit.read_bytes()
    if raw.decode("utf-8", "replace").replace("\r\n", "\n") == draft.text:
        edit.unlink(missing_ok=True)
        sys.stderr.write("lore: the draft is unchanged.\n")
        return ExitCode.OK
    saved = update_draft(root, draft, raw)
    return show_saved(saved, args.json)


# ---- propose, discard, restore ----


def _propose(root: Path, args: argparse.Namespace, swept: Sweep) -> int:
    from lore.team.drafts.propose import prepare, submit

    if args.timeout <= 0:
        raise UsageError("--timeout must be a positive number of seconds.")
    if args.resume:
        if args.ids:
            raise UsageError("--resume takes a proposal's name, without draft ids.")
        from lore.team.proposals.changes import resume_change

        _print_outcome(resume_change(root, args.resume, timeout=args.timeout), None, args.json)
        return ExitCode.OK
    if not args.ids:
        raise UsageError("Name the drafts to propose.", fix="`lore drafts` lists them.")
    asking = not (args.yes or args.dry_run or args.json)
    if asking and not sys.stdin.isatty():
        raise UsageError(
            "lore asks before proposing, but this is not a terminal.",
            fix="Add --yes to propose without asking (or --dry-run to only check the drafts).",
        )
    if args.json and not (args.yes or args.dry_run):
        raise UsageError("--json needs --yes or --dry-run: it cannot ask for confirmation.")
    batch = prepare(root, args.ids, timeout=args.timeout)
    try:
        blocked = bool(batch.secrets) or (bool(batch.errors) and not args.force)
        if args.dry_run:
            if args.json:
                print_json(batch.to_json())
            else:
                _print_batch(batch)
            return ExitCode.PROBLEMS_FOUND if blocked else ExitCode.OK
        if not args.json:
            _print_batch(batch)
        if asking and not blocked and not _confirm(batch):
            sys.stderr.write("lore: nothing was proposed.\n")
            return ExitCode.OK
        try:
            outcome = submit(batch, force=args.force, timeout=args.timeout)
        except ProposalError as exc:
            if args.json:
                from lore.team.proposals.note import failure_json

                status = "blocked" if blocked else "failed"
                print_json(failure_json(exc, None, status))
                return int(exc.exit_code)
            raise
        _print_outcome(outcome, batch, args.json)
        return ExitCode.OK
    finally:
        batch.release()


def _confirm(batch: Batch) -> bool:
    from rich.prompt import Confirm

    count = len(batch.items)
    what = "this draft" if count == 1 else f"these {count} drafts"
    return bool(Confirm.ask(f"Propose {what} as one pull request?", console=console()))


def _print_batch(batch: Batch) -> None:
    for message in batch.notices:
        notice(message)
    out = console()
    base = batch.base_ref.removeprefix("refs/remotes/")
    out.print(f"[bold]{len(batch.items)} draft(s)[/] [dim](checked against {safe(base)})[/]")
    for item in batch.items:
        out.print(f"  [cyan]{safe(item.path)}[/] {safe(item.note.title if item.note else '')}")
        for finding in item.findings:
            colour = "red" if finding.is_error else "yellow"
            where = f"line {finding.line}: " if finding.line else ""
            out.print(
                f"    [{colour}]{finding.severity}[/] [bold]{safe(finding.rule)}[/] {where}"
                f"{safe(finding.sentences())}"
            )
    if not batch.findings:
        out.print("[green]The curator's rules found no problems.[/]")


def _print_outcome(outcome: Any, batch: Batch | None, as_json: bool) -> None:
    if as_json:
        if batch is not None:
            from lore.team.drafts.propose import proposed_json

            print_json(proposed_json(outcome, batch))
        else:
            print_json(versioned({**outcome.to_json(), "path": None}))
        return
    for message in outcome.notices:
        notice(message)
    out = console()
    if outcome.pr_url:
        out.print(f"[green]Opened[/] {safe(outcome.pr_url)} from {safe(outcome.branch)}.")
        out.print("[dim]The drafts left the inbox; `lore proposals` shows the pull request.[/]")
    for step in outcome.next_steps:
        out.print(safe(step))


def _discard(root: Path, args: argparse.Namespace, swept: Sweep) -> int:
    gone = discard_drafts(root, args.ids)
    if args.json:
        print_json(versioned({"discarded": gone, "expired": swept.to_json()}))
    else:
        sys.stderr.write(f"lore: deleted {len(gone)} draft(s): {', '.join(gone)}.\n")
    return ExitCode.OK


def _restore(root: Path, args: argparse.Namespace, swept: Sweep) -> int:
    draft = restore_draft(root, args.id)
    if args.json:
        print_json(versioned({**draft.summary_json(), "expired": swept.to_json()}))
    else:
        sys.stderr.write(f"lore: the draft {draft.id} is back in the inbox.\n")
    return ExitCode.OK
