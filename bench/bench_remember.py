"""Time `lore remember` as a whole process: a dry run, and a real proposal to a local remote.

    python bench/bench_remember.py                  # 1,000 notes, 9 runs each
    python bench/bench_remember.py --notes 10000 --runs 5 --label after
    python bench/bench_remember.py --src ../main/src --label before   # another checkout's code

A synthetic vault (bench/synth.py) is pushed to a local bare repository and cloned,
as a teammate's checkout. Then, with medians over the runs:

- `lore remember --dry-run --json …`: fetch, a worktree on a new branch, the curator's
  rules on the draft, the worktree removed again (nothing is committed);
- `lore remember --yes --json …` with a new title each run: the same, then the commit,
  the push of the branch to the bare repository, and the clean-up. The remote is a
  local path, not GitHub, so no pull request is opened and `gh` is never called;
- `python -c "import git"` from the same interpreter: what GitPython costs to import.

The remote's refs are reset between real runs, so each run pushes one new branch to a
remote of the same size. Results go to bench/results/remember-<notes>[-label].json and
a table on stdout.
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
sys.path.insert(0, str(HERE))

from common import lore_command, machine, median_ms, print_table  # noqa: E402
from synth import git, make_vault  # noqa: E402


def environment(workdir: Path) -> dict[str, str]:
    """A home of its own with a git identity in its config, and lore's folders inside it."""
    home = workdir / "home"
    home.mkdir(exist_ok=True)
    (home / ".gitconfig").write_text(
        "[user]\n\tname = Bench User\n\temail = bench@example.invalid\n"
        "[commit]\n\tgpgsign = false\n[init]\n\tdefaultBranch = main\n",
        encoding="utf-8",
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "LORE_"))}
    env.update(
        HOME=str(home),
        LORE_HOME=str(home / "lore-home"),
        LORE_CONFIG=str(home / "config.toml"),
        XDG_CONFIG_HOME=str(home / ".config"),
        GIT_CONFIG_NOSYSTEM="1",
    )
    return env


def prepare(notes: int, workdir: Path) -> tuple[Path, Path]:
    source = workdir / f"vault-{notes}"
    bare = workdir / f"remote-{notes}.git"
    checkout = workdir / f"checkout-{notes}"
    if not bare.exists():
        started = time.perf_counter()
        make_vault(notes, source)
        git(workdir, "init", "-q", "--bare", "-b", "main", str(bare))
        git(source, "push", "-q", str(bare), "main")
        print(f"  generated {notes} notes in {time.perf_counter() - started:.1f} s", flush=True)
    if not checkout.exists():
        git(workdir, "clone", "-q", str(bare), checkout.name)
    return bare, checkout


def flags(title: str) -> list[str]:
    return [
        "--title", title,
        "--type", "gotcha",
        "--tag", "tool/postgres",
        "--repo", "service-01",
        "--confidence", "medium",
        "--what", "Long migrations take a lock that blocks writes to the table.",
    ]  # fmt: skip


def timed(command: list[str], env: dict[str, str]) -> tuple[float, dict[str, Any]]:
    started = time.perf_counter()
    result = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - started
    if result.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(command[:3])} failed ({result.returncode}): {result.stderr}")
    return elapsed, json.loads(result.stdout)


def reset_remote(bare: Path) -> None:
    for ref in git(bare, "for-each-ref", "--format=%(refname)", "refs/heads/lore/").split():
        git(bare, "update-ref", "-d", ref)


def bench(notes: int, runs: int, workdir: Path, src: Path | None) -> dict[str, Any]:
    env = environment(workdir)
    bare, checkout = prepare(notes, workdir)
    command = lore_command()
    if src is not None:  # that checkout's code, with this interpreter's packages
        env["PYTHONPATH"] = str(src.resolve())
        command = [sys.executable, "-m", "lore"]
    lore = [*command, "remember", "--vault", str(checkout)]
    # One untimed run of each: the index is built and the bytecode compiled.
    timed([*lore, "--dry-run", "--json", *flags("Warm up the bench once")], env)
    dry: list[float] = []
    for run in range(runs):
        elapsed, result = timed(
            [*lore, "--dry-run", "--json", *flags(f"Dry run number {run} checks a note")], env
        )
        assert result["status"] == "dry-run" or "findings" in result, result
        dry.append(elapsed)
    real: list[float] = []
    for run in range(runs):
        elapsed, result = timed(
            [*lore, "--yes", "--json", *flags(f"Real run number {run} proposes a note")], env
        )
        assert result["status"] == "pushed", result
        real.append(elapsed)
        reset_remote(bare)
        git(checkout, "fetch", "-q", "--prune", "origin")
    imports = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", "import git"], env=env, check=True)
        imports.append(time.perf_counter() - started)
    floor = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], env=env, check=True)
        floor.append(time.perf_counter() - started)
    return {
        "notes": notes,
        "runs": runs,
        "remember_dry_run_ms": median_ms(dry),
        "remember_dry_run_spread_ms": [median_ms([min(dry)]), median_ms([max(dry)])],
        "remember_push_ms": median_ms(real),
        "remember_push_spread_ms": [median_ms([min(real)]), median_ms([max(real)])],
        "python_import_git_ms": median_ms(imports),
        "python_pass_ms": median_ms(floor),
        "stdev_push_ms": round(statistics.pstdev(real) * 1000, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--notes", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--label", default="", help="a suffix for the results file")
    parser.add_argument("--workdir", type=Path, help="reuse generated vaults from here")
    parser.add_argument("--src", type=Path, help="run lore from this src folder instead")
    args = parser.parse_args()
    if args.workdir:
        args.workdir.mkdir(parents=True, exist_ok=True)
        row = bench(args.notes, args.runs, args.workdir, args.src)
    else:
        with tempfile.TemporaryDirectory(prefix="lore-bench-remember-") as folder:
            row = bench(args.notes, args.runs, Path(folder), args.src)
    row["label"] = args.label
    suffix = f"-{args.label}" if args.label else ""
    out = HERE / "results" / f"remember-{args.notes}{suffix}.json"
    out.write_text(json.dumps({"machine": machine(), **row}, indent=2) + "\n", encoding="utf-8")
    print_table(
        [row],
        [
            "notes",
            "remember_dry_run_ms",
            "remember_push_ms",
            "python_import_git_ms",
            "python_pass_ms",
        ],
    )
    print(f"results: {out.relative_to(HERE.parent)}")


if __name__ == "__main__":
    main()
