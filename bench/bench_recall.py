"""Benchmark the index and recall on synthetic vaults of 1k, 10k and 100k notes.

    python bench/bench_recall.py                    # 1k and 10k
    python bench/bench_recall.py --sizes 1000 10000 100000
    python bench/bench_recall.py --workdir /tmp/lore-bench   # reuse generated vaults

For each size it measures, with medians over repeated runs:
- full index build (a fresh process running `lore index --rebuild`, and its peak RSS);
- update after 10 changed notes (10 notes edited and committed, then `open_index`);
- recall in-process (the library call `recall()` as the CLI, hooks and MCP server make
  it, including the index freshness check, on the connection it keeps between calls;
  and `recall_in_index` alone), over 60 generated queries;
- recall as a whole process (`lore recall --json …`, the console script) against
  `python -c pass` run by the same interpreter, and the process's peak RSS;
- per query class (`synth.query_classes`: typical, common words only, and both with
  `--repo` and `--type`), the in-process p50 and the whole process's median
  (`bench/bench_floor.py` compares those with the floor script).
Results go to bench/results/recall-<size>.json and a table on stdout. With two sizes
or more, recall across the smallest and the largest vault together (the library call
`recall_many`, as `lore recall` makes it with two vaults registered, their statistics
shared) is measured too, into bench/results/recall-multi.json.
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

from common import lore_command, median_ms, percentile_ms, print_table, save_result  # noqa: E402
from lore.index.build import open_index  # noqa: E402
from lore.paths import index_path  # noqa: E402
from lore.recall.engine import recall, recall_in_index  # noqa: E402
from lore.recall.model import RecallRequest  # noqa: E402
from lore.recall.multi import recall_many  # noqa: E402
from lore.vaults import VaultRef  # noqa: E402
from synth import git, make_vault, queries, query_classes  # noqa: E402


def child_run(command: list[str], env: dict[str, str] | None = None) -> tuple[float, int]:
    """Wall time of one child process and its peak RSS in KiB."""
    started = time.perf_counter()
    process = subprocess.Popen(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env
    )
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - started
    if status != 0:
        raise SystemExit(f"{command} failed with status {status}")
    return elapsed, usage.ru_maxrss


def bench_size(size: int, workdir: Path, repeat: int) -> dict[str, Any]:
    vault = workdir / f"vault-{size}"
    if not (vault / ".git").exists():
        started = time.perf_counter()
        make_vault(size, vault)
        print(f"  generated {size} notes in {time.perf_counter() - started:.1f} s", flush=True)
    result: dict[str, Any] = {"notes": size}

    builds, build_rss = [], []
    for _ in range(max(1, repeat if size < 100_000 else 2)):
        seconds, rss = child_run([*lore_command(), "index", "--rebuild", "--vault", str(vault)])
        builds.append(seconds)
        build_rss.append(rss)
    result["build_s"] = round(statistics.median(builds), 3)
    result["build_peak_rss_mib"] = round(max(build_rss) / 1024, 1)

    updates = []
    notes = sorted((vault / "notes").glob("*.md"))
    for round_number in range(5):
        for path in notes[round_number * 10 : round_number * 10 + 10]:
            path.write_text(
                path.read_text(encoding="utf-8") + f"\nEdited {round_number}.\n", encoding="utf-8"
            )
        git(vault, "commit", "-q", "-am", f"edit 10 notes ({round_number})")
        started = time.perf_counter()
        conn, state = open_index(vault)
        updates.append(time.perf_counter() - started)
        conn.close()
        assert state.action == "updated" and state.changed == 10, state
    result["update_10_ms"] = median_ms(updates)

    asked = queries()
    conn, _ = open_index(vault)
    in_index, full = [], []
    for _ in range(3):
        for query in asked:
            started = time.perf_counter()
            recall_in_index(conn, RecallRequest(query=query))
            in_index.append(time.perf_counter() - started)
            started = time.perf_counter()
            recall(vault, RecallRequest(query=query))
            full.append(time.perf_counter() - started)
    conn.close()
    result["recall_in_process_p50_ms"] = median_ms(full)
    result["recall_in_process_p95_ms"] = percentile_ms(full, 0.95)
    result["recall_in_index_p50_ms"] = median_ms(in_index)

    env = {**os.environ, "LORE_VAULT": str(vault)}
    bare, whole, whole_rss = [], [], []
    for index in range(max(10, repeat * 4)):
        bare.append(child_run([sys.executable, "-c", "pass"])[0])
        seconds, rss = child_run(
            [*lore_command(), "recall", "--json", asked[index % len(asked)]], env
        )
        whole.append(seconds)
        whole_rss.append(rss)
    result["python_c_pass_ms"] = median_ms(bare)
    result["recall_process_ms"] = median_ms(whole)
    result["recall_process_ratio"] = round(statistics.median(whole) / statistics.median(bare), 2)
    result["recall_process_peak_rss_mib"] = round(max(whole_rss) / 1024, 1)
    result["classes"] = bench_classes(vault, env, repeat)
    index_file = index_path(vault)
    result["index_mib"] = round(index_file.stat().st_size / 2**20, 1)
    return result


def _request(query: str, extra: list[str]) -> RecallRequest:
    repo = extra[extra.index("--repo") + 1] if "--repo" in extra else None
    types = (extra[extra.index("--type") + 1],) if "--type" in extra else ()
    return RecallRequest(query=query, repo=repo, types=types)


def bench_classes(vault: Path, env: dict[str, str], repeat: int) -> dict[str, Any]:
    """Each query class: recall in-process (p50, p95) and as a whole process (median)."""
    found: dict[str, Any] = {}
    for name, (asked, extra) in query_classes(12).items():
        inside, whole = [], []
        for _ in range(3):
            for query in asked:
                started = time.perf_counter()
                recall(vault, _request(query, extra))
                inside.append(time.perf_counter() - started)
        for number in range(max(8, repeat * 2)):
            query = asked[number % len(asked)]
            whole.append(child_run([*lore_command(), "recall", "--json", *extra, query], env)[0])
        found[name] = {
            "in_process_p50_ms": median_ms(inside),
            "in_process_p95_ms": percentile_ms(inside, 0.95),
            "process_ms": median_ms(whole),
        }
    return found


def bench_multi(sizes: list[int], workdir: Path) -> dict[str, Any]:
    """Recall across the smallest and the largest vault, against each vault alone."""
    small, large = min(sizes), max(sizes)
    refs = [VaultRef(f"v{size}", workdir / f"vault-{size}") for size in (small, large)]
    together, alone = [], []
    for _ in range(3):
        for query in queries():
            started = time.perf_counter()
            recall_many(refs, RecallRequest(query=query))
            together.append(time.perf_counter() - started)
            started = time.perf_counter()
            recall_many(refs[1:], RecallRequest(query=query))
            alone.append(time.perf_counter() - started)
    return {
        "vaults": [small, large],
        "recall_two_vaults_p50_ms": median_ms(together),
        "recall_two_vaults_p95_ms": percentile_ms(together, 0.95),
        "recall_largest_alone_p50_ms": median_ms(alone),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--workdir", type=Path, help="where vaults are generated (kept)")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    # An installed package has its bytecode compiled (pip does it); make sure this
    # checkout's has too, so start-up is measured as users get it.
    compileall.compile_dir(str(HERE.parent / "src" / "lore"), quiet=1)
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="lore-bench-"))
    workdir.mkdir(parents=True, exist_ok=True)
    rows = []
    for size in args.sizes:
        print(f"{size} notes…", flush=True)
        row = bench_size(size, workdir, args.repeat)
        save_result(f"recall-{size}", row)
        rows.append(row)
    keys = [
        "notes",
        "build_s",
        "build_peak_rss_mib",
        "update_10_ms",
        "recall_in_process_p50_ms",
        "recall_in_process_p95_ms",
        "recall_in_index_p50_ms",
        "python_c_pass_ms",
        "recall_process_ms",
        "recall_process_ratio",
        "recall_process_peak_rss_mib",
        "index_mib",
    ]
    print_table(rows, keys)
    per_class = [
        {"notes": row["notes"], "class": name, **figures}
        for row in rows
        for name, figures in row["classes"].items()
    ]
    print_table(per_class, list(per_class[0]))
    if len(set(args.sizes)) > 1:
        multi = bench_multi(args.sizes, workdir)
        save_result("recall-multi", multi)
        print_table([multi], [k for k in multi if k not in ("machine", "measured")])


if __name__ == "__main__":
    main()
