"""What the benchmark scripts share: the `lore` command, statistics, the machine, tables."""

from __future__ import annotations

import json
import os
import platform
import sqlite3
import statistics
import sys
import time
from pathlib import Path
from typing import Any

BIN = Path(sys.executable).parent


def lore_command() -> list[str]:
    """The installed console script (as users run it), else `python -m lore`."""
    script = BIN / "lore"
    return [str(script)] if script.exists() else [sys.executable, "-m", "lore"]


def median_ms(samples: list[float]) -> float:
    return round(statistics.median(samples) * 1000, 2)


def percentile_ms(samples: list[float], share: float = 0.95) -> float:
    ordered = sorted(samples)
    return round(ordered[min(len(ordered) - 1, int(len(ordered) * share))] * 1000, 2)


def machine() -> dict[str, Any]:
    return {
        "python": platform.python_version(),
        "sqlite": sqlite3.sqlite_version,
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "memory_gib": round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30, 1),
    }


def save_result(name: str, row: dict[str, Any]) -> None:
    """Stamp `row` with the machine and the day, and write bench/results/<name>.json."""
    row["machine"] = machine()
    row["measured"] = time.strftime("%Y-%m-%d")
    results = Path(__file__).resolve().parent / "results"
    results.mkdir(exist_ok=True)
    (results / f"{name}.json").write_text(json.dumps(row, indent=2) + "\n")


def print_table(rows: list[dict[str, Any]], keys: list[str]) -> None:
    print("| " + " | ".join(keys) + " |")
    print("|" + "---|" * len(keys))
    for row in rows:
        print("| " + " | ".join(str(row[k]) for k in keys) + " |")
