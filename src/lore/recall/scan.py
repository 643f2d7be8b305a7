"""Recall without SQLite: read every note and score it in Python (`"engine": "scan"`).

Used only when SQLite or FTS5 cannot be used (or the index cannot be written). It
serves the same committed snapshot as the index, ranks with the same BM25 as the
index (FTS5's formula: column weights on the term frequencies, the length of all
columns against the average, the idf of `rank.idf`) and the same boosts and status
rules, and is slower: every call reads and parses every note. Its words are split
and stemmed by `lore.text.words`, as FTS5's `porter unicode61` tokenizer does.
"""

from __future__ import annotations

from pathlib import Path

from lore import clock
from lore.errors import NoteError
from lore.note.model import Note
from lore.note.parse import parse_note
from lore.note.status import Links, compute_status, final_replacement
from lore.recall.model import Hit, RecallRequest, RecallResult, TermScore
from lore.recall.query import QueryPlan, Term, build_query
from lore.recall.rank import BM25_K1, Statistics, compute_boosts
from lore.recall.snippet import make_snippet, term_of
from lore.record import Record
from lore.taxonomy import parse_taxonomy
from lore.text.words import index_tokens, stem
from lore.vault.settings import SERVED, parse_settings, recall_settings
from lore.vault.snapshot import list_notes, read_notes, read_vault_file, take_snapshot

B = 0.75  # FTS5's bm25() constant (fts5_aux.c)


def _tokens(text: str) -> list[str]:
    return [stem(token) for token in index_tokens(text)]


def _fields(note: Note) -> dict[str, list[str]]:
    return {
        "title": _tokens(note.title),
        "tags": _tokens(" ".join(t.split("/", 1)[-1] for t in note.tags)),
        "body": _tokens(note.body),
        "files_touched": _tokens(" ".join(note.files_touched)),
    }


def _phrase_count(tokens: list[str], phrase: list[str]) -> int:
    if len(phrase) == 1:
        return tokens.count(phrase[0])
    size = len(phrase)
    return sum(1 for i in range(len(tokens) - size + 1) if tokens[i : i + size] == phrase)


