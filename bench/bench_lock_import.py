"""What `import filelock` would add to a process that takes lore's file lock.

    python bench/bench_lock_import.py            # 31 runs of each, alternated
    python bench/bench_lock_import.py --runs 51

The hooks and every writer take `lore.files.FileLock`. lore writes that lock itself
(flock, msvcrt.locking) rather than importing filelock; this measures why: fresh
processes of this interpreter run `import lore.files` and `import lore.files, filelock`
one after the other (A, B, A, B, …, so both see the same load), and the medians go to
bench/results/lock-import.json. Skips (exit 0, saying so) when filelock is not installed.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results" / "lock-import.json"
CASES = {
    "python -c pass": "pass",
    "import lore.files": "import lore.files",
    "import lore.files, filelock": "import lore.files, filelock",
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=31)
    args = parser.parse_args()
    probe = subprocess.run(
        [sys.executable, "-c", "import filelock"], capture_output=True, check=False
    )
    if probe.returncode != 0:
        print("filelock is not installed here: nothing to compare (pip install filelock).")
        return 0
    version = subprocess.run(
        [sys.executable, "-c", "import filelock; print(filelock.__version__)"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    times: dict[str, list[float]] = {name: [] for name in CASES}
    for _ in range(args.runs):
        for name, code in CASES.items():
            started = time.perf_counter()
            subprocess.run([sys.executable, "-c", code], check=True)
            times[name].append((time.perf_counter() - started) * 1000)
    medians = {name: round(statistics.median(values), 1) for name, values in times.items()}
    base = medians["python -c pass"]
    result = {
        "runs": args.runs,
        "filelock": version,
        "python": sys.version.split()[0],
        "load_average": list(os.getloadavg()),
        "median_ms": medians,
        "above_bare_python_ms": {name: round(value - base, 1) for name, value in medians.items()},
        "ratio_with_filelock": round(
            (medians["import lore.files, filelock"] - base) / (medians["import lore.files"] - base),
            2,
        ),
    }
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    for name, value in medians.items():
        print(f"{name:<30} {value:8.1f} ms")
    print(f"above a bare interpreter, filelock makes it {result['ratio_with_filelock']}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
