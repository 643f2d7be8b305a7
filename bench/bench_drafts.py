"""Time the drafts inbox and what `lore capture` does before it calls a model.

    python bench/bench_drafts.py                    # 10,000 notes, 7 runs each
    python bench/bench_drafts.py --notes 1000 --runs 9 --log-mb 4 64

- `lore remember --draft --json …` as a whole process (a new title each run), alternated
  with `lore remember --dry-run --json …` on the same clone: both run every curator rule
  on the note against the remote's default branch; the draft fetches nothing and writes
  two files under $LORE_HOME, the dry run fetches from the (local) remote first;
- `lore drafts --json` with the drafts those runs saved: the listing and the age sweep;
- reading a synthetic Claude Code session log of each `--log-mb` size and rendering it
  for the model (`read_transcript` + `build_prompt`, in this process): parsing every
  line, then sanitizing and scanning for secrets only what fits the prompt. No model is
  called; a model's answer takes seconds more than any of this.

A synthetic vault (bench/synth.py) is pushed to a local bare repository and cloned, as
in bench_remember.py. Results go to bench/results/drafts-<notes>.json and a table.
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

from bench_remember import environment, flags, prepare_remote, timed  # noqa: E402
from common import lore_command, median_ms, print_table, save_result  # noqa: E402
from synth import git  # noqa: E402


def write_log(path: Path, megabytes: int) -> int:
    """A Claude Code session log of about `megabytes`: text, tool calls and their output."""
    said = {"type": "text", "text": "Running the tests again after the change. " * 12}
    call = {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "pytest"}}
    output = {"type": "tool_result", "tool_use_id": "toolu_1", "content": "passed " * 300}
    lines = [
        json.dumps({"type": "assistant", "cwd": "/home/dev/app",
                    "message": {"role": "assistant", "content": [said, call]}}),
        json.dumps({"type": "user", "message": {"role": "user", "content": [output]}}),
    ]  # fmt: skip
    count = 0
    with path.open("w", encoding="utf-8") as handle:
        while handle.tell() < megabytes * 1024 * 1024:
            handle.write(lines[count % 2] + "\n")
            count += 1
    return count


def transcript_ms(vault: Path, log: Path, runs: int) -> tuple[float, dict[str, Any]]:
    from lore.team.capture import build_prompt
    from lore.team.transcript import read_transcript

    samples = []
    prompt, left_out = "", 0
    for _ in range(runs):
        started = time.perf_counter()
        prompt, left_out = build_prompt(vault, read_transcript(log))
        samples.append(time.perf_counter() - started)
    return median_ms(samples), {"prompt_chars": len(prompt), "left_out": left_out}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--log-mb", type=int, nargs="+", default=[4, 64])
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="lore-bench-drafts-") as scratch:
        workdir = Path(scratch)
        env = environment(workdir)
        bare = prepare_remote(args.notes, workdir)
        checkout = workdir / "checkout"
        git(workdir, "clone", "-q", str(bare), checkout.name)
        command = [*lore_command(), "remember", "--vault", str(checkout)]
        load_before = os.getloadavg()[0]
        draft, dry = [], []
        for run in range(args.runs):
            elapsed, _ = timed([*command, "--draft", "--json", *flags(f"Draft {run}")], env)
            draft.append(elapsed)
            elapsed, _ = timed([*command, "--dry-run", "--json", *flags(f"Dry {run}")], env)
            dry.append(elapsed)
        listing = []
        for _ in range(args.runs):
            elapsed, listed = timed(
                [*lore_command(), "drafts", "--vault", str(checkout), "--json"], env
            )
            listing.append(elapsed)
        assert len(listed["drafts"]) == args.runs
        os.environ.update({k: v for k, v in env.items() if k.startswith("LORE_")})
        logs: dict[str, Any] = {}
        for size in args.log_mb:
            log = workdir / f"session-{size}mb.jsonl"
            lines = write_log(log, size)
            ms, shape = transcript_ms(checkout, log, 3)
            logs[f"{size}mb"] = {"lines": lines, "read_and_render_ms": ms, **shape}
        row = {
            "notes": args.notes,
            "runs": args.runs,
            "remember_draft_ms": median_ms(draft),
            "remember_dry_run_ms": median_ms(dry),
            "draft_to_dry_run": round(statistics.median(draft) / statistics.median(dry), 2),
            "drafts_list_ms": median_ms(listing),
            "logs": logs,
            "load_average": [round(load_before, 2), round(os.getloadavg()[0], 2)],
        }
        subprocess.run(["git", "-C", str(checkout), "status", "--short"], check=True)
    save_result(f"drafts-{args.notes}", row)
    print_table([row], ["notes", "remember_draft_ms", "remember_dry_run_ms", "drafts_list_ms"])
    print_table(
        [{"log": name, **values} for name, values in logs.items()],
        ["log", "lines", "read_and_render_ms", "prompt_chars", "left_out"],
    )


if __name__ == "__main__":
    main()
