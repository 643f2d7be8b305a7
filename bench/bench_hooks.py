"""Benchmark the agent hooks as agents run them: a whole `lore hook …` process per call.

    python bench/bench_hooks.py                          # 10k notes, 20 runs each
    python bench/bench_hooks.py --sizes 1000 10000 --runs 30
    python bench/bench_hooks.py --workdir /tmp/lore-bench   # reuse generated vaults
    python bench/bench_hooks.py --session-end-only          # the nudge alone (below)
    python bench/bench_hooks.py --baseline OTHER/.venv/bin/lore --baseline-name main

For each size it generates a synthetic vault (bench/synth.py) with prompt recall
turned on in its lore.toml, builds the index, and measures with medians:
- `python -c pass` from the same interpreter (the floor);
- `lore hook session-start --agent claude-code` with a Claude Code payload whose working
  directory is a checkout of one of the vault's repositories (the session digest), both
  as sessions usually find it (the digest of this commit already cached in $LORE_HOME)
  and uncached (the first session after a commit);
- `lore hook prompt --agent claude-code` over generated prompts (prompt recall);
- `lore hook session-end --agent claude-code` (the session-end nudge) as most turns meet
  it: a new turn's lines added to a 2 MB transcript of a session already asked (silent),
  and of a session not yet at the real-work bar (counted, silent); and the turn that
  asks (a fresh session past the bar). `session_end_added_ms` is what the nudge adds to
  a hook process: its median less `python -c pass`'s, measured in the same loop
  (`session_end_added_cpu_ms`: the same in CPU time, steadier on a busy machine).
The target is under 150 ms per hook process at 10k notes, and under 50 ms added by the
nudge. `--session-end-only` measures the nudge alone, with a cached `session-start` in
the same loop for a ratio that a busy machine does not move much, and writes
bench/results/hooks-session-end-<size>.json. Results go to
bench/results/hooks-<size>.json and a table on stdout.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
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
from synth import REPOS, git, make_vault, queries  # noqa: E402

TARGET_MS = 150.0
NUDGE_TARGET_MS = 50.0
TURN = (  # one turn of a Claude Code transcript: a tool call and its result
    '{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t","name":"Read",'
    '"input":{"file_path":"src/app.py"}}]}}\n'
    '{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t",'
    '"content":"' + "x" * 4000 + '"}]}}\n'
)


def timed(command: list[str], stdin: bytes, env: dict[str, str]) -> tuple[float, bytes]:
    started = time.perf_counter()
    result = subprocess.run(command, input=stdin, capture_output=True, env=env, check=True)
    return time.perf_counter() - started, result.stdout


def cpu_timed(command: list[str], stdin: bytes, env: dict[str, str]) -> tuple[float, float, bytes]:
    """Wall time, and the CPU time (user + system) the process used: on a busy machine the
    CPU time is the steadier figure of what a hook costs."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall, out = timed(command, stdin, env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, out


def ms(samples: list[float]) -> float:
    return round(median_ms(samples), 1)


def p95(samples: list[float]) -> float:
    return round(percentile_ms(samples), 1)


def prepare(size: int, workdir: Path) -> Path:
    vault = workdir / f"vault-{size}"
    if not (vault / ".git").exists():
        started = time.perf_counter()
        make_vault(size, vault)
        settings = vault / "lore.toml"
        text = settings.read_text(encoding="utf-8")
        assert "\nprompt = false\n" in text, "the template's [hooks] section changed"
        settings.write_text(
            text.replace("\nprompt = false\n", "\nprompt = true\n"), encoding="utf-8"
        )
        git(vault, "commit", "-q", "-am", "turn on prompt recall")
        print(f"  generated {size} notes in {time.perf_counter() - started:.1f} s", flush=True)
    conn, _ = open_index(vault)
    conn.close()
    return vault


