"""`lore init`: create a new vault from the template, locally or on GitHub."""

from __future__ import annotations

import argparse
import shlex
from typing import Any

from lore.cli.options import add_json
from lore.cli.output import console, notice, print_json, safe
from lore.team.init import init_vault
from lore.team.model_review_seed import SUMMARY

EPILOG = """\
examples:
  lore init ~/vaults/team
  lore init --github acme/team-memory --reviewers @acme/leads --protect
  gh lore init --github acme/team-memory      # runs the curator from this gh-lore commit

The vault gets the notes/ folder, _taxonomy.md and _conventions.md (edit both with
your team), lore.toml, the curator workflows and CODEOWNERS, as a git repository
with a first commit. It is registered in your config (the first vault becomes the
default) and indexed. With --github the repository is created with `gh repo
create`, labelled, pushed, and the branch protection it needs is printed — or
applied with --protect.

The curator, gardener and site workflows run lore's GitHub Action from one gh-lore
commit: --curator names it, else lore uses the commit it was installed from (the
gh extension's clone, a pip install of git+https://github.com/…/gh-lore@COMMIT,
or a clone of gh-lore). Without one, lore init names the lines to edit, and
--protect refuses: a required check that can never start blocks every pull request.
"""


def register(sub: Any, name: str, help_text: str) -> None:
    parser = sub.add_parser(
        name,
        help=help_text,
        description="Create a new vault from lore's template as a git repository, and "
        "optionally publish it on GitHub.",
        epilog=EPILOG,
    )
    parser.add_argument(
        "path",
        nargs="?",
        help="a new or empty folder (default: ./NAME with --github, else the current folder)",
    )
    parser.add_argument(
        "--github", metavar="OWNER/NAME", help="create this GitHub repository and push the vault"
    )
    visibility = parser.add_mutually_exclusive_group()
    visibility.add_argument(
        "--private",
        dest="visibility",
        action="store_const",
        const="private",
        help="a private repository (the default)",
    )
    visibility.add_argument(
        "--internal",
        dest="visibility",
        action="store_const",
        const="internal",
        help="an internal repository (GitHub Enterprise)",
    )
    visibility.add_argument(
        "--public",
        dest="visibility",
        action="store_const",
        const="public",
        help="a public repository",
    )
    parser.set_defaults(visibility="private")
    parser.add_argument(
        "--protect",
        action="store_true",
        help="apply the recommended branch protection to main through `gh api`",
    )
    parser.add_argument(
        "--reviewers",
        metavar="HANDLES",
        help="who reviews notes, for CODEOWNERS, e.g. '@acme/leads @octocat'",
    )
    parser.add_argument(
        "--curator",
        metavar="OWNER/gh-lore@COMMIT",
        help="the gh-lore repository and full commit the vault's workflows run, e.g. "
        "acme/gh-lore@<40-character commit> (default: the commit this lore was installed from)",
    )
    parser.add_argument("--name", help="the vault's name in your config (default: the folder's)")
    parser.add_argument(
        "--default", dest="make_default", action="store_true", help="make it the default vault"
    )
    parser.add_argument(
        "--no-register",
        dest="register",
        action="store_false",
        help="do not add it to your config",
    )
    add_json(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    result = init_vault(
        args.path,
        github=args.github,
        visibility=args.visibility,
        protect=args.protect,
        name=args.name,
        reviewers=args.reviewers,
        curator=args.curator,
        make_default=args.make_default,
        register_vault=args.register,
    )
    if args.json:
        print_json(result.to_json())
        return 0

    out = console()
    for message in result.notices:
        notice(message)
    out.print(
        f"[green]Created[/] the vault [bold]{safe(result.name)}[/] in {safe(str(result.path))}"
        f" [dim](commit {result.commit[:12]})[/]"
    )
    if args.register:
        out.print("Registered it" + (" as your default vault." if result.default else "."))
    if result.github:
        out.print(f"Published at {safe(result.github)}")
    if result.model_review:
        out.print(safe(SUMMARY))
    if result.pinned:
        out.print(
            f"The curator, gardener and site workflows run {safe(result.pinned.repo)}@"
            f"{result.pinned.commit[:12]} (v{safe(result.pinned.version)}, from "
            f"{safe(result.pin_source)})."
        )
    if result.protected:
        out.print("[green]Branch protection applied to main.[/]")
    elif result.settings:
        out.print("\n[bold]Recommended settings[/]")
        for line in result.settings:
            out.print(f"  {safe(line)}")
    if result.to_edit:
        out.print("\n[bold]Before the first proposal, edit[/]")
        for line in once_each(result.to_edit):
            out.print(f"  - {safe(line)}")
    out.print("\n" + safe(next_steps(args.github, str(result.path))))
    return 0


def next_steps(github: str | None, path: str) -> str:
    """What to do next: teammates connect to the shared remote, never to this folder."""
    if github:
        return f"Next: `lore remember` proposes a note; teammates run `lore connect {github}`."
    return (
        "Next: share the vault where your team can reach it, e.g. `gh repo create "
        f"OWNER/NAME --private --source {shlex.quote(path)} --push` (replace OWNER/NAME); "
        "teammates then run `lore connect OWNER/NAME`, and `lore remember` proposes notes "
        "to it as pull requests."
    )


def once_each(to_edit: list[str]) -> list[str]:
    """The things to edit, each instruction once: places that take the same edit (the two
    workflows' curator lines) are named together, `a:56 and b:51: replace …`."""
    places: dict[str, list[str]] = {}
    for line in to_edit:
        where, _, what = line.partition(": ")
        places.setdefault(what, []).append(where)
    return [f"{' and '.join(where)}: {what}" for what, where in places.items()]
