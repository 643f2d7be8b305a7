"""`duplicate/`: a note that repeats one the vault already has.

Bodies are compared as lower-case words with headings dropped. The same words in
the same order is an exact duplicate (an error); sharing at least
`near_duplicate_threshold` of their 3-word shingles (Jaccard) is a near duplicate
(a warning naming the other note). A note is never compared with the notes it
supersedes. In a pull request each new note is compared with every note at the
base and with the notes before it in the same change; in a full audit each pair
is reported once, on the newer note, through shingles shared by at most
`MAX_POSTING` notes (boilerplate shared by more cannot make two notes alike).
"""

from __future__ import annotations

import gc
import re
from collections import Counter, defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from lore.curator.context import CuratorContext, NoteView, view_of_note
from lore.curator.finding import ERROR, WARNING, Finding

NAME = "duplicate"
RULES = {
    "duplicate/exact": "the body repeats an existing note word for word",
    "duplicate/near": "the body shares most of its wording with an existing note (warning)",
    "duplicate/same-title": "the title is the same as an existing note's (warning)",
}

_WORDS = re.compile(r"[a-z0-9]+")
_HEADING_LINE = re.compile(r"^#{1,6}[ \t].*$", re.MULTILINE)
BRUTE_FORCE_LIMIT = 20  # checked notes compared pairwise with the whole vault
MAX_POSTING = 100


@dataclass(frozen=True)
class Fingerprint:
    id: str
    path: str
    words: tuple[str, ...]
    shingles: frozenset[tuple[str, ...]]
    title: str
    title_line: int
    supersedes: frozenset[str]


def fingerprint(view: NoteView) -> Fingerprint:
    words = tuple(_WORDS.findall(_HEADING_LINE.sub(" ", view.body.lower())))
    if len(words) >= 3:
        shingles = frozenset(zip(words, words[1:], words[2:], strict=False))
    else:
        shingles = frozenset({words}) if words else frozenset()
    title = " ".join(_WORDS.findall((view.title or "").lower()))
    return Fingerprint(
        view.id,
        view.path,
        words,
        shingles,
        title,
        view.line_of_key("title"),
        frozenset(view.supersedes),
    )


def jaccard(one: frozenset[tuple[str, ...]], other: frozenset[tuple[str, ...]]) -> float:
    if not one or not other:
        return 0.0
    shared = len(one & other)
    return shared / (len(one) + len(other) - shared)


@contextmanager
def _without_gc() -> Iterator[None]:
    """Building ~10^6 small tuples triggers needless full collections; pause them."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _related(one: Fingerprint, other: Fingerprint) -> bool:
    return other.id in one.supersedes or one.id in other.supersedes or one.id == other.id


def check(context: CuratorContext) -> list[Finding]:
    checked = [c for c in context.notes if c.view is not None and c.view.body.strip()]
    if not checked:
        return []
    if context.audit:
        checked.sort(key=lambda c: (c.view.date or "", c.view.id) if c.view else ("", ""))
    display = {c.path: c.display for c in checked}
    with _without_gc():
        probes = [fingerprint(c.view) for c in checked if c.view is not None]
        corpus = [
            fingerprint(view_of_note(n))
            for n in context.existing.values()
            if n.id not in context.checked_ids and n.body.strip()
        ]
        threshold = context.settings.near_duplicate_threshold
        if len(probes) <= BRUTE_FORCE_LIMIT:
            pairs = _pairs_brute_force(probes, corpus, threshold)
        else:
            pairs = _pairs_indexed(probes, corpus, threshold)
    findings: list[Finding] = []
    exact_seen: set[str] = set()
    for probe, other, similarity in pairs:
        path = display[probe.path]
        if probe.words == other.words and probe.id not in exact_seen:
            exact_seen.add(probe.id)
            findings.append(
                Finding(
                    "duplicate/exact",
                    ERROR,
                    path,
                    None,
                    f"the body is the same as {other.id}'s",
                    f"Drop this note, or make it supersede {other.id} if it replaces it.",
                )
            )
        elif probe.words != other.words and similarity >= threshold:
            findings.append(
                Finding(
                    "duplicate/near",
                    WARNING,
                    path,
                    None,
                    f"{similarity:.0%} of the wording is the same as in {other.id}",
                    f"If this replaces it, add `supersedes: [{other.id}]`; if it adds to it, "
                    f"link [[{other.id}]] and keep only what is new.",
                )
            )
    findings += _same_titles(probes, corpus, display)
    return findings


Pair = tuple[Fingerprint, Fingerprint, float]


def _pairs_brute_force(
    probes: list[Fingerprint], corpus: list[Fingerprint], threshold: float
) -> list[Pair]:
    pairs: list[Pair] = []
    for index, probe in enumerate(probes):
        best: list[Pair] = []
        for other in (*corpus, *probes[:index]):
            if _related(probe, other):
                continue
            if probe.words == other.words:
                best.append((probe, other, 1.0))
                continue
            size, other_size = len(probe.shingles), len(other.shingles)
            if not size or min(size, other_size) < threshold * max(size, other_size):
                continue  # Jaccard cannot reach the threshold between sets this different
            similarity = jaccard(probe.shingles, other.shingles)
            if similarity >= threshold:
                best.append((probe, other, similarity))
        best.sort(key=lambda pair: (-pair[2], pair[1].id))
        pairs += best[:3]
    return pairs


def _pairs_indexed(
    probes: list[Fingerprint], corpus: list[Fingerprint], threshold: float
) -> list[Pair]:
    everyone = [*corpus, *probes]
    frequency: Counter[tuple[str, ...]] = Counter()
    for fp in everyone:
        frequency.update(fp.shingles)
    postings: dict[tuple[str, ...], list[int]] = defaultdict(list)
    for index, fp in enumerate(everyone):
        for shingle in fp.shingles:
            if frequency[shingle] <= MAX_POSTING:
                postings[shingle].append(index)
    exact: dict[tuple[str, ...], int] = {}
    for index, fp in enumerate(everyone):
        exact.setdefault(fp.words, index)
    pairs: list[Pair] = []
    start = len(corpus)
    for offset, probe in enumerate(probes):
        position = start + offset
        candidates: set[int] = set()
        for shingle in probe.shingles:
            for other in postings.get(shingle, ()):
                if other < position:
                    candidates.add(other)
        first = exact[probe.words]
        if first < position:
            candidates.add(first)
        best: list[Pair] = []
        for candidate in candidates:
            match = everyone[candidate]
            if _related(probe, match):
                continue
            similarity = (
                1.0 if probe.words == match.words else jaccard(probe.shingles, match.shingles)
            )
            if similarity >= threshold:
                best.append((probe, match, similarity))
        best.sort(key=lambda pair: (-pair[2], pair[1].id))
        pairs += best[:3]
    return pairs


def _same_titles(
    probes: list[Fingerprint], corpus: list[Fingerprint], display: dict[str, str]
) -> list[Finding]:
    titles: dict[str, str] = {fp.title: fp.id for fp in corpus if fp.title}
    findings: list[Finding] = []
    for probe in probes:
        if not probe.title:
            continue
        other = titles.get(probe.title)
        if other and other != probe.id and other not in probe.supersedes:
            findings.append(
                Finding(
                    "duplicate/same-title",
                    WARNING,
                    display[probe.path],
                    probe.title_line,
                    f"{other} has the same title",
                    "Make the title state what is different, or supersede the older note.",
                )
            )
        titles.setdefault(probe.title, probe.id)
    return findings
