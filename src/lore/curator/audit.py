"""A full audit (`lore curate --all`), a batch of notes at a time.

`context_for_all` lists the vault's note files without reading them (`context.unread`).
`run_audit` then makes two passes, so that at most `BATCH` parsed notes are in memory
at once, whatever the size of the vault:

1. The notes in the order they are listed, `BATCH` at a time: each batch is read and
   parsed, and every family that looks at one note (or one file) at a time runs on it —
   the first batch also holds the files that are not notes. What the other rules need of
   every note is kept: its `Entry` for the pair rules (profile, id, title, digest;
   `lore.curator.context.corpus`), its links (the status of every note is computed from
   them once all are read), and, for a note that supersedes, depends or expires, its
   fields without its text, for the `lifecycle/` rules, which run once every status is
   known.
2. The pair rules (duplicate, contradiction, `lifecycle/may-supersede`) in one pass over
   the notes in the order they judge them (by date), each batch read again: every rule
   judges a note before the next note is taken, and what was kept for that note only
   (its verdicts, its candidates' pool) is dropped (`Pairs.forget`). What a later note's
   verdict reads of it (its profile, claims and cues) stays.

The findings are those the families give on the whole vault at once; a family that fails
becomes its error finding, as in `lore.curator.run.run_rules`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from functools import partial

from lore.curator.context.candidates import ParsedCorpus, note_progress, use_corpus
from lore.curator.context.corpus import Entry
from lore.curator.context.model import (
    CheckedFile,
    CuratorContext,
    NoteView,
    UnreadNotes,
    statuses_of,
)
from lore.curator.finding import Finding
from lore.curator.rules import contradiction, duplicate, lifecycle, supersession
from lore.curator.rules.pairs import active_before, pairs_of
from lore.curator.rules.registry import RuleFamily, stopped
from lore.errors import UsageError
from lore.note.status import Links

BATCH = 2000  # notes parsed and held at once
CLAIMS_KEPT = 4 * BATCH  # notes whose claims are kept (the others' are read again if asked)
PAIR_FAMILIES = frozenset({duplicate.NAME, contradiction.NAME, lifecycle.NAME})
PAIRS_LABEL = "Checking notes: duplicate, contradiction, lifecycle"

Progress = Callable[[int, int, str], None]


class _Families:
    """Each family's findings so far, or the error it stopped with (then it is not run
    again, and its findings are dropped, as when a family fails on the whole vault)."""

    def __init__(self) -> None:
        self.found: dict[str, list[Finding]] = {}
        self.failed: dict[str, Finding] = {}

    def run(self, name: str, work: Callable[[], list[Finding]]) -> None:
        if name in self.failed:
            return
        try:
            found = work()
        except UsageError:
            raise
        except Exception as exc:  # noqa: BLE001 - a broken rule becomes its error finding
            self.failed[name] = stopped(name, exc)
            self.found.pop(name, None)
            return
        self.found.setdefault(name, []).extend(found)

    def findings(self) -> list[Finding]:
        every = [f for found in self.found.values() for f in found]
        return every + list(self.failed.values())


def run_audit(
    context: CuratorContext, families: Sequence[RuleFamily], progress: Progress | None = None
) -> list[Finding]:
    """Every family's findings on a full audit's context (`context.unread` set)."""
    unread = context.unread
    assert unread is not None
    results = _Families()
    single = [family for family in families if family.NAME not in PAIR_FAMILIES]
    entries, links, stubs = _first_pass(context, unread, single, results, progress)
    statuses = statuses_of(links, context.vault_ids, context.today)
    context.settle_statuses_after(statuses)
    names = {family.NAME for family in families}
    if lifecycle.NAME in names:
        kept = replace(context, files=stubs)
        kept.settle_statuses_after(statuses)
        results.run(lifecycle.NAME, partial(lifecycle.check_notes, kept))
        del kept
    del links, stubs  # what only the first pass and the lifecycle rules needed
    corpus = ParsedCorpus(entries, note_progress(context), CLAIMS_KEPT)
    use_corpus(context, corpus)
    _pair_pass(context, corpus, names, results, progress)
    return results.findings()


def _batches(unread: UnreadNotes, size: int) -> Iterator[list[CheckedFile]]:
    for start in range(0, len(unread.files), size):
        batch = (unread.read(path, mode) for path, mode in unread.files[start : start + size])
        yield [checked for checked in batch if checked is not None]


class _Kept:
    """What the first pass keeps of every note, for the rules that need all of them."""

    def __init__(self) -> None:
        self.entries: list[tuple[tuple[str, str], Entry]] = []  # by (date, id), for sorting
        self.shared: dict[frozenset[str], frozenset[str]] = {}
        self.links: dict[str, Links] = {}
        self.stubs: list[CheckedFile] = []

    def add(self, unread: UnreadNotes, checked: CheckedFile) -> None:
        view = checked.view
        if view is None:
            return
        self.links[view.id] = view.links()
        if view.expires or view.supersedes or view.depends_on:
            stub = replace(view, text="", body="")
            self.stubs.append(replace(checked, raw=b"", report=None, view=stub))
        entry = Entry(view, checked.display, True)
        entry.share_subject(self.shared)
        entry.release(partial(_read_again, unread, checked.path, checked.mode))
        self.entries.append(((view.date or "", view.id), entry))


def _first_pass(
    context: CuratorContext,
    unread: UnreadNotes,
    families: Sequence[RuleFamily],
    results: _Families,
    progress: Progress | None,
) -> tuple[list[Entry], dict[str, Links], list[CheckedFile]]:
    """Run the families that look at one file at a time, a batch at a time; keep what
    the others need of every note."""
    kept = _Kept()
    total, done = len(unread.files), 0
    batches = _batches(unread, BATCH) if unread.files else iter([[]])
    for number, batch in enumerate(batches):
        # the files that are not notes, and the taxonomy's own problems: with the first
        first = number == 0
        files = [*context.files, *batch] if first else batch
        part = replace(context, files=files, taxonomy_changed=first and context.taxonomy_changed)
        for family in families:
            results.run(family.NAME, partial(family.check, part))
        for checked in batch:
            kept.add(unread, checked)
        done += len(batch)
        del batch, files, part  # before the next batch is read
        if progress is not None:
            progress(done, total, "Checking notes")
    entries, links, stubs = kept.entries, kept.links, kept.stubs
    entries.sort(key=lambda item: item[0])  # stable: the order the rules report them in
    return [entry for _, entry in entries], links, stubs


def _read_again(unread: UnreadNotes, path: str, mode: str) -> NoteView:
    checked = unread.read(path, mode)
    if checked is None or checked.view is None:
        raise UsageError(
            f"{path} changed while the vault was being audited, so it could not be read again.",
            fix="Run `lore curate --all` again once nothing is writing to the vault.",
        )
    return checked.view


def _pair_pass(
    context: CuratorContext,
    corpus: ParsedCorpus,
    names: set[str],
    results: _Families,
    progress: Progress | None,
) -> None:
    """The pair rules, every one on a note before the next, a batch of notes read at a time."""
    reviewed = corpus.reviewed()
    pairs = pairs_of(context)
    active = active_before(context)
    any_body = any(corpus.entries[index].has_body for index in reviewed)

    def duplicates(index: int) -> list[Finding]:
        if not any_body:
            return []  # as `duplicate.check`: no note to compare, no title either
        entry = corpus.entries[index]
        found = duplicate.check_note(context, corpus, index) if entry.has_body else []
        return found + duplicate.same_title(context, corpus, index, active)

    rules: list[tuple[str, Callable[[int], list[Finding]]]] = []
    if duplicate.NAME in names:
        rules.append((duplicate.NAME, duplicates))
    if contradiction.NAME in names:
        judge = partial(contradiction.check_note, corpus, pairs, eligible=active)
        rules.append((contradiction.NAME, judge))
    if lifecycle.NAME in names:
        replaced = partial(supersession.check_note, corpus, pairs, active=active)
        rules.append((lifecycle.NAME, replaced))
    for start in range(0, len(reviewed), BATCH):
        batch = reviewed[start : start + BATCH]
        for index in batch:
            entry = corpus.entries[index]
            entry.hold(entry.view)
        for done, index in enumerate(batch, start=start + 1):
            if progress is not None:
                progress(done, len(reviewed), PAIRS_LABEL)
            for name, rule in rules:
                results.run(name, partial(rule, index))
            pairs.forget(index)
        for index in batch:
            corpus.entries[index].release()
