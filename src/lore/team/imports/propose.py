"""Propose an import: the batch as one pull request, or one pull request per note.

The batch goes through the proposal path the gardener's change sets use
(`lore.team.proposals.changes`): a branch `lore/import-<kind>-<date>` cut from the commit the
plan was checked against, in a worktree of its own (the user's checkout is never
touched), one commit with every note and — when the import names a repository the
taxonomy lacks — the `_taxonomy.md` line, a push and a pull request labelled `lore`
whose description lists each note with its source, what was skipped and why, and the
curator's findings by rule. When the push or the pull request fails, the branch stays
and `lore import --resume NAME` finishes it.

A note with curator errors is left out (and said so) unless `force`; a note with a
secret never gets this far (`lore.team.imports.batch`). With `one_per_note`, each note
is its own change set, each carrying the taxonomy line it needs (the same line added
by several pull requests merges cleanly).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from lore import clock
from lore.curator.report.formats import md_escape
from lore.errors import ProposalError
from lore.taxonomy import TAXONOMY_FILE
from lore.team.imports.model import Candidate, ImportPlan, Progress, Skip
from lore.team.proposals.branches import Outcome
from lore.team.proposals.changes import ChangeSet, free_change_name, propose_change
from lore.vault.remote import NETWORK_TIMEOUT

MAX_LISTED = 150  # notes and skips listed in a pull request's description


@dataclass
class ProposeResult:
    outcomes: list[Outcome] = field(default_factory=list)
    left_out: list[Skip] = field(default_factory=list)  # candidates not proposed, and why
    failed: list[tuple[str, ProposalError]] = field(default_factory=list)  # name, error


def blocked(plan: ImportPlan, *, force: bool) -> tuple[list[Candidate], list[Skip]]:
    """(the candidates that can be proposed, the ones left out with the reason)."""
    ready: list[Candidate] = []
    left: list[Skip] = []
    for candidate in plan.candidates:
        errors = candidate.errors
        if not candidate.note.tags and not force:
            left.append(
                Skip(
                    candidate.draft.source,
                    "no tag: none of the vault's tags or aliases names it; add one (--tag, or edit "
                    "it in the review), or propose anyway with --force",
                )
            )
        elif errors and not force:
            rules = ", ".join(sorted({f.rule for f in errors}))
            left.append(
                Skip(
                    candidate.draft.source,
                    f"the curator found {len(errors)} error(s) ({rules}): not proposed; fix it "
                    "in the review, or propose anyway with --force (its check will fail)",
                )
            )
        else:
            ready.append(candidate)
    return ready, left


def propose_plan(
    plan: ImportPlan,
    *,
    one_per_note: bool = False,
    force: bool = False,
    timeout: float = NETWORK_TIMEOUT,
    progress: Progress | None = None,
) -> ProposeResult:
    """Open the pull request(s) for the plan's candidates: exactly `blocked`'s ready ones."""
    ready, left = blocked(plan, force=force)
    result = ProposeResult(left_out=left)
    if not ready:
        return result
    today = clock.today().isoformat()
    groups = [[c] for c in ready] if one_per_note else [ready]
    for number, group in enumerate(groups):
        if progress is not None:
            progress("Proposing: a branch, a push, a pull request", number, len(groups))
        base = f"import-{group[0].note.id}" if one_per_note else f"import-{plan.kind}-{today}"
        name = free_change_name(plan.root, base[:90].rstrip("-"))
        writes = {c.note.path: c.text.encode("utf-8") for c in group}
        if plan.taxonomy is not None and _needs_taxonomy(plan, group):
            writes[TAXONOMY_FILE] = plan.taxonomy
        change = ChangeSet(
            name=name,
            title=_title(plan, group),
            body=pr_body(plan, group, left, one_per_note=one_per_note),
            message=f"lore import {plan.kind}: {len(group)} note(s)\n\n"
            + "\n".join(f"Proposes {c.note.path}." for c in group[:MAX_LISTED]),
            writes=writes,
            resume_command=f"lore import --resume {name}",
        )
        try:
            result.outcomes.append(
                propose_change(
                    plan.root,
                    change,
                    base_branch=plan.base_branch,
                    base_ref=plan.base_ref,
                    timeout=timeout,
                )
            )
        except ProposalError as exc:
            if not one_per_note:
                raise
            result.failed.append((name, exc))
    return result


def _needs_taxonomy(plan: ImportPlan, group: list[Candidate]) -> bool:
    added = {repo.lower() for repo in plan.added_repos}
    tags = set(plan.added_tags)
    return any(repo.lower() in added for c in group for repo in c.note.repo) or any(
        tag in tags for c in group for tag in c.note.tags
    )


def _title(plan: ImportPlan, group: list[Candidate]) -> str:
    if len(group) == 1:
        return f"lore: {' '.join(group[0].note.title.split())}"[:250]
    return f"lore: import {len(group)} notes ({plan.kind})"


def pr_body(
    plan: ImportPlan, group: list[Candidate], left: list[Skip], *, one_per_note: bool
) -> str:
    """The pull request's description: each note and its source, the skips, the findings."""
    lines = [
        f"Imported with `lore import {plan.kind}`: {len(group)} note(s), each in its source's "
        "own words, checked by the curator against the vault and the rest of the batch.",
        "",
    ]
    if plan.added_repos and TAXONOMY_FILE:
        repos = ", ".join(f"`{md_escape(r, 80)}`" for r in plan.added_repos)
        lines += [f"Adds {repos} to `_taxonomy.md` (under `## Repos`).", ""]
    if plan.added_tags:
        lines += [
            "No tag of the taxonomy fitted some notes, so this proposes these in "
            "`_taxonomy.md` (keep, rename or merge them before merging):",
            "",
            *(
                f"- {md_escape(plan.new_tags[tag].removeprefix('- '), 300)}"
                for tag in plan.added_tags
            ),
            "",
        ]
    lines += ["### Notes", "", "| note | type | from |", "| --- | --- | --- |"]
    for candidate in group[:MAX_LISTED]:
        note, draft = candidate.note, candidate.draft
        where = md_escape(draft.source, 200)
        if note.source:
            where = f"[{where}]({note.source})"
        lines.append(f"| `{note.id}` {md_escape(note.title, 120)} | {note.type} | {where} |")
    if len(group) > MAX_LISTED:
        lines.append(f"| … and {len(group) - MAX_LISTED} more | | |")
    skips = [] if one_per_note else [*plan.skipped, *left]
    if skips:
        lines += ["", f"### Skipped ({len(skips)})", ""]
        for skip in skips[:MAX_LISTED]:
            lines.append(f"- `{md_escape(skip.source, 200)}` — {md_escape(skip.reason, 300)}")
        if len(skips) > MAX_LISTED:
            lines.append(f"- … and {len(skips) - MAX_LISTED} more")
    counts = Counter(f.rule for c in group for f in c.findings)
    lines += ["", "### Local check", ""]
    if counts:
        lines += [f"- `{rule}`: {n}" for rule, n in sorted(counts.items())]
    else:
        lines.append("The curator's rules found no problems.")
    lines += ["", "The curator checks this pull request in CI; a reviewer merges it."]
    return "\n".join(lines) + "\n"
