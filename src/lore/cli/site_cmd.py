"""`lore site OUT`: a static website of the vault's reviewed notes (`--open` to look at it)."""

from __future__ import annotations

import argparse
import tempfile
import webbrowser
from pathlib import Path
from typing import Any

from lore.cli.options import add_json, add_vault
from lore.cli.output import DelayedProgress, console, notice, print_json, safe
from lore.errors import ExitCode, UsageError
from lore.site.build import build_site
from lore.vaults import one_vault
from lore.versioned import versioned

EPILOG = """\
examples:
  lore site --open                 build into a temporary folder and open it
  lore site public/                build into public/ (replaced on the next build)
  lore site _site --vault-visibility private   as the publishing workflow does

The site shows what recall serves: the notes of the vault's reviewed branch (the
remote's default branch as fetched), never the work tree or an unmerged branch. It
needs no server and fetches nothing from anywhere: open index.html from disk, or
publish the folder (docs/site.md).
"""


def register(sub: Any, name: str, help_text: str) -> None:
    parser = sub.add_parser(
        name,
        help=help_text,
        description="Build a static website of the vault's reviewed notes: a page per note "
        "with what it replaces and what replaced it, lists by repository, type and tag, "
        "inactive, expiring and drift-flagged notes, the vault's pulse, a map of what "
        "replaced what, and search in the page. Notes are rendered with raw HTML off, "
        "and every page allows only the site's own script.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "out",
        nargs="?",
        metavar="OUT",
        help="the folder to write: new, empty, or an earlier `lore site` (which is replaced)",
    )
    parser.add_argument(
        "--open",
        action="store_true",
        help="open the site in your browser when it is built (without OUT: build it into a "
        "new temporary folder)",
    )
    parser.add_argument(
        "--vault-visibility",
        metavar="VISIBILITY",
        help="the vault repository's visibility on GitHub (public, private, internal), for "
        "a site to be published: anything but public is refused unless lore.toml on the "
        "reviewed branch sets [site] publish_private = true",
    )
    add_json(parser)
    add_vault(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if args.out is None and not args.open:
        raise UsageError(
            "Name the folder to write the site into, or pass --open.",
            fix="lore site OUT, or lore site --open to look at it now.",
        )
    vault = one_vault(args.vault)
    out = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="lore-site-"))
    progress = DelayedProgress("Building the site")
    try:
        report = build_site(
            vault.root,
            out,
            name=vault.name,
            visibility=args.vault_visibility,
            progress=progress,
        )
    finally:
        progress.close()
    for text in report.notices:
        notice(text)
    page = report.out / "index.html"
    if args.json:
        print_json(versioned(report.to_json()))
    else:
        shown = f"{report.branch} at {report.commit[:12]}" if report.commit else "the files"
        out_text = console()
        out_text.print(
            f"Built the site of {report.notes} notes ({shown}): {report.pages} pages, a "
            f"search index of {report.search_index_bytes / 1024:,.0f} kB."
        )
        out_text.print(f"Open {safe(page.as_uri())}")
    if args.open and not webbrowser.open(page.as_uri()):
        notice(f"No browser could be started: open {page.as_uri()} yourself.")
    return ExitCode.OK
