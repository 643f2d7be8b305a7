"""How the sanitizer's and the curator's time grows on hostile input, as ratios.

    python bench/bench_hostile_input.py            # 5 runs of each, medians
    python bench/bench_hostile_input.py --runs 9

The tests bound the growth of the Python work on these inputs in steps
(tests/curator/test_sanitize.py, tests/curator/test_curate_cli.py, through
tests/steps.py); a regular expression that backtracks works inside C, where no step is
counted. This measures all of it in time, as ratios taken in the same run so that the
machine's load cancels out:

- `growth`: the time at four times the size over the time at the size (a linear pass
  gives about 4, a quadratic one 16);
- `vs_plain`: the time on the hostile input over the time on plain prose of the same
  length, at the larger size.

Each input is one row of those tests. CPU time of this process (user + system), the
median of `--runs`. Results go to bench/results/hostile-input.json.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from common import print_table, save_result  # noqa: E402

PLAIN = "The billing service retries a failed charge after a short wait. "

# (label, the text at `count` repeats, count): the rows of test_hostile_markdown_...
SANITIZE: list[tuple[str, Callable[[int], str], int]] = [
    ("![", lambda n: "![" * n, 30_000),
    ("<!--", lambda n: "<!--" * n, 15_000),
    ("<a b='", lambda n: "<a b='" * n, 10_000),
    ("[", lambda n: "[" * n, 60_000),
    ("`a", lambda n: "`a" * n, 30_000),
    ("<http://x", lambda n: "<http://x" * n, 7_000),
    ("[x]:", lambda n: "[x]:" * n, 15_000),
    ("- - list", lambda n: ("- " * 10 + "\n") * n, 2_000),
    ("<a b b b", lambda n: "<a " + "b " * n, 30_000),
]
# ...and of test_hostile_notes_are_checked_in_linear_steps (a note's body).
CURATE: list[tuple[str, Callable[[int], str], int]] = [
    ("a. … key", lambda n: "a." * n + "key", 25_000),
    ("host=;", lambda n: "host=;" * n + "password=x", 9_000),
    ("curl", lambda n: "curl " * n, 11_000),
    ("<system", lambda n: "<system" * n, 8_000),
    ("![", lambda n: "![" * n, 25_000),
    ("password:", lambda n: "password: " * n, 5_000),
    ("Every call …", lambda n: "Every call always sends a key. " * n, 1_800),
    ("We replace", lambda n: "We replace " * n, 2_000),
    ("instead of", lambda n: "instead of " * n, 2_000),
    ("ADR 1,", lambda n: "ADR 1, " * n, 16_000),  # a list copy per number: C, not steps
    ("[[", lambda n: "[[" * n, 20_000),  # inside C: bounded link spans
    ("[", lambda n: "[" * n, 20_000),
]


def cpu_seconds(call: Callable[[], object], runs: int) -> float:
    samples = []
    for _ in range(runs):
        started = time.process_time()
        call()
        samples.append(time.process_time() - started)
    return statistics.median(samples)


def plain(length: int) -> str:
    return (PLAIN * (length // len(PLAIN) + 1))[:length]


def measure(
    label: str, make: Callable[[int], str], count: int, check: Callable[[str], object], runs: int
) -> dict[str, Any]:
    small, large = make(count // 4), make(count)
    check(small)  # once uncounted: lazy imports and caches are not growth
    t_small = cpu_seconds(lambda: check(small), runs)
    t_large = cpu_seconds(lambda: check(large), runs)
    t_plain = cpu_seconds(lambda: check(plain(len(large))), runs)
    return {
        "input": label,
        "chars": len(large),
        "cpu_ms": round(t_large * 1000, 1),
        "growth": round(t_large / max(t_small, 1e-6), 1),
        "vs_plain": round(t_large / max(t_plain, 1e-6), 1),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()

    from lore.curator.run import curate
    from lore.curator.target import Paths
    from lore.sanitize.markdown import find_hazards, sanitize_markdown
    from lore.vault.seed import seed_files, write_files

    def sanitize_twice(text: str) -> None:
        once = sanitize_markdown(text)
        find_hazards(text)
        sanitize_markdown(once)

    load_before = list(os.getloadavg())
    rows = [
        {"what": "sanitize", **measure(label, make, count, sanitize_twice, args.runs)}
        for label, make, count in SANITIZE
    ]
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        write_files(root, seed_files())
        note = root / "notes" / "fixture--hostile--2026-02-01.md"
        head = (
            "---\ntitle: A hostile note\ntype: gotcha\ntags: [tool/postgres]\n"
            "confidence: high\ndate: 2026-02-01\n---\n## What\n"
        )

        def curate_body(body: str) -> None:
            note.write_text(f"{head}{body}\n", encoding="utf-8")
            curate(root, Paths([str(note)]))

        rows += [
            {"what": "curate", **measure(label, make, count, curate_body, args.runs)}
            for label, make, count in CURATE
        ]
    print_table(rows, ["what", "input", "chars", "cpu_ms", "growth", "vs_plain"])
    save_result(
        "hostile-input",
        {
            "runs": args.runs,
            "load_average": {"before": load_before, "after": list(os.getloadavg())},
            "rows": rows,
        },
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
