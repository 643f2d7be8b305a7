"""`link/`: `[[id]]` links, `supersedes` and `depends_on` must name notes that exist.

They resolve against the vault as it will be once the change is in: the notes at
the base plus the ones the change adds, minus the ones it deletes. Links inside
code (`[[ -f x ]]` in a shell snippet) are not links. Whether a target is still
*active* is the `lifecycle/` family's question.
"""

from __future__ import annotations

import re

from lore.curator.context.model import CuratorContext, NoteView
from lore.curator.finding import ERROR, WARNING, Finding
from lore.curator.rules.text import did_you_mean, line_at, quote
from lore.note.ids import is_valid_id, slugify
from lore.text.markdown import CodeMap

NAME = "link"
RULES = {
    "link/unresolved": "a `[[id]]` link names no note in the vault",
    "link/invalid": "a `[[…]]` link does not hold a note id",
    "link/self": "a note links to itself (warning)",
    "link/supersedes-unresolved": "`supersedes` names a note that does not exist",
    "link/depends-on-unresolved": "`depends_on` names a note that does not exist",
}

WIKILINK = re.compile(r"\[\[([^\[\]\n]{1,300})\]\]")


def check(context: CuratorContext) -> list[Finding]:
    findings: list[Finding] = []
    for checked in context.notes:
        assert checked.view is not None
        findings += _check_note(checked.view, checked.display, context)
    return findings


def _closest(target: str, context: CuratorContext) -> str | None:
    scope = target.split("--", 1)[0]
    same_scope = [nid for nid in context.vault_ids if nid.startswith(scope + "--")]
    return did_you_mean(target, sorted(same_scope)) if same_scope else None


def _missing(target: str, context: CuratorContext) -> tuple[str, str]:
    """(why, fix) for a target id that is not in the vault."""
    if target in context.deleted:
        return (
            "which this change deletes",
            "Keep the old note in the vault: superseding it already takes it out of recall.",
        )
    guess = _closest(target, context)
    if guess:
        return "which is not in the vault", f"Did you mean '{guess}'?"
    return (
        "which is not in the vault",
        "Check the id (the note's file name without .md), or add that note first.",
    )


def _check_note(view: NoteView, path: str, context: CuratorContext) -> list[Finding]:
    findings: list[Finding] = []
    code = CodeMap(view.body)
    for match in WIKILINK.finditer(view.body):
        if match.start() in code:
            continue
        line = line_at(view.body, match.start(), view.body_line)
        target = match[1].split("|", 1)[0].split("#", 1)[0].strip()
        if target == view.id:
            findings.append(
                Finding(
                    "link/self", WARNING, path, line, "the note links to itself", "Remove the link."
                )
            )
        elif not is_valid_id(target):
            slug = slugify(target)
            fix = f"Did you mean [[{_closest(slug, context)}]]? " if _closest(slug, context) else ""
            findings.append(
                Finding(
                    "link/invalid",
                    ERROR,
                    path,
                    line,
                    f"[[{quote(match[1], 60)}]] is not a link to a note id",
                    fix
                    + "Link notes as [[scope--topic--YYYY-MM-DD]], their file name without .md.",
                )
            )
        elif target not in context.vault_ids:
            why, fix = _missing(target, context)
            findings.append(
                Finding(
                    "link/unresolved", ERROR, path, line, f"[[{target}]] links to a note {why}", fix
                )
            )
    for key, rule in (
        ("supersedes", "link/supersedes-unresolved"),
        ("depends_on", "link/depends-on-unresolved"),
    ):
        for target in getattr(view, key):
            if not is_valid_id(target) or target == view.id or target in context.vault_ids:
                continue  # malformed ids: frontmatter/invalid-reference; self: lifecycle/
            why, fix = _missing(target, context)
            findings.append(
                Finding(
                    rule, ERROR, path, view.line_of_key(key), f"{key} names {target}, {why}", fix
                )
            )
    return findings