class ScannedVault(Record):
    """A vault's committed notes read from the files, with its aliases and settings."""

    __slots__ = ("aliases", "branch", "docs", "notes", "settings", "version")

    def __init__(self, root: Path) -> None:
        snapshot = take_snapshot(root)
        self.version = snapshot.version
        self.branch = snapshot.branch.label if snapshot.branch else ""
        self.notes: dict[str, Note] = {}
        for path, (_, raw) in sorted(
            read_notes(root, snapshot, list_notes(root, snapshot)).items()
        ):
            try:
                note = parse_note(raw, path)
            except NoteError:
                continue
            self.notes.setdefault(note.id, note)
        taxonomy_text = read_vault_file(root, snapshot, "_taxonomy.md")
        self.aliases = parse_taxonomy(taxonomy_text).alias_map() if taxonomy_text else {}
        try:
            self.settings = recall_settings(
                parse_settings(read_vault_file(root, snapshot, "lore.toml"), source=SERVED)
            )
        except Exception:  # noqa: BLE001 - a broken lore.toml must not stop the fallback
            self.settings = recall_settings(parse_settings(None, source=SERVED))
        self.docs = {nid: _fields(note) for nid, note in self.notes.items()}

    def plan(self, query: str) -> QueryPlan:
        return build_query(query, self.aliases)

    def counts(self, terms: list[Term]) -> dict[str, dict[str, float]]:
        """Per phrase, each note's weighted frequency of it (notes without it left out)."""
        weights = self.settings["weights"]
        counted: dict[str, dict[str, float]] = {}
        for term in terms:
            phrase = [term_of(w) for w in term.words]
            columns = [term.column] if term.column else list(weights)
            per_note = {}
            for nid, fields in self.docs.items():
                tf = sum(weights[c] * _phrase_count(fields[c], phrase) for c in columns)
                if tf:
                    per_note[nid] = tf
            counted[term.fts()] = per_note
        return counted

    def statistics(self, terms: list[Term]) -> Statistics:
        """How many notes there are, and how many contain each phrase."""
        counted = self.counts(terms)
        return Statistics(len(self.notes), {p: len(found) for p, found in counted.items()})

    def recall(self, request: RecallRequest, statistics: Statistics | None = None) -> RecallResult:
        if request.also:  # several phrasings, each ranked alone, then fused
            from lore.recall.fusion import recall_fused

            return recall_fused(request, lambda one: self.recall(one, statistics))
        plan = self.plan(request.query)
        result = RecallResult(
            request.query,
            "scan",
            [],
            plan,
            request.repo,
            vault_version=self.version,
            vault_branch=self.branch,
        )
        if plan.empty or not self.notes:
            return result
        notes, settings = self.notes, self.settings
        today = clock.today()
        statuses = compute_status(
            (Links(n.id, n.supersedes, n.depends_on, n.expires) for n in notes.values()),
            today.isoformat(),
        )
        counted = self.counts(plan.terms)
        scoring = statistics or Statistics(
            len(notes), {p: len(found) for p, found in counted.items()}
        )
        lengths = {nid: sum(len(tokens) for tokens in f.values()) for nid, f in self.docs.items()}
        average = sum(lengths.values()) / len(lengths)
        words = [word for term in plan.terms for word in term.words]

        parts: dict[str, list[TermScore]] = {}
        for nid, note in notes.items():
            if not _wanted(note, request):
                continue
            terms: list[TermScore] = []
            for term in plan.terms:
                phrase = term.fts()
                tf = counted[phrase].get(nid, 0.0)
                if tf:
                    weight = scoring.idf(phrase)
                    length = 1 - B + B * lengths[nid] / average
                    norm = tf * (BM25_K1 + 1) / (tf + BM25_K1 * length)
                    floored = scoring.floored(phrase)
                    score = weight * norm
                    terms.append(
                        TermScore(term.label, term.origin, score, idf=weight, floored=floored)
                    )
            if terms:
                parts[nid] = terms

        # A superseded match lends its strength to the note that replaced it, as in the index.
        strength: dict[str, float] = {}
        replaced: dict[str, tuple[str, float]] = {}
        for nid, terms in parts.items():
            base = 0.0
            for part in terms:  # in the query's order, as FTS5 adds them up
                base += part.score
            target = nid
            if nid in statuses and not request.include_inactive:
                found = final_replacement(statuses, nid)
                if found is None or found not in notes or not _wanted(notes[found], request):
                    continue
                target = found
                if base <= replaced.get(target, ("", -1.0))[1]:
                    continue
                replaced[target] = (nid, base)
            strength[target] = max(strength.get(target, 0.0), base)

        hits = []
        for nid, base in strength.items():
            note = notes[nid]
            boosts = compute_boosts(
                settings,
                note_repos=list(note.repo),
                current_repo=request.repo,
                confidence=note.confidence,
                note_date=note.date,
                today=today,
            )
            inactive = statuses.get(nid)
            hits.append(
                Hit(
                    id=note.id,
                    title=note.title,
                    path=note.path,
                    type=note.type,
                    repo=list(note.repo),
                    tags=list(note.tags),
                    confidence=note.confidence,
                    date=note.date,
                    author=note.author,
                    summary=note.summary,
                    score=base * boosts.total,
                    snippet=make_snippet(note.body, words, fallback=note.summary),
                    active=inactive is None,
                    inactive_reason=inactive.reason if inactive else None,
                    replaces=replaced[nid][0] if nid in replaced else None,
                    base_score=base,
                    boosts=boosts,
                    terms=sorted(parts.get(nid, []), key=lambda t: -t.score)
                    if request.explain
                    else [],
                )
            )
        result.hits = sorted(hits, key=lambda h: (-h.score, h.id))[: request.limit]
        return result


def _wanted(note: Note, request: RecallRequest) -> bool:
    """Whether the note passes the request's type, tag and id filters."""
    if request.types and note.type not in request.types:
        return False
    if request.ids is not None and note.id not in request.ids:
        return False
    return all(_has_tag(note, tag) for tag in request.tags)


def recall_by_scan(
    root: Path, request: RecallRequest, statistics: Statistics | None = None
) -> RecallResult:
    return ScannedVault(root).recall(request, statistics)


def _has_tag(note: Note, tag: str) -> bool:
    if "/" in tag:
        return tag in note.tags
    return any(t.endswith(f"/{tag}") or t.startswith(f"{tag}/") for t in note.tags)
