"""Saving drafts: a note checked like a proposal, refused with a secret, written atomically.

The checks are `lore remember`'s — every curator rule and the secret scan — run against
the vault's default branch as last fetched, so saving needs no network. A draft with a
secret is refused (`DraftRefused`): it is never written, and the refusal shows only the
mask. Several notes are checked together (`lore capture`'s candidates), so one that
repeats another is flagged too. An edit is checked again the same way (`update_draft`);
an edit with a secret leaves the draft as it was and is kept beside it, masked.
The store itself is `lore.team.drafts.inbox`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from lore import clock
from lore.curator.finding import Finding
from lore.curator.run import curate
from lore.curator.target import Drafts
from lore.errors import ProposalError
from lore.files import write_atomic
from lore.note.model import Note
from lore.note.parse import inspect_note
from lore.note.render import render_note
from lore.paths import NOTES_DIR
from lore.sanitize.secret_scan import redact, scan_secrets
from lore.team.drafts.draft import NoteInput, build_note, with_unique_id
from lore.team.drafts.inbox import (
    DRAFT_SUFFIX,
    FILE_MODE,
    META_SUFFIX,
    ORIGINS,
    Draft,
    draft_ids,
    edit_file,
    inbox_dir,
    inbox_lock,
)
from lore.team.proposals.branches import REMOTE, base_of, check_vault
from lore.vault import git
from lore.vault.resolved import Vault
from lore.versioned import versioned


class DraftRefused(ProposalError):
    """A draft was not saved: it holds what looks like a secret (exit 1, nothing written)."""

    def __init__(self, message: str, *, fix: str, findings: list[Finding], title: str) -> None:
        super().__init__(message, fix=fix)
        self.findings = findings
        self.title = title

    def to_json(self) -> dict[str, Any]:
        """The refusal as CLI `--json` and the MCP tool print it (findings show masks only)."""
        return versioned(
            {
                "status": "refused",
                "error": self.message,
                "fix": self.fix,
                "findings": [finding.to_json() for finding in self.findings],
            }
        )


@dataclass
class Saved:
    """A draft just saved (or re-saved after an edit) and the findings of its check."""

    draft: Draft
    findings: list[Finding]
    notices: list[str] = field(default_factory=list)

    @property
    def errors(self) -> list[Finding]:
        return [finding for finding in self.findings if finding.is_error]

    def to_json(self) -> dict[str, Any]:
        """`lore remember --draft --json`, `lore drafts edit --json` and the MCP tool."""
        return versioned(
            {
                "status": "drafted",
                "id": self.draft.id,
                "path": f"{NOTES_DIR}/{self.draft.id}.md",
                "file": str(self.draft.file),
                "text": self.draft.text,
                "findings": [finding.to_json() for finding in self.findings],
                "notices": self.notices,
                "next": next_steps(self.draft.id),
            }
        )


def next_steps(draft_id: str) -> list[str]:
    return [
        f"lore drafts show {draft_id}",
        f"lore drafts edit {draft_id}",
        f"lore drafts propose {draft_id}",
    ]


# ---- checking ----


def check_texts(
    where: Vault | Path, texts: dict[str, str]
) -> tuple[dict[str, list[Finding]], list[str]]:
    """The curator's findings for notes keyed by vault path, checked together against the
    default branch as last fetched (nothing is fetched); and the curator's notices."""
    vault = Vault.of(where)
    check_vault(vault)
    remote = REMOTE if git.remote_url(vault.root, REMOTE, vault.found) else None
    _, base_ref = base_of(vault, remote)
    result = curate(vault, Drafts({p: t.encode("utf-8") for p, t in texts.items()}, at=base_ref))
    found: dict[str, list[Finding]] = {path: [] for path in texts}
    for finding in result.findings:
        for path in [finding.path] if finding.path in found else list(found):
            found[path].append(finding)
    return found, result.notices


def secret_refusal(findings: list[Finding], title: str, kept: str = "") -> DraftRefused | None:
    """The refusal for a draft whose findings include a secret, or None."""
    secrets = [f for f in findings if f.family == "secret" and f.is_error]
    if not secrets:
        return None
    first = secrets[0]
    line = f" on line {first.line}" if first.line else ""
    return DraftRefused(
        f"The draft contains what looks like a secret ({first.rule}{line}), so it was not "
        f"saved.{kept}",
        fix="Remove the secret (and rotate it if it was real), then save it again. The "
        "secret scan cannot be overridden.",
        findings=secrets,
        title=title,
    )


