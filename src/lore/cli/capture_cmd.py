"""`lore capture --transcript PATH`: distil a session log into draft notes with a model.

Argument parsing and output only; the work is `lore.team.capture`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from lore.cli.options import add_json, add_timeout, add_vault
from lore.errors import ExitCode, UsageError

EPILOG = """\
examples:
  lore capture --transcript ~/.claude/projects/-home-me-payments-api/4f1c….jsonl
  lore capture --transcript ~/.codex/sessions/2026/11/02/rollout-2026-11-02T10-12-03-….jsonl
  lore capture --transcript session.jsonl --model claude-haiku-4.5 --json

Reads one Claude Code or Codex session log, asks a model for at most three candidate
notes in the vault's format, checks them with the curator and saves them as drafts
(`lore drafts` to read, edit and propose them). Nothing is proposed and nothing is
pushed. The log is untrusted data: characters that hide text are removed, every
secret the curator's scan knows is masked before anything is sent, tool output is
cut short and the whole is capped at about 48,000 characters.

The model: the one the vault's lore.toml names under [curator.semantic] (provider,
model, endpoint, api_key_env; the review need not be enabled), or --model ID for a
model of the llm library. Without one, lore capture says so, sends nothing and exits
with 2: there is nothing it can do until a model is named.
Exit codes: 0 drafts saved (or none worth saving), 1 curator errors in a saved draft
or the model failed, 2 bad input or no model.
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
    add_json(parser)
    add_vault(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from lore.team.capture import capture
    from lore.vaults import one_vault

    if args.timeout <= 0:
        raise UsageError("--timeout must be a positive number of seconds.")
    root = one_vault(args.vault).root
    result = capture(
        root, Path(args.transcript).expanduser(), model=args.model, timeout=args.timeout
    )
    errors = any(saved.errors for saved in result.saved)
    if args.json:
        from lore.cli.output import print_json

        print_json(result.to_json())
        return ExitCode.PROBLEMS_FOUND if errors else ExitCode.OK
    from lore.cli.output import console, notice, safe

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
