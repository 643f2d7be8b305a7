"""`recall`: the library function behind `lore recall`, the hooks and the MCP server.

Two stages, as measured fastest here: FTS5 ranks candidates by BM25 with column
weights (title and tags above body) and returns the top `CANDIDATES`; Python applies
gentle boosts, hides inactive notes (a superseded match brings in the note that
replaced it), and cuts to the limit. Snippets and the per-term explanation are
computed only for the notes returned.
"""

from __future__ import annotations

import json
import re
import sqlite3
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from lore.recall.query import QueryPlan, build_query
from lore.recall.rank import Boosts, compute_boosts
from lore.sanitize import sanitize_text

CANDIDATES = 200
SNIPPET_TOKENS = 16
HIGHLIGHT = ("\x02", "\x03")  # replaced by the output layer (bold, or ** in JSON)


@dataclass
class RecallRequest:
    query: str
    repo: str | None = None  # the current repository, for the repo boost
    types: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    limit: int = 10
    include_inactive: bool = False
    explain: bool = False


@dataclass
class TermScore:
    term: str
    origin: str
    score: float


@dataclass
class Hit:
    id: str
    title: str
    path: str
    type: str
    repo: list[str]
    tags: list[str]
    confidence: str
    date: str
    author: str | None
    summary: str
    score: float
    snippet: str
    active: bool = True
    inactive_reason: str | None = None
    replaces: str | None = None  # the superseded note the query matched
    base_score: float = 0.0
    boosts: Boosts | None = None
    terms: list[TermScore] = field(default_factory=list)
    rowid: int = 0

    def to_json(self, *, explain: bool = False) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": self.id,
            "title": self.title,
            "path": self.path,
            "type": self.type,
            "repo": self.repo[0] if len(self.repo) == 1 else (self.repo or None),
            "tags": self.tags,
            "confidence": self.confidence,
            "date": self.date,
            "author": self.author,
            "score": round(self.score, 3),
            "snippet": self.snippet.replace(HIGHLIGHT[0], "**").replace(HIGHLIGHT[1], "**"),
        }
        if not self.active:
            data["active"] = False
            data["inactive_reason"] = self.inactive_reason
        if self.replaces:
            data["replaces"] = self.replaces
        if explain and self.boosts is not None:
            data["explain"] = {
                "bm25": round(self.base_score, 4),
                "terms": [
                    {"term": t.term, "origin": t.origin, "score": round(t.score, 4)}
                    for t in self.terms
                ],
                "boosts": {
                    "repo": round(self.boosts.repo, 4),
                    "confidence": round(self.boosts.confidence, 4),
                    "recency": round(self.boosts.recency, 4),
                },
            }
        return data


@dataclass
class RecallResult:
    query: str
    engine: str
    hits: list[Hit]
    plan: QueryPlan
    repo: str | None
    vault_version: str = ""
    notices: list[str] = field(default_factory=list)


_COLUMNS = (
    "n.rowid, n.id, n.title, n.path, n.type, n.repo, n.tag_list, n.confidence, n.date, "
    "n.author, n.summary, n.active, n.inactive_reason, n.superseded_by"
)


def recall_in_index(
    conn: sqlite3.Connection, request: RecallRequest, *, today: date | None = None
) -> RecallResult:
    meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
    aliases = json.loads(meta.get("aliases") or "{}")
    settings = json.loads(meta["recall_settings"])
    plan = build_query(request.query, aliases)
    result = RecallResult(
        query=request.query,
        engine="fts5",
        hits=[],
        plan=plan,
        repo=request.repo,
        vault_version=meta.get("version", ""),
    )
    if plan.empty or request.limit <= 0:
        return result
    today = today or date.today()

    where, params = _filters(request)
    rows = conn.execute(
        f"SELECT {_COLUMNS}, -rank FROM notes_fts JOIN notes n ON n.rowid = notes_fts.rowid "
        f"WHERE notes_fts MATCH ? {where} ORDER BY rank LIMIT {CANDIDATES}",
        (plan.match, *params),
    ).fetchall()

    hits: dict[str, Hit] = {}
    replacements: dict[str, tuple[str, float]] = {}  # replacing id -> (matched id, bm25)
    for row in rows:
        hit = _hit(row, settings, request.repo, today)
        if hit.active or request.include_inactive:
            hits[hit.id] = hit
        elif row[13]:  # superseded: the note that replaced it answers instead
            target = _final_replacement(conn, row[13])
            if target and (target not in replacements or replacements[target][1] < row[-1]):
                replacements[target] = (hit.id, row[-1])
    for target, (matched, score) in replacements.items():
        if target in hits:
            existing = hits[target]
            existing.replaces = matched
            if score > existing.base_score:  # answer with the strength of the match
                existing.base_score = score
                existing.score = score * (existing.boosts.total if existing.boosts else 1.0)
            continue
        row = conn.execute(
            f"SELECT {_COLUMNS}, ? FROM notes n WHERE n.id = ?{where}", (score, target, *params)
        ).fetchone()
        if row is not None:
            hit = _hit(row, settings, request.repo, today)
            hit.replaces = matched
            hits[target] = hit

    ranked = sorted(hits.values(), key=lambda h: (-h.score, h.id))[: request.limit]
    _add_snippets(conn, plan, ranked)
    if request.explain:
        _add_term_scores(conn, plan, ranked)
    result.hits = ranked
    return result


