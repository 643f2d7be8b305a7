"""The drafts inbox: checked notes kept on this machine until the user proposes them.

`lore remember --draft`, the MCP `remember` tool with `draft: true` and `lore capture`
save a note here instead of proposing it; `lore drafts` lists, shows, edits, proposes
(`lore.team.drafts_propose`) and discards them. A draft is checked exactly as
`lore remember` checks a note — every curator rule and the secret scan, against the
vault's default branch as last fetched (no network) — and a draft with a secret is
refused: it is never written to disk, and the refusal shows only the mask.

One folder per vault, `lore.paths.drafts_dir` (`$LORE_HOME/drafts/<name>-<hash>/`),
outside every git repository, so nothing here can be committed or pushed:

- `<id>.md`: the note file exactly as it will be proposed (mode 0600); the draft's id is
  the note id it was saved under, made unique among the drafts and the vault's notes;
- `<id>.json`: what lore knows about it (`saved`, the day it was saved or last edited,
  which decides its age; where it came from; the findings of its last check);
- `<id>.edit.md`: an edit that was not saved (its secret masked), which `lore drafts
  edit` opens again, so the work is not lost;
- `expired/`: drafts moved out of the inbox for their age (`lore.team.drafts_expiry`).

Every change takes the inbox's lock (`.lock`) and writes atomically (`lore.files`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from lore import clock
from lore.curator.finding import Finding
from lore.curator.rules.secret_scan import redact, scan_secrets
from lore.curator.run import curate
from lore.errors import ProposalError, UsageError
from lore.files import FileLock, LockTimeout, write_atomic
from lore.note.ids import is_valid_id
from lore.note.model import Note
from lore.note.parse import inspect_note
from lore.note.render import render_note
from lore.paths import NOTES_DIR, drafts_dir
from lore.team.branches import REMOTE, base_of, check_vault
from lore.team.draft import NoteInput, build_note, with_unique_id
from lore.vault import git
from lore.versioned import versioned

DRAFT_SUFFIX = ".md"
META_SUFFIX = ".json"
EDIT_SUFFIX = ".edit.md"
LOCK_NAME = ".lock"
LOCK_TIMEOUT = 30.0
ORIGINS = ("remember", "mcp", "capture")
FILE_MODE = 0o600  # a draft is the user's own, unreviewed text
INBOX = "this vault's drafts inbox"  # how messages name it


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
class Draft:
    """One draft in the inbox: its note file and what lore recorded about it."""

    id: str
    file: Path
    text: str
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def saved(self) -> str:
        """The ISO day it was saved or last edited (its age counts from here)."""
        value = self.meta.get("saved")
        return value if isinstance(value, str) and len(value) == 10 else clock.today().isoformat()

    @property
    def title(self) -> str:
        value = self.meta.get("title")
        return value if isinstance(value, str) else ""

    @property
    def findings(self) -> list[dict[str, Any]]:
        found = self.meta.get("findings")
        return [item for item in found if isinstance(item, dict)] if isinstance(found, list) else []

    def age_days(self) -> int:
        from datetime import date

        try:
            return (clock.today() - date.fromisoformat(self.saved)).days
        except ValueError:
            return 0

    def summary_json(self) -> dict[str, Any]:
        """One line of `lore drafts list --json`."""
        from lore.sanitize import sanitize_field

        errors = sum(1 for item in self.findings if item.get("severity") == "error")
        return {
            "id": self.id,
            "title": sanitize_field(self.title, 200),
            "saved": self.saved,
            "age_days": self.age_days(),
            "origin": str(self.meta.get("origin") or "remember"),
            "agent": self.meta.get("agent"),
            "file": str(self.file),
            "errors": errors,
            "warnings": len(self.findings) - errors,
        }


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


# ---- the folder ----


def inbox_dir(root: Path) -> Path:
    return drafts_dir(root.resolve())


def inbox_lock(folder: Path) -> FileLock:
    """The inbox's lock, taken for every change; `ProposalError` when it stays busy."""
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    lock = FileLock(folder / LOCK_NAME, timeout=LOCK_TIMEOUT)
    try:
        lock.acquire()
    except LockTimeout:
        raise ProposalError(
            f"Another lore command has held the drafts inbox {folder} for 30 seconds.",
            fix="Wait for it to finish, then run the command again.",
        ) from None
    return lock


