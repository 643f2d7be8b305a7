"""What recall is asked and what it answers: the request, the hits and the result, and their JSON.

The index (`engine`) and the scan fallback (`scan`) both build `Hit`s here, so both
answer in the same shape; the CLI and the MCP server print `to_json` of the same
objects.
"""

from __future__ import annotations

from pathlib import Path

from lore.recall.query import QueryPlan
from lore.recall.rank import Boosts, Statistics
from lore.recall.snippet import HIGHLIGHT
from lore.record import Record
from lore.sanitize import sanitize_field, sanitize_fields
from lore.versioned import versioned

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class RecallRequest(Record):
    __slots__ = (
        "also",
        "explain",
        "ids",
        "include_inactive",
        "limit",
        "query",
        "repo",
        "tags",
        "types",
    )

    def __init__(
        self,
        query: str,
        *,
        also: tuple[str, ...] = (),
        repo: str | None = None,
        types: tuple[str, ...] = (),
        tags: tuple[str, ...] = (),
        ids: frozenset[str] | None = None,
        limit: int = 10,
        include_inactive: bool = False,
        explain: bool = False,
    ) -> None:
        self.query = query
        self.also = also  # other phrasings of the same question (`--or`), fused by rank
        self.repo = repo  # the current repository, for the repo boost
        self.types = types
        self.tags = tags
        self.ids = ids  # only these notes (what changed `--since`); None: every note
        self.limit = limit
        self.include_inactive = include_inactive
        self.explain = explain

    @property
    def phrasings(self) -> tuple[str, ...]:
        """The query and its other phrasings, in the order given."""
        return (self.query, *self.also)

    def one_phrasing(self, index: int, limit: int) -> RecallRequest:
        """The same request for phrasing `index` alone, read to `limit` hits."""
        return RecallRequest(
            self.phrasings[index],
            repo=self.repo,
            types=self.types,
            tags=self.tags,
            ids=self.ids,
            limit=limit,
            include_inactive=self.include_inactive,
            explain=self.explain,
        )


class TermScore(Record):
    """One phrase's part of a hit's BM25, and the idf it was weighed by (`--explain`)."""

    __slots__ = ("floored", "idf", "origin", "score", "term")

    def __init__(
        self, term: str, origin: str, score: float, *, idf: float = 0.0, floored: bool = False
    ) -> None:
        self.term = sanitize_field(term)
        self.origin = origin
        self.score = score
        self.idf = idf
        self.floored = floored  # the idf is the floor (a phrase in most notes; `rank.idf`)


class Hit(Record):
    __slots__ = (
        "active",
        "author",
        "base_score",
        "boosts",
        "confidence",
        "date",
        "id",
        "inactive_reason",
        "path",
        "phrasing",
        "ranks",
        "replaces",
        "repo",
        "rowid",
        "score",
        "snippet",
        "summary",
        "tags",
        "terms",
        "title",
        "type",
    )

    def __init__(
        self,
        *,
        id: str,
        title: str,
        path: str,
        type: str,
        repo: list[str],
        tags: list[str],
        confidence: str,
        date: str,
        author: str | None,
        summary: str,
        score: float,
        snippet: str,
        active: bool = True,
        inactive_reason: str | None = None,
        replaces: str | None = None,
        base_score: float = 0.0,
        boosts: Boosts | None = None,
        terms: list[TermScore] | None = None,
        rowid: int = 0,
    ) -> None:
        # Every text field is note-derived, so untrusted: sanitized here, once, for every
        # output (CLI text and JSON, the prompt hook, MCP) and both engines.
        self.id = sanitize_field(id)
        self.title = sanitize_field(title)
        self.path = sanitize_field(path)
        self.type = sanitize_field(type)
        self.repo = sanitize_fields(repo)
        self.tags = sanitize_fields(tags)
        self.confidence = sanitize_field(confidence)
        self.date = sanitize_field(date)
        self.author = None if author is None else sanitize_field(author)
        self.summary = sanitize_field(summary)
        self.score = score
        self.snippet = snippet  # made by `snippet.make_snippet`, which sanitizes the body
        self.active = active
        self.inactive_reason = None if inactive_reason is None else sanitize_field(inactive_reason)
        self.replaces = None if replaces is None else sanitize_field(replaces)
        self.base_score = base_score
        self.boosts = boosts
        self.terms = [] if terms is None else terms
        self.rowid = rowid
        # With several phrasings (`fusion`): the hit's rank under each (None: not in its
        # ranking), and which phrasing's BM25, boosts and terms it carries.
        self.ranks: tuple[int | None, ...] = ()
        self.phrasing = 0

    def from_replaced(self) -> float:
        """What the replaced note it answers for adds to its BM25 (`--explain`): a note that
        replaces a match scores the stronger of the two, so when the replaced note matched
        more strongly, its own terms plus this make the BM25 it is ranked by."""
        own = sum(term.score for term in self.terms)
        if not self.replaces or self.base_score <= own + 1e-9:
            return 0.0
        return self.base_score - own

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
                    {
                        "term": t.term,
                        "origin": t.origin,
                        "idf": round(t.idf, 4),
                        "score": round(t.score, 4),
                    }
                    for t in self.terms
                ],
                "from_replaced": round(self.from_replaced(), 4),
                "boosts": {
                    "repo": round(self.boosts.repo, 4),
                    "confidence": round(self.boosts.confidence, 4),
                    "recency": round(self.boosts.recency, 4),
                },
            }
            if self.ranks:
                data["explain"]["ranks"] = list(self.ranks)
                data["explain"]["phrasing"] = self.phrasing
        return data


