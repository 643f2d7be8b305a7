"""`lore stats` on a known vault (real git, a real index; today pinned to 2026-11-02)."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from lore.cli.main import main
from lore.team.stats import sparkline, vault_stats
from tests.support import Vault, note_text

NOTES = {
    "billing--a--2026-10-27": note_text("A", date="2026-10-27", repo="payments-api", author="ana"),
    "billing--b--2026-10-28": note_text("B", date="2026-10-28", repo="payments-api", author="ana"),
    "billing--c--2026-10-20": note_text(
        "C", type="gotcha", date="2026-10-20", author="bo", confidence="low"
    ),
    "web--d--2026-09-01": note_text(
        "D",
        type="decision",
        date="2026-09-01",
        repo="[payments-api, web-app]",
        expires="2026-11-20",
    ),
    "web--e--2026-01-01": note_text("E", date="2026-01-01", expires="2026-06-01"),
    "web--f--2026-02-01": note_text("F", date="2026-02-01"),
    "web--g--2026-10-29": note_text("G", date="2026-10-29", supersedes="[web--f--2026-02-01]"),
    "web--h--2026-03-01": note_text("H", date="2026-03-01", depends_on="[web--e--2026-01-01]"),
}


@pytest.fixture
def known(make_vault: Callable[..., Vault]) -> Vault:
    return make_vault(NOTES)


def test_counts_on_a_known_vault(known: Vault) -> None:
    stats = vault_stats(known.root, weeks=4)
    assert (stats.total, stats.active) == (8, 5)
    assert stats.by_type == {"convention": 6, "decision": 1, "gotcha": 1}
    assert stats.by_repo == {"(org-wide)": 5, "payments-api": 3, "web-app": 1}
    assert stats.by_author == {"(unknown)": 5, "ana": 2, "bo": 1}
    assert stats.by_confidence == {"high": 7, "low": 1}
    assert stats.stale == {
        "expired": 1,
        "superseded": 1,
        "depends_on_inactive": 1,
        "expiring_soon": 1,
    }
    assert [item["id"] for item in stats.expiring] == ["web--d--2026-09-01"]
    # weeks starting 2026-10-12, 10-19, 10-26 and 11-02
    assert [(week.start, week.notes) for week in stats.weekly] == [
        ("2026-10-12", 0),
        ("2026-10-19", 1),
        ("2026-10-26", 3),
        ("2026-11-02", 0),
    ]
    assert stats.sparkline == "▁▃█▁"


def test_sparkline() -> None:
    assert sparkline([]) == ""
    assert sparkline([0, 0]) == "▁▁"
    assert sparkline([0, 7, 14]) == "▁▅█"
    assert sparkline([3, 3]) == "██"


def test_the_json_shape(known: Vault, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["stats", "--vault", str(known.root), "--json", "--weeks", "2"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data) == {
        "version",
        "vault",
        "today",
        "notes",
        "by_type",
        "by_repo",
        "by_author",
        "by_confidence",
        "weekly",
        "sparkline",
        "stale",
        "expiring",
    }
    assert data["version"] == 1 and data["today"] == "2026-11-02"
    assert data["notes"] == {"total": 8, "active": 5, "inactive": 3}
    assert data["weekly"] == [
        {"week": "2026-W44", "start": "2026-10-26", "notes": 3},
        {"week": "2026-W45", "start": "2026-11-02", "notes": 0},
    ]
    assert data["expiring"] == [{"id": "web--d--2026-09-01", "title": "D", "expires": "2026-11-20"}]


def test_the_rich_view(known: Vault, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["stats", "--vault", str(known.root)]) == 0
    out = capsys.readouterr().out
    assert "8 notes" in out and "5 active" in out
    assert "1 expired" in out and "web--d--2026-09-01" in out


def test_bad_weeks_is_bad_usage(known: Vault) -> None:
    assert main(["stats", "--vault", str(known.root), "--weeks", "0"]) == 2
