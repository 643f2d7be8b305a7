"""Benchmark `lore mcp`'s start: how long an agent waits for the server's answers.

    python bench/bench_mcp.py                        # 1,000 notes, 15 runs
    python bench/bench_mcp.py --baseline OLD/src     # also the lore in OLD/src, alternating

Each run starts a whole `lore mcp` process, as an agent does, speaks JSON-RPC over its
stdin and stdout, and records the wall time from the start of the process to the answer
to `initialize`, to `tools/list` and to a first `tools/call recall`. With `--baseline`,
the runs alternate between the two versions (A B A B). It also times `python -c pass`
and `python -c "import mcp"` (every import of the SDK runs its package's `__init__`,
which imports the client, both protocol revisions' models and the HTTP transports), and
splits the SDK's import with `python -X importtime` into what a stdio server uses and
what it does not. Medians go to bench/results/mcp.json and a table on stdout, with the
CPU time each whole session used (steadier than wall time on a busy machine).
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
sys.path.insert(0, str(HERE.parent / "src"))
sys.path.insert(0, str(HERE))

from common import median_ms, print_table, save_result  # noqa: E402
from lore.index.build import open_index  # noqa: E402
from synth import make_vault  # noqa: E402

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "bench", "version": "1"},
    },
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
LIST = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
RECALL = {
    "jsonrpc": "2.0",
    "id": 3,
    "method": "tools/call",
    "params": {"name": "recall", "arguments": {"query": "postgres connection pool", "limit": 5}},
}
# Top-level packages a stdio server does not need: HTTP servers and clients, and rich
# (MCPServer configures logging with it).
UNUSED_BY_STDIO = ("starlette", "sse_starlette", "uvicorn", "httpx2", "httpx", "rich")


def send(process: subprocess.Popen[bytes], message: dict[str, Any]) -> None:
    assert process.stdin is not None
    process.stdin.write(json.dumps(message).encode() + b"\n")
    process.stdin.flush()


def answer(process: subprocess.Popen[bytes], wanted: int) -> dict[str, Any]:
    assert process.stdout is not None
    while True:
        line = process.stdout.readline()
        if not line:
            raise RuntimeError("the server closed its output")
        data = json.loads(line)
        if data.get("id") == wanted:
            return dict(data)


def one_session(command: list[str], env: dict[str, str], cwd: Path) -> dict[str, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    process = subprocess.Popen(
        command,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
        cwd=cwd,
    )
    try:
        send(process, INITIALIZE)
        answer(process, 1)
        initialized = time.perf_counter()
        send(process, INITIALIZED)
        send(process, LIST)
        tools = answer(process, 2)["result"]["tools"]
        listed = time.perf_counter()
        send(process, RECALL)
        result = answer(process, 3)["result"]
        recalled = time.perf_counter()
        assert tools and not result.get("isError"), result
    finally:
        if process.stdin:
            process.stdin.close()
        process.wait(timeout=30)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return {
        "initialize": initialized - started,
        "tools_list": listed - started,
        "first_recall": recalled - started,
        # CPU time (user + system) of the whole session: steadier than wall time when busy
        "session_cpu": (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime),
    }


def timed(code: str) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True)
    return time.perf_counter() - started


def sdk_import_split() -> dict[str, float]:
    """`import mcp` by top-level package (ms, cumulative where a package is first met)."""
    run = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import mcp"],
        capture_output=True,
        text=True,
        check=True,
    )
    self_us: dict[str, int] = {}
    for line in run.stderr.splitlines():
        parts = line.removeprefix("import time:").split("|")
        if len(parts) != 3 or not parts[0].strip().isdigit():
            continue  # the header line
        top = parts[2].strip().split(".")[0]
        self_us[top] = self_us.get(top, 0) + int(parts[0])
    total = sum(self_us.values())
    unused = sum(us for top, us in self_us.items() if top in UNUSED_BY_STDIO)
    sdk = sum(us for top, us in self_us.items() if top in ("mcp", "mcp_types"))
    return {
        "import_total_ms": round(total / 1000, 1),
        "sdk_own_modules_ms": round(sdk / 1000, 1),
        "pydantic_ms": round(
            sum(us for top, us in self_us.items() if top.startswith("pydantic")) / 1000, 1
        ),
        "unused_by_stdio_ms": round(unused / 1000, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--notes", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--baseline", type=Path, help="also time the lore in this src folder")
    parser.add_argument("--baseline-name", default="baseline")
    parser.add_argument("--workdir", type=Path, help="where the vault is generated (kept)")
    args = parser.parse_args()
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="lore-bench-mcp-"))
    vault = workdir / f"vault-{args.notes}"
    if not (vault / ".git").exists():
        make_vault(args.notes, vault)
    conn, _ = open_index(vault)
    conn.close()
    home = Path(tempfile.mkdtemp(prefix="lore-bench-home-"))
    base_env = {**os.environ, "LORE_VAULT": str(vault), "LORE_HOME": str(home)}
    versions = {"this": (HERE.parent / "src").resolve()}
    if args.baseline:
        versions[args.baseline_name] = args.baseline.resolve()
    samples: dict[str, dict[str, list[float]]] = {name: {} for name in versions}
    command = [sys.executable, "-m", "lore", "mcp"]
    for src in versions.values():  # warm the bytecode caches
        one_session(command, {**base_env, "PYTHONPATH": str(src)}, workdir)
    bare, sdk = [], []
    for _ in range(args.runs):
        bare.append(timed("pass"))
        sdk.append(timed("import mcp"))
        for name, src in versions.items():
            times = one_session(command, {**base_env, "PYTHONPATH": str(src)}, workdir)
            for key, seconds in times.items():
                samples[name].setdefault(key, []).append(seconds)
    rows = []
    for name in versions:
        row: dict[str, Any] = {"lore": name, "notes": args.notes, "runs": args.runs}
        row["python_c_pass_ms"] = round(median_ms(bare), 1)
        row["import_mcp_ms"] = round(median_ms(sdk), 1)
        for key, values in samples[name].items():
            row[f"{key}_ms"] = round(median_ms(values), 1)
        rows.append(row)
    split = sdk_import_split()
    load = round(os.getloadavg()[0], 1)
    save_result("mcp", {"rows": rows, "import_mcp_split": split, "load_average": load})
    print_table(rows, list(rows[0]))
    print(json.dumps(split))


if __name__ == "__main__":
    main()
