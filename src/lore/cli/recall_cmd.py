"""`lore recall QUERY…`: ranked recall from the vault's index."""

from __future__ import annotations

from pathlib import Path

from lore.errors import UsageError

MAX_OTHER_PHRASINGS = 3  # `lore.recall.fusion.MAX_PHRASINGS` less the query

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from typing import Any

    from lore.recall.changes import ChangesResult
    from lore.recall.filters import Filters
    from lore.recall.model import RecallRequest
    from lore.vaults import VaultRef

EPILOG = """\
examples:
  lore recall why do billing integration tests use httpx
  lore recall pgbouncer connection pooling --or "postgres pool exhausted" --json
  lore recall "pg connection pool exhausted" --repo payments-api --explain
  lore recall ECONNRESET --type gotcha --json
  lore recall src/billing/webhooks.py --limit 3
  lore recall --since 2026-11-01          what was added or changed since that day
  lore recall deploys --since a1b2c3d     recall among the notes changed since a commit

The query is plain words: every word is searched for (OR), stop words are
dropped, taxonomy aliases are expanded, and notes are ranked by BM25 (title and
tags above body) with gentle boosts for the current repository, confidence and
recency. Inactive notes (superseded, expired) are left out unless --all; a match
on a superseded note returns the note that replaced it.

Search well: name the subject in the words the team's note would use (the service,
the tool, the practice), then try other vocabulary with --or; each phrasing is
ranked on its own and the lists are fused by rank (a note found by several rises),
so a good phrasing is never drowned by a weak one. Filter with --type when you
know the kind of note.

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
    parser.add_argument(
        "query",
        nargs="*",
        help="what to look for, in plain words (optional with --since: then every change)",
    )
    parser.add_argument(
        "--or",
        action="append",
        default=[],
        dest="also",
        metavar="ALT",
        help=f"another phrasing of the same question, quoted (repeatable, up to "
        f"{MAX_OTHER_PHRASINGS}): each is ranked alone and the lists are fused by rank",
    )
    parser.add_argument(
        "--since",
        metavar="DATE|COMMIT",
        help="only notes added or changed on the reviewed branch since that day "
        "(YYYY-MM-DD) or commit; without a query, list them newest first",
    )
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
        help="show how each score was made: each term's idf and BM25, then each boost "
        "(with --or, each phrasing's rank of every hit too)",
    )
    add_json(parser)
    add_vault(parser, every=True)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from lore.recall.model import RecallRequest
    from lore.vault.git import current_repo_name
    from lore.vaults import search_vaults

    query = " ".join(args.query).strip()
    also = tuple(" ".join(text.split()) for text in args.also)
    since = args.since
    if also and not query:
        raise UsageError(
            "--or gives another phrasing of the query, and there is no query.",
            fix='Put the first phrasing before it: `lore recall pgbouncer pooling --or "pg pool"`.',
        )
    if not query and since is None:
        raise UsageError(
            "The query is empty.", fix="Say what to look for, e.g. `lore recall postgres timeouts`."
        )
    if "" in also:
        raise UsageError('--or needs words, e.g. `--or "connection pool exhausted"`.')
    if len(also) > MAX_OTHER_PHRASINGS:
        raise UsageError(
            f"--or is given {len(also)} times; recall takes at most {MAX_OTHER_PHRASINGS} other "
            "phrasings.",
            fix="Keep the phrasings that name the subject in the words a note would use.",
        )
    if not 1 <= args.limit <= 1000:
        raise UsageError(f"--limit must be between 1 and 1000, not {args.limit}.")
    vaults = search_vaults(args.vault)
    repo = args.repo if args.repo is not None else current_repo_name(Path.cwd())
    request = RecallRequest(
        query=query,
        also=also,
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
    if since is not None:
        return _since(args, since, vaults, request, check)
    return _recall(args, vaults, request, check)


def _recall(
    args: argparse.Namespace,
    vaults: list[VaultRef],
    request: RecallRequest,
    check: Filters | None,
    *,
    changed: ChangesResult | None = None,
) -> int:
    from lore.recall.multi import recall_many

    result = recall_many(vaults, request, check)
    if changed is not None:
        from lore.recall.changes import within

        within(result, changed)
    if args.json:
        from lore.cli.output import print_json
        from lore.recall.model import recall_json

        data = recall_json(result, explain=args.explain)
        if changed is not None:
            data["since"] = changed.since.text
        print_json(data)
        for message in result.notices:
            from lore.cli.output import notice

            notice(message)
        return 0
    from lore.cli.recall_view import show_result

    show_result(result, vault_root=result.vaults[0].root, explain=args.explain)
    return 0


def _since(
    args: argparse.Namespace,
    text: str,
    vaults: list[VaultRef],
    request: RecallRequest,
    check: Filters | None,
) -> int:
    """`--since`: what changed, newest first; with a query, recall among those notes."""
    from lore.recall.changes import Since, changes_json, changes_many

    since = Since(text)
    if not since.text:
        raise UsageError("--since needs a day (YYYY-MM-DD) or a commit of the vault.")
    if request.query:
        changed = changes_many(vaults, since, request, check, every=True)
        request.ids = changed.ids()
        return _recall(args, vaults, request, check, changed=changed)
    found = changes_many(vaults, since, request, check)
    if args.json:
        from lore.cli.output import notice, print_json

        print_json(changes_json(found))
        for message in found.notices:
            notice(message)
        return 0
    from lore.cli.recall_view import show_changes

    show_changes(found)
    return 0
