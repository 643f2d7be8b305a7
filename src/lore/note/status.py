"""Active or not (DESIGN.md 2.1): supersedes, expires and depends_on.

A note is active unless another active note lists it in `supersedes`, its
`expires` date has passed, or a note in its `depends_on` is not active (or does not
exist). Because "active" refers to itself, it is computed as a fixed point; a cycle
of supersessions (which the curator rejects) settles deterministically.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from lore.record import Record


class Links(Record):
    """The part of a note that decides whether it is active."""

    __slots__ = ("depends_on", "expires", "id", "supersedes")

    def __init__(
        self,
        id: str,
        supersedes: tuple[str, ...] = (),
        depends_on: tuple[str, ...] = (),
        expires: str | None = None,
    ) -> None:
        self.id = id
        self.supersedes = supersedes
        self.depends_on = depends_on
        self.expires = expires


class Status(Record):
    __slots__ = ("active", "expired", "reason", "superseded_by")

    def __init__(
        self,
        active: bool,
        reason: str | None = None,
        superseded_by: str | None = None,
        expired: bool = False,
    ) -> None:
        self.active = active
        self.reason = reason  # why not active, in words
        self.superseded_by = superseded_by
        self.expired = expired


ACTIVE = Status(True)


def compute_status(notes: Iterable[Links], today: str) -> dict[str, Status]:
    """Status of every note, given today's ISO date."""
    by_id: dict[str, Links] = {note.id: note for note in notes}
    expired = {nid for nid, note in by_id.items() if note.expires and note.expires < today}
    superseders: dict[str, list[str]] = {}
    for note in by_id.values():
        for target in note.supersedes:
            if target in by_id and target != note.id:
                superseders.setdefault(target, []).append(note.id)
    linked = set(superseders) | {nid for nid, note in by_id.items() if note.depends_on}
    active = {nid: nid not in expired for nid in by_id}

    def evaluate(nid: str) -> bool:
        if nid in expired:
            return False
        if any(active[other] for other in superseders.get(nid, ())):
            return False
        return all(active.get(dep, False) for dep in by_id[nid].depends_on)

    order = sorted(linked)
    for _ in range(len(order) + 2):
        changed = False
        for nid in order:
            value = evaluate(nid)
            if value != active[nid]:
                active[nid] = value
                changed = True
        if not changed:
            break

    result: dict[str, Status] = {}
    for nid, note in by_id.items():
        if active[nid]:
            continue
        if nid in expired:
            result[nid] = Status(False, f"expired on {note.expires}", expired=True)
            continue
        by = sorted(other for other in superseders.get(nid, ()) if active[other])
        if by:
            result[nid] = Status(False, f"superseded by {by[0]}", superseded_by=by[0])
            continue
        bad = sorted(dep for dep in note.depends_on if not active.get(dep, False))
        missing = [dep for dep in bad if dep not in by_id]
        if missing:
            result[nid] = Status(False, f"depends on {missing[0]}, which does not exist")
        elif bad:
            result[nid] = Status(False, f"depends on {bad[0]}, which is not active")
        else:  # pragma: no cover - only reachable in an unsettled cycle
            result[nid] = Status(False, "part of a supersession cycle")
    return result


def status_of(statuses: Mapping[str, Status], note_id: str) -> Status:
    return statuses.get(note_id, ACTIVE)


def final_replacement(statuses: Mapping[str, Status], note_id: str) -> str | None:
    """Follow `superseded_by` to the active note that replaced this one, if any."""
    seen = {note_id}
    current = statuses.get(note_id)
    while current is not None and current.superseded_by:
        nxt = current.superseded_by
        if nxt in seen:
            return None
        seen.add(nxt)
        nxt_status = statuses.get(nxt)
        if nxt_status is None:
            return nxt
        current = nxt_status
    return None
