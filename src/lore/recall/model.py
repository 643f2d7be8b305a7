"""What recall is asked and what it answers: the request, the hits and the result, and their JSON.

The index (`engine`) and the scan fallback (`scan`) both build `Hit`s here, so both
answer in the same shape; the CLI and the MCP server print `to_json` of the same
objects.
"""

from __future__ import annotations

from lore.recall.query import QueryPlan
from lore.recall.rank import Boosts
from lore.recall.snippet import HIGHLIGHT
from lore.record import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class RecallRequest(Record):
    __slots__ = ("explain", "include_inactive", "limit", "query", "repo", "tags", "types")

    def __init__(
        self,
        query: str,
        *,
        repo: str | None = None,
        types: tuple[str, ...] = (),
        tags: tuple[str, ...] = (),
        limit: int = 10,
        include_inactive: bool = False,
        explain: bool = False,
    ) -> None:
        self.query = query
        self.repo = repo  # the current repository, for the repo boost
        self.types = types
        self.tags = tags
        self.limit = limit
        self.include_inactive = include_inactive
        self.explain = explain


class TermScore(Record):
    """One phrase's part of a hit's BM25, and the idf it was weighed by (`--explain`)."""

    __slots__ = ("floored", "idf", "origin", "score", "term")

    def __init__(
        self, term: str, origin: str, score: float, *, idf: float = 0.0, floored: bool = False
    ) -> None:
        self.term = term
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
        self.id = id
        self.title = title
        self.path = path
        self.type = type
        self.repo = repo
        self.tags = tags
        self.confidence = confidence
        self.date = date
        self.author = author
        self.summary = summary
        self.score = score
        self.snippet = snippet
        self.active = active
        self.inactive_reason = inactive_reason
        self.replaces = replaces  # the superseded note the query matched
        self.base_score = base_score
        self.boosts = boosts
        self.terms = [] if terms is None else terms
        self.rowid = rowid

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
                "boosts": {
                    "repo": round(self.boosts.repo, 4),
                    "confidence": round(self.boosts.confidence, 4),
                    "recency": round(self.boosts.recency, 4),
                },
            }
        return data


class RecallResult(Record):
    __slots__ = ("engine", "hits", "notices", "plan", "query", "repo", "vault_version")

    def __init__(
        self,
        query: str,
        engine: str,
        hits: list[Hit],
        plan: QueryPlan,
        repo: str | None,
        *,
        vault_version: str = "",
        notices: list[str] | None = None,
    ) -> None:
        self.query = query
        self.engine = engine
        self.hits = hits
        self.plan = plan
        self.repo = repo
        self.vault_version = vault_version
        self.notices = [] if notices is None else notices
