"""An agent-memory import ends in the drafts inbox, never in a pull request.

A private memory was written by an agent on one person's machine; the team sees it only
after that person read it and chose to propose it. So `save_to_inbox` saves each checked
candidate as a draft (`lore.team.drafts.save.save_drafts`: checked again, refused with a
secret, mode 0600, outside every repository) and records in the vault's ledger
(`memory_ledger`) the fact each draft came from and what each store held, so the next
import offers only what is new. `lore drafts` shows, edits, proposes or discards them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lore import clock
from lore.sanitize import sanitize_field
from lore.team.drafts.draft import NoteInput
from lore.team.imports.kinds import AGENT_OF_KIND
from lore.team.imports.memory_ledger import record
from lore.team.imports.memory_stores import snapshot, store_name
from lore.team.imports.model import ImportPlan, Skip


@dataclass
class InboxResult:
    saved: list[tuple[str, str]] = field(default_factory=list)  # (draft id, source)
    refused: list[Skip] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "drafts": [
                {"id": draft_id, "source": sanitize_field(source)}
                for draft_id, source in self.saved
            ],
            "not_saved": [skip.to_json() for skip in self.refused],
        }


def save_to_inbox(plan: ImportPlan, stores: list[Path]) -> InboxResult:
    """Save the plan's candidates as drafts; record the facts and the stores' files."""
    from lore.team.drafts.save import DraftRefused, save_drafts

    result = InboxResult()
    candidates = list(plan.candidates)
    inputs = [
        NoteInput(
            title=c.note.title,
            type=c.note.type,
            tags=list(c.note.tags),
            confidence=c.note.confidence,
            repo=list(c.note.repo),
            supersedes=list(c.note.supersedes),
            expires=c.note.expires or "",
            author=c.note.author or "",
            body=c.note.body,
            id=c.note.id,
            note_date=c.note.date,
            agent=AGENT_OF_KIND.get(plan.kind, ""),
        )
        for c in candidates
    ]
    outcomes = (
        save_drafts(plan.root, inputs, origin="import", extra={"imported": plan.kind})
        if inputs
        else []
    )
    today = clock.today().isoformat()
    facts: dict[str, dict[str, str]] = {}
    for candidate, outcome in zip(candidates, outcomes, strict=True):
        if isinstance(outcome, DraftRefused):
            result.refused.append(Skip(candidate.draft.source, outcome.message))
            continue
        result.saved.append((outcome.draft.id, candidate.draft.source))
        if candidate.draft.match_key:
            facts[candidate.draft.match_key] = {
                "kind": plan.kind,
                "source": candidate.draft.source,
                "draft": outcome.draft.id,
                "day": today,
            }
    for number, path in enumerate(stores):
        record(
            plan.root,
            facts if number == 0 else {},
            store_name(plan.kind, path),
            snapshot(plan.kind, path),
            when=today,
        )
    if not stores and facts:
        record(plan.root, facts)
    return result
