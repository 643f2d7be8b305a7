"""Time `lore curate --base main --head branch` on a pull request that adds 5 notes to a vault.

Builds a synthetic vault (bench/synth.py) as a git repository, adds a branch with
five new notes in three commits, and times the whole process
`python -m lore curate --vault V --base main --head branch --format json`, the way
the GitHub workflow runs it. Prints each run and the median.

    python bench/bench_curate.py            # 10,000 notes, 5 runs
    python bench/bench_curate.py --notes 1000 --runs 3 --keep /tmp/vault
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

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from synth import git, make_vault  # noqa: E402

NEW_NOTES = 5


FACTS = [
    ("kafka", "Consumers park a poison message after three retries with backoff",
     "The billing consumer parks a message in the dead-letter topic after three failed tries.",
     "Without the cap one malformed invoice event blocked its partition for an hour."),
    ("redis", "Session keys expire after twelve hours of inactivity",
     "Web sessions in Redis carry a sliding expiry of twelve hours, refreshed on each request.",
     "Support tickets about surprise logouts stopped once the expiry became sliding."),
    ("terraform", "Plans run on every pull request and apply only after approval",
     "The infrastructure pipeline posts a plan on each pull request and applies it after merge.",
     "An unreviewed apply once deleted a production bucket policy."),
    ("nginx", "The edge proxy buffers uploads larger than eight megabytes to disk",
     "Uploads above eight megabytes are buffered to disk before they reach the app.",
     "Memory spikes during bulk CSV imports took proxy pods down twice."),
    ("sentry", "Release tags in error reports come from the image digest",
     "Every error report carries the release tag computed from the container image digest.",
     "Tags from git describe were ambiguous after force pushes to release branches."),
]  # fmt: skip


def new_note(number: int) -> tuple[str, str]:
    scope, title, what, why = FACTS[number]
    note_id = f"{scope}--pull-request-note-{number}--2026-11-0{number + 1}"
    text = f"""---
title: {title}
type: gotcha
tags: [tool/{scope}, pattern/testing]
confidence: medium
date: 2026-11-0{number + 1}
repo: service-0{number}
---
## What
{what}

## Why
{why}
"""
    return note_id, text


def add_branch(vault: Path) -> None:
    git(vault, "checkout", "-q", "-b", "branch")
    for number in range(NEW_NOTES):
        note_id, text = new_note(number)
        (vault / "notes" / f"{note_id}.md").write_text(text, encoding="utf-8")
        if number % 2 == 1 or number == NEW_NOTES - 1:
            git(vault, "add", "-A")
            git(vault, "commit", "-q", "-m", f"notes up to {number}")
    git(vault, "checkout", "-q", "main")


def time_curate(vault: Path, runs: int) -> list[float]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    command = [
        sys.executable, "-m", "lore", "curate", "--vault", str(vault),
        "--base", "main", "--head", "branch", "--format", "json",
    ]  # fmt: skip
    timings: list[float] = []
    for run in range(runs):
        start = time.perf_counter()
        result = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
        elapsed = time.perf_counter() - start
        if result.returncode not in (0, 1):
            raise SystemExit(f"lore curate failed ({result.returncode}): {result.stderr}")
        report = json.loads(result.stdout)
        timings.append(elapsed)
        print(
            f"run {run + 1}: {elapsed:.2f} s, exit {result.returncode}, "
            f"{report['summary']['errors']} errors, {report['summary']['warnings']} warnings, "
            f"{report['summary']['checked']} files checked"
        )
    return timings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--keep", type=Path, help="build the vault here and keep it")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        vault = args.keep or Path(scratch) / "vault"
        started = time.perf_counter()
        make_vault(args.notes, vault)
        add_branch(vault)
        print(f"built a {args.notes}-note vault in {time.perf_counter() - started:.1f} s")
        timings = time_curate(vault, args.runs)
    print(
        f"lore curate --base main --head branch, {args.notes} notes, {NEW_NOTES} new: "
        f"median {statistics.median(timings):.2f} s over {len(timings)} runs "
        f"(min {min(timings):.2f} s, max {max(timings):.2f} s)"
    )


if __name__ == "__main__":
    main()
