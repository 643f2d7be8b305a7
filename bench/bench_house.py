"""The renovation's check (issue 34): every command as fast as before, as whole processes.

    python bench/bench_house.py --baseline OLD/src                  # 1,000 notes, 9 runs
    python bench/bench_house.py --baseline OLD/src --notes 10000 --runs 7

Two versions of lore run the same commands, one right after the other in every round,
so both meet the same load on a busy machine: this tree (`python -m lore` with this
`src` first on PYTHONPATH) and the baseline (`--baseline`: another checkout's `src`,
e.g. a worktree of the commit before the renovation), with this interpreter's packages
and bytecode cached (a warm-up round runs first and is not counted). Each version has
its own clone of one local bare remote of a synthetic vault (bench/synth.py, prompt
recall turned on), registered as `LORE_VAULT`, with its index built beforehand. Timed,
each a whole `lore` process from start to exit:

- `recall`: `lore recall --json` with a query from bench/synth.py's generator;
- `hook session-start`, `hook prompt`: as Claude Code runs them, from a code checkout,
  the session digest cached and a sync just done (so none is started);
- `remember --dry-run`: fetch, the draft checked by the curator against the remote;
- `remember`: the same, then the branch committed in its worktree and pushed to the
  bare remote (not GitHub: no pull request, `gh` is never run); the pushed branches are
  deleted after each run, so every run meets a remote of the same size;
- `curate`: `lore curate --base main --head branch --format json` on a change of five
  notes (bench/bench_curate.py's), as the curator workflow runs it;
- `show --json`, `taxonomy --json`, `drafts --json`, `--help`, `remember --help`: the
  other reads an agent or a person runs, and help.

Each timing's wall time and CPU time (user + system of the process and what it ran)
are kept; the CPU time moves less with the machine's load. The table gives the medians
and this tree's ratio to the baseline; bench/results/house-<notes>.json keeps them all
with the command line that made them.
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

from bench_curate import add_branch  # noqa: E402
from bench_remember import environment, flags  # noqa: E402
from common import median_ms, print_table, save_result  # noqa: E402
from synth import REPOS, git, make_vault, queries  # noqa: E402

COMMANDS = (
    "recall",
    "hook session-start",
    "hook prompt",
    "remember --dry-run",
    "remember",
    "curate",
    "show --json",
    "taxonomy --json",
    "drafts --json",
    "--help",
    "remember --help",
)


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_timed(
    command: list[str], env: dict[str, str], stdin: bytes = b"", cwd: Path | None = None
) -> tuple[float, float, bytes]:
    """(wall seconds, CPU seconds, stdout) of one process; exit codes 0 and 1 are fine."""
    used = _children_cpu()
    started = time.perf_counter()
    done = subprocess.run(command, check=False, input=stdin, env=env, capture_output=True, cwd=cwd)
    elapsed = time.perf_counter() - started
    if done.returncode not in (0, 1):
        said = done.stderr.decode("utf-8", "replace")[-600:]
        raise SystemExit(f"{' '.join(command[2:6])} failed ({done.returncode}): {said}")
    return elapsed, _children_cpu() - used, done.stdout


def prepare_source(notes: int, workdir: Path) -> tuple[Path, str]:
    """A bare remote of a synthetic vault with prompt recall on and a five-note branch;
    and one note id of it (for `lore show`)."""
    source = workdir / f"vault-{notes}"
    bare = workdir / f"remote-{notes}.git"
    if not bare.exists():
        started = time.perf_counter()
        make_vault(notes, source)
        settings = source / "lore.toml"
        text = settings.read_text(encoding="utf-8")
        assert "\nprompt = false\n" in text, "the template's [hooks] section changed"
        settings.write_text(text.replace("\nprompt = false\n", "\nprompt = true\n"), "utf-8")
        git(source, "commit", "-q", "-am", "turn on prompt recall")
        add_branch(source)
        git(workdir, "init", "-q", "--bare", "-b", "main", str(bare))
        git(source, "push", "-q", str(bare), "main", "branch")
        print(f"  generated {notes} notes in {time.perf_counter() - started:.1f} s", flush=True)
    first = sorted((source / "notes").glob("*.md"))[0].stem
    return bare, first


class Version:
    """One version of lore: its command, its environment and its own clone."""

    def __init__(self, name: str, src: Path, workdir: Path, bare: Path) -> None:
        self.name = name
        self.workdir = workdir / "-".join(name.split())
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.env = environment(self.workdir)
        self.env["PYTHONPATH"] = str(src.resolve())
        self.lore = [sys.executable, "-m", "lore"]
        self.bare = bare
        self.checkout = self.workdir / "checkout"
        if not self.checkout.exists():
            git(self.workdir, "clone", "-q", str(bare), str(self.checkout))
            git(self.checkout, "branch", "-q", "branch", "origin/branch")
        self.env["LORE_VAULT"] = str(self.checkout)
        self.code = self.workdir / REPOS[3]  # a code checkout the agent works in
        if not self.code.exists():
            self.code.mkdir()
            git(self.code, "init", "-q")
            git(self.code, "remote", "add", "origin", f"https://github.com/acme/{REPOS[3]}.git")
        self.wall: dict[str, list[float]] = {command: [] for command in COMMANDS}
        self.cpu: dict[str, list[float]] = {command: [] for command in COMMANDS}
        run_timed([*self.lore, "index"], self.env)  # built beforehand, as after `lore sync`

    def _sync_done(self) -> None:
        """A sync ran a moment ago, so a session-start hook starts none."""
        state = Path(self.env["LORE_HOME"])
        state.mkdir(parents=True, exist_ok=True)
        (state / "sync.stamp").touch()

    def measure(self, command: str, round_number: int, note_id: str, *, keep: bool) -> None:
        lore, env = self.lore, self.env
        stdin = b""
        cwd = None
        if command == "recall":
            query = queries(64)[round_number % 64]
            argv = [*lore, "recall", "--json", query]
        elif command.startswith("hook "):
            self._sync_done()
            event = command.split()[1]
            payload: dict[str, Any] = {"session_id": "bench", "cwd": str(self.code)}
            if event == "prompt":
                payload["prompt"] = queries(64)[round_number % 64]
            else:
                payload["hook_event_name"] = "SessionStart"
            stdin = json.dumps(payload).encode()
            argv = [*lore, "hook", event, "--agent", "claude-code"]
        elif command.startswith("remember") and "--help" not in command:
            title = f"Long migrations lock the table in round {round_number} of {self.name}"
            mode = ["--dry-run"] if "--dry-run" in command else ["--yes"]
            argv = [*lore, "remember", *mode, "--json", "--author", "bench", *flags(title)]
        elif command == "curate":
            argv = [*lore, "curate", "--base", "main", "--head", "branch", "--format", "json"]
            cwd = self.checkout
        elif command == "show --json":
            argv = [*lore, "show", note_id, "--json"]
        else:
            argv = [*lore, *command.split()]
        wall, cpu, out = run_timed(argv, env, stdin, cwd)
        if command == "hook session-start":
            assert b"additionalContext" in out, (command, out[:200])
        if command == "remember":
            assert json.loads(out)["status"] == "pushed", out[:300]
            for ref in git(
                self.bare, "for-each-ref", "--format=%(refname)", "refs/heads/lore/"
            ).split():
                git(self.bare, "update-ref", "-d", ref)
            git(self.checkout, "fetch", "-q", "--prune", "origin")
        if keep:
            self.wall[command].append(wall)
            self.cpu[command].append(cpu)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", type=Path, required=True, help="the other lore's src/")
    parser.add_argument("--baseline-name", default="baseline")
    parser.add_argument("--name", default="this tree")
    parser.add_argument("--notes", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--workdir", type=Path, help="keep the vaults here (reused)")
    args = parser.parse_args()
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="lore-bench-house-"))
    workdir.mkdir(parents=True, exist_ok=True)
    bare, note_id = prepare_source(args.notes, workdir)
    this = Version(args.name, HERE.parent / "src", workdir, bare)
    base = Version(args.baseline_name, args.baseline, workdir, bare)
    load = [os.getloadavg()[0]]
    for round_number in range(args.runs + 1):  # round 0 warms the caches, untimed
        for command in COMMANDS:
            pair = (base, this) if round_number % 2 else (this, base)
            for version in pair:
                version.measure(command, round_number, note_id, keep=round_number > 0)
        load.append(os.getloadavg()[0])
        print(f"  round {round_number} done (load {load[-1]:.1f})", flush=True)
    rows = []
    for command in COMMANDS:
        ours, theirs = this.wall[command], base.wall[command]
        our_cpu, their_cpu = this.cpu[command], base.cpu[command]
        rows.append(
            {
                "command": f"lore {command}",
                f"{base.name} ms": median_ms(theirs),
                f"{this.name} ms": median_ms(ours),
                "ratio": round(median_ms(ours) / median_ms(theirs), 3),
                f"{base.name} cpu ms": median_ms(their_cpu),
                f"{this.name} cpu ms": median_ms(our_cpu),
                "cpu ratio": round(median_ms(our_cpu) / median_ms(their_cpu), 3),
            }
        )
    print_table(rows, list(rows[0]))
    save_result(
        f"house-{args.notes}",
        {
            "command": "python bench/bench_house.py " + " ".join(sys.argv[1:]),
            "notes": args.notes,
            "runs": args.runs,
            "load_average": [round(value, 1) for value in load],
            "rows": rows,
            "samples": {
                version.name: {"wall": version.wall, "cpu": version.cpu} for version in (base, this)
            },
        },
    )


if __name__ == "__main__":
    main()