def read_draft(folder: Path, draft_id: str) -> Draft | None:
    file = folder / f"{draft_id}{DRAFT_SUFFIX}"
    try:
        text = file.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    try:
        meta = json.loads((folder / f"{draft_id}{META_SUFFIX}").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        meta = {}
    return Draft(draft_id, file, text, meta if isinstance(meta, dict) else {})


def draft_ids(folder: Path) -> list[str]:
    """The ids of the drafts in `folder` (their `.md` files; edits are not drafts)."""
    if not folder.is_dir():
        return []
    names = (entry.name for entry in folder.iterdir() if entry.is_file())
    return sorted(
        name[: -len(DRAFT_SUFFIX)]
        for name in names
        if name.endswith(DRAFT_SUFFIX)
        and not name.endswith(EDIT_SUFFIX)
        and is_valid_id(name[: -len(DRAFT_SUFFIX)])
    )


def list_drafts(root: Path) -> list[Draft]:
    """Every draft of the vault's inbox, oldest first."""
    folder = inbox_dir(root)
    drafts = [draft for name in draft_ids(folder) if (draft := read_draft(folder, name))]
    return sorted(drafts, key=lambda draft: (draft.saved, draft.id))


def pick(ids: Sequence[str], wanted: str, where: str) -> str:
    """`wanted` among `ids`: the id itself or a prefix only one id starts with."""
    if wanted in ids:
        return wanted
    matches = [name for name in ids if name.startswith(wanted)] if wanted else []
    if len(matches) == 1:
        return matches[0]
    from lore.sanitize import sanitize_field

    shown = sanitize_field(wanted, 130)
    if matches:
        raise UsageError(
            f"'{shown}' names {len(matches)} drafts in {where}: {', '.join(matches[:5])}.",
            fix="Give more of the id.",
        )
    raise UsageError(f"No draft has the id '{shown}' in {where}.", fix="`lore drafts` lists them.")


def find_draft(root: Path, wanted: str) -> Draft:
    folder = inbox_dir(root)
    draft = read_draft(folder, pick(draft_ids(folder), wanted, INBOX))
    if draft is None:  # pragma: no cover - removed between the listing and the read
        raise UsageError(f"The draft {wanted} is gone.", fix="`lore drafts` lists the drafts.")
    return draft


def edit_file(draft: Draft) -> Path:
    """Where an edit of `draft` is kept while it is open, or after it was refused."""
    return draft.file.with_name(f"{draft.id}{EDIT_SUFFIX}")


def remove_files(folder: Path, draft_id: str) -> None:
    for suffix in (DRAFT_SUFFIX, META_SUFFIX, EDIT_SUFFIX):
        (folder / f"{draft_id}{suffix}").unlink(missing_ok=True)


# ---- checking ----


def check_texts(root: Path, texts: dict[str, str]) -> tuple[dict[str, list[Finding]], list[str]]:
    """The curator's findings for notes keyed by vault path, checked together against the
    default branch as last fetched (nothing is fetched); and the curator's notices."""
    check_vault(root)
    remote = REMOTE if git.remote_url(root, REMOTE) else None
    _, base_ref = base_of(root, remote)
    result = curate(root, drafts={p: t.encode("utf-8") for p, t in texts.items()}, at=base_ref)
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
    from lore.team.proposals import find_author

    root = root.resolve()
    check_vault(root)
    folder = inbox_dir(root)
    lock = inbox_lock(folder)
    try:
        taken = set(draft_ids(folder)) | _working_note_ids(root)
        notes = []
        for data in inputs:
            note = build_note(data, author=data.author or find_author(root, None))
            note = with_unique_id(note, taken.__contains__, keep=False)
            taken.add(note.id)
            notes.append((data, note, render_note(note)))
        findings, notices = check_texts(root, {note.path: text for _, note, text in notes})
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


def discard_drafts(root: Path, wanted: Sequence[str]) -> list[str]:
    """Delete the named drafts (every name is resolved before any is deleted)."""
    folder = inbox_dir(root)
    lock = inbox_lock(folder)
    try:
        ids = draft_ids(folder)
        chosen = list(dict.fromkeys(pick(ids, name, INBOX) for name in wanted))
        for draft_id in chosen:
            remove_files(folder, draft_id)
        return chosen
    finally:
        lock.release()
