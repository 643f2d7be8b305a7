"""Where a whole `lore recall --json` process's time goes, next to the floor's.

    python bench/bench_floor_split.py --sizes 10000 --workdir /tmp/lore-bench

`bench/bench_floor.py` compares whole processes; this splits them. Each part is a fresh
process of the same interpreter, run in turns (so the machine's load moves them alike),
and the medians of CPU time (user + system) are recorded:

- `python -c pass`: the interpreter's own start;
- the floor's imports (`json`, `sqlite3`), and the same plus everything else a recall
  process loads (the standard library modules and lore's own, listed by running one);
- the floor's work and lore's work, each timed inside a process that has imported
  everything already: the floor script's body, and `lore.cli.main.main()` for the same
  query with `--repo` and `--type` (the call the agents' skills make).

The result says how much of the floor a 1.2x target leaves lore for its imports once
its own work is paid: `budget_for_imports_ms` = 1.2 x the floor's whole process − the
floor's imports − lore's work. Results go to bench/results/floor-split-<size>.json.
"""

from __future__ import annotations

import argparse
import json
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

from bench_floor import FLOOR, column_weights, prepare  # noqa: E402
from common import lore_command, print_table, save_result  # noqa: E402
from lore.index.build import open_index  # noqa: E402
from lore.paths import index_path  # noqa: E402
from lore.recall.engine import query_terms  # noqa: E402
from synth import query_classes  # noqa: E402

CLASS = "typical --repo --type"

# A child process imports everything first, then times only the work (`--child`).
TIMED_LORE = """
import contextlib, importlib, io, json, sys, time
for name in json.loads(sys.argv[1]):
    importlib.import_module(name)
from lore.cli.main import main
sys.argv = ["lore", *json.loads(sys.argv[2])]
started = time.process_time()
with contextlib.redirect_stdout(io.StringIO()):
    try:
        main()
    except SystemExit:
        pass
print(time.process_time() - started)
"""
TIMED_FLOOR = """
import contextlib, io, json, sqlite3, sys, time
script = sys.argv[1]
code = compile(open(script, encoding="utf-8").read(), script, "exec")
sys.argv = [script, *sys.argv[2:]]
started = time.process_time()
with contextlib.redirect_stdout(io.StringIO()):
    exec(code, {"__name__": "__main__"})
print(time.process_time() - started)
"""
LOADED = """
import contextlib, io, json, sys
before = set(sys.modules)
from lore.cli.main import main
sys.argv = ["lore", *json.loads(sys.argv[1])]
with contextlib.redirect_stdout(io.StringIO()):
    try:
        main()
    except SystemExit:
        pass
print(json.dumps(sorted(set(sys.modules) - before)))
"""


def cpu_of(command: list[str], env: dict[str, str]) -> float:
    """CPU time (user + system) of one whole process."""
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, env=env)
    _, status, usage = os.wait4(process.pid, 0)
    if status != 0:
        raise SystemExit(f"{command[:3]} failed with status {status}")
    return usage.ru_utime + usage.ru_stime


def timed_inside(command: list[str], env: dict[str, str]) -> float:
    out = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def bench_size(size: int, workdir: Path, runs: int) -> dict[str, Any]:
    vault, _ = prepare(size, workdir, None)
    conn, _ = open_index(vault)
    weight_list = column_weights(conn)
    queries, extra = query_classes(4)[CLASS]
    kind = extra[extra.index("--type") + 1]
    env = {**os.environ, "LORE_VAULT": str(vault)}
    python = sys.executable  # the environment's interpreter, which its `lore` script runs
    parts: dict[str, list[float]] = {}
    for query in queries:
        match = " OR ".join(term.fts() for term in query_terms(conn, query))
        floor_args = [str(index_path(vault)), match, weight_list, kind]
        lore_args = ["recall", "--json", *extra, query]
        loaded = json.loads(
            subprocess.run(
                [python, "-c", LOADED, json.dumps(lore_args)],
                env=env,
                capture_output=True,
                text=True,
                check=True,
            ).stdout
        )
        contenders: dict[str, tuple[list[str], bool]] = {
            "python -c pass": ([python, "-c", "pass"], False),
            "floor's imports": ([python, "-c", "import json, sqlite3"], False),
            "recall's imports": ([python, "-c", "import " + ", ".join(loaded)], False),
            "floor, whole": ([python, str(FLOOR), *floor_args], False),
            "lore, whole": ([*lore_command(), *lore_args], False),
            "floor's work": ([python, "-c", TIMED_FLOOR, str(FLOOR), *floor_args], True),
            "lore's work": (
                [python, "-c", TIMED_LORE, json.dumps(loaded), json.dumps(lore_args)],
                True,
            ),
        }
        for _ in range(runs):
            for name, (command, inside) in contenders.items():
                seconds = timed_inside(command, env) if inside else cpu_of(command, env)
                parts.setdefault(name, []).append(seconds)
    conn.close()
    medians = {name: round(statistics.median(v) * 1000, 1) for name, v in parts.items()}
    floor_whole, lore_work = medians["floor, whole"], medians["lore's work"]
    return {
        "notes": size,
        "class": CLASS,
        "runs_per_query": runs,
        "queries": len(queries),
        "cpu_ms": medians,
        "imports_beyond_floor_ms": round(
            medians["recall's imports"] - medians["floor's imports"], 1
        ),
        "ratio": round(medians["lore, whole"] / floor_whole, 2),
        "budget_for_imports_ms": round(
            1.2 * floor_whole - medians["floor's imports"] - lore_work, 1
        ),
        "modules_loaded": len(loaded),
        "load_average": [round(x, 2) for x in os.getloadavg()],
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", type=int, nargs="+", default=[10000])
    parser.add_argument("--workdir", type=Path, help="where vaults are generated (kept)")
    parser.add_argument("--runs", type=int, default=6, help="runs of each part per query")
    args = parser.parse_args()
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="lore-bench-"))
    workdir.mkdir(parents=True, exist_ok=True)
    table = []
    for size in args.sizes:
        started = time.perf_counter()
        result = bench_size(size, workdir, args.runs)
        save_result(f"floor-split-{size}", result)
        print(f"{size} notes: {time.perf_counter() - started:.0f} s", flush=True)
        table += [
            {"notes": size, "part": name, "cpu_ms": ms} for name, ms in result["cpu_ms"].items()
        ]
        table.append(
            {"notes": size, "part": "budget for imports", "cpu_ms": result["budget_for_imports_ms"]}
        )
    print_table(table, ["notes", "part", "cpu_ms"])


if __name__ == "__main__":
    main()