def bench_size(size: int, workdir: Path, runs: int) -> dict[str, Any]:
    vault = prepare(size, workdir)
    checkout = workdir / "checkout"
    if not (checkout / ".git").exists():
        checkout.mkdir(parents=True, exist_ok=True)
        git(checkout, "init", "-q")
        git(checkout, "remote", "add", "origin", f"https://github.com/acme/{REPOS[3]}.git")
    state = Path(tempfile.mkdtemp(prefix="lore-bench-home-"))
    env = {**os.environ, "LORE_VAULT": str(vault), "LORE_HOME": str(state)}
    start_payload = json.dumps(
        {"session_id": "bench", "cwd": str(checkout), "hook_event_name": "SessionStart"}
    ).encode()
    start = [*lore_command(), "hook", "session-start", "--agent", "claude-code"]
    prompt = [*lore_command(), "hook", "prompt", "--agent", "claude-code"]

    timed(start, start_payload, env)  # warm caches
    bare, starts, uncached, prompts = [], [], [], []
    digest = b""
    injected = 0
    asked = queries(max(runs, 10))
    for index in range(runs):
        bare.append(timed([sys.executable, "-c", "pass"], b"", env)[0])
        seconds, digest = timed(start, start_payload, env)
        starts.append(seconds)
        shutil.rmtree(state / "digests", ignore_errors=True)
        uncached.append(timed(start, start_payload, env)[0])
        prompt_payload = json.dumps(
            {"session_id": "bench", "cwd": str(checkout), "prompt": asked[index]}
        ).encode()
        seconds, out = timed(prompt, prompt_payload, env)
        prompts.append(seconds)
        injected += bool(out)
    ends = bench_session_end(checkout, env, state, runs)
    context = json.loads(digest)["hookSpecificOutput"]["additionalContext"]
    return {
        "notes": size,
        "runs": runs,
        "python_c_pass_ms": ms(bare),
        "session_start_ms": ms(starts),
        "session_start_p95_ms": p95(starts),
        "session_start_uncached_ms": ms(uncached),
        "prompt_ms": ms(prompts),
        "prompt_p95_ms": p95(prompts),
        "prompts_with_context": f"{injected}/{runs}",
        "digest_chars": len(context),
        "digest_notes": context.count("\n- "),
        **ends,
        "load_average": round(os.getloadavg()[0], 1),
        "under_target": max(ms(starts), ms(uncached), ms(prompts)) < TARGET_MS
        and ends["session_end_added_ms"] < NUDGE_TARGET_MS,
    }


def bench_against(size: int, workdir: Path, runs: int, baseline: str) -> dict[str, Any]:
    """The cached session start and prompt recall of this lore and of another, in turns.

    Both read the same vault and index (the same schema), each with its own $LORE_HOME;
    medians of wall and CPU time, and this lore's over the other's.
    """
    vault = prepare(size, workdir)
    checkout = workdir / "checkout"
    if not (checkout / ".git").exists():
        checkout.mkdir(parents=True, exist_ok=True)
        git(checkout, "init", "-q")
        git(checkout, "remote", "add", "origin", f"https://github.com/acme/{REPOS[3]}.git")
    commands = {"this": lore_command(), "baseline": [baseline]}
    envs = {
        name: {
            **os.environ,
            "LORE_VAULT": str(vault),
            "LORE_HOME": tempfile.mkdtemp(prefix="lore-bench-home-"),
        }
        for name in commands
    }
    start_payload = json.dumps(
        {"session_id": "bench", "cwd": str(checkout), "hook_event_name": "SessionStart"}
    ).encode()
    asked = queries(max(runs, 10))
    samples: dict[str, list[float]] = {}
    for name, command in commands.items():  # warm: the digest cached, the index fresh
        timed(
            [*command, "hook", "session-start", "--agent", "claude-code"], start_payload, envs[name]
        )
    for index in range(runs):
        prompt_payload = json.dumps(
            {"session_id": "bench", "cwd": str(checkout), "prompt": asked[index]}
        ).encode()
        order = list(commands) if index % 2 == 0 else list(reversed(commands))
        for hook, payload in (("session-start", start_payload), ("prompt", prompt_payload)):
            for name in order:
                command = [*commands[name], "hook", hook, "--agent", "claude-code"]
                wall, cpu, _ = cpu_timed(command, payload, envs[name])
                samples.setdefault(f"{hook}_{name}_ms", []).append(wall)
                samples.setdefault(f"{hook}_{name}_cpu_ms", []).append(cpu)
    row: dict[str, Any] = {"notes": size, "runs": runs}
    row |= {key: ms(values) for key, values in samples.items()}
    for hook in ("session-start", "prompt"):
        row[f"{hook}_this_over_baseline"] = round(
            row[f"{hook}_this_ms"] / row[f"{hook}_baseline_ms"], 2
        )
        row[f"{hook}_cpu_this_over_baseline"] = round(
            row[f"{hook}_this_cpu_ms"] / row[f"{hook}_baseline_cpu_ms"], 2
        )
    row["load_average"] = round(os.getloadavg()[0], 1)
    return row


def bench_session_end_only(size: int, workdir: Path, runs: int) -> dict[str, Any]:
    """The nudge, next to a cached session start measured in the same loop."""
    vault = prepare(size, workdir)
    checkout = workdir / "checkout"
    if not (checkout / ".git").exists():
        checkout.mkdir(parents=True, exist_ok=True)
        git(checkout, "init", "-q")
    state = Path(tempfile.mkdtemp(prefix="lore-bench-home-"))
    env = {**os.environ, "LORE_VAULT": str(vault), "LORE_HOME": str(state)}
    start = [*lore_command(), "hook", "session-start", "--agent", "claude-code"]
    start_payload = json.dumps({"session_id": "s", "cwd": str(checkout)}).encode()
    timed(start, start_payload, env)
    starts, starts_cpu = [], []
    ends = bench_session_end(checkout, env, state, runs)
    for _ in range(runs):
        seconds, cpu, _ = cpu_timed(start, start_payload, env)
        starts.append(seconds)
        starts_cpu.append(cpu)
    return {
        "notes": size,
        "runs": runs,
        **ends,
        "session_start_ms": ms(starts),
        "session_start_cpu_ms": ms(starts_cpu),
        "asked_over_session_start": round(ends["session_end_asked_ms"] / ms(starts), 2),
        "load_average": round(os.getloadavg()[0], 1),
    }


