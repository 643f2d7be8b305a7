"""Recall without SQLite: read every note and score it in Python (`"engine": "scan"`).

Used only when SQLite or FTS5 cannot be used (or the index cannot be written). It
serves the same committed snapshot as the index, ranks with the same weighted BM25
shape and the same boosts and status rules, and is slower: every call reads and
parses every note.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from pathlib import Path

from lore import clock
from lore.errors import NoteError
from lore.note.model import Note
from lore.note.parse import parse_note
from lore.note.status import Links, compute_status, final_replacement
from lore.recall.model import Hit, RecallRequest, RecallResult, TermScore
from lore.recall.query import build_query
from lore.recall.rank import compute_boosts
from lore.recall.snippet import make_snippet, stem
from lore.taxonomy import parse_taxonomy
from lore.vault.settings import parse_settings, recall_settings
from lore.vault.snapshot import list_notes, read_notes, read_vault_file, take_snapshot

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
K1, B = 1.2, 0.75


def _tokens(text: str) -> list[str]:
    return [stem(w.lower()) for w in _WORD.findall(text)]


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


def recall_by_scan(root: Path, request: RecallRequest) -> RecallResult:
    snapshot = take_snapshot(root)
    notes: dict[str, Note] = {}
    for path, (_, raw) in sorted(read_notes(root, snapshot, list_notes(root, snapshot)).items()):
        try:
            note = parse_note(raw, path)
        except NoteError:
            continue
        notes.setdefault(note.id, note)
    taxonomy_text = read_vault_file(root, snapshot, "_taxonomy.md")
    aliases = parse_taxonomy(taxonomy_text).alias_map() if taxonomy_text else {}
    try:
        settings = recall_settings(parse_settings(read_vault_file(root, snapshot, "lore.toml")))
    except Exception:  # noqa: BLE001 - a broken lore.toml must not stop the fallback
        settings = recall_settings(parse_settings(None))
    plan = build_query(request.query, aliases)
    result = RecallResult(
        request.query, "scan", [], plan, request.repo, vault_version=snapshot.version
    )
    if plan.empty or not notes:
        return result

    today = clock.today()
    statuses = compute_status(
        (Links(n.id, n.supersedes, n.depends_on, n.expires) for n in notes.values()),
        today.isoformat(),
    )
    weights = settings["weights"]
    docs = {nid: _fields(note) for nid, note in notes.items()}
    lengths = {nid: sum(len(v) * weights[k] for k, v in f.items()) for nid, f in docs.items()}
    average = sum(lengths.values()) / max(1, len(lengths))
    phrases = [[stem(w) for w in term.words] for term in plan.terms]
    words = [word for term in plan.terms for word in term.words]
    counts = {
        nid: [
            sum(weights[k] * _phrase_count(tokens, p) for k, tokens in fields.items())
            for p in phrases
        ]
        for nid, fields in docs.items()
    }
    df = Counter(i for per_note in counts.values() for i, c in enumerate(per_note) if c)
    total = len(notes)

    hits: dict[str, Hit] = {}
    for nid, per_term in counts.items():
        note = notes[nid]
        if request.types and note.type not in request.types:
            continue
        if request.tags and not all(_has_tag(note, tag) for tag in request.tags):
            continue
        terms: list[TermScore] = []
        for index, tf in enumerate(per_term):
            if not tf:
                continue
            idf = math.log(1 + (total - df[index] + 0.5) / (df[index] + 0.5))
            norm = tf * (K1 + 1) / (tf + K1 * (1 - B + B * lengths[nid] / average))
            terms.append(TermScore(plan.terms[index].label, plan.terms[index].origin, idf * norm))
        if not terms:
            continue
        status = statuses.get(nid)
        replaces = None
        if status is not None and not request.include_inactive:
            target = final_replacement(statuses, nid)
            if target is None or target not in notes or target in hits:
                continue
            replaces, note = nid, notes[target]
        base = sum(t.score for t in terms)
        boosts = compute_boosts(
            settings,
            note_repos=list(note.repo),
            current_repo=request.repo,
            confidence=note.confidence,
            note_date=note.date,
            today=today,
        )
        inactive = statuses.get(note.id)
        hits[note.id] = Hit(
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
            replaces=replaces,
            base_score=base,
            boosts=boosts,
            terms=sorted(terms, key=lambda t: -t.score) if request.explain else [],
        )
    result.hits = sorted(hits.values(), key=lambda h: (-h.score, h.id))[: request.limit]
    return result


def _has_tag(note: Note, tag: str) -> bool:
    if "/" in tag:
        return tag in note.tags
    return any(t.endswith(f"/{tag}") or t.startswith(f"{tag}/") for t in note.tags)
