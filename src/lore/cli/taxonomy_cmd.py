"""`lore taxonomy`: the vault's vocabulary (types, tags, repos), for people or as JSON.

Argument parsing and output only; the vocabulary is `lore.vault.vocabulary`.
"""

from __future__ import annotations

import argparse
from typing import Any

from lore.cli.options import add_json, add_vault

DESCRIPTION = """\
Print the vault's controlled vocabulary: the note types, the tags (dimension/name,
with their definitions and aliases) and the repository names, as the vault's
committed _taxonomy.md has them (an edit that is not committed is not shown).

  lore taxonomy            a readable list
  lore taxonomy --json     one JSON object for agents: {"version": 1, "types": [...],
                           "tags": [...], "repos": [...], "conventions": "...", ...};
                           every field sanitized, labelled as reference data

The vault: --vault, else $LORE_VAULT, else the current folder when it is a vault,
else the config's default. Agents use this (or the MCP tool `taxonomy`) instead of
reading _taxonomy.md and _conventions.md themselves."""


def register(subparsers: Any, name: str, help_text: str) -> None:
    parser = subparsers.add_parser(name, help=help_text, description=DESCRIPTION)
    add_json(parser)
    add_vault(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from lore.vault.vocabulary import read_vocabulary, vocabulary_json
    from lore.vaults import one_vault

    vault = one_vault(args.vault)
    data = vocabulary_json(read_vocabulary(vault.root), name=vault.name, root=vault.root)
    if args.json:
        from lore.cli.output import print_json

        print_json(data)
        return 0
    _print_text(data)
    return 0


def _print_text(data: dict[str, Any]) -> None:
    from lore.cli.output import console, safe

    out = console()
    commit = data["vault"]["commit"]
    where = f" at {commit[:12]}" if commit else ""
    if not data["found"]:
        out.print(f"[yellow]The vault has no committed _taxonomy.md{safe(where)}.[/yellow]")
        return
    out.print(f"[dim]{safe(data['vault']['name'])}{safe(where)}[/dim]")

    def show(title: str, entries: list[dict[str, Any]]) -> None:
        out.print(f"\n[bold]{safe(title)}[/bold]")
        if not entries:
            out.print("  [dim](none)[/dim]")
        for entry in entries:
            line = f"  [cyan]{safe(entry['name'])}[/cyan]"
            if entry["definition"]:
                line += f" — {safe(entry['definition'])}"
            if entry["aliases"]:
                line += f" [dim](also: {safe(', '.join(entry['aliases']))})[/dim]"
            out.print(line)

    show("Types", data["types"])
    show("Repos", data["repos"])
    for dimension in data["dimensions"]:
        show(f"Tags: {dimension}/", [t for t in data["tags"] if t["dimension"] == dimension])