def bench_session_end(
    checkout: Path, env: dict[str, str], state: Path, runs: int
) -> dict[str, float]:
    """Whole `lore hook session-end` processes, as an agent runs one at each turn's end."""
    end = [*lore_command(), "hook", "session-end", "--agent", "claude-code"]
    folder = state / "transcripts"
    folder.mkdir(exist_ok=True)
    asked_before = folder / "asked.jsonl"
    asked_before.write_text(TURN * 400)  # ~1.6 MB: a long session, already asked
    timed(end, _end_payload(checkout, asked_before, "asked"), env)
    small = folder / "small.jsonl"
    small.write_text(TURN)
    silent, counting, asked, bare, bare_cpu, asked_cpu = [], [], [], [], [], []
    for index in range(runs):
        seconds, cpu, _ = cpu_timed([sys.executable, "-c", "pass"], b"", env)
        bare.append(seconds)
        bare_cpu.append(cpu)
        with asked_before.open("a") as handle:
            handle.write(TURN)
        silent.append(timed(end, _end_payload(checkout, asked_before, "asked"), env)[0])
        with small.open("a") as handle:  # one call a turn: never reaches the bar here
            handle.write('{"type":"user","message":{"content":"ok"}}\n')
        counting.append(timed(end, _end_payload(checkout, small, "small"), env)[0])
        fresh = folder / f"fresh-{index}.jsonl"
        fresh.write_text(TURN * 25)  # 25 tool calls: past the bar
        seconds, cpu, out = cpu_timed(end, _end_payload(checkout, fresh, f"fresh-{index}"), env)
        assert json.loads(out)["decision"] == "block", out
        asked.append(seconds)
        asked_cpu.append(cpu)
    return {
        "session_end_silent_ms": ms(silent),
        "session_end_counting_ms": ms(counting),
        "session_end_asked_ms": ms(asked),
        "session_end_asked_p95_ms": p95(asked),
        "session_end_added_ms": round(ms(asked) - ms(bare), 1),
        "session_end_added_cpu_ms": round(ms(asked_cpu) - ms(bare_cpu), 1),
    }


def _end_payload(checkout: Path, transcript: Path, session: str) -> bytes:
    return json.dumps(
        {
            "session_id": session,
            "transcript_path": str(transcript),
            "cwd": str(checkout),
            "hook_event_name": "Stop",
            "stop_hook_active": False,
        }
    ).encode()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", type=int, nargs="+", default=[10000])
    parser.add_argument("--runs", type=int, default=20, help="runs per measurement (>= 10)")
    parser.add_argument("--workdir", type=Path, help="where vaults are generated (kept)")
    parser.add_argument(
        "--session-end-only", action="store_true", help="measure only the session-end nudge"
    )
    parser.add_argument(
        "--baseline",
        help="another `lore` executable: time the cached session start and prompt recall "
        "of both, in turns (writes hooks-vs-NAME-SIZE.json)",
    )
    parser.add_argument("--baseline-name", default="baseline", help="what the results call it")
    args = parser.parse_args()
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="lore-bench-"))
    workdir.mkdir(parents=True, exist_ok=True)
    rows = []
    if args.baseline:
        for size in args.sizes:
            row = bench_against(size, workdir, max(10, args.runs), args.baseline)
            row["baseline"] = args.baseline_name  # a name: no path of this machine
            rows.append(dict(row))
            save_result(f"hooks-vs-{args.baseline_name}-{size}", row)
        print_table(rows, list(rows[0]))
        return
    if args.session_end_only:
        for size in args.sizes:
            row = bench_session_end_only(size, workdir, max(10, args.runs))
            save_result(f"hooks-session-end-{size}", row)
            rows.append(row)
        print_table(rows, list(rows[0]))
        return
    for size in args.sizes:
        print(f"{size} notes…", flush=True)
        row = bench_size(size, workdir, max(10, args.runs))
        save_result(f"hooks-{size}", row)
        rows.append(row)
    keys = [
        "notes",
        "python_c_pass_ms",
        "session_start_ms",
        "session_start_p95_ms",
        "session_start_uncached_ms",
        "prompt_ms",
        "prompt_p95_ms",
        "prompts_with_context",
        "digest_chars",
        "digest_notes",
        "session_end_silent_ms",
        "session_end_counting_ms",
        "session_end_asked_ms",
        "session_end_added_ms",
        "session_end_added_cpu_ms",
        "load_average",
        "under_target",
    ]
    print_table(rows, keys)


if __name__ == "__main__":
    main()
