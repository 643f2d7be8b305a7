"""`curate`: the library entry point of the curator (used by `lore curate` and `lore remember`).

It builds the context for one target (`lore.curator.target`: a commit range, paths,
drafts, or the whole vault — one value, built by each adapter from its own flags), reads
the vault the change joins through the index (`lore.curator.context.vault_index`; only
the notes under review are parsed), runs every rule family of the registry (a full audit
a batch of notes at a time: `lore.curator.audit`), and returns the sorted findings with a
preview of each note as an agent will see it, and, when asked, the notes most like each
one (`lore.curator.similar`). A family that fails unexpectedly becomes an error finding,
so a broken rule blocks a pull request instead of waving it through; an error of the
index is not a rule's: it goes up to `read_index`, which heals the index and runs the
review again. Every output is scrubbed of the secret values the secret rules found.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from lore import clock
from lore.curator.audit import run_audit
from lore.curator.context import sources
from lore.curator.context.candidates import note_progress
from lore.curator.context.model import CheckedFile, CuratorContext
from lore.curator.context.vault_index import with_vault
from lore.curator.finding import Finding, count
from lore.curator.review.outcome import ModelReview
from lore.curator.rules.registry import FAMILIES, stopped
from lore.curator.similar import SimilarNote, similar_notes
from lore.curator.target import Drafts, Range, Target, WholeVault
from lore.errors import ExitCode
from lore.sanitize import sanitize_text
from lore.sanitize.markdown import sanitize_markdown
from lore.sanitize.secret_scan import redact, scan_secrets
from lore.vault.resolved import Vault

Progress = Callable[[int, int, str], None]  # (done, total, what is being done)


@dataclass
class CurateResult:
    findings: list[Finding]
    checked: list[str]  # the paths that were reviewed
    previews: dict[str, str] = field(default_factory=dict)  # path -> what an agent will see
    mode: str = "paths"
    similar: dict[str, list[SimilarNote]] = field(default_factory=dict)  # path -> most alike
    notices: list[str] = field(default_factory=list)  # about the index (healed, not used)
    model_review: ModelReview | None = None  # what the optional model review did, if enabled

    @property
    def errors(self) -> int:
        return count(self.findings)[0]

    @property
    def warnings(self) -> int:
        return count(self.findings)[1]

    @property
    def exit_code(self) -> int:
        return int(ExitCode.PROBLEMS_FOUND if self.errors else ExitCode.OK)


def build_context(
    where: Vault | Path, target: Target, *, today: str | None = None, read_vault: bool = True
) -> CuratorContext:
    """The context of one review of `target` in the vault (`where`: its `Vault`, or its
    folder). `read_vault=False` leaves the vault's notes to `with_vault`."""
    vault = Vault.of(where)
    day = today or clock.today().isoformat()
    if isinstance(target, Range):
        return sources.context_for_range(vault, target, today=day, read_vault=read_vault)
    if isinstance(target, WholeVault):
        return sources.context_for_all(vault, today=day)
    return sources.context_for_paths(vault, target, today=day, read_vault=read_vault)


def run_rules(context: CuratorContext, progress: Progress | None = None) -> list[Finding]:
    """Every rule family's findings; `progress(done, total, label)` hears of each family
    or, in a full audit (`lore.curator.audit`, a batch of notes at a time), of the notes
    checked and then of each note the pair rules judge."""
    if context.unread is not None:
        return run_audit(context, FAMILIES, progress)
    findings: list[Finding] = []
    notes = note_progress(context)
    for number, family in enumerate(FAMILIES):
        if progress is not None:
            label = f"Checking notes: {family.NAME}"
            progress(number, len(FAMILIES), label)
            notes.report = lambda done, total, label=label: progress(done, total, label)
        try:
            findings += family.check(context)
        except Exception as exc:
            if isinstance(exc, sqlite3.Error) and context.index is not None:
                raise  # the index's trouble: `read_index` heals it and the review runs again
            findings.append(stopped(family.NAME, exc))
    notes.report = None
    return findings


def _clean(finding: Finding, secrets: set[str]) -> Finding:
    message = sanitize_text(finding.message)
    suggestion = sanitize_text(finding.suggestion) if finding.suggestion else None
    if secrets:
        message = redact(message, secrets)
        suggestion = redact(suggestion, secrets) if suggestion else None
    return finding.with_text(message, suggestion)


def preview(checked: CheckedFile, secrets: Iterable[str]) -> str | None:
    """The note as recall would hand it to an agent: sanitised, secrets masked."""
    view = checked.view
    if view is None:
        return None
    text = sanitize_text(view.text[: view.frontmatter_end]) + sanitize_markdown(view.body)
    values = set(secrets) | {match.value for match in scan_secrets(text)}
    return redact(text, values)


def curate(
    where: Vault | Path,
    target: Target,
    *,
    today: str | None = None,
    semantic: bool = False,
    similar: int = 0,
    use_index: bool = True,
    progress: Progress | None = None,
) -> CurateResult:
    """Review what `target` names (`lore.curator.target`); raises `UsageError` for a
    target that cannot be read (a ref that is no commit, a file that is not there), never
    for bad notes.

    `semantic=True` allows the optional model review (`lore.curator.review.semantic`), which
    still runs only when the vault enables it, and never on drafts; it adds warnings only,
    and what it did (or why it was skipped) is `model_review`.
    `similar`: also gather, for each note under review, up to that many of the most
    alike active notes with the judgement on each pair. `use_index=False` reads the
    vault's notes from the files (into an index in memory) instead of the vault's index.
    `progress(done, total, label)` hears how far the review is (total 0: not known).
    `where`: the vault's `Vault` (its parts found once, for every layer below), or its
    folder.
    """
    if progress is not None:
        progress(0, 0, "Reading the notes")
    context = build_context(where, target, today=today, read_vault=False)
    notices: list[str] = [context.settings_notice] if context.settings_notice else []
    model: list[ModelReview | None] = [None]  # the last run of `judge` (the index may heal)

    def judge(context: CuratorContext) -> tuple[list[Finding], dict[str, list[SimilarNote]]]:
        findings = run_rules(context, progress)
        if semantic and not isinstance(target, Drafts):
            from lore.curator.review.merge import merged
            from lore.curator.review.semantic import review

            advice, model[0] = review(context)
            findings = merged(findings, advice)
        return findings, similar_notes(context, similar) if similar else {}

    findings, alike = with_vault(
        context,
        judge,
        use_index=use_index,
        create_index=context.mode != "range",  # CI's checkout: no one reads an index file
        notices=notices,
    )
    unique = {(f.rule, f.severity, f.path, f.line, f.message): f for f in findings}
    cleaned = sorted((_clean(f, context.redactions) for f in unique.values()), key=Finding.sort_key)
    previews: dict[str, str] = {}
    if context.mode != "all":
        for checked in context.notes:
            shown = preview(checked, context.redactions)
            if shown is not None:
                previews[checked.display] = shown
    unread = context.unread
    listed = [file.display for file in context.files]
    if unread is not None:  # a full audit: every file it listed, notes read in batches
        listed = [display for display in unread.order if display not in unread.unreadable]
    return CurateResult(
        findings=cleaned,
        checked=listed,
        previews=previews,
        mode=context.mode,
        similar=alike,
        notices=notices,
        model_review=model[0],
    )
