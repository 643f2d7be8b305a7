"""Warm `lore mcp` recalls against the floor's in-process query, query class by query class.

    python bench/bench_mcp_warm.py --sizes 10000 100000 --workdir /tmp/lore-bench
    python bench/bench_mcp_warm.py --baseline OTHER_CHECKOUT/src --baseline-name main

An agent starts the server once a session; after that a `recall` costs lore's work and
the SDK's round trip. For each vault size, in one process:

- `lore mcp` (this tree's `src`), started and driven by the official SDK's stdio client
  (`initialize`, `tools/list`, then each query once to warm it), called with `repo` set
  as agents set it;
- the floor: `floor_recall.answer` (the same OR query lore builds for the query, with the
  same column weights, ranked by `bm25()`, with a snippet, top 10, as JSON) on a
  read-only connection opened once, in this process;
- the echo (`bench/echo_mcp.py`): the SDK's low-level server answering each call with
  lore's recorded answer — the SDK's framing, validation and transport alone;
- with `--baseline`, another lore's `lore mcp` (its `src` on PYTHONPATH), answering from
  its own clone of the vault; its top 10 must be the same notes.

Each round runs every query once per contender, the contenders' order turning from round
to round, so that the machine's load moves them alike; per class the medians of wall time
are recorded with lore's ratio to the floor, and the CPU time each contender used per
call (the floor's thread, each server process; steadier on a busy machine). The classes
are the six queries of issue 31, one a class: four typical, one of common words only
("p99 latency alert dashboard", each word in about a fifth of the notes), one whose
words are all common engineering words.

Results go to bench/results/mcp-warm-<size>.json with the machine and the load average.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SRC = HERE.parent / "src"
sys.path.insert(0, str(SRC))
sys.path.insert(0, str(HERE))

import floor_recall  # noqa: E402
from bench_floor import column_weights, prepare  # noqa: E402
from common import print_table, save_result  # noqa: E402
from lore.index.build import open_index  # noqa: E402
from lore.paths import index_path  # noqa: E402
from lore.recall.engine import query_terms  # noqa: E402
from synth import REPOS  # noqa: E402

REPO = REPOS[3]  # the repository agents pass (a synthetic vault's `service-03`)
CLASSES = {
    "postgres replica lag": "typical",
    "how do we roll back a canary deploy": "typical, stop words",
    "kafka consumer retry backoff": "typical",
    "invoice webhook": "typical, two words",
    "p99 latency alert dashboard": "common words only",
    "certificate secret pod": "common engineering words",
}
CLOCK_TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """User + system time of a process so far (Linux `/proc`, in clock ticks)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICK


def children_of_this_process() -> set[int]:
    """The processes this one started (Linux `/proc`): how a server's pid is found."""
    me = os.getpid()
    found: set[int] = set()
    for task in Path(f"/proc/{me}/task").iterdir():
        found.update(int(pid) for pid in (task / "children").read_text().split())
    return found


class Contender:
    """One MCP server, driven by the official SDK client."""

    def __init__(self, name: str, command: list[str], env: dict[str, str], cwd: Path) -> None:
        from mcp import StdioServerParameters

        self.name = name
        self.params = StdioServerParameters(
            command=command[0], args=command[1:], env=env, cwd=str(cwd)
        )
        self.session: Any = None
        self.pid = 0

    async def start(self, stack: AsyncExitStack, errlog: Any) -> None:
        from mcp import ClientSession, stdio_client

        before = children_of_this_process()
        read, write = await stack.enter_async_context(stdio_client(self.params, errlog=errlog))
        self.session = await stack.enter_async_context(ClientSession(read, write))
        await self.session.initialize()
        await self.session.list_tools()  # the client keeps the output schemas it checks
        (self.pid,) = children_of_this_process() - before

    async def recall(self, query: str) -> dict[str, Any]:
        result = await self.session.call_tool("recall", {"query": query, "repo": REPO})
        assert not result.is_error, result.content[0].text
        data: dict[str, Any] = result.structured_content
        return data