class RecallResult(Record):
    """One vault's answer. With several phrasings, `plan` holds the terms of all of them,
    `plans` each one's, `rankings` each one's hits (to `fusion.depth`), and `hits` the
    fused list."""

    __slots__ = (
        "engine",
        "hits",
        "notices",
        "phrasings",
        "plan",
        "plans",
        "query",
        "rankings",
        "repo",
        "vault_branch",
        "vault_version",
    )

    def __init__(
        self,
        query: str,
        engine: str,
        hits: list[Hit],
        plan: QueryPlan,
        repo: str | None,
        *,
        vault_version: str = "",
        vault_branch: str = "",
        notices: list[str] | None = None,
    ) -> None:
        self.query = sanitize_field(query)  # echoed to people and agents
        self.engine = engine
        self.hits = hits
        self.plan = plan
        self.repo = repo
        self.vault_version = vault_version  # the commit served
        self.vault_branch = vault_branch  # the reviewed branch it is the tip of (`origin/main`)
        self.notices = [] if notices is None else notices
        self.phrasings: list[str] = [self.query]
        self.plans = [plan]
        self.rankings: list[list[Hit]] = []


class SearchedVault(Record):
    __slots__ = ("branch", "commit", "name", "root")

    def __init__(self, name: str, root: Path, commit: str | None, branch: str = "") -> None:
        self.name = name
        self.root = root
        self.commit = commit
        self.branch = branch  # the reviewed branch served, `origin/main` ("" without git)


class MultiResult(Record):
    """Like `RecallResult`, with `labels[i]` naming the vault of `hits[i]`."""

    __slots__ = (
        "engine",
        "hits",
        "labels",
        "notices",
        "phrasings",
        "plan",
        "plans",
        "query",
        "repo",
        "statistics",
        "vaults",
    )

    def __init__(
        self,
        query: str,
        engine: str,
        hits: list[Hit],
        labels: list[str],
        plan: QueryPlan,
        *,
        repo: str | None,
        vaults: list[SearchedVault],
        notices: list[str],
        statistics: Statistics | None = None,
        phrasings: list[str] | None = None,
        plans: list[QueryPlan] | None = None,
    ) -> None:
        self.query = query
        self.engine = engine
        self.hits = hits
        self.labels = labels
        self.plan = plan
        self.phrasings = [query] if phrasings is None else phrasings
        self.plans = [plan] if plans is None else plans
        self.repo = repo
        self.vaults = vaults
        self.notices = notices
        self.statistics = statistics  # the vaults' shared statistics, when several were searched


def recall_json(result: MultiResult, *, explain: bool = False) -> dict[str, Any]:
    """The recall envelope (DESIGN §3) that `lore recall --json` and MCP `recall` print."""
    results = []
    for hit, label in zip(result.hits, result.labels, strict=True):
        item = hit.to_json(explain=explain)
        item["vault"] = sanitize_field(label)
        results.append(item)
    vaults = [
        {
            "name": sanitize_field(v.name),
            "path": str(v.root),
            "commit": v.commit,
            "branch": sanitize_field(v.branch) or None,
        }
        for v in result.vaults
    ]
    data: dict[str, Any] = {
        "query": result.query,
        "engine": result.engine,
        "repo": None if result.repo is None else sanitize_field(result.repo),
        "vault": vaults[0],
        "vaults": vaults,
        "results": results,
    }
    if len(result.phrasings) > 1:  # `--or`: every phrasing, the query first
        data["phrasings"] = [sanitize_field(text) for text in result.phrasings]
    if explain:
        data["terms"] = [
            {"term": sanitize_field(t.label), "origin": sanitize_field(t.origin)}
            for t in result.plan.terms
        ]
    if result.notices:
        data["notices"] = [sanitize_field(notice) for notice in result.notices]
    return versioned(data)
