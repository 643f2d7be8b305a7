"""`filename/`: where a note lives and what it is called (DESIGN.md 2.1).

A note is `notes/<id>.md` with `<id>` = `{scope}--{topic}--{YYYY-MM-DD}`; the id is
the file name. Nothing else belongs in `notes/`, notes belong nowhere else, and no
change may add a symlink or a submodule (either can point a reader outside the
vault). Two ids that differ only by case or Unicode normalisation collide on
macOS and Windows checkouts.
"""

from __future__ import annotations

import re
import unicodedata
from collections import defaultdict
from datetime import date

from lore.curator.context.model import (
    SUBMODULE_MODE,
    SYMLINK_MODE,
    CheckedFile,
    CuratorContext,
    collision_key,
    is_archive_path,
    is_note_path,
)
from lore.curator.finding import ERROR, Finding
from lore.curator.rules.text import quote
from lore.note.ids import MAX_ID_LENGTH, is_valid_id, slugify
from lore.note.parse import note_id_from_path
from lore.paths import NOTES_DIR

NAME = "filename"
RULES = {
    "filename/invalid-id": "the file name is not `{scope}--{topic}--{YYYY-MM-DD}.md`",
    "filename/not-in-notes": "a note outside `notes/` (or in a sub-folder of it)",
    "filename/not-markdown": "a file in `notes/` that is not a `.md` note",
    "filename/collision": "two note ids that differ only by case or Unicode normalisation",
    "filename/symlink": "the change adds a symbolic link",
    "filename/submodule": "the change adds a git submodule",
}

_ALLOWED_IN_NOTES = frozenset({".gitkeep"})


def check(context: CuratorContext) -> list[Finding]:
    findings: list[Finding] = []
    for checked in context.files:
        findings += _check_file(checked)
    findings += _collisions(context)
    return findings


def _check_file(checked: CheckedFile) -> list[Finding]:
    path, shown = checked.path, checked.display

    def finding(rule: str, message: str, fix: str) -> Finding:
        return Finding(rule, ERROR, shown, None, message, fix)

    if checked.mode == SYMLINK_MODE:
        return [
            finding(
                "filename/symlink",
                "this is a symbolic link, not a file",
                "Commit the file itself; links can point outside the vault.",
            )
        ]
    if checked.mode == SUBMODULE_MODE:
        return [
            finding(
                "filename/submodule",
                "this is a git submodule",
                "Remove the submodule; a vault holds only its own notes.",
            )
        ]
    name = path.rsplit("/", 1)[-1]
    in_notes = path.startswith(NOTES_DIR + "/")
    if not checked.is_note:
        if in_notes and name not in _ALLOWED_IN_NOTES:
            return [
                finding(
                    "filename/not-markdown",
                    f"'{quote(name, 60)}' is in notes/ but is not a markdown note",
                    "Only notes/<id>.md files belong in notes/; move or remove it.",
                )
            ]
        if is_archive_path(path) and is_valid_id(note_id_from_path(path)):
            return []  # archived by the gardener: out of recall, id and history kept
        if name.endswith(".md") and _looks_like_note(checked.raw):
            return [
                finding(
                    "filename/not-in-notes",
                    f"'{quote(path, 80)}' looks like a note but is not in notes/",
                    f"Move it to notes/{quote(name, 80)}; only notes/ is indexed.",
                )
            ]
        return []
    found: list[Finding] = []
    if not name.endswith(".md"):
        found.append(
            finding(
                "filename/not-markdown",
                f"'{quote(name, 60)}' does not end in .md",
                "Name the note notes/<id>.md.",
            )
        )
    elif not is_note_path(path):
        found.append(
            finding(
                "filename/not-in-notes",
                f"'{quote(path, 80)}' is not directly inside notes/",
                f"Move it to notes/{quote(name, 80)}; sub-folders are not indexed.",
            )
        )
    stem = note_id_from_path(path)
    if not is_valid_id(stem):
        reason = _why_invalid(stem)
        suggestion = _suggest_id(stem, checked)
        fix = "Rename the file to {scope}--{topic}--{YYYY-MM-DD}.md"
        fix += f", e.g. {suggestion}.md." if suggestion else "."
        found.append(
            finding(
                "filename/invalid-id", f"'{quote(stem, 80)}' is not a valid note id: {reason}", fix
            )
        )
    return found


