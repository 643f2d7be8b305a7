"""Whole `lore recall --json` processes against the floor, query class by query class.

    python bench/bench_floor.py --sizes 10000 100000 --workdir /tmp/lore-bench
    python bench/bench_floor.py --baseline OTHER_CHECKOUT/.venv/bin/lore --baseline-name 8873ed4

The floor (`bench/floor_recall.py`) is the least a Python program can do to answer a
query: open the FTS5 table of the same index read-only, run the same OR query (the
MATCH expression lore builds, with the same column weights, and the type filter when
the class has one) ranked by `bm25()`, with a snippet, and print the top 10 as JSON.
Every run is a fresh process of the same interpreter, run in turns (floor, lore,
baseline, floor, lore, …) so that the machine's load moves all of them alike; per
class the medians of all runs and lore's ratio to the floor are recorded, in wall time
and in CPU time (user + system, which other work on the machine moves less).

Classes (`synth.query_classes`): typical queries (topic words and a common word),
queries of common words only, and both of those with `--repo` and `--type`, the call
the agents' skills make. With `--baseline`, another lore (the code before a change,
installed in its own environment) answers in a clone of each vault, so the two never
share an index file, and its top 10 must be the same notes.

Results go to bench/results/floor-<size>.json with the machine (cores, load average
before and after, Python, SQLite) and a table on stdout.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))
sys.path.insert(0, str(HERE))

from common import lore_command, print_table, save_result  # noqa: E402
from lore.index.build import open_index  # noqa: E402
from lore.paths import index_path  # noqa: E402
from lore.recall.engine import query_terms  # noqa: E402
from synth import git, make_vault, query_classes  # noqa: E402

FLOOR = HERE / "floor_recall.py"
QUERIES_PER_CLASS = 4


def run_once(command: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float]:
    """Wall time and CPU time (user + system) of one whole process."""
    started = time.perf_counter()
    process = subprocess.Popen(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=cwd
    )
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - started
    if status != 0:
        raise SystemExit(f"{command} failed with status {status}")
    return elapsed, usage.ru_utime + usage.ru_stime


def top_ids(command: list[str], env: dict[str, str], cwd: Path) -> list[str]:
    out = subprocess.run(command, env=env, cwd=cwd, capture_output=True, text=True, check=True)
    return [hit["id"] for hit in json.loads(out.stdout)["results"]]


def prepare(size: int, workdir: Path, baseline: list[str] | None) -> tuple[Path, Path | None]:
    vault = workdir / f"vault-{size}"
    if not (vault / ".git").exists():
        started = time.perf_counter()
        make_vault(size, vault)
        print(f"  generated {size} notes in {time.perf_counter() - started:.1f} s", flush=True)
    subprocess.run(
        [*lore_command(), "index", "--vault", str(vault)], check=True, stdout=subprocess.DEVNULL
    )
    if baseline is None:
        return vault, None
    other = workdir / f"vault-{size}-baseline"
    if not (other / ".git").exists():
        git(workdir, "clone", "-q", str(vault), str(other))
    head = git(vault, "rev-parse", "HEAD")
    if git(other, "rev-parse", "HEAD") != head:
        git(other, "fetch", "-q", "origin")
        git(other, "reset", "-q", "--hard", head)
    subprocess.run(
        [*baseline, "index", "--vault", str(other)], check=True, stdout=subprocess.DEVNULL
    )
    return vault, other


def column_weights(conn: sqlite3.Connection) -> str:
    """The index's column weights as the floor script takes them: title,tags,body,files."""
    weights = json.loads(
        conn.execute("SELECT value FROM meta WHERE key = 'recall_settings'").fetchone()[0]
    )["weights"]
    return ",".join(str(weights[c]) for c in ("title", "tags", "body", "files_touched"))


