"""Where a warm MCP `recall` goes, part by part, next to the floor's in-process query.

    python bench/bench_mcp_split.py --sizes 10000 100000 --workdir /tmp/lore-bench

`bench/bench_mcp_warm.py` times whole calls; this splits them, for the six queries of
`bench_mcp_warm.CLASSES` with `repo` set as agents set it:

- lore's side, in this process: the server's tool (`VaultTools.call`, what `lore mcp`
  runs for a `tools/call`) called again and again after a first call, each part timed
  by wrapping the function that does it (thread CPU time: the machine's load moves it
  less than wall time): the argument check, choosing the vault, re-checking the kept
  index (of which the reviewed branch's tip read from the ref files), the filter check,
  the query plan, the phrase counts, the first-stage query, the exact cut (reading a pass
  further, lore's idf correction), the re-ranking (boosts, statuses, the hits' rows),
  the snippets, the JSON, the secret masking, and the text the server sends;
- the SDK's side: `bench/echo_mcp.py` (the SDK's server with lore's tool list, answering
  with lore's recorded answers) driven by the SDK's client: the CPU time per call of the
  client (of which the check of each answer against the tool's output schema) and of the
  server, and the wall time of a call;
- the floor (`floor_recall.answer` on a connection opened once), timed the same way.

Results go to bench/results/mcp-split-<size>.json with the machine and the load average.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))
sys.path.insert(0, str(HERE))

import floor_recall  # noqa: E402
from bench_floor import column_weights, prepare  # noqa: E402
from bench_mcp_warm import CLASSES, REPO, SRC, Contender, cpu_seconds  # noqa: E402
from common import print_table, save_result  # noqa: E402
from lore.index.build import open_index  # noqa: E402
from lore.paths import index_path  # noqa: E402
from lore.recall.engine import query_terms  # noqa: E402

# (label, module, attribute): each wrapped, its inclusive thread time summed per call.
PARTS = (
    ("argument check", "lore.integrations.mcp_server", "check_arguments"),
    ("choosing the vault", "lore.integrations.mcp_server.VaultTools", "_vaults"),
    ("re-checking the kept index", "lore.index.read", "open_index_kept"),
    ("of which the reviewed branch's tip", "lore.index.build", "current_version"),
    ("filter check", "lore.recall.filters", "check_filters"),
    ("query plan", "lore.recall.engine", "build_query"),
    ("phrase counts", "lore.recall.ranker", "phrase_statistics"),
    ("ranking, all", "lore.recall.ranker.Ranker", "rank"),
    ("first-stage query", "lore.recall.ranker.Pass", "take"),
    ("exact cut: reading a pass further", "lore.recall.ranker.Pass", "take_above"),
    ("exact cut: lore's idf correction", "lore.recall.ranker.Ranker", "corrected"),
    ("snippets", "lore.recall.engine._Ranked", "finish"),
    ("the answer's JSON", "lore.recall.model", "recall_json"),
    ("secret masking", "lore.integrations.mcp_server", "_masked"),
)


def wrap(spent: dict[str, float], label: str, owner: Any, name: str) -> None:
    original = getattr(owner, name)

    @functools.wraps(original)
    def timed(*args: Any, **kwargs: Any) -> Any:
        started = time.thread_time()
        try:
            return original(*args, **kwargs)
        finally:
            spent[label] = spent.get(label, 0.0) + time.thread_time() - started

    setattr(owner, name, timed)


def owner_of(path: str) -> Any:
    import importlib

    parts = path.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            found: Any = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for attribute in parts[cut:]:
            found = getattr(found, attribute)
        return found
    raise ImportError(path)


def lore_side(vault: Path, cwd: Path, runs: int) -> tuple[dict[str, float], float, dict[str, Any]]:
    """ms per call of each part, of the whole tool call and its answers (query -> JSON)."""
    os.environ["LORE_VAULT"] = str(vault)
    from lore.integrations.mcp_server import VaultTools

    spent: dict[str, float] = {}
    for label, path, name in PARTS:
        wrap(spent, label, owner_of(path), name)
    tools = VaultTools(None, cwd)
    answers: dict[str, Any] = {}
    for query in CLASSES:
        answers[query] = tools.call("recall", {"query": query, "repo": REPO})
    spent.clear()
    whole = 0.0
    for _ in range(runs):
        for query in CLASSES:
            started = time.thread_time()
            data = tools.call("recall", {"query": query, "repo": REPO})
            json.dumps(data, ensure_ascii=False)  # the text the server sends
            whole += time.thread_time() - started
    calls = runs * len(CLASSES)
    order = [label for label, _, _ in PARTS]  # as listed, whatever ran first
    parts = {k: spent[k] * 1000 / calls for k in sorted(spent, key=order.index)}
    return parts, whole * 1000 / calls, answers


async def sdk_side(answers_file: Path, cwd: Path, runs: int) -> dict[str, float]:
    """The echo server's round trip: ms per call of CPU (client, of which the output
    schema check, and server) and the median wall time."""
    import mcp.client.session as client_session

    checking = [0.0]
    original = client_session.ClientSession.validate_tool_result

    async def timed(self: Any, name: str, result: Any) -> None:
        started = time.thread_time()
        await original(self, name, result)
        checking[0] += time.thread_time() - started

    client_session.ClientSession.validate_tool_result = timed  # type: ignore[method-assign]
    home = Path(tempfile.mkdtemp(prefix="lore-bench-home-"))
    env = {key: os.environ[key] for key in ("HOME", "PATH") if key in os.environ}
    env |= {"LORE_HOME": str(home), "PYTHONPATH": str(SRC)}
    echo = Contender(
        "echo", [sys.executable, str(HERE / "echo_mcp.py"), str(answers_file)], env, cwd
    )
    walls: list[float] = []
    with open(os.devnull, "w") as errlog:
        async with AsyncExitStack() as stack:
            await echo.start(stack, errlog)
            for query in CLASSES:
                await echo.recall(query)
            checking[0] = 0.0
            client_before, server_before = time.process_time(), cpu_seconds(echo.pid)
            for _ in range(runs):
                for query in CLASSES:
                    started = time.perf_counter()
                    await echo.recall(query)
                    walls.append(time.perf_counter() - started)
            client = time.process_time() - client_before
            server = cpu_seconds(echo.pid) - server_before
    client_session.ClientSession.validate_tool_result = original  # type: ignore[method-assign]
    calls = runs * len(CLASSES)
    return {
        "client CPU": client * 1000 / calls,
        "of which the output schema check": checking[0] * 1000 / calls,
        "server CPU (framing, validation, transport)": server * 1000 / calls,
        "wall, median": statistics.median(walls) * 1000,
    }


def floor_side(vault: Path, runs: int) -> float:
    conn, _ = open_index(vault)
    weights = column_weights(conn)
    matches = [" OR ".join(t.fts() for t in query_terms(conn, query)) for query in CLASSES]
    conn.close()
    floor = floor_recall.connect(str(index_path(vault)))
    for match in matches:
        floor_recall.answer(floor, match, weights)
    spent = 0.0
    for _ in range(runs):
        for match in matches:
            started = time.thread_time()
            floor_recall.answer(floor, match, weights)
            spent += time.thread_time() - started
    floor.close()
    return spent * 1000 / (runs * len(matches))


def bench_size(size: int, workdir: Path, runs: int, run: Callable[..., Any]) -> dict[str, Any]:
    vault, _ = prepare(size, workdir, None)
    load_before = os.getloadavg()
    floor_ms = floor_side(vault, runs)
    parts, whole, answers = lore_side(vault, workdir, runs)
    answers_file = workdir / f"answers-{size}.json"
    answers_file.write_text(json.dumps(answers), encoding="utf-8")
    sdk = run(sdk_side, answers_file, workdir, runs)
    rank = parts["ranking, all"]
    inside = sum(parts[k] for k in parts if k.startswith(("first-stage", "exact cut")))
    parts["re-ranking: boosts, statuses, the hits' rows"] = rank - inside
    del parts["ranking, all"]
    named = sum(v for k, v in parts.items() if not k.startswith("of which"))
    parts["the rest (the tool's own code, sanitizing, the JSON text)"] = whole - named
    return {
        "notes": size,
        "runs_per_query": runs,
        "queries": list(CLASSES),
        "cpu_ms_per_call": {
            "floor, in-process": round(floor_ms, 3),
            "lore's tool call, in-process": round(whole, 3),
            **{f"lore: {k}": round(v, 3) for k, v in parts.items()},
            **{f"SDK (echo): {k}": round(v, 3) for k, v in sdk.items() if k != "wall, median"},
        },
        "echo_wall_ms_median": round(sdk["wall, median"], 3),
        "load_average_before": [round(x, 2) for x in load_before],
        "load_average_after": [round(x, 2) for x in os.getloadavg()],
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", type=int, nargs="+", default=[10000, 100000])
    parser.add_argument("--workdir", type=Path, help="where vaults are generated (kept)")
    parser.add_argument("--runs", type=int, default=20, help="calls of each query per part")
    args = parser.parse_args()
    import anyio

    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="lore-bench-"))
    workdir.mkdir(parents=True, exist_ok=True)
    table = []
    for size in args.sizes:
        print(f"{size} notes…", flush=True)
        result = bench_size(size, workdir, args.runs, anyio.run)
        save_result(f"mcp-split-{size}", result)
        table += [
            {"notes": size, "part": part, "cpu_ms": ms}
            for part, ms in result["cpu_ms_per_call"].items()
        ]
        print(f"  echo wall median: {result['echo_wall_ms_median']} ms", flush=True)
    print_table(table, ["notes", "part", "cpu_ms"])


if __name__ == "__main__":
    main()
