"""A running `lore mcp` keeps its index open between calls and still serves what is current.

Through the official SDK's stdio client, against one long-lived server as an agent keeps
it for a session:

- a merge on the remote, synced between two calls, is seen by the second call; the
  server reads the reviewed branch's tip from its ref file (loose, then only in
  `packed-refs`) and starts no process to do so (an audit hook in the server records
  every attempt);
- a warm recall answers exactly as `lore recall --json` does, for every query class:
  typical queries, queries of common words only, a repository boost, type and tag
  filters, inactive notes included, several limits.
"""

from __future__ import annotations

import json
import os
import random
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from lore.cli.main import main
from tests.support import Vault, git, note_text
from tests.team.conftest import Remote, clone_of, remote, team_env

pytest.importorskip("mcp", reason="the [mcp] extra is not installed")

from mcp import StdioServerParameters

from tests.faults.test_index_mcp import McpClient, mcp_client

__all__ = ["clone_of", "remote", "team_env"]  # the team fixtures, used here

CHILD_EVENTS = ("subprocess.Popen", "os.posix_spawn", "os.exec", "os.fork", "os.spawn", "os.system")
# `lore mcp` with an audit hook that appends every attempt to start a process to
# $LORE_TRACE at once (the server may be stopped rather than exit).
TRACED_SERVER = f"""
import os, sys
def audit(event, args):
    if event.startswith({CHILD_EVENTS!r}):
        with open(os.environ["LORE_TRACE"], "a", encoding="utf-8") as out:
            out.write(event + " " + repr(args)[:200] + "\\n")
sys.addaudithook(audit)
from lore.cli.main import main
sys.exit(main(["mcp"]))
"""


def server(root: Path, cwd: Path, trace: Path | None = None) -> StdioServerParameters:
    env = {
        key: os.environ[key]
        for key in ("HOME", "LORE_HOME", "LORE_CONFIG", "LORE_TODAY", "PATH", "PYTHONPATH")
        if key in os.environ
    }
    env |= {"LORE_VAULT": str(root), "GIT_CONFIG_NOSYSTEM": "1"}
    if trace is not None:
        env["LORE_TRACE"] = str(trace)
        return StdioServerParameters(
            command=sys.executable, args=["-c", TRACED_SERVER], env=env, cwd=str(cwd)
        )
    return StdioServerParameters(
        command=sys.executable, args=["-m", "lore", "mcp"], env=env, cwd=str(cwd)
    )


def recalled(client: McpClient, arguments: dict[str, Any]) -> dict[str, Any]:
    result = client.call("recall", arguments)
    assert not result.is_error, result.content[0].text
    data: dict[str, Any] = result.structured_content
    return data


def ids(data: dict[str, Any]) -> list[str]:
    return [hit["id"] for hit in data["results"]]


def children(trace: Path) -> list[str]:
    return trace.read_text(encoding="utf-8").splitlines() if trace.exists() else []


INVOICES = "billing--invoices-are-immutable--2026-10-30"
REFUNDS = "billing--refunds-go-through-the-ledger--2026-10-31"


def test_a_merge_synced_between_two_calls_is_seen_by_the_second(
    remote: Remote, clone_of: Callable[..., Path], tmp_path: Path
) -> None:
    checkout = clone_of()
    assert main(["sync", "--vault", str(checkout), "--quiet"]) == 0  # the index, built
    trace = tmp_path / "children.log"
    work = tmp_path / "work"
    work.mkdir()
    with mcp_client(server(checkout, work, trace)) as client:
        first = recalled(client, {"query": "invoice credit note", "repo": ""})
        assert INVOICES not in ids(first)

        merged = remote.commit_note(
            INVOICES,
            note_text(
                "Invoices are immutable once issued",
                tags="[service/billing]",
                body="## What\nAn issued invoice is never edited; a credit note corrects it.\n",
            ),
        )
        assert main(["sync", "--vault", str(checkout), "--quiet"]) == 0
        second = recalled(client, {"query": "invoice credit note", "repo": ""})
        assert ids(second)[0] == INVOICES
        assert second["vault"]["commit"] == merged != first["vault"]["commit"]

        # The tip only in packed-refs: read from there, still without a process.
        merged = remote.commit_note(
            REFUNDS,
            note_text(
                "Refunds go through the ledger",
                tags="[service/billing]",
                body="## What\nA refund is a ledger entry first, then a payment.\n",
            ),
        )
        assert main(["sync", "--vault", str(checkout), "--quiet"]) == 0
        git(checkout, "pack-refs", "--all", "--prune")
        assert not (checkout / ".git/refs/remotes/origin/main").exists()
        third = recalled(client, {"query": "refund ledger entry", "repo": ""})
        assert ids(third)[0] == REFUNDS
        assert third["vault"]["commit"] == merged
        again = recalled(client, {"query": "refund ledger entry", "repo": ""})
        assert again == third
    assert children(trace) == []