def bench_size(
    size: int, workdir: Path, runs: int, baseline: list[str] | None, baseline_name: str
) -> dict[str, Any]:
    vault, other = prepare(size, workdir, baseline)
    conn, _ = open_index(vault)
    weight_list = column_weights(conn)
    index = index_path(vault)
    cwd = workdir  # not a git checkout: no repository of the current directory
    env = {**os.environ, "LORE_VAULT": str(vault)}
    env_other = {**os.environ, "LORE_VAULT": str(other)} if other else env
    load_before = os.getloadavg()
    rows: list[dict[str, Any]] = []
    for name, (asked, extra) in query_classes(QUERIES_PER_CLASS).items():
        kind = extra[extra.index("--type") + 1] if "--type" in extra else None
        contenders: dict[str, list[tuple[list[str], dict[str, str]]]] = {
            "floor": [],
            "lore": [],
            "baseline": [],
        }
        for query in asked:
            match = " OR ".join(term.fts() for term in query_terms(conn, query))
            floor = [sys.executable, str(FLOOR), str(index), match, weight_list]
            contenders["floor"].append(([*floor, kind] if kind else floor, env))
            lore = [*lore_command(), "recall", "--json", *extra, query]
            contenders["lore"].append((lore, env))
            if baseline is not None:
                contenders["baseline"].append(
                    ([*baseline, "recall", "--json", *extra, query], env_other)
                )
                same = top_ids(lore, env, cwd) == top_ids(
                    contenders["baseline"][-1][0], env_other, cwd
                )
                assert same, f"lore and the baseline disagree on {query!r} {extra}"
        names = [n for n, commands in contenders.items() if commands]
        samples: dict[str, list[float]] = {n: [] for n in names}
        cpu: dict[str, list[float]] = {n: [] for n in names}
        for round_number in range(runs):
            order = names[round_number % len(names) :] + names[: round_number % len(names)]
            for number in range(len(asked)):
                for contender in order:
                    command, child_env = contenders[contender][number]
                    wall, used = run_once(command, child_env, cwd)
                    samples[contender].append(wall)
                    cpu[contender].append(used)
        row: dict[str, Any] = {"notes": size, "class": name}
        for contender in names:
            row[f"{contender}_ms"] = round(statistics.median(samples[contender]) * 1000, 1)
        row["ratio"] = round(row["lore_ms"] / row["floor_ms"], 2)
        # CPU time moves less than wall time with other work on the machine
        for contender in names:
            row[f"{contender}_cpu_ms"] = round(statistics.median(cpu[contender]) * 1000, 1)
        row["cpu_ratio"] = round(row["lore_cpu_ms"] / row["floor_cpu_ms"], 2)
        if "baseline_ms" in row:
            row["baseline_ratio"] = round(row["baseline_ms"] / row["floor_ms"], 2)
            row["after_over_before"] = round(row["lore_ms"] / row["baseline_ms"], 2)
        rows.append(row)
        print(f"  {name}: {row}", flush=True)
    conn.close()
    return {
        "notes": size,
        "runs_per_query": runs,
        "queries_per_class": QUERIES_PER_CLASS,
        "load_average_before": [round(x, 2) for x in load_before],
        "load_average_after": [round(x, 2) for x in os.getloadavg()],
        "baseline": baseline_name if baseline else None,  # a name: no path of this machine
        "classes": rows,
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", type=int, nargs="+", default=[10000, 100000])
    parser.add_argument("--workdir", type=Path, help="where vaults are generated (kept)")
    parser.add_argument("--runs", type=int, default=8, help="runs of each query per contender")
    parser.add_argument(
        "--baseline", help="another `lore` executable (the code before), run in turns too"
    )
    parser.add_argument(
        "--baseline-name", default="baseline", help="what the results call it (e.g. a commit)"
    )
    args = parser.parse_args()
    compileall.compile_dir(str(HERE.parent / "src" / "lore"), quiet=1)
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="lore-bench-"))
    workdir.mkdir(parents=True, exist_ok=True)
    baseline = [args.baseline] if args.baseline else None
    table = []
    for size in args.sizes:
        print(f"{size} notes…", flush=True)
        result = bench_size(size, workdir, args.runs, baseline, args.baseline_name)
        result["sqlite_module"] = sqlite3.sqlite_version
        save_result(f"floor-{size}", result)
        table += result["classes"]
    keys = [k for k in table[0] if k != "notes"]
    print_table(table, ["notes", *keys])


if __name__ == "__main__":
    main()
