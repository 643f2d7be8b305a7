"""Time `lore site` against `lore index --rebuild` of the same vault, in the same run.

Builds a synthetic vault (bench/synth.py: 10,000 notes by default, 2 % of them
replacing an earlier one) as a git repository, then, alternating so that the machine's
load falls on both alike, times whole processes as a person runs them:

- `index`: `lore index --rebuild --vault V` — the baseline: read and parse every note,
  fill the SQLite FTS5 index;
- `site`: `lore site OUT --vault V` with the index fresh (as after `lore sync`): read the
  notes from the index, render every body, write every page, the map and the search
  index, into a new folder (as the Pages workflow does on a fresh runner; the folder
  is deleted between runs, untimed);
- `site over the last one` (once, after the runs): the same into the folder of the
  last run, which the build replaces whole — the cost of deleting the old site's files
  on top, which depends on the disk more than on lore (on this machine's disk, 10,000
  files deleted take 0.4 s while the kernel still holds them, 25 s once written out).

Wall time and CPU time (user + system of the child, which other work on the machine
moves less) are recorded per run; the ratio is of the medians. The target is a site
within 3x the rebuild. Sizes: the search index the search page downloads
(`assets/search-index.js`), raw and gzip-compressed (GitHub Pages serves it
compressed), and the whole site. Results go to bench/results/site-<notes>.json.

    python bench/bench_site.py                    # 10,000 notes, 3 runs each
    python bench/bench_site.py --notes 1000 --runs 5 --keep ../vault-1k
"""

from __future__ import annotations

import argparse
import gzip
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from common import lore_command, median_ms, print_table, save_result  # noqa: E402
from synth import make_vault  # noqa: E402

SYSTEM: dict[str, list[float]] = {}  # command -> the system part of each run's CPU time


def timed(args: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall seconds, child CPU seconds) of one whole `lore` process; its system CPU
    (the kernel's: creating and writing files) is kept in SYSTEM."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run([*lore_command(), *args], env=env, check=True, capture_output=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    system = after.ru_stime - before.ru_stime
    SYSTEM.setdefault(args[0], []).append(system)
    return wall, (after.ru_utime - before.ru_utime) + system


def folder_bytes(folder: Path) -> int:
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--keep", type=Path, help="build the vault here and keep it")
    args = parser.parse_args()
    env = {k: v for k, v in os.environ.items() if not k.startswith("LORE_")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    with tempfile.TemporaryDirectory() as scratch:
        vault = args.keep or Path(scratch) / "vault"
        env["LORE_HOME"] = str(Path(scratch) / "lore-home")
        if not (vault / "notes").is_dir():
            started = time.perf_counter()
            make_vault(args.notes, vault)
            print(f"built a {args.notes}-note vault in {time.perf_counter() - started:.1f} s")
        site = Path(scratch) / "site"
        timed(["index", "--vault", str(vault)], env)  # warm up: bytecode, the page cache
        timed(["site", str(site), "--vault", str(vault)], env)
        load_before = os.getloadavg()
        samples: dict[str, list[tuple[float, float]]] = {"index": [], "site": []}
        for _ in range(args.runs):
            shutil.rmtree(site, ignore_errors=True)
            samples["index"].append(timed(["index", "--rebuild", "--vault", str(vault)], env))
            samples["site"].append(timed(["site", str(site), "--vault", str(vault)], env))
        replace_wall, replace_cpu = timed(["site", str(site), "--vault", str(vault)], env)
        load_after = os.getloadavg()
        index_js = (site / "assets" / "search-index.js").read_bytes()
        pages = sum(1 for _ in site.rglob("*.html"))
        site_bytes = folder_bytes(site)
        notes_bytes = folder_bytes(vault / "notes")

    def medians(name: str) -> tuple[float, float]:
        walls = [wall for wall, _ in samples[name]]
        cpus = [cpu for _, cpu in samples[name]]
        return median_ms(walls), round(statistics.median(cpus) * 1000, 1)

    index_ms, index_cpu = medians("index")
    site_ms, site_cpu = medians("site")
    row: dict[str, Any] = {
        "notes": args.notes,
        "runs": args.runs,
        "index_rebuild_ms": index_ms,
        "index_rebuild_cpu_ms": index_cpu,
        "site_ms": site_ms,
        "site_cpu_ms": site_cpu,
        "site_vs_rebuild": round(site_ms / index_ms, 2),
        "site_vs_rebuild_cpu": round(site_cpu / index_cpu, 2),
        "index_rebuild_system_cpu_ms": round(statistics.median(SYSTEM["index"]) * 1000, 1),
        "site_system_cpu_ms": round(statistics.median(SYSTEM["site"]) * 1000, 1),
        "site_over_the_last_one_ms": round(replace_wall * 1000, 1),
        "site_over_the_last_one_cpu_ms": round(replace_cpu * 1000, 1),
        "pages": pages,
        "site_bytes": site_bytes,
        "search_index_bytes": len(index_js),
        "search_index_gzip_bytes": len(gzip.compress(index_js, 6)),
        "search_index_bytes_per_note": round(len(index_js) / args.notes, 1),
        "notes_folder_bytes": notes_bytes,
        "samples_ms": {
            name: [round(wall * 1000, 1) for wall, _ in values] for name, values in samples.items()
        },
        "load_average_before": [round(x, 2) for x in load_before],
        "load_average_after": [round(x, 2) for x in load_after],
    }
    save_result(f"site-{args.notes}", row)
    print_table(
        [row],
        ["notes", "index_rebuild_ms", "site_ms", "site_vs_rebuild", "site_vs_rebuild_cpu",
         "search_index_bytes", "search_index_gzip_bytes"],
    )  # fmt: skip


if __name__ == "__main__":
    main()
