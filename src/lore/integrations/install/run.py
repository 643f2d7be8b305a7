"""Install, uninstall and check: apply an agent's components to its files, all or nothing.

Components that share a file (Gemini CLI's `settings.json` holds hooks and the MCP
server) are applied in turn and the file is written once. A conflict (something not
lore's where lore's entry goes) skips that component and is reported. A file that
cannot be parsed stops the install before anything is written, so an agent is never
left half installed (exit 2, naming the file and what to do). Everything else is
written in one `Transaction` with the ledger: a file that cannot be read or written
(read-only, immutable, a full disk) stops the whole command before any file changes
(exit 2).
Install also records the lore command agents are told to run (`agents.agent_command`).
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

from lore.integrations.agents import COMMAND_RECORD
from lore.integrations.install.agents import components
from lore.integrations.install.components import Component, Conflict
from lore.integrations.install.ledger import Ledger, digest, read_bytes
from lore.integrations.install.ownership import Launcher
from lore.integrations.install.transaction import (
    NOTHING_CHANGED,
    InstallError,
    Transaction,
    describe,
)
from lore.record import Record
from lore.versioned import versioned

# Removal goes by ownership markers, whatever command lore's entries run.
ANY_LAUNCHER = Launcher("lore", ["lore"])


class Change(Record):
    """What happened to one file (or one component, for conflicts and errors)."""

    __slots__ = ("action", "detail", "label", "path")

    def __init__(self, path: Path, label: str, action: str, detail: str = "") -> None:
        self.path = path
        self.label = label
        self.action = action  # created, updated, unchanged, skipped, failed, restored, removed
        self.detail = detail


class Status(Record):
    __slots__ = ("label", "path", "state")

    def __init__(self, path: Path, label: str, state: str) -> None:
        self.path = path
        self.label = label
        self.state = state  # installed, missing, outdated, conflict, unreadable, …


def changes_json(verb: str, agent: str, scope: str, changes: list[Change]) -> dict[str, Any]:
    """`lore install --json` and `lore uninstall --json`: what happened to each file."""
    return versioned(
        {
            "command": verb,
            "agent": agent,
            "scope": scope,
            "changes": [
                {"path": str(c.path), "what": c.label, "action": c.action, "detail": c.detail}
                for c in changes
            ],
        }
    )


def check_json(launcher: Launcher, rows: list[tuple[str, str, Status]]) -> dict[str, Any]:
    """`lore install --check --json`: each agent's and scope's files and their state."""
    return versioned(
        {
            "command": " ".join(launcher.argv),
            "agent_command": launcher.text,
            "results": [
                {
                    "agent": name,
                    "scope": scope,
                    "what": status.label,
                    "path": str(status.path),
                    "state": status.state,
                }
                for name, scope, status in rows
            ],
        }
    )


def _by_file(parts: list[Component]) -> dict[Path, list[Component]]:
    grouped: dict[Path, list[Component]] = {}
    for part in parts:
        grouped.setdefault(part.path, []).append(part)
    return grouped


def _read(path: Path) -> bytes | None:
    try:
        return read_bytes(path)
    except OSError as exc:
        raise InstallError(
            f"{describe(path)} cannot be read ({exc.strerror or exc}). Nothing was changed.",
            fix="Fix its permissions and run the command again.",
        ) from None


def install(
    agent: str,
    project: Path | None,
    launcher: Launcher,
    *,
    prompt: bool = True,
    dry_run: bool = False,
    ledger: Ledger | None = None,
) -> list[Change]:
    book = ledger or Ledger()
    changes: list[Change] = []
    with Transaction() as transaction:
        for path, parts in _by_file(components(agent, project, launcher, prompt=prompt)).items():
            old = _read(path)
            new = old
            applied: list[str] = []
            for part in parts:
                try:
                    new = part.install(new)
                    applied.append(part.label)
                except Conflict as exc:
                    changes.append(Change(path, part.label, "skipped", str(exc)))
                except InstallError as exc:
                    if dry_run:
                        changes.append(Change(path, part.label, "failed", str(exc)))
                        new, applied = old, []
                        break
                    raise InstallError(
                        f"{exc.message} {NOTHING_CHANGED}",
                        fix=exc.fix
                        or "Fix the file and run the "
                        "command again, or add lore's entries by hand as docs/agents/ shows.",
                    ) from None
            if not applied:
                continue
            label = ", ".join(applied)
            if new == old:
                changes.append(Change(path, label, "unchanged"))
                continue
            action = "created" if old is None else "updated"
            if dry_run:
                changes.append(Change(path, label, f"would be {action}"))
                continue
            backup, is_new = book.plan_original(path, old)
            if backup is not None and is_new and old is not None:
                transaction.add_file(backup, old)
            book.wrote(path, new)
            transaction.write(path, new, old)
            detail = f"original saved to {backup}" if backup and old is not None else ""
            changes.append(Change(path, label, action, detail))
        if dry_run:
            return changes
        transaction.check()
        book.add_folders(transaction.missing_folders())
        _own_files(transaction, book, launcher)
        transaction.commit()
    return changes


def _own_files(transaction: Transaction, book: Ledger, launcher: Launcher | None) -> None:
    """The ledger, and the command agents are told to run, when they change."""
    ledger = book.dumps()
    if ledger != book.raw and not (book.raw is None and book.empty()):
        transaction.own(book.path, ledger, book.raw)
    if launcher is None:
        return
    record = book.folder.parent / COMMAND_RECORD
    wanted = f"{launcher.text}\n".encode()
    with contextlib.suppress(OSError):
        current = read_bytes(record)
        if current != wanted:
            transaction.own(record, wanted, current)


def uninstall(agent: str, project: Path | None, *, ledger: Ledger | None = None) -> list[Change]:
    book = ledger or Ledger()
    changes: list[Change] = []
    backups: list[Path] = []
    with Transaction() as transaction:
        for path, parts in _by_file(components(agent, project, ANY_LAUNCHER)).items():
            labels = ", ".join(part.label for part in parts)
            current = _read(path)
            cleaned = current
            try:
                for part in parts:
                    cleaned = part.uninstall(cleaned)
            except InstallError as exc:
                changes.append(Change(path, labels, "failed", str(exc)))
                continue
            entry = book.get(path)
            if cleaned == current:
                if current is not None and entry is not None:
                    backups += _forget(book, path)
                continue
            original = book.original(path)
            if entry is not None and entry.written == digest(current) and original is not None:
                existed, data = original
                new = data if existed else None
                action = "restored" if existed else "removed"
                detail = "the original bytes are back" if existed else "lore had created it"
            else:
                new = cleaned
                action = "removed" if cleaned is None else "updated"
                detail = "" if cleaned is None else "lore's entries removed, the rest kept"
            backups += _forget(book, path)
            transaction.write(path, new, current)
            changes.append(Change(path, labels, action, detail))
        transaction.check()
        _own_files(transaction, book, None)
        transaction.commit()
    for backup in backups:  # committed: the backups of files lore no longer tracks can go
        with contextlib.suppress(OSError):
            backup.unlink()
    _sweep(book, [change.path for change in changes if change.action == "removed"])
    return changes


def _forget(book: Ledger, path: Path) -> list[Path]:
    backup = book.forget(path)
    return [backup] if backup is not None and backup.parent == book.folder / "backups" else []


def _sweep(book: Ledger, removed_files: list[Path]) -> None:
    """Remove the empty folders lore created (and a skill's own folder); save the ledger."""
    for path in removed_files:
        folder = path.parent
        with contextlib.suppress(OSError):
            if folder.name.startswith("lore-") and not any(folder.iterdir()):
                folder.rmdir()
    before = book.dumps()
    book.sweep_folders()
    after = book.dumps()
    if after != before:
        with contextlib.suppress(OSError, InstallError), Transaction() as transaction:
            transaction.own(book.path, after, before)
            transaction.commit()
            book.raw = after


def check(agent: str, project: Path | None, launcher: Launcher) -> list[Status]:
    rows: list[Status] = []
    for part in components(agent, project, launcher):
        try:
            data = read_bytes(part.path)
        except OSError:
            rows.append(Status(part.path, part.label, "unreadable"))
            continue
        rows.append(Status(part.path, part.label, part.status(data)))
    return rows