def masked(text: str) -> str:
    return redact(text, {match.value for match in scan_secrets(text)})


# ---- saving ----


def _meta(note: Note, origin: str, agent: str | None, extra: dict[str, Any]) -> dict[str, Any]:
    today = clock.today().isoformat()
    return {
        "inbox_format": 1,
        "id": note.id,
        "title": note.title,
        "created": today,
        "saved": today,
        "origin": origin if origin in ORIGINS else "remember",
        "agent": agent or None,
        **extra,
    }


def _write(folder: Path, draft: Draft, findings: list[Finding]) -> None:
    meta = {**draft.meta, "findings": [finding.to_json() for finding in findings]}
    write_atomic(draft.file, draft.text.encode("utf-8"), mode=FILE_MODE)
    write_atomic(
        folder / f"{draft.id}{META_SUFFIX}",
        json.dumps(meta, indent=2).encode("utf-8"),
        mode=FILE_MODE,
    )
    draft.meta = meta


def _working_note_ids(root: Path) -> set[str]:
    folder = root / NOTES_DIR
    if not folder.is_dir():
        return set()
    return {entry.name[:-3] for entry in folder.iterdir() if entry.name.endswith(".md")}


def save_drafts(
    root: Path,
    inputs: Sequence[NoteInput],
    *,
    origin: str,
    extra: dict[str, Any] | None = None,
) -> list[Saved | DraftRefused]:
    """Check the notes together and save each one without a secret; one result per input.

    The author is the input's, else git's `github.user` or `user.name` when it is a
    GitHub handle (no network: `lore drafts propose` asks `gh` for a missing one).
    """
    from lore.team.proposals.note import find_handle

    vault = Vault.of(root)
    root = vault.root
    check_vault(vault)
    folder = inbox_dir(root)
    lock = inbox_lock(folder)
    try:
        taken = set(draft_ids(folder)) | _working_note_ids(root)
        notes = []
        for data in inputs:
            note = build_note(data, author=data.author or find_handle(root, None))
            note = with_unique_id(note, taken.__contains__, keep=False)
            taken.add(note.id)
            notes.append((data, note, render_note(note)))
        findings, notices = check_texts(vault, {note.path: text for _, note, text in notes})
        results: list[Saved | DraftRefused] = []
        for data, note, text in notes:
            refused = secret_refusal(findings[note.path], note.title)
            if refused is not None:
                results.append(refused)
                continue
            file = folder / f"{note.id}{DRAFT_SUFFIX}"
            draft = Draft(note.id, file, text, _meta(note, origin, data.agent, extra or {}))
            _write(folder, draft, findings[note.path])
            results.append(Saved(draft, findings[note.path], list(notices)))
        return results
    finally:
        lock.release()


def save_draft(root: Path, data: NoteInput, *, origin: str = "remember") -> Saved:
    """Check one note and save it as a draft; `DraftRefused` when it holds a secret."""
    result = save_drafts(root, [data], origin=origin)[0]
    if isinstance(result, DraftRefused):
        raise result
    return result


def update_draft(root: Path, draft: Draft, raw: bytes) -> Saved:
    """Replace a draft's text with an edit of it, checked again like a new draft.

    An edit with a secret is refused: the draft stays as it was, and the edit is kept in
    `edit_file(draft)` with the secret masked, so the next `lore drafts edit` resumes it.
    """
    root = root.resolve()
    folder = draft.file.parent
    text = raw.decode("utf-8", "replace").replace("\r\n", "\n")
    path = f"{NOTES_DIR}/{draft.id}.md"
    lock = inbox_lock(folder)
    try:
        findings, notices = check_texts(root, {path: text})
        edit = edit_file(draft)
        refused = secret_refusal(
            findings[path],
            draft.title,
            kept=f" The draft is as it was; your edit is kept in {edit}, the secret masked.",
        )
        if refused is not None:
            write_atomic(edit, masked(text).encode("utf-8"), mode=FILE_MODE)
            raise refused
        parsed = inspect_note(text.encode("utf-8"), path).note
        meta = {**draft.meta, "saved": clock.today().isoformat()}
        if parsed is not None:
            meta["title"] = parsed.title
        updated = replace(draft, text=text, meta=meta)
        _write(folder, updated, findings[path])
        edit.unlink(missing_ok=True)
        return Saved(updated, findings[path], notices)
    finally:
        lock.release()
