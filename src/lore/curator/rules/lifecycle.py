"""`lifecycle/`: supersedes, expires and depends_on make sense (DESIGN.md 2.1).

A note must not arrive dead: expired, or depending on a note that is not active.
It should not supersede a note that is already out of recall, itself, or a note
that supersedes it back. In a full audit (`--all`) the notes are already in the
vault, so expiry and stale dependencies are warnings for the gardener rather than
errors. A note that replaces an active note without listing it gets
`lifecycle/may-supersede` (`lore.curator.rules.supersession`).
"""

from __future__ import annotations

import re

from lore.curator.context.model import CuratorContext, NoteView
from lore.curator.finding import ERROR, WARNING, Finding
from lore.curator.rules import supersession
from lore.note.ids import is_valid_id
from lore.note.status import Status

NAME = "lifecycle"
RULES = {
    "lifecycle/expired": "`expires` is in the past (a warning in a full audit)",
    "lifecycle/expires-before-date": "`expires` is not after `date`",
    "lifecycle/supersedes-self": "a note lists itself in `supersedes`",
    "lifecycle/depends-on-self": "a note lists itself in `depends_on`",
    "lifecycle/supersedes-inactive": "`supersedes` names a note that is already out of recall "
    "(warning)",
    "lifecycle/supersession-cycle": "two notes supersede each other",
    "lifecycle/depends-on-inactive": "`depends_on` names a note that is not active, so this one "
    "is stale (a warning in a full audit)",
    "lifecycle/depends-on-superseded": "a note depends on a note it supersedes",
    supersession.RULE: supersession.DESCRIPTION,
}

_ISO = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def check(context: CuratorContext) -> list[Finding]:
    return check_notes(context) + supersession.check(context)


def check_notes(context: CuratorContext) -> list[Finding]:
    """Every rule of the family but `lifecycle/may-supersede`, which judges pairs."""
    findings: list[Finding] = []
    supersedes = _Supersedes(context)
    superseders = _active_superseders(context) if context.audit else {}
    for checked in context.notes:
        assert checked.view is not None
        findings += _check_note(
            checked.view, checked.display, context, supersedes=supersedes, superseders=superseders
        )
    return findings


class _Supersedes:
    """What a note supersedes: a note under review's own list, else the vault's note's."""

    def __init__(self, context: CuratorContext) -> None:
        self.context = context
        self.checked = {c.view.id: c.view.supersedes for c in context.notes if c.view is not None}

    def get(self, note_id: str, default: tuple[str, ...] = ()) -> tuple[str, ...]:
        if note_id in self.checked:
            return self.checked[note_id]
        note = self.context.existing.get(note_id)
        return note.supersedes if note is not None else default


def _active_superseders(context: CuratorContext) -> dict[str, list[str]]:
    """target id -> the active checked notes that supersede it."""
    found: dict[str, list[str]] = {}
    for checked in context.notes:
        view = checked.view
        if view is None or view.id in context.statuses_after:
            continue
        for target in view.supersedes:
            found.setdefault(target, []).append(view.id)
    for ids in found.values():
        ids.sort()
    return found


def _inactive_before(
    context: CuratorContext, view: NoteView, target: str, superseders: dict[str, list[str]]
) -> Status | None:
    """Why `target` is out of recall regardless of `view`, if it is."""
    if not context.audit:
        return context.statuses_before.get(target)
    status = context.statuses_after.get(target)
    if status is None:
        return None
    if status.superseded_by == view.id:
        others = [nid for nid in superseders.get(target, ()) if nid != view.id]
        return (
            Status(False, f"superseded by {others[0]}", superseded_by=others[0]) if others else None
        )
    return status


def _check_note(
    view: NoteView,
    path: str,
    context: CuratorContext,
    *,
    supersedes: _Supersedes,
    superseders: dict[str, list[str]],
) -> list[Finding]:
    findings: list[Finding] = []
    aging = WARNING if context.audit else ERROR

    def add(rule: str, key: str, message: str, fix: str, severity: str = ERROR) -> None:
        findings.append(Finding(rule, severity, path, view.line_of_key(key), message, fix))

    if view.expires and _ISO.match(view.expires):
        if view.expires < context.today:
            add(
                "lifecycle/expired",
                "expires",
                f"the note expired on {view.expires}, so recall already ignores it",
                "Remove the note, or set a later expires date if it still holds.",
                aging,
            )
        if view.date and _ISO.match(view.date) and view.expires <= view.date:
            add(
                "lifecycle/expires-before-date",
                "expires",
                f"expires ({view.expires}) is not after date ({view.date})",
                "Set expires to the day the knowledge stops being true.",
            )
    for target in view.supersedes:
        if target == view.id:
            add(
                "lifecycle/supersedes-self",
                "supersedes",
                "the note supersedes itself",
                "Remove its own id from supersedes.",
            )
            continue
        if not is_valid_id(target) or target not in context.vault_ids:
            continue  # link/supersedes-unresolved says so
        if view.id in supersedes.get(target, ()):
            add(
                "lifecycle/supersession-cycle",
                "supersedes",
                f"{target} supersedes this note, and this note supersedes {target}",
                "Keep the supersession in the newer note only.",
            )
            continue
        status = _inactive_before(context, view, target, superseders)
        if status is not None:
            add(
                "lifecycle/supersedes-inactive",
                "supersedes",
                f"{target} is already out of recall ({status.reason})",
                "Supersede the note that replaced it instead, or drop it from supersedes.",
                WARNING,
            )
        if target in view.depends_on:
            add(
                "lifecycle/depends-on-superseded",
                "depends_on",
                f"the note both supersedes and depends on {target}",
                "A note cannot rely on what it replaces: remove it from one of the two.",
            )
    for target in view.depends_on:
        if target == view.id:
            add(
                "lifecycle/depends-on-self",
                "depends_on",
                "the note depends on itself",
                "Remove its own id from depends_on.",
            )
            continue
        if target in view.supersedes or target not in context.vault_ids:
            continue
        status = context.statuses_after.get(target)
        if status is not None:
            add(
                "lifecycle/depends-on-inactive",
                "depends_on",
                f"it depends on {target}, which is not active ({status.reason}), so this "
                "note is stale",
                "Update the note for the current state, or drop the dependency.",
                aging,
            )
    return findings
