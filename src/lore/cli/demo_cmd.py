"""`lore demo`: build the demo vault and show recall working on it."""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path
from typing import Any

from lore.cli.output import console, safe, typed_command
from lore.cli.recall_view import show_result
from lore.demo import build_demo_vault
from lore.errors import UsageError
from lore.recall.engine import recall
from lore.recall.model import RecallRequest

DEMO_QUERIES = (
    (
        "Ranking: title and tags weigh more than body text",
        "postgres connection pool errors",
        "payments-api",
    ),
    (
        "Aliases: 'sso' is an alias of the service/auth tag; no note says it",
        "sso sign-in broken for enterprise customers",
        None,
    ),
    (
        "A superseded note is replaced by the note that replaced it",
        "session pooling pgbouncer",
        None,
    ),
    (
        "Repo boost: the same question from the web-app repository",
        "retry failed requests",
        "web-app",
    ),
)


def register(sub: Any, name: str, help_text: str) -> None:
    parser = sub.add_parser(
        name,
        help=help_text,
        description="Create a demo vault (64 notes from a fictional company, Acme, as a real git "
        "repository) and run a few recalls that show ranking, aliases, supersession and the "
        "repository boost, with --explain.",
    )
    parser.add_argument(
        "path",
        nargs="?",
        help="an empty or new folder for the vault (default: a new temporary folder)",
    )
    parser.add_argument(
        "--quiet", action="store_true", help="only create the vault; run no recalls"
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if args.path:
        dest = Path(args.path).expanduser()
        if dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
            raise UsageError(f"{dest} is not an empty folder.", fix="Name a new or empty folder.")
    else:
        dest = Path(tempfile.mkdtemp(prefix="lore-demo-"))
    commit = build_demo_vault(dest)
    out = console()
    lore = safe(typed_command())  # `.venv/bin/lore` when that is how the demo was run
    out.print(f"[bold green]Demo vault created[/] at {safe(str(dest))} (commit {commit[:12]}).")
    if args.quiet:
        return 0

    for heading, query, repo in DEMO_QUERIES:
        where = f" --repo {repo}" if repo else ""
        out.rule(f"[bold]{safe(heading)}[/]")
        typed = f'{lore} recall --vault {safe(str(dest))} "{safe(query)}"{where}'
        out.print(f"$ {typed} --limit 3 --explain\n")
        result = recall(dest, RecallRequest(query=query, repo=repo, limit=3, explain=True))
        show_result(result, vault_root=dest, explain=True)
    out.rule()
    out.print("Try your own questions:")
    out.print(f"  export LORE_VAULT={safe(str(dest))}")
    out.print(f"  {lore} recall how do we run database migrations --explain")
    out.print(f"  {lore} show postgres--pgbouncer-transaction-pooling--2025-03-11")
    out.print(f"  {lore} index")
    out.print(f"  {lore} site --open          # the vault as a website")
    return 0