def test_the_trace_sees_a_process_the_server_starts(
    remote: Remote, clone_of: Callable[..., Path], tmp_path: Path
) -> None:
    """The guard above can fail: a commit fetched without `lore sync` leaves the index
    behind, and the server brings it up to date itself, with git."""
    checkout = clone_of()
    assert main(["sync", "--vault", str(checkout), "--quiet"]) == 0
    trace = tmp_path / "children.log"
    with mcp_client(server(checkout, tmp_path, trace)) as client:
        recalled(client, {"query": "invoice credit note", "repo": ""})
        merged = remote.commit_note(INVOICES, note_text("Invoices are immutable once issued"))
        git(checkout, "fetch", "-q", "origin")
        data = recalled(client, {"query": "invoices immutable", "repo": ""})
        assert ids(data)[0] == INVOICES and data["vault"]["commit"] == merged
    assert any("'git'" in child for child in children(trace)), children(trace)


# ---- every query class: the warm server answers as `lore recall --json` ----

COMMON = ["deploy", "service", "request", "error", "config", "client"]  # each in ~20-30 %
TOPICS = [
    ["postgres", "replica", "lag", "failover", "vacuum", "wal"],
    ["kafka", "consumer", "retry", "backoff", "partition", "offset"],
    ["canary", "rollback", "helm", "pod", "kubernetes", "probe"],
    ["invoice", "webhook", "ledger", "refund", "stripe", "signature"],
    ["latency", "p99", "alert", "dashboard", "slo", "pager"],
    ["certificate", "secret", "tls", "rotation", "vaultwarden", "expiry"],
    ["cache", "redis", "ttl", "eviction", "stampede", "warmup"],
    ["react", "render", "hook", "state", "suspense", "hydration"],
]
TYPES = ["gotcha", "decision", "convention", "runbook"]
TAGS = ["tool/postgres", "tool/httpx", "service/billing", "pattern/testing", "tool/react"]
REPOS = ["payments-api", "web-app"]


def synthetic_notes(count: int, seed: int = 31) -> dict[str, str]:
    """Notes on a few topics, with common words in a fifth to a third of them, some about
    a repository, a few superseded by a later one."""
    rng = random.Random(seed)
    notes: dict[str, str] = {}
    names: list[str] = []
    for number in range(count):
        topic = TOPICS[number % len(TOPICS)]
        words = [rng.choice(topic) for _ in range(rng.randint(8, 30))]
        words += [word for word in COMMON if rng.random() < 0.25]
        rng.shuffle(words)
        title = " ".join(rng.sample(topic, 3) + rng.sample(COMMON, 1)).capitalize()
        day = f"2026-{1 + number % 9:02d}-{1 + number % 27:02d}"
        note_id = f"{topic[0]}--note-{number}--{day}"
        extra = ""
        if number > 20 and rng.random() < 0.08:
            extra = f"supersedes: [{names[rng.randrange(len(names))]}]\n"
        tags = ", ".join(rng.sample(TAGS, rng.randint(1, 2)))
        about = {"repo": rng.choice(REPOS)} if rng.random() < 0.6 else {}
        body = f"## What\n{' '.join(words).capitalize()}.\n"
        text = note_text(
            title, type=rng.choice(TYPES), tags=f"[{tags}]", date=day, body=body, **about
        )
        notes[note_id] = text.replace("---\n## What", f"{extra}---\n## What") if extra else text
        names.append(note_id)
    return notes


