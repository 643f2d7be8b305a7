"""The judgement of note pairs, once per curator run, for every rule that asks.

The duplicate, contradiction and replacement (`lifecycle/may-supersede`) rules and
`lore review`'s similar notes all judge the same pairs: a note under review against its
candidates (`lore.curator.context.candidates`; `Pairs.candidates` re-ranks a larger
pool of them by whole-note likeness). `pairs_of(context)` keeps one `Pairs`
per run, so each note's replacement cues are read once and each pair is judged once
(`lore.curator.judgement.verdict.judge`); each rule reports only the pairs whose
`Verdict.kind` is its own, so a pair gets one warning, not three. A full audit runs the
three rules on each note in one pass (`lore.curator.audit`) and then drops that note's
verdicts (`Pairs.forget`), so it never holds every pair's.

A replacement is looked for among the note's candidates and, when a cue links a note or
names its number, that note too (`NoteCorpus.find`), whatever its words.

The model review asks about the same pairs and more (`Pairs.asked_about`): first every
note the new note points at — a cue's `[[link]]` or record number, the same title, a
shared file; a note already replaced is followed to the active note that replaced it —
then the rules' candidates by whole-note likeness, whether or not a rule reported the
pair (the model's verdict and the rule's make one finding:
`lore.curator.review.merge`).
"""

from __future__ import annotations

from array import array
from collections.abc import Callable
from dataclasses import replace
from functools import partial

from lore.curator.context.candidates import NoteCorpus, corpus_of
from lore.curator.context.corpus import MAX_CANDIDATES
from lore.curator.context.model import CuratorContext
from lore.curator.judgement.replacement import Replacement
from lore.curator.judgement.similarity import whole_note
from lore.curator.judgement.verdict import REPLACEMENT, Verdict, judge
from lore.text.cue_sentences import Cue, cues

POOL = 3 * MAX_CANDIDATES  # candidates read, of which the most alike are judged
MAX_POINTED = 6  # notes a note points at (cues, title, files) that the model is asked about
MAX_HOPS = 8  # successors followed from a replaced note to the active one
MAX_REPLACED = 3  # replacement findings for one note
MAX_UNNAMED = 2  # ...of them for "this supersedes ..." naming nothing
_ORDER = {
    "links": 0,
    "number": 1,
    "subject": 2,
    "referenced": 3,
    "retaken": 4,
    "rechosen": 5,
    "unnamed": 6,
}
_MEMO = "_lore_judged_pairs"
NOTHING_SHARED: frozenset[str] = frozenset()


