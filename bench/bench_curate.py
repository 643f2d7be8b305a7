"""Time `lore curate` on a pull request that adds 5 notes to a vault, and on the whole vault.

Builds a synthetic vault (bench/synth.py) as a git repository, adds a branch with five
new notes in three commits, and times whole processes, the way the GitHub workflow
runs them (`lore curate --vault V --base main --head branch --format json`):

- `ci`: no index in the vault, as in CI's fresh checkout: the curator builds the base
  in memory (each note parsed once) and reviews the five notes;
- `local`: the vault's index is there and fresh, as on a teammate's machine (`lore
  review`): only the five notes are parsed;
- `all` (with `--all-runs N`): `lore curate --all`, every note reviewed.

With `--baseline SRC` the same runs go through that `src` folder's lore as well (e.g. a
checkout of the previous release), each right after this code's, in a clone of the
vault of its own (two versions of the index's schema would rebuild each other's index).
Each run's peak memory (the child's maximum resident set size) and CPU time (user +
system, which other work on the machine moves less than wall time) are recorded too,
with the load average before and after. Prints each run and the medians; results go
to bench/results/curate-<notes>.json.

    python bench/bench_curate.py                      # 10,000 notes, 5 runs
    python bench/bench_curate.py --notes 1000 --runs 3 --keep /tmp/vault
    python bench/bench_curate.py --all-runs 2 --baseline ../old/src --baseline-name "0.1.0"
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from common import lore_command, median_ms, print_table, save_result  # noqa: E402
from synth import git, make_vault  # noqa: E402

NEW_NOTES = 5
# Where an index lives: the git directory (this lore), or `.lore/` (a baseline older than it).
STATE_FOLDERS = (".git/lore", ".lore")


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


class Version:
    """One version of lore under test and how to run it."""

    def __init__(self, name: str, src: Path | None) -> None:
        self.name = name
        self.env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "LORE_"))}
        self.env.pop("PYTHONDONTWRITEBYTECODE", None)  # time lore as installed
        self.command = lore_command()
        if src is not None:  # that folder's code, with this interpreter's packages
            self.env["PYTHONPATH"] = str(src.resolve())
            self.command = [sys.executable, "-m", "lore"]
        self.timings: dict[str, list[float]] = {"ci": [], "local": [], "all": []}
        self.peaks: dict[str, list[float]] = {"ci": [], "local": [], "all": []}
        self.cpu: dict[str, list[float]] = {"ci": [], "local": [], "all": []}  # user + system
        self.vault: Path | None = None

    def curate(self, vault: Path, scenario: str) -> float:
        if scenario == "ci":  # a fresh clone has no index (this lore's or an older one's)
            for state in STATE_FOLDERS:
                shutil.rmtree(vault / state, ignore_errors=True)
        what = ["--all"] if scenario == "all" else ["--base", "main", "--head", "branch"]
        command = [*self.command, "curate", "--vault", str(vault), *what, "--format", "json"]
        started = time.perf_counter()
        with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
            child = subprocess.Popen(command, env=self.env, stdout=out, stderr=err)
            _, status, usage = os.wait4(child.pid, 0)
            child.returncode = os.waitstatus_to_exitcode(status)
            elapsed = time.perf_counter() - started
            out.seek(0)
            err.seek(0)
            stdout, stderr = out.read().decode(), err.read().decode()
        if child.returncode not in (0, 1):
            raise SystemExit(f"lore curate failed ({child.returncode}): {stderr}")
        summary = json.loads(stdout)["summary"]
        self.timings[scenario].append(elapsed)
        peak = usage.ru_maxrss / 1024  # KiB on Linux
        self.peaks[scenario].append(peak)
        used = usage.ru_utime + usage.ru_stime
        self.cpu[scenario].append(used)
        print(
            f"{self.name:>10} {scenario:>5}: {elapsed:.2f} s ({used:.2f} s CPU), "
            f"{peak:.0f} MiB, exit {child.returncode}, "
            f"{summary['errors']} errors, {summary['warnings']} warnings, "
            f"{summary['checked']} files checked",
            flush=True,
        )
        return elapsed

    def row(self, notes: int) -> dict[str, Any]:
        row: dict[str, Any] = {"version": self.name, "notes": notes}
        for scenario, samples in self.timings.items():
            if samples:
                row[f"{scenario}_ms"] = median_ms(samples)
                row[f"{scenario}_cpu_ms"] = median_ms(self.cpu[scenario])
                row[f"{scenario}_runs"] = len(samples)
                row[f"{scenario}_peak_rss_mib"] = round(max(self.peaks[scenario]), 1)
        return row


def clone(vault: Path, name: str) -> Path:
    """A clone of the vault with its `main` and `branch`, for another version of lore."""
    other = vault.parent / f"{vault.name}-{name}"
    if not (other / ".git").exists():
        git(vault.parent, "clone", "-q", str(vault), str(other))
        git(other, "branch", "branch", "origin/branch")
    return other


def build_index(version: Version, vault: Path) -> None:
    subprocess.run(
        [*version.command, "index", "--vault", str(vault)],
        env=version.env,
        capture_output=True,
        check=True,
    )


def warm_up(version: Version, vault: Path) -> None:
    """Bytecode compiled and the vault's index built, untimed."""
    build_index(version, vault)
    version.curate(vault, "local")
    version.timings["local"].clear()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--all-runs", type=int, default=0, help="also time `curate --all`")
    parser.add_argument("--keep", type=Path, help="build the vault here and keep it")
    parser.add_argument("--baseline", type=Path, help="also time the lore in this src folder")
    parser.add_argument("--baseline-name", default="baseline", help="what to call it")
    args = parser.parse_args()
    versions = [Version("this", None)]
    if args.baseline is not None:
        versions.append(Version(args.baseline_name, args.baseline))
    with tempfile.TemporaryDirectory() as scratch:
        vault = args.keep or Path(scratch) / "vault"
        started = time.perf_counter()
        if not (vault / "notes").is_dir():
            make_vault(args.notes, vault)
            print(f"built a {args.notes}-note vault in {time.perf_counter() - started:.1f} s")
        if not git(vault, "branch", "--list", "branch"):  # a kept vault from bench/synth.py
            add_branch(vault)
        for number, version in enumerate(versions):
            version.vault = vault if number == 0 else clone(vault, version.name)
            warm_up(version, version.vault)
        load_before = os.getloadavg()
        for scenario, runs in (("ci", args.runs), ("local", args.runs), ("all", args.all_runs)):
            for _ in range(runs):
                for version in versions:
                    assert version.vault is not None
                    if scenario == "local":
                        build_index(version, version.vault)  # `ci` removed it; untimed
                    version.curate(version.vault, scenario)
        load_after = os.getloadavg()
    result = {
        "new_notes": NEW_NOTES,
        "load_average_before": [round(x, 2) for x in load_before],
        "load_average_after": [round(x, 2) for x in load_after],
        "versions": [version.row(args.notes) for version in versions],
    }
    save_result(f"curate-{args.notes}", result)
    out = HERE / "results" / f"curate-{args.notes}.json"
    keys = ["version", "notes", "ci_ms", "ci_cpu_ms", "local_ms", "local_cpu_ms"]
    keys += ["all_ms", "all_cpu_ms", "all_peak_rss_mib"] if args.all_runs else []
    print_table(result["versions"], keys)
    print(f"results: {out.relative_to(HERE.parent)}")


if __name__ == "__main__":
    main()