async def bench_size(
    size: int, workdir: Path, runs: int, baseline: Path | None, baseline_name: str
) -> dict[str, Any]:
    vault, other = prepare(size, workdir, [sys.executable, "-m", "lore"] if baseline else None)
    conn, _ = open_index(vault)
    weights = column_weights(conn)
    matches = {query: " OR ".join(t.fts() for t in query_terms(conn, query)) for query in CLASSES}
    conn.close()
    floor = floor_recall.connect(str(index_path(vault)))
    home = Path(tempfile.mkdtemp(prefix="lore-bench-home-"))
    env = {key: os.environ[key] for key in ("HOME", "PATH", "LANG", "LC_ALL") if key in os.environ}
    env |= {"LORE_HOME": str(home), "LORE_CONFIG": str(home / "config.toml")}
    lore_mcp = [sys.executable, "-m", "lore", "mcp"]
    servers = [
        Contender(
            "lore", lore_mcp, {**env, "LORE_VAULT": str(vault), "PYTHONPATH": str(SRC)}, workdir
        )
    ]
    if baseline is not None:
        assert other is not None
        servers.append(
            Contender(
                baseline_name,
                lore_mcp,
                {**env, "LORE_VAULT": str(other), "PYTHONPATH": str(baseline)},
                workdir,
            )
        )
    answers_file = workdir / f"answers-{size}.json"
    wall: dict[str, dict[str, list[float]]] = {}
    cpu: dict[str, float] = {}
    load_before = os.getloadavg()
    with open(os.devnull, "w") as errlog:
        async with AsyncExitStack() as stack:
            for server in servers:
                await server.start(stack, errlog)
            answers = {query: await servers[0].recall(query) for query in CLASSES}
            for server in servers[1:]:
                for query in CLASSES:
                    theirs = await server.recall(query)
                    same = [h["id"] for h in theirs["results"]] == [
                        h["id"] for h in answers[query]["results"]
                    ]
                    assert same, f"lore and {server.name} disagree on {query!r}"
            answers_file.write_text(json.dumps(answers), encoding="utf-8")
            echo = Contender(
                "echo",
                [sys.executable, str(HERE / "echo_mcp.py"), str(answers_file)],
                {**env, "PYTHONPATH": str(SRC)},
                workdir,
            )
            await echo.start(stack, errlog)
            servers.append(echo)
            for query in CLASSES:  # warm: every server has answered every query once
                floor_recall.answer(floor, matches[query], weights)
                await echo.recall(query)
            names = ["floor", *(server.name for server in servers)]
            wall = {name: {query: [] for query in CLASSES} for name in names}
            floor_cpu = 0.0
            started = {server.name: cpu_seconds(server.pid) for server in servers}
            for round_number in range(runs):
                turn = round_number % len(names)
                order = names[turn:] + names[:turn]
                for query in CLASSES:
                    for name in order:
                        if name == "floor":
                            thread_before = time.thread_time()
                            begun = time.perf_counter()
                            floor_recall.answer(floor, matches[query], weights)
                            wall[name][query].append(time.perf_counter() - begun)
                            floor_cpu += time.thread_time() - thread_before
                            continue
                        server = next(s for s in servers if s.name == name)
                        begun = time.perf_counter()
                        await server.recall(query)
                        wall[name][query].append(time.perf_counter() - begun)
            calls = runs * len(CLASSES)
            cpu = {"floor": floor_cpu / calls}
            cpu |= {s.name: (cpu_seconds(s.pid) - started[s.name]) / calls for s in servers}
    floor.close()
    rows: list[dict[str, Any]] = []
    for query, kind in CLASSES.items():
        row: dict[str, Any] = {"notes": size, "query": query, "class": kind}
        for name in names:
            row[f"{name}_ms"] = round(statistics.median(wall[name][query]) * 1000, 2)
        row["ratio"] = round(row["lore_ms"] / row["floor_ms"], 2)
        row["echo_over_floor"] = round(row["echo_ms"] / row["floor_ms"], 2)
        if baseline is not None:
            row[f"{baseline_name}_ratio"] = round(row[f"{baseline_name}_ms"] / row["floor_ms"], 2)
        rows.append(row)
        print(f"  {row}", flush=True)
    return {
        "notes": size,
        "runs_per_query": runs,
        "repo": REPO,
        "cpu_ms_per_call": {name: round(seconds * 1000, 2) for name, seconds in cpu.items()},
        "load_average_before": [round(x, 2) for x in load_before],
        "load_average_after": [round(x, 2) for x in os.getloadavg()],
        "baseline": baseline_name if baseline else None,  # a name: no path of this machine
        "classes": rows,
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", type=int, nargs="+", default=[10000, 100000])
    parser.add_argument("--workdir", type=Path, help="where vaults are generated (kept)")
    parser.add_argument("--runs", type=int, default=30, help="calls of each query per contender")
    parser.add_argument("--baseline", type=Path, help="another lore's src folder, run in turns")
    parser.add_argument("--baseline-name", default="baseline", help="what the results call it")
    args = parser.parse_args()
    import anyio

    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="lore-bench-"))
    workdir.mkdir(parents=True, exist_ok=True)
    table = []
    for size in args.sizes:
        print(f"{size} notes…", flush=True)
        result = anyio.run(bench_size, size, workdir, args.runs, args.baseline, args.baseline_name)
        save_result(f"mcp-warm-{size}", result)
        table += result["classes"]
        print(f"  CPU per call (ms): {result['cpu_ms_per_call']}", flush=True)
    print_table(table, list(table[0]))


if __name__ == "__main__":
    main()