class Pairs:
    """Every verdict of one curator run, each computed once."""

    def __init__(self, context: CuratorContext) -> None:
        self.context = context
        self.corpus: NoteCorpus = corpus_of(context)
        self.threshold = context.settings.near_duplicate_threshold
        self._cues: dict[int, tuple[Cue, ...]] = {}
        self._verdicts: dict[int, dict[int, Verdict]] = {}  # note -> other -> verdict
        self._replaced: dict[int, list[tuple[int, Replacement]]] = {}
        # Each note's last pool and its re-ranking: the rules ask with their own
        # eligibility, which most often leaves the pool as it was.
        self._ranked: dict[int, tuple[array[int], array[int]]] = {}

    def cues(self, index: int) -> tuple[Cue, ...]:
        found = self._cues.get(index)
        if found is None:
            found = self._cues[index] = cues(self.corpus.entries[index].view)
        return found

    def verdict(self, index: int, other: int) -> Verdict:
        """The verdict on note `index` (under review) against note `other`."""
        known = self._verdicts.setdefault(index, {})
        found = known.get(other)
        if found is None:
            corpus = self.corpus
            found = judge(
                corpus.entries[index].profile,
                partial(corpus.claims, index),
                corpus.entries[other].profile,
                partial(corpus.claims, other),
                corpus.idf,
                self.threshold,
                self.cues(index),
                self.cues(other),
            )
            known[other] = found = settled(found) if not found.kind else found
        return found

    def forget(self, index: int) -> None:
        """Drop what was kept for note `index`'s rules: its verdicts, pool and replacements
        (a full audit runs every pair rule on a note in one pass, so none asks again; its
        cues and claims stay, for the notes after it that are judged against it)."""
        self._verdicts.pop(index, None)
        self._ranked.pop(index, None)
        self._replaced.pop(index, None)
        self.corpus.forget(index)

    def candidates(self, index: int, eligible: Callable[[int], bool]) -> list[int]:
        """The `MAX_CANDIDATES` notes to judge note `index` against: the corpus's best
        `POOL` candidates, re-ranked by whole-note likeness (a long note's best BM25
        matches on its title and summary miss notes alike as a whole)."""
        corpus = self.corpus
        pool = array("q", corpus.candidates(index, eligible, POOL))
        known = self._ranked.get(index)
        if known is not None and known[0] == pool:  # another rule, the same eligible pool
            return list(known[1])
        mine = corpus.entries[index].profile
        alike = {o: whole_note(mine, corpus.entries[o].profile, corpus.idf) for o in pool}
        ranked = sorted(pool, key=lambda o: -alike[o])  # stable: ties keep the corpus's order
        self._ranked[index] = (pool, array("q", ranked[:MAX_CANDIDATES]))
        return ranked[:MAX_CANDIDATES]

    def replacements(
        self, index: int, eligible: Callable[[int], bool]
    ) -> list[tuple[int, Replacement]]:
        """The notes note `index` may replace, most certain first (at most `MAX_REPLACED`).

        `eligible` must be the same for every call of a run (the notes active before it).
        """
        known = self._replaced.get(index)
        if known is not None:
            return known
        corpus = self.corpus
        found = self.cues(index)
        links = {link for cue in found for link in cue.links}
        numbers = {number for cue in found for number in cue.numbers}
        chosen = self.candidates(index, eligible)
        if links or numbers:
            chosen += [i for i in corpus.find(index, links, numbers) if eligible(i)]
        ranked: list[tuple[int, float, int, Replacement]] = []
        for other in dict.fromkeys(chosen):
            verdict = self.verdict(index, other)
            if verdict.kind == REPLACEMENT and verdict.replacement is not None:
                replaced = verdict.replacement
                ranked.append((_ORDER[replaced.how], -replaced.similarity, other, replaced))
        ranked.sort(key=lambda item: item[:3])
        kept: list[tuple[int, Replacement]] = []
        unnamed = 0
        for _, _, other, replaced in ranked:
            if replaced.how == "unnamed":
                unnamed += 1
                if unnamed > MAX_UNNAMED:
                    continue
            kept.append((other, replaced))
        self._replaced[index] = kept[:MAX_REPLACED]
        return self._replaced[index]

    def asked_about(
        self,
        index: int,
        eligible: Callable[[int], bool],
        successor: Callable[[str], str | None],
        limit: int,
    ) -> list[int]:
        """The notes the model review asks about note `index` against, most certain first:
        the notes it points at (at most `MAX_POINTED`), then at most `limit` of its
        candidates by whole-note likeness. `successor(id)` is the id of the note that
        replaced a replaced note (None for an active one); `eligible` is what may be asked
        about."""
        corpus = self.corpus
        found = self.cues(index)
        links = {link for cue in found for link in cue.links}
        numbers = {number for cue in found for number in cue.numbers}
        pointed = corpus.find(index, links, numbers) if links or numbers else []
        same = corpus.same_title(index)
        if same is not None:
            pointed += corpus.find(index, [same], ())
        pointed += corpus.sharing_files(index)
        chosen: list[int] = []
        for other in pointed:
            active = self._active(index, other, eligible, successor)
            if active is not None and active not in chosen and len(chosen) < MAX_POINTED:
                chosen.append(active)
        alike = [o for o in self._most_alike(index, eligible, limit) if o not in chosen]
        return chosen + alike[:limit]

    def _most_alike(self, index: int, eligible: Callable[[int], bool], count: int) -> list[int]:
        """The notes most alike note `index` as wholes: the rules' own `candidates` when
        `count` is within them, else the best `count` of a pool as many times larger (the
        model review's `max_related` may ask for more notes than the rules judge)."""
        if count <= MAX_CANDIDATES:
            return self.candidates(index, eligible)
        corpus = self.corpus
        pool = corpus.candidates(index, eligible, count * POOL // MAX_CANDIDATES)
        mine = corpus.entries[index].profile
        alike = {o: whole_note(mine, corpus.entries[o].profile, corpus.idf) for o in pool}
        return sorted(pool, key=lambda o: -alike[o])[:count]

    def _active(
        self,
        index: int,
        other: int,
        eligible: Callable[[int], bool],
        successor: Callable[[str], str | None],
    ) -> int | None:
        """`other`, or the active note that replaced it (a `supersedes` of a `supersedes`)."""
        for _ in range(MAX_HOPS):
            if eligible(other):
                return other
            after = successor(self.corpus.entries[other].id)
            found = self.corpus.find(index, [after], ()) if after else []
            if not found:
                return None
            other = found[0]
        return None


def settled(verdict: Verdict) -> Verdict:
    """A verdict no rule reports, as it is kept for the rest of the run: without the terms
    both notes use, which only a finding's message reads (`Likeness.shared`). A full audit
    keeps a verdict for every pair it judged (about 8 per note), and those sets were most
    of its memory; everything `kind`, `similarity` and the likeness scores read stays."""
    return replace(verdict, likeness=replace(verdict.likeness, in_both=NOTHING_SHARED))


def pairs_of(context: CuratorContext) -> Pairs:
    """The pair judgements of a context, kept for the whole run."""
    memo = vars(context)
    found = memo.get(_MEMO)
    if found is None:
        found = memo[_MEMO] = Pairs(context)
    return found


def active_before(context: CuratorContext) -> Callable[[int], bool]:
    """The notes a contradiction or a replacement may name: a note of the vault active
    before the change, or a note under review before this one (in an audit, an active
    one)."""
    corpus = corpus_of(context)
    inactive = context.statuses_after if context.audit else context.statuses_before

    def active(other: int) -> bool:
        entry = corpus.entries[other]
        if entry.reviewed and not context.audit:
            return True
        return entry.id not in inactive

    return active
