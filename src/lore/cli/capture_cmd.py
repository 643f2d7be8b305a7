"""`lore capture --transcript PATH`: distil a session log into draft notes with a model.

Argument parsing and output only; the work is `lore.team.capture`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from lore.cli.options import add_dry_run, add_json, add_timeout, add_vault
from lore.cli.output import console, notice, print_json, safe
from lore.errors import ExitCode, LoreError, UsageError
from lore.team.capture import capture, plan_capture
from lore.team.proposals.note import failure_json
from lore.vaults import one_vault

EPILOG = """\
examples:
  lore capture --transcript ~/.claude/projects/-home-me-payments-api/4f1c….jsonl
  lore capture --transcript ~/.codex/sessions/2026/11/02/rollout-2026-11-02T10-12-03-….jsonl
  lore capture --transcript session.jsonl --model claude-haiku-4.5 --json
  lore capture --transcript session.jsonl --dry-run     # what would be sent, and where

Reads one Claude Code or Codex session log, asks a model for at most three candidate
notes in the vault's format, checks them with the curator and saves them as drafts
(`lore drafts` to read, edit and propose them). Nothing is proposed and nothing is
pushed.

What leaves your machine: the session log, minus the secrets lore's scan recognises
(keys, tokens, passwords in the forms it knows are masked), with the vault's
vocabulary and conventions. A secret written as prose ("the VPN pre-shared key is
...") is not recognised and is sent as written: read the log first, or look at exactly
what would be sent with --dry-run, which sends nothing. Characters that hide text are
removed, tool output is cut short and the whole is capped at about 48,000 characters.

The model: the one [curator.semantic] names (provider, model, endpoint, api_key_env)
when it is turned on there (enabled = true) -- in the vault's lore.toml as its reviewed
branch has it, never a checkout's, or in your own config ($LORE_CONFIG), which wins --
or --model ID for a model of the llm library. A key goes only to the provider's
public API or to an endpoint your own config names. Without a model, with it turned
off, or on a checkout whose lore.toml is not the reviewed one, lore capture says why,
sends nothing and exits with 2.
Exit codes: 0 drafts saved (or none worth saving, or a dry run), 1 curator errors in a
saved draft or the model failed, 2 bad input or no model.
"""


def register(sub: Any, name: str, help_text: str) -> None:
    parser = sub.add_parser(
        name,
        help=help_text,
        description="Ask a model which lessons of one agent session deserve a note, and "
        "save at most three as drafts for you to review (`lore drafts`).",
        epilog=EPILOG,
    )
    parser.add_argument(
        "--transcript",
        required=True,
        metavar="PATH",
        help="a Claude Code or Codex session log (.jsonl)",
    )
    parser.add_argument(
        "--model", metavar="ID", help="an llm model id or alias instead of the vault's model"
    )
    add_timeout(parser, default=120.0)
    add_dry_run(parser)
    add_json(parser)
    add_vault(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """`lore capture`; with `--json`, a failure is a JSON object too (and one line on stderr)."""
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
    root = one_vault(args.vault).root
    if args.dry_run:
        return _dry_run(root, args)
    result = capture(
        root, Path(args.transcript).expanduser(), model=args.model, timeout=args.timeout
    )
    errors = any(saved.errors for saved in result.saved)
    if args.json:
        print_json(result.to_json())
        return ExitCode.PROBLEMS_FOUND if errors else ExitCode.OK

    for message in result.notices:
        notice(message)
    transcript = result.transcript
    sys.stderr.write(
        f"lore: sent {result.sent_chars:,} characters of {transcript.agent} session "
        f"({len(transcript.turns)} messages, {transcript.secrets_masked} secret(s) masked"
        f"{f', {result.left_out} left out' if result.left_out else ''}) to {result.model}.\n"
    )
    out = console()
    for skipped in result.skipped:
        out.print(
            f"[yellow]Left out[/] {safe(skipped['title'] or '(untitled)')}: "
            f"{safe(skipped['reason'])}"
        )
    if not result.saved:
        if result.skipped:
            out.print("No draft was saved.")
        else:
            out.print("The model found nothing in this session worth a note; no draft was saved.")
        return ExitCode.OK
    for saved in result.saved:
        errors_found = len(saved.errors)
        warnings_found = len(saved.findings) - errors_found
        check = "[green]no findings[/]"
        if saved.findings:
            check = f"[red]{errors_found} error(s)[/], {warnings_found} warning(s)"
        out.print(f"[cyan]{safe(saved.draft.id)}[/] {safe(saved.draft.title)} ({check})")
    out.print(
        f"Saved {len(result.saved)} draft(s); nothing was proposed. Read them with "
        "`lore drafts show ID`, propose the ones worth keeping with `lore drafts propose ID…`."
    )
    return ExitCode.PROBLEMS_FOUND if errors else ExitCode.OK


def _dry_run(root: Path, args: argparse.Namespace) -> int:
    """`--dry-run`: the system prompt and the message as they would be sent; nothing is."""
    plan = plan_capture(root, Path(args.transcript).expanduser(), model=args.model)
    if args.json:
        print_json(plan.to_json())
        return ExitCode.OK
    for message in plan.where.notices + plan.transcript.notices:
        notice(message)
    where = plan.where
    transcript = plan.transcript
    if where.refused:
        head = f"Nothing would be sent: {where.refused}."
    else:
        key = f" (key from ${where.key_env})" if where.url else ""
        head = f"Would send to {where.label}{key}:"
    parts = [
        head,
        f"----- system prompt ({len(plan.system):,} characters) -----",
        plan.system,
        f"----- message ({len(plan.prompt):,} characters: {len(transcript.turns)} messages of "
        f"the {transcript.agent} session, {transcript.secrets_masked} secret(s) masked"
        f"{f', {plan.left_out} left out' if plan.left_out else ''}) -----",
        plan.prompt,
        "----- end -----",
        "Dry run: nothing was sent. The fences' random marker is drawn again on each run.",
    ]
    sys.stdout.write("\n".join(parts) + "\n")
    return ExitCode.OK
