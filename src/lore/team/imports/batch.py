"""A batch of drafts as notes: ids, links, the taxonomy line, and the curator's judgement.

`plan_batch` decides what an import proposes:

1. A draft whose source the vault or an open proposal already holds (`match_key`) is
   skipped, naming that note; links to it point at that note instead.
2. Every other draft becomes a note: an id `{scope}--{title}--{date}` no note, branch
   or open proposal uses, `supersedes` and `## Related` resolved to ids, the author.
3. A repository the notes name that `_taxonomy.md` does not list is added under
   `## Repos`, and a note no tag of the taxonomy fits gets one proposed beside it
   (`lore.team.imports.new_tags`), in the same pull request.
4. The curator checks the batch as one change against the vault it starts from, with
   the open proposals' notes before it (`lore.curator.curate` with `drafts` and `at`):
   each note against the vault, the open proposals and the notes before it. A note it
   judges a duplicate (`duplicate/exact`, `duplicate/near`) of a note in the vault or an
   open proposal is skipped, naming it; a word-for-word copy of an earlier note of the
   batch too (for agent files, the two repositories are merged onto the first). A note
   with a secret is skipped, whatever else: its text is never shown or proposed. What
   is left is checked once more, so its findings are those of the final batch.

The missing repository's `taxonomy/unknown-repo` and the proposed tag's
`taxonomy/unknown-tag` findings are not reported: the batch adds those lines, and the
pull request's curator reads the taxonomy from its head.
"""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import date

from lore.curator.finding import Finding
from lore.curator.run import curate
from lore.curator.target import Drafts
from lore.note.ids import make_id, slugify
from lore.note.model import Note
from lore.note.render import render_note
from lore.taxonomy import TAXONOMY_FILE, with_lines, with_repos
from lore.team.drafts.draft import with_unique_id
from lore.team.imports.kinds import MEMORY_KINDS
from lore.team.imports.model import Candidate, Draft, ImportPlan, Progress, Skip
from lore.team.imports.new_tags import propose_tags
from lore.team.imports.vault_view import VaultView

_ID_IN_TEXT = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*--[a-z0-9]+(?:-[a-z0-9]+)*--\d{4}-\d{2}-\d{2}")
DUPLICATE_RULES = ("duplicate/exact", "duplicate/near")
ADDED_RULES = ("taxonomy/unknown-repo", "taxonomy/unknown-tag")
MAX_PASSES = 4


def plan_batch(
    view: VaultView,
    kind: str,
    drafts: list[Draft],
    skipped: list[Skip],
    *,
    author: str | None,
    merge_repos: bool = False,
    progress: Progress | None = None,
) -> ImportPlan:
    """The plan for `drafts`: what is proposed (with findings) and what is skipped, and why."""
    plan = ImportPlan(kind, view.root, view.base_branch, view.base_ref, skipped=list(skipped))
    resolved: dict[str, str] = {}  # draft key -> the id of the note that stands for it
    kept: list[Draft] = []
    for draft in drafts:
        found = view.by_key.get(draft.match_key or "")
        if found is not None:
            resolved[draft.key] = found[0]
            plan.skipped.append(
                Skip(draft.source, f"already imported: {found[0]} is in {found[1]}")
            )
        else:
            kept.append(draft)
    proposed = propose_tags(kept, view.taxonomy)
    plan.new_tags = {tag.name: tag.line() for tag in proposed}
    for _ in range(MAX_PASSES):
        candidates = build_candidates(view, kept, resolved, author)
        _add_taxonomy(plan, view, candidates)
        check_batch(view, plan, candidates, progress=progress)
        dropped = _judge(view, plan, candidates, resolved, merge_repos=merge_repos)
        if not dropped:
            plan.candidates = candidates
            return plan
        kept = [draft for draft in kept if draft.key not in dropped]
    plan.candidates = build_candidates(view, kept, resolved, author)  # pragma: no cover
    check_batch(view, plan, plan.candidates, progress=progress)  # pragma: no cover
    return plan  # pragma: no cover


def build_candidates(
    view: VaultView, drafts: list[Draft], resolved: dict[str, str], author: str | None
) -> list[Candidate]:
    """Each draft as a note with a free id and its links as ids (unresolvable ones dropped)."""
    taken = set(view.ids)
    ids: dict[str, str] = dict(resolved)
    notes: list[tuple[Draft, Note]] = []
    for draft in drafts:
        note = with_unique_id(_note(draft, author), taken.__contains__)
        taken.add(note.id)
        ids[draft.key] = note.id
        notes.append((draft, note))

    def linked(refs: list[str], own: str) -> list[str]:
        found = [ref[3:] if ref.startswith("id:") else ids.get(ref, "") for ref in refs]
        return list(dict.fromkeys(i for i in found if i and i != own))

    candidates: list[Candidate] = []
    for draft, note in notes:
        supersedes = linked(draft.supersedes, note.id)
        related = [i for i in linked(draft.related, note.id) if i not in supersedes]
        depends = linked(draft.depends_on, note.id)
        final = replace(
            note,
            body=draft.body(related),
            supersedes=tuple(supersedes),
            depends_on=tuple(depends),
        )
        candidates.append(Candidate(draft, final, render_note(final)))
    return candidates


