"""`lore show ID`: print one note as the vault has it committed."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from lore.cli.options import add_json, add_vault
from lore.errors import NoteNotFound, UsageError
from lore.note.model import Note
from lore.sanitize import sanitize_markdown


def register(sub: Any, name: str, help_text: str) -> None:
    parser = sub.add_parser(
        name,
        help=help_text,
        description="Print one note by id, as committed in the vault (the file without "
        "unreviewed local edits). On a terminal the note is laid out for reading; piped "
        "to a program it is the committed file as it is. Either way, characters and "
        "markup that could hide or fetch content (which the curator refuses in review) "
        "are removed.",
        epilog="example:\n  lore show postgres--pgbouncer-transaction-pooling--2025-03-11",
    )
    parser.add_argument("id", help="the note id: its file name without .md")
    add_json(parser)
    add_vault(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from lore.index.notes import get_note, similar_ids
    from lore.note.ids import MAX_ID_LENGTH
    from lore.vaults import one_vault

    note_id = args.id.strip()
    if note_id.endswith(".md"):
        note_id = note_id.rsplit("/", 1)[-1][:-3]
    if not note_id or len(note_id) > MAX_ID_LENGTH or not note_id.isprintable():
        raise UsageError(
            f"'{note_id[:80]}' is not a note id.", fix="Ids look like scope--topic--2026-11-02."
        )
    vault = one_vault(args.vault)
    notices: list[str] = []  # the index was rebuilt, or read from the files instead
    found = get_note(vault.root, note_id, notices=notices)
    if notices:
        from lore.cli.output import notice

        for text in notices:
            notice(text)
    if found is None:
        close = similar_ids(vault.root, note_id)
        if close and close[0].startswith(note_id):
            hint = "Ids that start with it: " + ", ".join(close) + "."
        elif close:
            hint = f"Did you mean {close[0]}?"
        else:
            hint = "Find it with `lore recall WORDS`."
        raise NoteNotFound(f"No note has the id '{note_id}' in {vault.root}.", fix=hint)
    note, status = found
    # Every view of a note masks what the secret scan finds, whatever reached the vault.
    from lore.sanitize.secret_scan import mask_secrets, mask_secrets_in

    if args.json:
        from lore.cli.output import print_json
        from lore.note.as_json import note_json
        from lore.vault.snapshot import current_version

        version = current_version(vault.root)
        commit = version[1] or None if version else None
        print_json(mask_secrets_in(note_json(note, status, vault=vault.name, commit=commit)))
        return 0
    if not sys.stdout.isatty():
        sys.stdout.write(mask_secrets(_committed_text(vault.root, note)))
        return 0
    from lore.cli.output import console, safe
    from lore.note.render import render_note

    out = console()
    if status:
        out.print(f"[red]inactive: {safe(status)}[/]")
    out.print(safe(mask_secrets(sanitize_markdown(render_note(note)))), end="")
    return 0


def _committed_text(root: Path, note: Note) -> str:
    """The note's file as committed, for programs: exact when review let it in unchanged."""
    from lore.note.render import render_note
    from lore.vault.snapshot import read_committed, take_snapshot

    raw = read_committed(root, take_snapshot(root), note.path)
    try:
        text = raw.decode("utf-8") if raw is not None else render_note(note)
    except UnicodeDecodeError:
        text = render_note(note)
    return sanitize_markdown(text)
