"""What checking and healing the index costs, on synthetic vaults (docs/index.md, Damage).

    python bench/bench_index_checks.py                  # 10k notes
    python bench/bench_index_checks.py --sizes 1000 10000 --workdir /tmp/lore-bench

For each size it measures, with medians over repeated runs:
- the checks every open makes (`schema_matches`: application id, user version, the
  meta row, every table), on a new connection as a `lore recall` process makes it,
  next to the same without the table check;
- `open_index` of a fresh index on a new connection (what a whole recall process pays);
- the full checks `lore index --check` and `lore doctor` run: SQLite's `quick_check`,
  FTS5's `('integrity-check', 1)`, and `inspect_index` (both, plus the header);
- healing: a page of the `notes` table overwritten, then one `read_index` that meets
  it, moves the file aside and rebuilds — next to a plain in-place rebuild.
Results go to bench/results/index-checks-<size>.json and a table on stdout.
"""

from __future__ import annotations

import argparse
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))
sys.path.insert(0, str(HERE))

from common import median_ms, print_table, save_result  # noqa: E402
from lore.index.build import open_index  # noqa: E402
from lore.index.health import inspect_index  # noqa: E402
from lore.index.read import read_index  # noqa: E402
from lore.index.schema import schema_matches  # noqa: E402
from lore.paths import index_path  # noqa: E402
from synth import make_vault  # noqa: E402

PAGE = 4096


def _timed(action: Any, runs: int) -> list[float]:
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        action()
        samples.append(time.perf_counter() - started)
    return samples


def _header_only(path: Path) -> None:
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA application_id").fetchone()
    conn.execute("PRAGMA user_version").fetchone()
    conn.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
    conn.close()


def _with_tables(path: Path) -> None:
    conn = sqlite3.connect(path)
    assert schema_matches(conn)
    conn.close()


def _damage_notes_root(path: Path) -> None:
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    root = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'notes'").fetchone()[0]
    conn.close()
    with path.open("r+b") as handle:
        handle.seek((root - 1) * PAGE)
        handle.write(b"\xab" * PAGE)


def bench_size(size: int, workdir: Path, repeat: int) -> dict[str, Any]:
    vault = workdir / f"vault-{size}"
    if not (vault / ".git").exists():
        make_vault(size, vault)
    conn, _ = open_index(vault, rebuild=True)  # sound, whatever an earlier run left
    conn.close()
    index = index_path(vault)
    result: dict[str, Any] = {"notes": size}

    result["open_checks_without_tables_us"] = round(
        statistics.median(_timed(lambda: _header_only(index), 200)) * 1e6, 1
    )
    result["open_checks_us"] = round(
        statistics.median(_timed(lambda: _with_tables(index), 200)) * 1e6, 1
    )

    def open_fresh() -> None:
        open_index(vault)[0].close()

    def rebuild() -> None:
        open_index(vault, rebuild=True)[0].close()

    result["open_index_fresh_ms"] = median_ms(_timed(open_fresh, 50))

    conn = sqlite3.connect(index, isolation_level=None)
    result["quick_check_ms"] = median_ms(
        _timed(lambda: conn.execute("PRAGMA quick_check").fetchall(), repeat)
    )
    result["fts_integrity_check_ms"] = median_ms(
        _timed(
            lambda: conn.execute(
                "INSERT INTO notes_fts(notes_fts, rank) VALUES ('integrity-check', 1)"
            ),
            repeat,
        )
    )
    conn.close()
    result["full_check_ms"] = median_ms(_timed(lambda: inspect_index(index), repeat))

    result["rebuild_s"] = round(
        statistics.median(_timed(rebuild, repeat)),
        3,
    )
    heals = []
    for _ in range(repeat):
        _damage_notes_root(index)
        notices: list[str] = []
        started = time.perf_counter()
        count = read_index(
            vault,
            lambda c, _: c.execute("SELECT count(length(body)) FROM notes").fetchone()[0],
            notices=notices,
        )
        heals.append(time.perf_counter() - started)
        assert count == size and notices and "rebuilt" in notices[0], notices
    result["heal_s"] = round(statistics.median(heals), 3)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", type=int, nargs="+", default=[10000])
    parser.add_argument("--workdir", type=Path, help="where vaults are generated (kept)")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="lore-bench-"))
    workdir.mkdir(parents=True, exist_ok=True)
    rows = []
    for size in args.sizes:
        print(f"{size} notes…", flush=True)
        row = bench_size(size, workdir, args.repeat)
        save_result(f"index-checks-{size}", row)
        rows.append(row)
    print_table(
        rows,
        [
            "notes",
            "open_checks_without_tables_us",
            "open_checks_us",
            "open_index_fresh_ms",
            "quick_check_ms",
            "fts_integrity_check_ms",
            "full_check_ms",
            "rebuild_s",
            "heal_s",
        ],
    )


if __name__ == "__main__":
    main()
