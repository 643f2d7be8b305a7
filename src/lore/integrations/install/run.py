"""Install, uninstall and check: apply an agent's components to its files, file by file.

Components that share a file (Gemini CLI's `settings.json` holds hooks and the MCP
server) are applied in turn and the file is written once. A conflict (something not
lore's where lore's entry goes) skips that component and is reported; a file that
cannot be parsed is reported and not touched.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

from lore.files import write_atomic
from lore.integrations.install.agents import components
from lore.integrations.install.components import Component, Conflict, InstallError
from lore.integrations.install.ledger import Ledger, digest, read_bytes
from lore.record import Record


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


def _by_file(parts: list[Component]) -> dict[Path, list[Component]]:
    grouped: dict[Path, list[Component]] = {}
    for part in parts:
        grouped.setdefault(part.path, []).append(part)
    return grouped


def install(
    agent: str,
    project: Path | None,
    lore_argv: list[str],
    *,
    prompt: bool = True,
    dry_run: bool = False,
    ledger: Ledger | None = None,
) -> list[Change]:
    book = ledger or Ledger()
    changes: list[Change] = []
    for path, parts in _by_file(components(agent, project, lore_argv, prompt=prompt)).items():
        labels = ", ".join(part.label for part in parts)
        try:
            old = read_bytes(path)
        except OSError as exc:
            changes.append(Change(path, labels, "failed", f"cannot read it: {exc}"))
            continue
        new = old
        applied: list[str] = []
        for part in parts:
            try:
                new = part.install(new)
                applied.append(part.label)
            except Conflict as exc:
                changes.append(Change(path, part.label, "skipped", str(exc)))
            except InstallError as exc:
                changes.append(Change(path, part.label, "failed", str(exc)))
                new = old
                applied = []
                break
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
        backup = book.remember_original(path, old)
        _write(path, new)
        book.wrote(path, new)
        detail = f"original saved to {backup}" if backup and old is not None else ""
        changes.append(Change(path, label, action, detail))
    if not dry_run:
        book.save()
    return changes


def uninstall(agent: str, project: Path | None, *, ledger: Ledger | None = None) -> list[Change]:
    book = ledger or Ledger()
    changes: list[Change] = []
    # Which lore command the entries run does not matter for removal: ownership is by marker.
    for path, parts in _by_file(components(agent, project, ["lore"])).items():
        labels = ", ".join(part.label for part in parts)
        current = read_bytes(path)
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
                book.forget(path)
            continue
        original = book.original(path)
        if entry is not None and entry.written == digest(current) and original is not None:
            existed, data = original
            _write(path, data if existed else None)
            action = "restored" if existed else "removed"
            detail = "the original bytes are back" if existed else "lore had created it"
        else:
            _write(path, cleaned)
            action = "removed" if cleaned is None else "updated"
            detail = "" if cleaned is None else "lore's entries removed, the rest kept"
        book.forget(path)
        changes.append(Change(path, labels, action, detail))
    book.save()
    return changes


def check(agent: str, project: Path | None, lore_argv: list[str]) -> list[Status]:
    rows: list[Status] = []
    for part in components(agent, project, lore_argv):
        try:
            data = read_bytes(part.path)
        except OSError:
            rows.append(Status(part.path, part.label, "unreadable"))
            continue
        rows.append(Status(part.path, part.label, part.status(data)))
    return rows


def _write(path: Path, data: bytes | None) -> None:
    if data is None:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
        _remove_empty_parents(path.parent)
        return
    write_atomic(path, data)


def _remove_empty_parents(folder: Path) -> None:
    """Remove a skill's folder once its SKILL.md is gone (only that one, only if empty)."""
    try:
        if folder.name.startswith("lore-") and not any(folder.iterdir()):
            folder.rmdir()
    except OSError:
        pass