CLASSES: dict[str, list[dict[str, Any]]] = {
    "typical": [
        {"query": "postgres replica lag"},
        {"query": "how do we roll back a canary deploy"},
        {"query": "kafka consumer retry backoff"},
        {"query": "invoice webhook"},
    ],
    "common words only": [
        {"query": "deploy service request"},
        {"query": "error config client"},
        {"query": "service"},
    ],
    "a repository favoured": [
        {"query": "certificate secret pod", "repo": "payments-api"},
        {"query": "p99 latency alert dashboard", "repo": "web-app"},
    ],
    "a type": [
        {"query": "cache redis eviction", "type": ["gotcha"]},
        {"query": "deploy error", "type": ["decision", "runbook"], "repo": "payments-api"},
    ],
    "a tag": [
        {"query": "react render state", "tag": ["tool/react"]},
        {"query": "service request", "tag": ["service"], "type": ["convention"]},
    ],
    "inactive included": [
        {"query": "ledger refund stripe", "include_inactive": True},
        {"query": "kafka partition offset error", "include_inactive": True},
    ],
    "limits": [
        {"query": "postgres vacuum deploy", "limit": 1},
        {"query": "helm probe config", "limit": 20},
    ],
}


def cli_recall(root: Path, arguments: dict[str, Any], capsys: Any) -> dict[str, Any]:
    """`lore recall --json` with the same arguments as the tool call."""
    args = ["recall", "--vault", str(root), "--json", "--limit", str(arguments.get("limit", 5))]
    args += ["--repo", arguments.get("repo", "")]
    for kind in arguments.get("type", []):
        args += ["--type", kind]
    for tag in arguments.get("tag", []):
        args += ["--tag", tag]
    if arguments.get("include_inactive"):
        args.append("--all")
    assert main([*args, arguments["query"]]) == 0
    data: dict[str, Any] = json.loads(capsys.readouterr().out)
    return data


def test_warm_recall_answers_as_lore_recall_for_every_query_class(
    make_vault: Callable[..., Vault], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    vault = make_vault(synthetic_notes(240))
    from lore.index.build import open_index

    conn, state = open_index(vault.root)
    conn.close()
    assert state.notes == 240
    asked = [{"repo": "", **call} for calls in CLASSES.values() for call in calls]
    with mcp_client(server(vault.root, tmp_path)) as client:
        recalled(client, {"query": "warm the server up"})
        served = [recalled(client, call) for call in asked]
        served_again = [recalled(client, call) for call in reversed(asked)][::-1]
    assert served_again == served
    inactive = 0
    for call, data in zip(asked, served, strict=True):
        expected = cli_recall(vault.root, call, capsys)
        assert expected["results"], call
        assert {key: data[key] for key in expected} == expected, call
        inactive += sum(hit.get("active") is False for hit in data["results"])
    assert inactive, "no class returned an inactive note"


def test_the_default_repository_follows_the_working_directory_s_origin(
    make_vault: Callable[..., Vault], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`recall` without `repo` favours the repository the server runs in; the server keeps
    that name while the repository's git config is unchanged, and reads it again after."""
    from lore.integrations.mcp_server import VaultTools

    vault = make_vault(synthetic_notes(30))
    monkeypatch.setenv("LORE_VAULT", str(vault.root))
    work = tmp_path / "checkout"
    (work / "src").mkdir(parents=True)
    git(work, "init", "-q")
    git(work, "remote", "add", "origin", "https://github.com/acme/payments-api.git")
    tools = VaultTools(None, work / "src")
    assert tools.recall("postgres replica lag")["repo"] == "payments-api"
    assert tools.recall("kafka consumer")["repo"] == "payments-api"
    git(work, "remote", "set-url", "origin", "git@github.com:acme/web-app.git")
    assert tools.recall("postgres replica lag")["repo"] == "web-app"
    git(work, "remote", "remove", "origin")
    assert tools.recall("postgres replica lag")["repo"] == "checkout"


def test_the_tools_that_read_the_index_run_on_one_thread_of_their_own() -> None:
    """So every recall finds the same kept connection (`read_index(kept=True)` keeps one
    per thread); a proposal's push runs on the SDK's worker threads instead."""
    import threading

    import anyio

    from lore.integrations.mcp_server import Reader

    reader = Reader()

    async def calls() -> tuple[list[int], list[int]]:
        reads = [await reader.run(name, threading.get_ident) for name in Reader.READS]
        reads += [await reader.run("recall", threading.get_ident) for _ in range(5)]
        others = [await reader.run(name, threading.get_ident) for name in ("remember",)]
        return reads, others

    reads, others = anyio.run(calls)
    assert len(set(reads)) == 1 and reads[0] != threading.get_ident()
    assert reads[0] not in others