def _note(draft: Draft, author: str | None) -> Note:
    scope = draft.scope or (draft.repo[0] if draft.repo else "org")
    topic = slugify(draft.title)
    prefix = slugify(scope, 3) + "-"
    if topic.startswith(prefix) and len(topic) > len(prefix):
        topic = topic[len(prefix) :]
    note_id = make_id(scope, topic or "note", date.fromisoformat(draft.date))
    return Note(
        id=note_id,
        title=draft.title,
        type=draft.type,
        tags=tuple(draft.tags),
        confidence=draft.confidence,
        date=draft.date,
        body="",
        repo=tuple(draft.repo),
        author=author,
        expires=draft.expires,
        source=draft.source_url,
        path=f"notes/{note_id}.md",
    )


def _add_taxonomy(plan: ImportPlan, view: VaultView, candidates: list[Candidate]) -> None:
    """The repositories the notes name and `_taxonomy.md` lacks, added under `## Repos`, and
    the tags proposed for notes no tag fitted, under their dimension — in the same change.
    Drafts for the inbox (agents' memories) carry no such line: the repositories and tags
    are named in `unlisted_repos` and `unlisted_tags`, and the curator's
    `taxonomy/unknown-repo` and `unknown-tag` say so on each draft."""
    listed = {name.lower() for name in (view.taxonomy.repos if view.taxonomy else {})}
    missing = sorted({r for c in candidates for r in c.note.repo if r.lower() not in listed})
    used = {tag for c in candidates for tag in c.note.tags}
    plan.taxonomy = None
    if plan.kind in MEMORY_KINDS:  # a draft carries no `_taxonomy.md` line: say what it lacks
        plan.unlisted_repos, plan.added_repos, plan.added_tags = missing, [], []
        plan.unlisted_tags = [tag for tag in plan.new_tags if tag in used]
        return
    plan.added_repos = missing
    plan.added_tags = [tag for tag in plan.new_tags if tag in used]
    if (missing or plan.added_tags) and view.taxonomy_text is not None:
        text = view.taxonomy_text
        if missing:
            text = with_repos(text, missing, by="lore import")
        for tag in plan.added_tags:
            text = with_lines(text, tag.split("/", 1)[0], [plan.new_tags[tag]])
        plan.taxonomy = text.encode("utf-8")


def check_batch(
    view: VaultView,
    plan: ImportPlan,
    candidates: list[Candidate],
    *,
    progress: Progress | None = None,
) -> dict[str, list[Finding]]:
    """Run the curator on the batch (after the open proposals' notes); findings by note path."""
    if progress is not None:
        progress("Checking with the curator", 0, len(candidates))
    drafts: dict[str, bytes] = dict(view.open_notes.items())
    for candidate in candidates:
        drafts[candidate.note.path] = candidate.text.encode("utf-8")
    if not candidates:
        return {}
    step = None
    if progress is not None:
        report = progress

        def step(done: int, total: int, label: str) -> None:  # the curator's own stages
            report(f"Checking with the curator: {label}", done, total)

    result = curate(view.root, Drafts(drafts, at=view.base_ref), progress=step)
    added = [f"'{name}'" for name in (*plan.added_repos, *plan.added_tags)]
    found: dict[str, list[Finding]] = {}
    for finding in result.findings:
        if finding.rule in ADDED_RULES and any(name in finding.message for name in added):
            continue  # the change adds it to `_taxonomy.md`
        found.setdefault(finding.path, []).append(finding)
    for candidate in candidates:
        candidate.findings = found.get(candidate.note.path, [])
    if progress is not None:
        progress("Checking with the curator", len(candidates), len(candidates))
    return found


def _judge(
    view: VaultView,
    plan: ImportPlan,
    candidates: list[Candidate],
    resolved: dict[str, str],
    *,
    merge_repos: bool,
) -> set[str]:
    """Skip secrets and duplicates; the draft keys dropped (empty when the batch stands)."""
    dropped: set[str] = set()
    by_id = {c.note.id: c for c in candidates}
    for candidate in candidates:
        draft = candidate.draft
        secret = next((f for f in candidate.findings if f.family == "secret"), None)
        if secret is not None:
            line = f", line {secret.line} of the note" if secret.line else ""
            plan.skipped.append(
                Skip(
                    draft.source,
                    f"contains what looks like a secret ({secret.rule}{line}): left out, "
                    "and its text is not shown; remove the secret from the source",
                )
            )
            dropped.add(draft.key)
            continue
        for finding in candidate.findings:
            if finding.rule not in DUPLICATE_RULES:
                continue
            other = next(
                (i for i in _ID_IN_TEXT.findall(finding.message) if i != candidate.note.id), None
            )
            if other is None:
                continue
            place = view.places.get(other)
            if place is not None:
                resolved[draft.key] = other
                plan.skipped.append(
                    Skip(draft.source, f"the curator judges it a duplicate of {other} in {place}")
                )
                dropped.add(draft.key)
                break
            first = by_id.get(other)
            if (
                first is not None
                and finding.rule == "duplicate/exact"
                and first.draft.key not in dropped
            ):
                resolved[draft.key] = other
                reason = f"the same text as {first.draft.source}"
                if merge_repos:
                    for repo in draft.repo:
                        if repo not in first.draft.repo:
                            first.draft.repo.append(repo)
                    reason += " (its repository is added to that note)"
                plan.skipped.append(Skip(draft.source, reason))
                dropped.add(draft.key)
                break
    return dropped


def recheck(view: VaultView, plan: ImportPlan, progress: Progress | None = None) -> None:
    """The curator's findings for the batch as it now stands (after the user's review)."""
    _add_taxonomy(plan, view, plan.candidates)
    check_batch(view, plan, plan.candidates, progress=progress)


__all__ = [
    "TAXONOMY_FILE",
    "build_candidates",
    "check_batch",
    "plan_batch",
    "recheck",
]
