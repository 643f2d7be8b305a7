"""`lore stats`: the vault in numbers, read from the local index.

Counts notes by type, repo, author and confidence; growth as notes per ISO week of
their `date` (the day the knowledge was recorded) with a sparkline; and what is
going stale: expired, superseded and depends-on-inactive notes, and active notes
that expire within `EXPIRING_DAYS`. Everything comes from the vault's index
(brought up to date first, rebuilt when damaged, replaced by the committed files read
into memory when it cannot be written), so it is as true as the reviewed branch it serves.

Recall hit counts are not recorded: counting them would add a write to the recall
hot path, which stays read-only.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from lore import clock
from lore.index.read import read_index
from lore.sanitize import sanitize_field, sanitize_fields
from lore.versioned import versioned

EXPIRING_DAYS = 30
WEEKS = 12
BARS = "▁▂▃▄▅▆▇█"
ORG_WIDE = "(org-wide)"
UNKNOWN = "(unknown)"


@dataclass
class WeekCount:
    start: str  # the Monday, ISO date
    label: str  # 2026-W44
    notes: int

    def to_json(self) -> dict[str, Any]:
        return {"week": self.label, "start": self.start, "notes": self.notes}


@dataclass
class VaultStats:
    today: str
    total: int = 0
    active: int = 0
    by_type: dict[str, int] = field(default_factory=dict)
    by_repo: dict[str, int] = field(default_factory=dict)
    by_author: dict[str, int] = field(default_factory=dict)
    by_confidence: dict[str, int] = field(default_factory=dict)
    weekly: list[WeekCount] = field(default_factory=list)
    stale: dict[str, int] = field(default_factory=dict)
    expiring: list[dict[str, str]] = field(default_factory=list)  # id, title, expires
    notices: list[str] = field(default_factory=list)  # the index was rebuilt, or not used

    @property
    def sparkline(self) -> str:
        return sparkline([week.notes for week in self.weekly])

    def to_json(self) -> dict[str, Any]:
        return {
            "today": self.today,
            "notes": {
                "total": self.total,
                "active": self.active,
                "inactive": self.total - self.active,
            },
            "by_type": self.by_type,
            "by_repo": self.by_repo,
            "by_author": self.by_author,
            "by_confidence": self.by_confidence,
            "weekly": [week.to_json() for week in self.weekly],
            "sparkline": self.sparkline,
            "stale": self.stale,
            "expiring": self.expiring,
        }


def stats_json(root: Path, stats: VaultStats) -> dict[str, Any]:
    """`lore stats --json`."""
    return versioned({"vault": str(root), **stats.to_json()})


def sparkline(values: list[int]) -> str:
    """One block character per value, scaled to the largest (all low when all are 0)."""
    top = max(values, default=0)
    if top <= 0:
        return BARS[0] * len(values)
    return "".join(BARS[min(len(BARS) - 1, round(v / top * (len(BARS) - 1)))] for v in values)


def _ranked(counter: Counter[str]) -> dict[str, int]:
    return dict(sorted(counter.items(), key=lambda kv: (-kv[1], kv[0])))


def _weeks(dates: list[str], today: date, weeks: int) -> list[WeekCount]:
    monday = today - timedelta(days=today.weekday())
    starts = [monday - timedelta(weeks=back) for back in range(weeks - 1, -1, -1)]
    counts: Counter[date] = Counter()
    for text in dates:
        try:
            day = date.fromisoformat(text)
        except ValueError:
            continue
        counts[day - timedelta(days=day.weekday())] += 1
    result = []
    for start in starts:
        year, week, _ = start.isocalendar()
        result.append(WeekCount(start.isoformat(), f"{year}-W{week:02d}", counts[start]))
    return result


def vault_stats(root: Path, *, today: str | None = None, weeks: int = WEEKS) -> VaultStats:
    """Statistics of the vault at `root`, from its index."""
    day = date.fromisoformat(today) if today else clock.today()
    notices: list[str] = []
    rows = read_index(
        root,
        lambda conn, _: conn.execute(
            "SELECT id, title, type, repo, author, confidence, date, expires, active, "
            "inactive_reason, superseded_by FROM notes"
        ).fetchall(),
        notices=notices,
    )
    stats = VaultStats(today=day.isoformat(), total=len(rows), notices=notices)
    types: Counter[str] = Counter()
    repos: Counter[str] = Counter()
    authors: Counter[str] = Counter()
    confidence: Counter[str] = Counter()
    stale = {"expired": 0, "superseded": 0, "depends_on_inactive": 0, "expiring_soon": 0}
    horizon = (day + timedelta(days=EXPIRING_DAYS)).isoformat()
    for note_id, title, kind, repo, author, conf, _date, expires, active, reason, by in rows:
        # Every name counted here is note-derived: sanitized as it is counted.
        types[sanitize_field(kind)] += 1
        for name in sanitize_fields(json.loads(repo or "[]")) or [ORG_WIDE]:
            repos[name] += 1
        authors[sanitize_field(author) if author else UNKNOWN] += 1
        confidence[sanitize_field(conf)] += 1
        if active:
            stats.active += 1
            if expires and expires <= horizon:
                stale["expiring_soon"] += 1
                stats.expiring.append(
                    {
                        "id": sanitize_field(note_id),
                        "title": sanitize_field(title),
                        "expires": sanitize_field(expires),
                    }
                )
        elif by:
            stale["superseded"] += 1
        elif reason and reason.startswith("expired"):
            stale["expired"] += 1
        else:
            stale["depends_on_inactive"] += 1
    stats.by_type = _ranked(types)
    stats.by_repo = _ranked(repos)
    stats.by_author = _ranked(authors)
    stats.by_confidence = _ranked(confidence)
    stats.weekly = _weeks([row[6] for row in rows], day, weeks)
    stats.stale = stale
    stats.expiring.sort(key=lambda item: (item["expires"], item["id"]))
    return stats
