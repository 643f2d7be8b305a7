"""The options several commands share, each defined here once with one help text.

A command adds its own options itself and calls these for the shared ones, so `--json`
or `--timeout` reads the same in every `lore COMMAND --help` (and in docs/cli.md). A
sub-action's copy (`lore drafts propose --json`) passes `again=True`: it may be given
after the action too, and leaves the command's value alone when it is not.

`lore recall` imports this module only when it builds a parser (its arguments are
not plain: `recall_args`), so argparse is loaded here at the top.
"""

from __future__ import annotations

import argparse
from typing import Any

VAULT_HELP = (
    "the vault: a folder or the name of a registered vault (default: the registered vault "
    "you stand in, then $LORE_VAULT, then the user config's default vault)"
)
EVERY_VAULT_HELP = (
    "only this vault: a folder or the name of a registered vault (default: the registered "
    "vault you stand in, then $LORE_VAULT, then every registered vault)"
)


def _again(again: bool) -> dict[str, Any]:
    """A repeat of an option on a sub-action keeps the command's value unless given."""
    if not again:
        return {}
    return {"default": argparse.SUPPRESS}


def add_json(parser: argparse.ArgumentParser, *, again: bool = False) -> None:
    parser.add_argument(
        "--json",
        action="store_true",
        help="print one JSON object on stdout (its shape: docs/cli.md)",
        **_again(again),
    )


def add_vault(parser: argparse.ArgumentParser, *, every: bool = False, again: bool = False) -> None:
    """`--vault`: the one vault a command uses, or (`every`) the only one of all the
    registered vaults it would otherwise act on."""
    parser.add_argument(
        "--vault",
        metavar="PATH",
        help=EVERY_VAULT_HELP if every else VAULT_HELP,
        **_again(again),
    )


def add_timeout(parser: argparse.ArgumentParser, *, default: float) -> None:
    parser.add_argument(
        "--timeout",
        type=float,
        default=default,
        metavar="SECONDS",
        help="give up on a server (the git remote, GitHub, a model) that does not answer "
        f"within this long (default {default:g})",
    )


def add_dry_run(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--dry-run",
        action="store_true",
        help="only check and show what would be done: nothing is written, sent, pushed or proposed",
    )


def add_yes(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--yes",
        "-y",
        action="store_true",
        help="answer yes to every question: keep everything and propose without asking",
    )


def add_force(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--force",
        action="store_true",
        help="propose despite curator errors (never despite a secret)",
    )


def add_resume(parser: argparse.ArgumentParser, *, metavar: str = "NAME") -> None:
    parser.add_argument(
        "--resume",
        metavar=metavar,
        help="finish a proposal that stopped: its commit, push or pull request "
        f"({metavar} is its branch without lore/)",
    )


def add_no_semantic(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--no-semantic",
        dest="semantic",
        action="store_false",
        help="skip the optional model review even when lore.toml enables it",
    )
