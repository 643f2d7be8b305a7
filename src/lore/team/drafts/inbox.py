"""The drafts inbox: checked notes kept on this machine until the user proposes them.

`lore remember --draft`, the MCP `remember` tool with `draft: true` and `lore capture`
save a note here instead of proposing it (`lore.team.drafts.save` checks and writes
them); `lore drafts` lists, shows, edits, proposes (`lore.team.drafts.propose`) and
discards them, and sweeps out old ones (`lore.team.drafts.expiry`). This module is the
store itself: where a draft lives, how it is read, named, locked and removed. It
imports neither the curator nor git, so listing the inbox costs a fraction of a second
(`bench/bench_drafts.py`).

One folder per vault, `lore.paths.drafts_dir` (`$LORE_HOME/drafts/<name>-<hash>/`),
outside every git repository, so nothing here can be committed or pushed:

- `<id>.md`: the note file exactly as it will be proposed (mode 0600); the draft's id is
  the note id it was saved under, made unique among the drafts and the vault's notes;
- `<id>.json`: what lore knows about it (`saved`, the day it was saved or last edited,
  which decides its age; where it came from; the findings of its last check);
- `<id>.edit.md`: an edit that was not saved (its secret masked), which `lore drafts
  edit` opens again, so the work is not lost;
- `expired/`: drafts moved out of the inbox for their age.

Every change takes the inbox's lock (`.lock`) and writes atomically (`lore.files`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lore import clock
from lore.errors import ProposalError, UsageError
from lore.files import FileLock, LockTimeout
from lore.note.ids import is_valid_id
from lore.paths import drafts_dir

DRAFT_SUFFIX = ".md"
META_SUFFIX = ".json"
EDIT_SUFFIX = ".edit.md"
LOCK_NAME = ".lock"
LOCK_TIMEOUT = 30.0
ORIGINS = ("remember", "mcp", "capture", "import")
FILE_MODE = 0o600  # a draft is the user's own, unreviewed text
INBOX = "this vault's drafts inbox"  # how messages name it


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
