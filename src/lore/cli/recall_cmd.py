"""`lore recall QUERY…`: ranked recall from the vault's index."""

from __future__ import annotations

from pathlib import Path

from lore.errors import UsageError

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from typing import Any

EPILOG = """\
examples:
  lore recall why do billing integration tests use httpx
  lore recall "pg connection pool exhausted" --repo payments-api --explain
  lore recall ECONNRESET --type gotcha --json
  lore recall src/billing/webhooks.py --limit 3

The query is plain words: every word is searched for (OR), stop words are
dropped, taxonomy aliases are expanded, and notes are ranked by BM25 (title and
tags above body) with gentle boosts for the current repository, confidence and
recency. Inactive notes (superseded, expired) are left out unless --all; a match
on a superseded note returns the note that replaced it.

With several vaults registered (`lore vaults`), all of them are searched and each
result names its vault; --vault PATH or --vault NAME searches one.
"""


def register(sub: Any, name: str, help_text: str) -> None:
    from lore.cli.options import add_json, add_vault

    parser = sub.add_parser(
        name,
        help=help_text,
        description="Find the notes that answer a question, ranked.",
        epilog=EPILOG,
    )
    parser.add_argument("query", nargs="+", help="what to look for, in plain words")
    parser.add_argument(
        "--repo",
        metavar="NAME",
        help="boost notes about this repository (default: the repository of the current "
        "directory, from its git remote); --repo '' turns the boost off",
    )
    parser.add_argument(
        "--type",
        action="append",
        default=[],
        metavar="TYPE",
        help="only notes of this type (repeatable)",
    )
    parser.add_argument(
        "--tag",
        action="append",
        default=[],
        metavar="TAG",
        help="only notes with this tag, e.g. tool/postgres (repeatable; all must match)",
    )
    parser.add_argument(
        "--limit", type=int, default=10, metavar="N", help="at most N results (default 10)"
    )
    parser.add_argument(
        "--all",
        action="store_true",
        dest="include_inactive",
        help="include inactive notes (superseded, expired, stale)",
    )
    parser.add_argument(
        "--explain",
        action="store_true",
        help="show how each score was made: each term's idf and BM25, then each boost",
    )
    add_json(parser)
    add_vault(parser, every=True)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from lore.recall.model import RecallRequest
    from lore.recall.multi import recall_many
    from lore.vault.git import current_repo_name
    from lore.vaults import search_vaults

    query = " ".join(args.query).strip()
    if not query:
        raise UsageError(
            "The query is empty.", fix="Say what to look for, e.g. `lore recall postgres timeouts`."
        )
    if not 1 <= args.limit <= 1000:
        raise UsageError(f"--limit must be between 1 and 1000, not {args.limit}.")
    vaults = search_vaults(args.vault)
    repo = args.repo if args.repo is not None else current_repo_name(Path.cwd())
    request = RecallRequest(
        query=query,
        repo=(repo or None) and repo.lower(),
        types=tuple(t.lower() for t in args.type),
        tags=tuple(t.lower() for t in args.tag),
        limit=args.limit,
        include_inactive=args.include_inactive,
        explain=args.explain,
    )
    check = None
    if request.types or request.tags or args.repo:
        from lore.recall.filters import Filters

        check = Filters(
            types=request.types, tags=request.tags, repo=request.repo if args.repo else None
        )
    result = recall_many(vaults, request, check)
    if args.json:
        from lore.cli.output import print_json
        from lore.recall.model import recall_json

        print_json(recall_json(result, explain=args.explain))
        for message in result.notices:
            from lore.cli.output import notice

            notice(message)
        return 0
    from lore.cli.recall_view import show_result

    show_result(result, vault_root=result.vaults[0].root, explain=args.explain)
    return 0
