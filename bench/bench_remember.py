"""Time `lore remember` as a whole process: a dry run, and a real proposal to a local remote.

    python bench/bench_remember.py                       # 1,000 notes, 9 runs each
    python bench/bench_remember.py --notes 10000 --runs 5
    python bench/bench_remember.py --baseline ../old/src --baseline-name "main 974684e"

A synthetic vault (bench/synth.py) is pushed to a local bare repository and cloned,
as a teammate's checkout. Then, with medians over the runs:

- `lore remember --dry-run --json …`: fetch, a worktree on a new branch, the curator's
  rules on the draft, the worktree removed again (nothing is committed);
- `lore remember --yes --json …` with a new title each run: the same, then the commit,
  the push of the branch to the bare repository, and the clean-up. The remote is a
  local path, not GitHub, so no pull request is opened and `gh` is never called;
- `python -c "import git"` and `python -c pass` from the same interpreter: what
  GitPython costs to import, and the floor;
- the parts of a proposal one by one, in this process (`--no-parts` skips them): the
  fetch, the worktree (the whole vault checked out, as before, and only the note's file,
  as now), the secret scan of the draft, the curator on the draft (through the index, as
  now, and parsing every note at the base, as before), and importing `lore remember`'s
  modules in a fresh process.

With `--baseline SRC`, the same runs go through that `src` folder's lore as well
(`python -m lore` with it first on PYTHONPATH, this interpreter's packages), each run
right after this code's, so both see the same load on a busy machine. Each version has
its own clone; the remote's `lore/` branches are deleted after each real run, so every
run pushes one new branch to a remote of the same size. Each run's CPU time (user +
system, the git it runs included) is recorded too, with the load average before and
after. Results go to bench/results/remember-<notes>.json and a table on stdout.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
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
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # time lore as installed: bytecode is cached
    env.update(
        HOME=str(home),
        LORE_HOME=str(home / "lore-home"),
        LORE_CONFIG=str(home / "config.toml"),
        XDG_CONFIG_HOME=str(home / ".config"),
        GIT_CONFIG_NOSYSTEM="1",
    )
    return env


def prepare_remote(notes: int, workdir: Path) -> Path:
    source = workdir / f"vault-{notes}"
    bare = workdir / f"remote-{notes}.git"
    if not bare.exists():
        started = time.perf_counter()
        if not (source / ".git").exists():  # a vault kept by another bench script is reused
            make_vault(notes, source)
            print(f"  generated {notes} notes in {time.perf_counter() - started:.1f} s")
        git(workdir, "init", "-q", "--bare", "-b", "main", str(bare))
        git(source, "push", "-q", str(bare), "main")
    return bare


def flags(title: str) -> list[str]:
    return [
        "--title", title,
        "--type", "gotcha",
        "--tag", "tool/postgres",
        "--repo", "service-01",
        "--confidence", "medium",
        "--what", "Long migrations take a lock that blocks writes to the table.",
    ]  # fmt: skip


CPU: list[float] = []  # user + system of each timed process and the git it ran, in turn


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(command: list[str], env: dict[str, str]) -> tuple[float, dict[str, Any]]:
    used = _children_cpu()
    started = time.perf_counter()
    result = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - started
    CPU.append(_children_cpu() - used)
    if result.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(command[:3])} failed ({result.returncode}): {result.stderr}")
    return elapsed, json.loads(result.stdout)


def started_in(command: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(command, env=env, check=True)
    return time.perf_counter() - started


class Version:
    """One version of lore under test: how to run it, and its own clone of the remote."""

    def __init__(self, name: str, src: Path | None, workdir: Path, bare: Path) -> None:
        self.name = name
        self.env = environment(workdir)
        command = lore_command()
        if src is not None:  # that folder's code, with this interpreter's packages
            self.env["PYTHONPATH"] = str(src.resolve())
            command = [sys.executable, "-m", "lore"]
        self.checkout = workdir / f"checkout-{bare.stem}-{'-'.join(name.split())}"
        if not self.checkout.exists():
            git(workdir, "clone", "-q", str(bare), self.checkout.name)
        self.remember = [*command, "remember", "--vault", str(self.checkout)]
        self.dry: list[float] = []
        self.real: list[float] = []
        self.dry_cpu: list[float] = []
        self.real_cpu: list[float] = []

    def dry_run(self, title: str) -> float:
        elapsed, result = timed([*self.remember, "--dry-run", "--json", *flags(title)], self.env)
        assert "findings" in result, result
        self.dry_cpu.append(CPU[-1])
        return elapsed

    def propose(self, title: str, bare: Path) -> float:
        elapsed, result = timed([*self.remember, "--yes", "--json", *flags(title)], self.env)
        assert result["status"] == "pushed", result
        self.real_cpu.append(CPU[-1])
        for ref in git(bare, "for-each-ref", "--format=%(refname)", "refs/heads/lore/").split():
            git(bare, "update-ref", "-d", ref)
        git(self.checkout, "fetch", "-q", "--prune", "origin")
        return elapsed

    def row(self, notes: int, runs: int) -> dict[str, Any]:
        return {
            "version": self.name,
            "notes": notes,
            "runs": runs,
            "remember_dry_run_ms": median_ms(self.dry),
            "remember_dry_run_range_ms": [median_ms([min(self.dry)]), median_ms([max(self.dry)])],
            "remember_push_ms": median_ms(self.real),
            "remember_push_range_ms": [median_ms([min(self.real)]), median_ms([max(self.real)])],
            "remember_dry_run_cpu_ms": median_ms(self.dry_cpu[-runs:]),
            "remember_push_cpu_ms": median_ms(self.real_cpu),
        }


def timed_ms(action: Any, runs: int, undo: Any = None) -> float:
    """The median of `runs` calls of `action()`, each followed by `undo()` (untimed)."""
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        action()
        samples.append(time.perf_counter() - started)
        if undo is not None:
            undo()
    return median_ms(samples)


def parts(version: Version, runs: int) -> dict[str, float]:
    """Each cost of a one-note proposal on its own, on this version's checkout."""
    from lore.curator.rules.registry import FAMILIES  # noqa: F401 - imported before timing
    from lore.curator.run import build_context, curate, run_rules
    from lore.curator.target import Drafts
    from lore.note.render import render_note
    from lore.sanitize.secret_scan import scan_secrets
    from lore.team.drafts.draft import NoteInput, build_note
    from lore.team.proposals.branches import base_of
    from lore.vault.remote import fetch
    from lore.vault.worktree import add_worktree, proposals_dir, remove_worktree

    root = version.checkout.resolve()
    home = {key: version.env[key] for key in ("HOME", "GIT_CONFIG_NOSYSTEM")}
    saved = {key: os.environ.get(key) for key in home}
    os.environ.update(home)
    try:
        note = build_note(
            NoteInput(
                title="Parts of a proposal are timed one by one",
                type="gotcha",
                tags=["tool/postgres"],
                repo=["service-01"],
                confidence="medium",
                what="Long migrations take a lock that blocks writes to the table.",
            ),
            author=None,
        )
        text = render_note(note)
        base_ref = base_of(root, "origin")[1]
        drafts = {note.path: text.encode("utf-8")}
        worktree = proposals_dir(root) / "bench-parts"
        branch = "lore/bench-parts"

        def remove() -> None:
            remove_worktree(root, worktree)
            git(root, "branch", "-q", "-D", branch)

        curate(root, Drafts(drafts, at=base_ref))  # the index is fresh and the cache warm
        return {
            "fetch_ms": timed_ms(lambda: fetch(root, "origin"), runs),
            "worktree_whole_vault_ms": timed_ms(
                lambda: add_worktree(root, worktree, branch, base_ref), runs, remove
            ),
            "worktree_note_only_ms": timed_ms(
                lambda: add_worktree(root, worktree, branch, base_ref, only=[note.path]),
                runs,
                remove,
            ),
            "secret_scan_ms": timed_ms(lambda: scan_secrets(text), runs),
            "curator_index_ms": timed_ms(lambda: curate(root, Drafts(drafts, at=base_ref)), runs),
            "curator_parse_every_note_ms": timed_ms(
                lambda: run_rules(build_context(root, Drafts(drafts, at=base_ref))),
                max(1, runs // 3),
            ),
            "import_remember_modules_ms": median_ms(
                [
                    started_in(
                        [sys.executable, "-c", "import lore.team.proposals.note, lore.cli.main"],
                        version.env,
                    )
                    for _ in range(runs)
                ]
            ),
        }
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def bench(
    notes: int,
    runs: int,
    workdir: Path,
    baseline: Path | None,
    baseline_name: str,
    *,
    with_parts: bool = True,
) -> dict[str, Any]:
    bare = prepare_remote(notes, workdir)
    versions = [Version("this", None, workdir, bare)]
    if baseline is not None:
        versions.append(Version(baseline_name, baseline, workdir, bare))
    for version in versions:  # untimed: the index is built and the bytecode compiled
        version.dry_run("Warm up the bench once")
    load_before = os.getloadavg()
    for run in range(runs):
        for version in versions:
            version.dry.append(version.dry_run(f"Dry run number {run} checks a note"))
    for run in range(runs):
        for version in versions:
            version.real.append(version.propose(f"Real run number {run} proposes a note", bare))
    env = versions[0].env
    imports = [started_in([sys.executable, "-c", "import git"], env) for _ in range(runs)]
    floor = [started_in([sys.executable, "-c", "pass"], env) for _ in range(runs)]
    load_after = os.getloadavg()
    return {
        "load_average_before": [round(x, 2) for x in load_before],
        "load_average_after": [round(x, 2) for x in load_after],
        "versions": [version.row(notes, runs) for version in versions],
        "parts": parts(versions[0], runs) if with_parts else {},
        "python_import_git_ms": median_ms(imports),
        "python_pass_ms": median_ms(floor),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--notes", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--workdir", type=Path, help="reuse generated vaults from here")
    parser.add_argument("--baseline", type=Path, help="also time the lore in this src folder")
    parser.add_argument("--baseline-name", default="baseline", help="what to call it")
    parser.add_argument("--no-parts", action="store_true", help="skip timing the parts")
    args = parser.parse_args()
    options = {"with_parts": not args.no_parts}
    if args.workdir:
        args.workdir.mkdir(parents=True, exist_ok=True)
        result = bench(
            args.notes, args.runs, args.workdir, args.baseline, args.baseline_name, **options
        )
    else:
        with tempfile.TemporaryDirectory(prefix="lore-bench-remember-") as folder:
            result = bench(
                args.notes, args.runs, Path(folder), args.baseline, args.baseline_name, **options
            )
    save_result(f"remember-{args.notes}", result)
    out = HERE / "results" / f"remember-{args.notes}.json"
    print_table(
        result["versions"],
        ["version", "notes", "remember_dry_run_ms", "remember_dry_run_cpu_ms", "remember_push_ms"],
    )
    for name, value in result["parts"].items():
        print(f"{name}: {value} ms")
    print(
        f"python -c 'import git': {result['python_import_git_ms']} ms; "
        f"python -c pass: {result['python_pass_ms']} ms"
    )
    print(f"results: {out.relative_to(HERE.parent)}")


if __name__ == "__main__":
    main()
