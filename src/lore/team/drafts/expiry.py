"""Drafts that grew old: moved out of the inbox once, with one notice, and kept a while.

A draft's age counts from the day it was saved or last edited. The limit is the user
config's `[drafts] max_age_days`, else the vault's `lore.toml` `[drafts] max_age_days`,
else 30 days (`lore.vault.settings`): the inbox is the user's own, so their word wins.

`sweep` runs at the start of every `lore drafts` command. Each draft over the limit is
moved to the inbox's `expired/` folder and the sweep returns one notice naming the
drafts, that folder and the day they will be deleted (today plus the limit again):
that is the one mention. A sweep after that day deletes them; it says nothing more,
since the day was announced. Until then `lore drafts restore ID` brings a draft back
(its age counting from that day) and `lore drafts list --expired` lists them. Nothing
the user wrote disappears without a message saying where it is and until when.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from lore import clock
from lore.errors import UsageError
from lore.files import write_atomic
from lore.team.drafts.inbox import (
    DRAFT_SUFFIX,
    EDIT_SUFFIX,
    FILE_MODE,
    META_SUFFIX,
    Draft,
    draft_ids,
    inbox_dir,
    inbox_lock,
    pick,
    read_draft,
    remove_files,
)
from lore.vault.settings import (
    CHECKOUT,
    SETTINGS_FILE,
    accepts,
    expected,
    parse_settings,
    section_values,
)

EXPIRED_DIR = "expired"


@dataclass
class Sweep:
    """What one sweep did: the drafts it moved out (the mention) and those it deleted."""

    folder: Path
    max_age_days: int
    dropped: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    until: str | None = None

    def notice(self) -> str | None:
        """The one mention of the drafts moved out, or None when there are none."""
        if not self.dropped:
            return None
        count = len(self.dropped)
        which = ", ".join(self.dropped)
        return (
            f"{count} draft{'s' if count != 1 else ''} not edited for over "
            f"{self.max_age_days} days {'were' if count != 1 else 'was'} moved out of the "
            f"inbox: {which}. {'They are' if count != 1 else 'It is'} kept in {self.folder} "
            f"until {self.until}, then deleted; `lore drafts restore ID` brings one back."
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "dropped": self.dropped,
            "kept_in": str(self.folder) if self.dropped else None,
            "until": self.until,
            "deleted": self.deleted,
        }


def max_age_days(root: Path) -> int:
    """The age limit in days: the user config's `[drafts]`, else the vault's `lore.toml`."""
    from lore.config import load_config
    from lore.vault.settings import settings_of

    setting = settings_of("drafts")["max_age_days"]
    config = load_config()
    section = config.extra.get("drafts")
    if section is not None:
        if not isinstance(section, dict):
            raise UsageError(
                f"{config.path}: 'drafts' must be a table.",
                fix="Write it as a [drafts] section with max_age_days = 30.",
            )
        if "max_age_days" in section:
            value = section["max_age_days"]
            if not accepts(setting, value):
                raise UsageError(
                    f"{config.path}: drafts.max_age_days must be {expected(setting)}.",
                    fix="Set max_age_days = 30 under [drafts].",
                )
            return int(value)
    from lore.vault.lore_toml import checkout_text

    try:  # a local setting: the checkout may say it (lore.vault.settings, LOCAL)
        data = parse_settings(checkout_text(root), str(root / SETTINGS_FILE), source=CHECKOUT)
    except UsageError:
        data = {}  # the curator reports a broken lore.toml; the default serves here
    return int(section_values(data, "drafts")["max_age_days"])


def expired_dir(root: Path) -> Path:
    return inbox_dir(root) / EXPIRED_DIR


def _move_out(folder: Path, target: Path, draft: Draft, until: str) -> None:
    today = clock.today().isoformat()
    meta = {**draft.meta, "dropped": today, "delete_after": until}
    target.mkdir(mode=0o700, parents=True, exist_ok=True)
    write_atomic(
        target / f"{draft.id}{META_SUFFIX}", json.dumps(meta, indent=2).encode(), mode=FILE_MODE
    )
    for suffix in (DRAFT_SUFFIX, EDIT_SUFFIX):
        source = folder / f"{draft.id}{suffix}"
        if source.exists():
            source.replace(target / source.name)
    (folder / f"{draft.id}{META_SUFFIX}").unlink(missing_ok=True)


def sweep(root: Path, limit: int | None = None) -> Sweep:
    """Move drafts older than the limit out of the inbox; delete those whose day passed."""
    folder = inbox_dir(root)
    age = max_age_days(root) if limit is None else limit
    result = Sweep(folder / EXPIRED_DIR, age)
    if not folder.is_dir():
        return result
    today = clock.today()
    lock = inbox_lock(folder)
    try:
        until = (today + timedelta(days=age)).isoformat()
        for draft_id in draft_ids(folder):
            draft = read_draft(folder, draft_id)
            if draft is not None and draft.age_days() > age:
                _move_out(folder, result.folder, draft, until)
                result.dropped.append(draft_id)
        if result.dropped:
            result.until = until
        for draft_id in draft_ids(result.folder):
            draft = read_draft(result.folder, draft_id)
            if draft is not None and _delete_after(draft) < today:
                remove_files(result.folder, draft_id)
                result.deleted.append(draft_id)
    finally:
        lock.release()
    return result


def _delete_after(draft: Draft) -> date:
    try:
        return date.fromisoformat(str(draft.meta.get("delete_after")))
    except ValueError:
        return clock.today()  # unreadable: kept one more day, never deleted early


def list_expired(root: Path) -> list[Draft]:
    folder = expired_dir(root)
    drafts = [draft for name in draft_ids(folder) if (draft := read_draft(folder, name))]
    return sorted(drafts, key=lambda draft: (str(draft.meta.get("delete_after")), draft.id))


def restore_draft(root: Path, wanted: str) -> Draft:
    """Bring an expired draft back into the inbox; its age counts from today."""
    folder = inbox_dir(root)
    source = folder / EXPIRED_DIR
    lock = inbox_lock(folder)
    try:
        draft_id = pick(draft_ids(source), wanted, f"the expired drafts ({source})")
        if (folder / f"{draft_id}{DRAFT_SUFFIX}").exists():
            raise UsageError(
                f"The inbox already has a draft {draft_id}.",
                fix=f"Propose or discard it first, or copy {source / draft_id}.md by hand.",
            )
        draft = read_draft(source, draft_id)
        assert draft is not None
        meta = {k: v for k, v in draft.meta.items() if k not in ("dropped", "delete_after")}
        meta["saved"] = clock.today().isoformat()
        write_atomic(
            folder / f"{draft_id}{META_SUFFIX}", json.dumps(meta, indent=2).encode(), mode=FILE_MODE
        )
        for suffix in (DRAFT_SUFFIX, EDIT_SUFFIX):
            moved = source / f"{draft_id}{suffix}"
            if moved.exists():
                moved.replace(folder / moved.name)
        (source / f"{draft_id}{META_SUFFIX}").unlink(missing_ok=True)
    finally:
        lock.release()
    restored = read_draft(folder, draft_id)
    assert restored is not None
    return restored