def _looks_like_note(raw: bytes) -> bool:
    head = raw[:2048].decode("utf-8", "replace").lstrip("\ufeff").replace("\r\n", "\n")
    return head.startswith("---\n") and "\ntitle:" in head and "\ntype:" in head


def _why_invalid(stem: str) -> str:
    if len(stem) > MAX_ID_LENGTH:
        return f"it is {len(stem)} characters long (at most {MAX_ID_LENGTH})"
    if not stem.isascii():
        return "it contains characters outside lower-case ASCII"
    if stem != stem.lower():
        return "it contains upper-case letters"
    parts = stem.split("--")
    if len(parts) != 3:
        return "it needs three parts joined by '--': scope, topic and date"
    scope, topic, day = parts
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", day):
        return f"the last part '{quote(day, 20)}' is not a YYYY-MM-DD date"
    try:
        date.fromisoformat(day)
    except ValueError:
        return f"'{day}' is not a real calendar date"
    for part, label in ((scope, "scope"), (topic, "topic")):
        if not re.fullmatch(r"[a-z0-9]+(?:-[a-z0-9]+)*", part):
            return (
                f"the {label} '{quote(part, 40)}' may only use lower-case letters, digits "
                "and single hyphens"
            )
    return "it does not match {scope}--{topic}--{YYYY-MM-DD}"


def _suggest_id(stem: str, checked: CheckedFile) -> str | None:
    parts = [p for p in re.split(r"-{2,}|_{2,}|\s{2,}", stem) if p]
    day = None
    if parts and re.fullmatch(r"\d{4}-\d{2}-\d{2}", parts[-1]):
        day = parts.pop()
    view = checked.view
    if (
        day is None
        and view is not None
        and view.date
        and re.fullmatch(r"\d{4}-\d{2}-\d{2}", view.date)
    ):
        day = view.date
    if day is None:
        return None
    if len(parts) >= 2:
        scope, topic = slugify(parts[0], 3), slugify(" ".join(parts[1:]))
    elif parts:
        words = slugify(unicodedata.normalize("NFKC", parts[0]), 12).split("-")
        scope, topic = words[0], "-".join(words[1:])
    else:
        return None
    if not topic and view is not None and view.title:
        topic = slugify(view.title)
    candidate = f"{scope}--{topic}--{day}"
    return candidate if is_valid_id(candidate) else None


def _collisions(context: CuratorContext) -> list[Finding]:
    wanted = {
        collision_key(note_id_from_path(checked.path))
        for checked in context.files
        if checked.is_note and is_note_path(checked.path)
    }
    groups: dict[str, set[str]] = defaultdict(set)
    # The key of an ASCII id is its lower case: for a few notes under review, most of a
    # large vault is passed over without normalising it (one note on 100,000).
    few = len(wanted) * 10 < len(context.vault_paths)
    for path in context.vault_paths if wanted else ():
        if few:
            name = path.rsplit("/", 1)[-1]
            if name.isascii() and name.lower()[:-3] not in wanted:
                continue
        groups[collision_key(note_id_from_path(path))].add(path)
    findings: list[Finding] = []
    for checked in context.files:
        if not checked.is_note or not is_note_path(checked.path):
            continue
        others = sorted(
            groups.get(collision_key(note_id_from_path(checked.path)), set()) - {checked.path}
        )
        if others:
            findings.append(
                Finding(
                    "filename/collision",
                    ERROR,
                    checked.display,
                    None,
                    f"the id collides with {quote(others[0], 100)} on case-insensitive or "
                    "Unicode-normalising file systems",
                    "Choose a different id; ids are lower-case ASCII.",
                )
            )
    return findings