def _filters(request: RecallRequest) -> tuple[str, list[Any]]:
    clauses: list[str] = []
    params: list[Any] = []
    if request.types:
        clauses.append(f"n.type IN ({','.join('?' * len(request.types))})")
        params.extend(request.types)
    for tag in request.tags:
        if "/" in tag:
            clauses.append("instr(n.tag_list, ?) > 0")
            params.append(json.dumps(tag))
        else:  # a bare name matches the tag in any dimension, or a whole dimension
            clauses.append("(instr(n.tag_list, ?) > 0 OR instr(n.tag_list, ?) > 0)")
            params.extend([f'/{tag}"', f'"{tag}/'])
    where = "".join(f" AND {clause}" for clause in clauses)
    return where, params


def _hit(row: tuple[Any, ...], settings: dict[str, Any], repo: str | None, today: date) -> Hit:
    repos = json.loads(row[5])
    base = float(row[-1])
    boosts = compute_boosts(
        settings,
        note_repos=repos,
        current_repo=repo,
        confidence=row[7],
        note_date=row[8],
        today=today,
    )
    return Hit(
        rowid=row[0],
        id=row[1],
        title=sanitize_text(row[2]),
        path=row[3],
        type=row[4],
        repo=repos,
        tags=json.loads(row[6]),
        confidence=row[7],
        date=row[8],
        author=row[9],
        summary=sanitize_text(row[10]),
        active=bool(row[11]),
        inactive_reason=row[12],
        base_score=base,
        boosts=boosts,
        score=base * boosts.total,
        snippet="",
    )


def _final_replacement(conn: sqlite3.Connection, first: str) -> str | None:
    seen: set[str] = set()
    current: str | None = first
    while current and current not in seen:
        seen.add(current)
        row = conn.execute(
            "SELECT active, superseded_by FROM notes WHERE id = ?", (current,)
        ).fetchone()
        if row is None:
            return None
        if row[0]:
            return current
        current = row[1]
    return None


def _add_snippets(conn: sqlite3.Connection, plan: QueryPlan, hits: list[Hit]) -> None:
    if not hits:
        return
    by_rowid = {hit.rowid: hit for hit in hits}
    marks = ",".join("?" * len(by_rowid))
    start, end = HIGHLIGHT
    rows = conn.execute(
        f"SELECT rowid, snippet(notes_fts, 2, '{start}', '{end}', '…', {SNIPPET_TOKENS}) "
        f"FROM notes_fts WHERE notes_fts MATCH ? AND rowid IN ({marks})",
        (plan.match, *by_rowid),
    ).fetchall()
    for rowid, snippet in rows:
        if start in snippet:
            by_rowid[rowid].snippet = _clean_snippet(snippet)
    for hit in hits:
        if not hit.snippet:  # the body did not match (title or tags did), or a replacement
            hit.snippet = _clean_snippet(hit.summary)


_HEADING = re.compile(r"(?:^|(?<=\s))#{1,6}\s+\w+\s*")


def _clean_snippet(text: str) -> str:
    """One line, without markdown headings, with unsafe characters removed."""
    start, end = HIGHLIGHT
    pieces = [
        piece if piece in HIGHLIGHT else sanitize_text(piece)
        for piece in re.split(f"([{start}{end}])", text)
    ]
    flat = " ".join("".join(pieces).split())
    return _HEADING.sub("", flat).strip()


def _add_term_scores(conn: sqlite3.Connection, plan: QueryPlan, hits: list[Hit]) -> None:
    """BM25 of each term alone: for an OR query they add up to the note's BM25 score."""
    by_rowid = {hit.rowid: hit for hit in hits}
    marks = ",".join("?" * len(by_rowid))
    for term in plan.terms:
        rows = conn.execute(
            f"SELECT rowid, -rank FROM notes_fts WHERE notes_fts MATCH ? AND rowid IN ({marks})",
            (term.fts(), *by_rowid),
        ).fetchall()
        for rowid, score in rows:
            by_rowid[rowid].terms.append(TermScore(term.label, term.origin, float(score)))
    for hit in hits:
        hit.terms.sort(key=lambda t: -t.score)


def recall(root: Path, request: RecallRequest) -> RecallResult:
    """Recall from the vault at `root`: the index when it can, a scan of the files if not."""
    from lore.index.build import IndexUnavailable, open_index

    try:
        conn, state = open_index(root)
    except (IndexUnavailable, sqlite3.Error) as exc:
        from lore.recall.scan import recall_by_scan

        result = recall_by_scan(root, request)
        result.notices.append(f"The index could not be used ({exc}); scanned the files instead.")
        return result
    try:
        result = recall_in_index(conn, request)
        if state.skipped:
            result.notices.append(
                f"{state.skipped} note(s) could not be read and are not searched; "
                "`lore index` lists them."
            )
        return result
    finally:
        conn.close()
