"""Recall with two phrasings (`--or`) against a single recall, whole process, in turns.

    python bench/bench_phrasings.py                       # 10k notes
    python bench/bench_phrasings.py --sizes 10000 100000 --workdir DIR

The bar (issue 30): `lore recall Q --or ALT --json` within 1.3x of `lore recall Q --json`,
each a fresh process of the installed console script, at 10k notes. Both answer in one
process on one index connection; the second phrasing adds its own ranking (the same
two-stage search as the first, read to 20 hits), a snippet for each of its hits, and
the fusion.

Each query class pairs a first phrasing with a second one of the same kind
(`synth.query_classes`: typical queries and common words only, and both with `--repo`
and `--type`, the call the skills make); the second phrasing is drawn from another seed
of the same generator, so it costs what a query of that class costs. The two commands
run in turns (single, pair, single, pair, …; the first of each round alternating), so
the machine's load moves both alike; per class the medians of wall time and of CPU time
(user + system) and their ratios are recorded in bench/results/phrasings-<size>.json,
with the machine and the load average before and after. The in-process library call
(`recall`, on the connection it keeps) is timed the same way for reference.
"""

from __future__ import annotations

import argparse
import compileall
import os
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
from lore.recall.engine import recall  # noqa: E402
from lore.recall.model import RecallRequest  # noqa: E402
from synth import FILTERS, common_queries, make_vault, queries  # noqa: E402

QUERIES_PER_CLASS = 4
BAR = 1.3


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


def classes(count: int) -> dict[str, tuple[list[tuple[str, str]], list[str]]]:
    """name -> ((first phrasing, second phrasing) pairs, extra `lore recall` arguments)."""
    typical = list(zip(queries(count, seed=17), queries(count, seed=29), strict=True))
    common = list(zip(common_queries(count), common_queries(count + 1, seed=31)[1:], strict=True))
    return {
        "typical": (typical, []),
        "common-words": (common, []),
        "typical --repo --type": (typical, FILTERS),
        "common-words --repo --type": (common, FILTERS),
    }


def prepare(size: int, workdir: Path) -> Path:
    vault = workdir / f"vault-{size}"
    if not (vault / ".git").exists():
        started = time.perf_counter()
        make_vault(size, vault)
        print(f"  generated {size} notes in {time.perf_counter() - started:.1f} s", flush=True)
    subprocess.run(
        [*lore_command(), "index", "--vault", str(vault)], check=True, stdout=subprocess.DEVNULL
    )
    return vault


def in_process_ms(vault: Path, pairs: list[tuple[str, str]], runs: int) -> tuple[float, float]:
    """Median ms of the library call with one phrasing and with two, in turns."""
    one: list[float] = []
    two: list[float] = []
    for _ in range(runs):
        for first, second in pairs:
            for request, samples in (
                (RecallRequest(first), one),
                (RecallRequest(first, also=(second,)), two),
            ):
                started = time.perf_counter()
                recall(vault, request)
                samples.append(time.perf_counter() - started)
    return statistics.median(one) * 1000, statistics.median(two) * 1000


def bench_size(size: int, workdir: Path, runs: int) -> dict[str, Any]:
    vault = prepare(size, workdir)
    env = {**os.environ, "LORE_VAULT": str(vault)}
    cwd = workdir  # not a git checkout: no repository of the current directory
    load_before = os.getloadavg()
    rows: list[dict[str, Any]] = []
    for name, (pairs, extra) in classes(QUERIES_PER_CLASS).items():
        commands = {
            "one": [[*lore_command(), "recall", "--json", *extra, q] for q, _ in pairs],
            "two": [[*lore_command(), "recall", "--json", *extra, q, "--or", a] for q, a in pairs],
        }
        wall: dict[str, list[float]] = {"one": [], "two": []}
        cpu: dict[str, list[float]] = {"one": [], "two": []}
        for round_number in range(runs):
            order = ["one", "two"] if round_number % 2 == 0 else ["two", "one"]
            for number in range(len(pairs)):
                for contender in order:
                    elapsed, used = run_once(commands[contender][number], env, cwd)
                    wall[contender].append(elapsed)
                    cpu[contender].append(used)
        row: dict[str, Any] = {"notes": size, "class": name}
        for contender in ("one", "two"):
            row[f"{contender}_ms"] = round(statistics.median(wall[contender]) * 1000, 1)
            row[f"{contender}_cpu_ms"] = round(statistics.median(cpu[contender]) * 1000, 1)
        row["ratio"] = round(row["two_ms"] / row["one_ms"], 2)
        row["cpu_ratio"] = round(row["two_cpu_ms"] / row["one_cpu_ms"], 2)
        one_ms, two_ms = in_process_ms(vault, pairs, max(2, runs // 2))
        row["in_process_one_ms"] = round(one_ms, 2)
        row["in_process_two_ms"] = round(two_ms, 2)
        rows.append(row)
        print(f"  {name}: {row}", flush=True)
    worst = max(row["ratio"] for row in rows)
    return {
        "notes": size,
        "runs_per_query": runs,
        "queries_per_class": QUERIES_PER_CLASS,
        "bar": BAR,
        "worst_ratio": worst,
        "within_bar": worst <= BAR,
        "load_average_before": [round(x, 2) for x in load_before],
        "load_average_after": [round(x, 2) for x in os.getloadavg()],
        "classes": rows,
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", type=int, nargs="+", default=[10000])
    parser.add_argument("--workdir", type=Path, help="where vaults are generated (kept)")
    parser.add_argument("--runs", type=int, default=8, help="runs of each query per contender")
    args = parser.parse_args()
    compileall.compile_dir(str(HERE.parent / "src" / "lore"), quiet=1)
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="lore-bench-"))
    workdir.mkdir(parents=True, exist_ok=True)
    table = []
    for size in args.sizes:
        print(f"{size} notes…", flush=True)
        result = bench_size(size, workdir, args.runs)
        save_result(f"phrasings-{size}", result)
        table += result["classes"]
    print_table(table, list(table[0]))


if __name__ == "__main__":
    main()
