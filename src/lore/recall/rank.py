"""Gentle boosts on top of BM25: same repository, confidence, recency.

Each boost is a multiplier close to 1 (a tie-breaker, not a re-ranker): measured on
this project's eval, strong boosts bury the note that actually answers the query.
"""

from __future__ import annotations

import math
from datetime import date

from lore.record import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class Boosts(Record):
    __slots__ = ("confidence", "recency", "repo")

    def __init__(self, repo: float, confidence: float, recency: float) -> None:
        self.repo = repo
        self.confidence = confidence
        self.recency = recency

    @property
    def total(self) -> float:
        return self.repo * self.confidence * self.recency


def compute_boosts(
    settings: dict[str, Any],
    *,
    note_repos: list[str],
    current_repo: str | None,
    confidence: str,
    note_date: str,
    today: date,
) -> Boosts:
    repo = 1.0
    if current_repo and note_repos:
        if current_repo in (r.lower() for r in note_repos):
            repo = float(settings["repo_boost"])
        else:
            repo = float(settings["other_repo_factor"])
    conf = float(settings["confidence"].get(confidence, 1.0))
    recency = 1.0
    try:
        age_days = max(0, (today - date.fromisoformat(note_date)).days)
    except ValueError:
        age_days = None
    if age_days is not None:
        half_life = float(settings["recency_half_life_days"])
        extra = float(settings["recency_max_boost"]) - 1.0
        recency = 1.0 + extra * math.pow(0.5, age_days / half_life)
    return Boosts(repo, conf, recency)
