"""What an import is made of: drafts from the sources, the notes they become, what was skipped.

A `Draft` is what a source kind read: the note's fields in the source's own words,
where it came from (`source`, shown to the user; `source_url` for the note), what
identifies that source across runs (`match_key`, for "already imported"), links to
other drafts of the batch by their `key`, and the parts of the source that could not
be mapped (`unmapped`, said per file). The batch (`lore.team.imports.batch`) turns each
kept draft into a `Candidate`: the note with its final id, its text and the curator's
findings. `ImportPlan.to_json` is the `--dry-run --json` contract of DESIGN §3.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lore.curator.finding import Finding
from lore.note.model import Note
from lore.sanitize import sanitize_field
from lore.sanitize.markdown import sanitize_markdown
from lore.team.imports.tagging import Tagger
from lore.versioned import versioned

Progress = Callable[[str, int, int], None]  # (what, done, total)


@dataclass
class ReadOptions:
    """What every source reader is given: the vault's vocabulary and limits, the user's flags."""

    tagger: Tagger
    max_words: int  # words a body may have (the vault's `max_body_words`, with room)
    max_title: int = 120
    repo: str | None = None  # `--repo`
    tags: list[str] = field(default_factory=list)  # `--tag`, added to every note
    types: frozenset[str] = frozenset()  # the vault's types (empty: no taxonomy to check)
    progress: Progress | None = None
    known_facts: dict[str, dict[str, str]] = field(default_factory=dict)  # memory_ledger's


@dataclass
class Draft:
    """One note an import would propose, before its id is final."""

    key: str  # unique in the batch: the source file, plus `#n` when a file gives several
    source: str  # the file it came from, as the user knows it (plus `:line` for agent files)
    title: str
    type: str
    what: str  # the first line stands alone; the source's own words
    date: str  # ISO date, from the source or git: never made up
    confidence: str = "medium"
    why: str = ""
    how: str = ""
    gotchas: str = ""
    tags: list[str] = field(default_factory=list)
    repo: list[str] = field(default_factory=list)
    scope: str = ""  # the id's first part (the repository, else the kind)
    section: str = ""  # the heading the source files it under, when it has one
    source_url: str | None = None
    match_key: str | None = None  # the same source in a later run has the same key
    supersedes: list[str] = field(default_factory=list)  # draft keys, or `id:<note id>`
    related: list[str] = field(default_factory=list)  # likewise, for `## Related`
    depends_on: list[str] = field(default_factory=list)
    expires: str | None = None
    unmapped: list[str] = field(default_factory=list)  # what of the source was not kept

    def body(self, related_ids: list[str]) -> str:
        """The note's body. Quoted HTML that can run or fetch (`<script>`, `<img>`, `<form>`)
        is neutralised even in code, as the curator asks (`lore.sanitize.sanitize_markdown`
        prints it with ‹ and ›): a rule that names a tag is kept, not blocked."""
        return sanitize_markdown(self._sections(related_ids))

    def _sections(self, related_ids: list[str]) -> str:
        parts = [f"## What\n{self.what.strip()}\n"]
        if self.why.strip():
            parts.append(f"## Why\n{self.why.strip()}\n")
        if self.how.strip():
            parts.append(f"## How\n{self.how.strip()}\n")
        if self.gotchas.strip():
            parts.append(f"## Gotchas\n{self.gotchas.strip()}\n")
        if related_ids:
            parts.append("## Related\n" + "\n".join(f"[[{i}]]" for i in related_ids) + "\n")
        return "\n".join(parts)


@dataclass(frozen=True)
class Skip:
    """A source file (or part of one) the import leaves out, and why."""

    source: str
    reason: str

    def to_json(self) -> dict[str, str]:
        return {"source": sanitize_field(self.source), "reason": sanitize_field(self.reason)}


@dataclass
class Candidate:
    """A draft as the note it becomes: final id, the file's text, the curator's findings."""

    draft: Draft
    note: Note
    text: str
    findings: list[Finding] = field(default_factory=list)

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.is_error]

    @property
    def secrets(self) -> list[Finding]:
        return [f for f in self.findings if f.family == "secret"]

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.note.id,
            "source": sanitize_field(self.draft.source),
            "text": self.text,
            "findings": [finding.to_json() for finding in self.findings],
        }


@dataclass
class ImportPlan:
    """An import ready to be shown, reviewed and proposed."""

    kind: str
    root: Path  # the vault
    base_branch: str
    base_ref: str
    candidates: list[Candidate] = field(default_factory=list)
    skipped: list[Skip] = field(default_factory=list)
    taxonomy: bytes | None = None  # `_taxonomy.md` with the repositories it adds
    added_repos: list[str] = field(default_factory=list)
    unlisted_repos: list[str] = field(default_factory=list)  # named, not added (drafts inbox)
    new_tags: dict[str, str] = field(default_factory=dict)  # tag -> its `_taxonomy.md` line
    added_tags: list[str] = field(default_factory=list)  # the new tags the candidates use
    unlisted_tags: list[str] = field(default_factory=list)  # new, not added (drafts inbox)
    notices: list[str] = field(default_factory=list)
    sources: list[Path] = field(default_factory=list)  # the folders and files read (real)

    def to_json(self) -> dict[str, Any]:
        """`lore import … --dry-run --json` (DESIGN §3)."""
        return versioned(
            {
                "notes": [candidate.to_json() for candidate in self.candidates],
                "skipped": [skip.to_json() for skip in self.skipped],
            }
        )

    def findings_by_rule(self) -> Counter[str]:
        return Counter(f.rule for c in self.candidates for f in c.findings)

    def skip_reasons(self) -> Counter[str]:
        """How many were skipped for each kind of reason (the reason's first clause)."""
        return Counter(skip.reason.split(":", 1)[0].split(" (", 1)[0] for skip in self.skipped)
