"""`lore mcp`, driven by the official SDK's own stdio client against a real vault.

One server process serves every check (starting it costs about a second).
"""

from __future__ import annotations

import json
import keyword
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support import Vault

mcp = pytest.importorskip("mcp", reason="the [mcp] extra is not installed")

from mcp import ClientSession, StdioServerParameters, stdio_client  # noqa: E402


def run_session(vault: Vault, cwd: Path, steps: Any) -> Any:
    import anyio

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "lore", "mcp"],
        env={
            "LORE_VAULT": str(vault.root),
            "LORE_HOME": os.environ["LORE_HOME"],
            "LORE_TODAY": os.environ["LORE_TODAY"],
            "HOME": os.environ["HOME"],
            "GIT_CONFIG_NOSYSTEM": "1",
        },
        cwd=str(cwd),
    )

    async def main() -> Any:
        with open(os.devnull, "w") as errlog:
            async with (
                stdio_client(params, errlog=errlog) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                return await steps(session)

    return anyio.run(main)


SUPERSEDED = "postgres--pgbouncer-session-pooling--2024-01-10"


@pytest.fixture
def mcp_vault(team_vault: Vault) -> Vault:
    """The team vault plus a note that a newer one replaced (inactive)."""
    from lore.index.build import open_index
    from tests.support import note_text

    team_vault.write(
        SUPERSEDED,
        note_text(
            "PgBouncer ran in session pooling mode",
            type="decision",
            tags="[tool/postgres, tool/pgbouncer]",
            date="2024-01-10",
            body="## What\nPgBouncer used session pooling before the move to transactions.\n",
        ),
    )
    current = team_vault.root / "notes/postgres--pgbouncer-transaction-pooling--2025-03-11.md"
    text = current.read_text(encoding="utf-8")
    current.write_text(text.replace("---\n## What", f"supersedes: [{SUPERSEDED}]\n---\n## What"))
    team_vault.commit("the pooling decision replaced an older one")
    conn, _ = open_index(team_vault.root)
    conn.close()
    return team_vault


BAD_CALLS: dict[str, tuple[str, dict[str, Any], str]] = {
    # name: (tool, arguments, what the one sentence must say)
    "traversal": ("get_note", {"id": "../../../etc/passwd"}, "id must be a note id"),
    "path": ("get_note", {"id": "notes/x--y--2026-01-01.md"}, "id must be a note id"),
    "long": ("get_note", {"id": "a--b--2026-01-01" * 40}, "id must be a note id"),
    "bad-date": ("get_note", {"id": "a--b--2026-02-31"}, "is not a note id"),
    "unknown": ("get_note", {"id": "billing--nope--2026-11-02"}, "Did you mean"),
    "not-a-string": ("get_note", {"id": 42}, "id must be a note id"),
    "empty": ("recall", {"query": "   "}, "query is empty"),
    "controls": ("recall", {"query": "\u202e\u200b\x00"}, "query is empty"),
    "huge": ("recall", {"query": "x " * 400}, "1 to 500 characters"),
    "limit": (
        "recall",
        {"query": "postgres", "limit": 500},
        "limit must be a whole number from 1 to 20",
    ),
    "bool-limit": ("recall", {"query": "postgres", "limit": True}, "whole number from 1 to 20"),
    "string-limit": ("recall", {"query": "pg", "limit": "3"}, "whole number from 1 to 20"),
    "repo": ("recall", {"query": "postgres", "repo": "../../x"}, "repo must be a repository name"),
    "type-number": ("recall", {"query": "pg", "type": 7}, "type must be a list"),
    "limit-fraction": ("recall", {"query": "pg", "limit": 2.5}, "whole number from 1 to 20"),
    "also-too-many": (
        "recall",
        {"query": "pg", "also": ["a", "b", "c", "d"]},
        "also must be a list of at most 3 other phrasings",
    ),
    "also-empty": ("recall", {"query": "pg", "also": [""]}, "each 1 to 500 characters"),
    "also-blank": ("recall", {"query": "pg", "also": ["\u200b "]}, "A phrasing in also is empty"),
    "ids-too-many": (
        "get_note",
        {"id": [f"a--b--2026-01-{day:02d}" for day in range(1, 12)]},
        "or a list of up to 10",
    ),
    "recent-missing": ("recent", {}, "recent needs since"),
    "recent-option": ("recent", {"since": "--all"}, "since must be a day such as 2026-11-01"),
    "recent-nowhere": ("recent", {"since": "nowhere"}, "neither a date (YYYY-MM-DD) nor a commit"),
    "recent-type": ("recent", {"since": "2026-01-01", "type": ["gotchas"]}, "known types:"),
    "bad-tag": ("recall", {"query": "pg", "tag": ["Tool/Postgres!"]}, "tag must be a list"),
    "inactive": ("recall", {"query": "pg", "include_inactive": "yes"}, "true or false"),
    "unknown-type": ("recall", {"query": "pg", "type": ["gotchas"]}, "known types:"),
    "unknown-repo": ("recall", {"query": "pg", "repo": "nowhere"}, "known repositories:"),
    "unknown-tag": (
        "recall",
        {"query": "pg", "tag": ["tool/nowhere"]},
        "tag tool/nowhere is not a tag",
    ),
    "extra": ("recall", {"query": "pg", "limt": 3}, "recall has no argument 'limt'; it takes"),
    "missing": ("recall", {}, "recall needs query"),
    "confidence": (
        "remember",
        {"title": "t", "type": "gotcha", "tags": ["tool/x"], "what": "w", "confidence": "sure"},
        "confidence must be one of high, medium, low",
    ),
    "no-tags": ("remember", {"title": "t", "type": "gotcha", "tags": [], "what": "w"}, "1 to 12"),
    "proposals-arg": ("list_proposals", {"vault": "x"}, "list_proposals has no argument"),
    "unknown-tool": ("remember_everything", {}, "lore has no tool 'remember_everything'"),
}


def test_tools_over_stdio(mcp_vault: Vault, work_repo: Path) -> None:
    async def steps(session: ClientSession) -> dict[str, Any]:
        out: dict[str, Any] = {"tools": (await session.list_tools()).tools}
        out["recall"] = await session.call_tool(
            "recall", {"query": "billing integration tests httpx", "limit": 3}
        )
        out["get_note"] = await session.call_tool(
            "get_note", {"id": "billing--integration-tests-use-httpx--2026-11-02"}
        )
        out["gotchas"] = await session.call_tool(
            "recall", {"query": "postgres", "type": ["gotcha"]}
        )
        out["tagged"] = await session.call_tool(
            "recall", {"query": "postgres", "tag": ["tool/alembic"]}
        )
        out["pooling"] = await session.call_tool("recall", {"query": "pgbouncer pooling"})
        out["all"] = await session.call_tool(
            "recall", {"query": "pgbouncer pooling", "include_inactive": True, "repo": ""}
        )
        out["bad"] = {
            name: await session.call_tool(tool, arguments)
            for name, (tool, arguments, _) in BAD_CALLS.items()
        }
        out["fts"] = await session.call_tool(
            "recall", {"query": 'NEAR("postgres" pgbouncer) OR * ^ : AND "unclosed'}
        )
        out["proposals"] = await session.call_tool("list_proposals", {})
        return out

    out = run_session(mcp_vault, work_repo, steps)

    tools = out["tools"]
    # deterministic order
    assert [tool.name for tool in tools] == [
        "recall", "get_note", "remember", "list_proposals", "taxonomy", "recent",
    ]  # fmt: skip
    for tool in tools:
        assert tool.name.isidentifier() and not keyword.iskeyword(tool.name)
        schema = tool.input_schema
        assert schema["type"] == "object" and schema["additionalProperties"] is False
        for name in schema["properties"]:
            assert name.isidentifier() and not keyword.iskeyword(name), (tool.name, name)
        assert tool.output_schema and tool.output_schema["type"] == "object"
        assert tool.annotations.read_only_hint is (tool.name != "remember")
        assert tool.annotations.destructive_hint is False
        assert tool.description and not tool.description.startswith(" ")
    by_name = {tool.name: tool for tool in tools}
    recall_in = by_name["recall"].input_schema
    assert recall_in["required"] == ["query"]
    assert set(recall_in["properties"]) == {
        "query",
        "also",
        "repo",
        "type",
        "tag",
        "include_inactive",
        "limit",
    }
    assert (
        recall_in["properties"]["limit"]["minimum"],
        recall_in["properties"]["limit"]["maximum"],
    ) == (1, 20)
    assert recall_in["properties"]["query"]["maxLength"] == 500
    assert by_name["get_note"].input_schema["required"] == ["id"]
    assert by_name["get_note"].input_schema["properties"]["id"]["maxItems"] == 10
    assert by_name["recent"].input_schema["required"] == ["since"]
    remember_in = by_name["remember"].input_schema["properties"]
    assert remember_in["confidence"]["enum"] == ["high", "medium", "low"]
    assert remember_in["tags"]["minItems"] == 1
    assert by_name["list_proposals"].input_schema["properties"] == {}

    recall = out["recall"]
    assert not recall.is_error
    data = recall.structured_content
    assert data["version"] == 1 and data["engine"] == "fts5" and data["repo"] == "payments-api"
    assert data["results"][0]["id"] == "billing--integration-tests-use-httpx--2026-11-02"
    assert data["vault"]["commit"] and "never instructions" in data["notice"]
    assert json.loads(recall.content[0].text) == data

    note = out["get_note"].structured_content
    assert note["id"] == "billing--integration-tests-use-httpx--2026-11-02"
    assert note["author"] == "octocat" and note["date"] == "2026-11-02"
    assert note["vault"]["commit"] == data["vault"]["commit"]
    assert note["body"].startswith("## What") and note["active"] is True

    jsonschema = pytest.importorskip("jsonschema")  # what each result must look like
    for name in ("recall", "gotchas", "all"):
        jsonschema.validate(out[name].structured_content, by_name["recall"].output_schema)
    jsonschema.validate(note, by_name["get_note"].output_schema)
    jsonschema.validate(
        out["proposals"].structured_content, by_name["list_proposals"].output_schema
    )

    # the CLI's filters
    assert {hit["type"] for hit in out["gotchas"].structured_content["results"]} == {"gotcha"}
    tagged = [hit["id"] for hit in out["tagged"].structured_content["results"]]
    assert tagged == ["postgres--migrations-set-lock-timeout--2025-06-02"]
    active = [hit["id"] for hit in out["pooling"].structured_content["results"]]
    everything = out["all"].structured_content
    assert SUPERSEDED not in active and SUPERSEDED in [hit["id"] for hit in everything["results"]]
    assert everything["repo"] is None  # repo "": no repository boost

    for name, result in out["bad"].items():
        assert result.is_error, name
        text = result.content[0].text
        assert BAD_CALLS[name][2] in text, (name, text)
        for noise in (
            "Traceback",
            "pydantic",
            "http://",
            "https://",
            "validation error",
            "Input should",
        ):
            assert noise not in text, (name, text)
        assert len(text) < 400 and text.count(". ") <= 2, (name, text)
        assert "Tool/Postgres" not in text and "../../" not in text  # the value is not echoed

    assert not out["fts"].is_error  # FTS5 syntax in a query is searched as words


def test_phrasings_batch_reads_and_what_changed_over_stdio(
    mcp_vault: Vault, work_repo: Path
) -> None:
    """recall's `also`, get_note with several ids and `recent`, through the SDK's client:
    each result checked against the tool's own output schema."""
    from tests.support import git

    first = git(mcp_vault.root, "rev-list", "--max-parents=0", "HEAD")
    pooling = "postgres--pgbouncer-transaction-pooling--2025-03-11"
    httpx = "billing--integration-tests-use-httpx--2026-11-02"

    async def steps(session: ClientSession) -> dict[str, Any]:
        out: dict[str, Any] = {"tools": (await session.list_tools()).tools}
        out["one"] = await session.call_tool("recall", {"query": "hot tables", "limit": 3})
        out["fused"] = await session.call_tool(
            "recall", {"query": "hot tables", "also": "pgbouncer transaction mode", "limit": 3.0}
        )
        out["notes"] = await session.call_tool(
            "get_note", {"id": [httpx, pooling, "billing--no-such-note--2026-01-01"]}
        )
        out["note"] = await session.call_tool("get_note", {"id": [httpx]})
        out["recent"] = await session.call_tool("recent", {"since": first})
        out["recent_all"] = await session.call_tool(
            "recent", {"since": first, "include_inactive": True}
        )
        out["recent_day"] = await session.call_tool(
            "recent", {"since": "2026-11-01", "type": "gotcha", "limit": 1}
        )
        out["recent_none"] = await session.call_tool("recent", {"since": "2026-11-02"})
        return out

    out = run_session(mcp_vault, work_repo, steps)
    by_name = {tool.name: tool for tool in out["tools"]}
    jsonschema = pytest.importorskip("jsonschema")
    for name, tool in (
        ("one", "recall"),
        ("fused", "recall"),
        ("notes", "get_note"),
        ("note", "get_note"),
        ("recent", "recent"),
        ("recent_all", "recent"),
        ("recent_day", "recent"),
        ("recent_none", "recent"),
    ):
        assert not out[name].is_error, (name, out[name].content[0].text)
        jsonschema.validate(out[name].structured_content, by_name[tool].output_schema)

    one = out["one"].structured_content
    assert "phrasings" not in one and pooling not in [hit["id"] for hit in one["results"]]
    fused = out["fused"].structured_content  # a string for `also`, 3.0 for `limit`: accepted
    assert fused["phrasings"] == ["hot tables", "pgbouncer transaction mode"]
    found = [hit["id"] for hit in fused["results"]]
    assert len(found) <= 3
    assert "postgres--migrations-set-lock-timeout--2025-06-02" in found and pooling in found

    notes = out["notes"].structured_content
    assert [note["id"] for note in notes["notes"]] == [httpx, pooling]
    assert notes["missing"] == ["billing--no-such-note--2026-01-01"]
    assert all(note["body"].startswith("## What") for note in notes["notes"])
    assert out["note"].structured_content["id"] == httpx  # one id: the note itself

    recent = out["recent"].structured_content
    assert [(c["id"], c["change"]) for c in recent["changes"]] == [(pooling, "changed")]
    assert recent["vault"]["from_commit"] == first and recent["removed"] == []
    every = out["recent_all"].structured_content["changes"]
    assert {(c["id"], c["change"]) for c in every} == {(pooling, "changed"), (SUPERSEDED, "added")}
    day = out["recent_day"].structured_content  # the first commit's day: every note is new
    assert [c["type"] for c in day["changes"]] == ["gotcha"] and day["more"] == 1
    assert out["recent_none"].structured_content["changes"] == []


def test_initialize_and_tools_list_read_no_vault(work_repo: Path, tmp_path: Path) -> None:
    """A server whose vault does not exist still starts and lists its tools: nothing is
    read before a call; the call then says what is wrong in one sentence."""
    nowhere = Vault(tmp_path / "no-vault-here")

    async def steps(session: ClientSession) -> Any:
        listed = await session.list_tools()
        return listed, await session.call_tool("recall", {"query": "postgres"})

    listed, recall = run_session(nowhere, work_repo, steps)
    assert [tool.name for tool in listed.tools] == [
        "recall",
        "get_note",
        "remember",
        "list_proposals",
        "taxonomy",
        "recent",
    ]
    assert recall.is_error and "does not exist" in recall.content[0].text


def test_tool_logic_without_transport(team_vault: Vault, work_repo: Path) -> None:
    from lore.integrations.mcp_server import ToolFailure, VaultTools

    tools = VaultTools(None, work_repo)
    assert tools.call("recall", {"query": "pgbouncer pooling", "limit": 1})["results"][0]["id"] == (
        "postgres--pgbouncer-transaction-pooling--2025-03-11"
    )
    with pytest.raises(ToolFailure, match="id must be a note id"):
        tools.call("get_note", {"id": "x" * 500})
    elsewhere = work_repo.parent / "a-folder-the-taxonomy-does-not-name"
    elsewhere.mkdir()
    found = VaultTools(None, elsewhere).call("recall", {"query": "pgbouncer pooling"})
    assert found["results"]  # a repository only guessed from the folder is not checked
    lost = VaultTools(str(work_repo / "nowhere"), work_repo)
    with pytest.raises(ToolFailure, match="does not exist"):
        lost.call("recall", {"query": "anything"})


def test_the_published_schema_decides_what_a_call_may_send() -> None:
    """`check_arguments` accepts exactly what each tool's published input schema accepts
    (checked here with an independent JSON Schema validator), after one leniency: a
    single string where a list is expected is a list of one."""
    jsonschema = pytest.importorskip("jsonschema")
    from lore.integrations.mcp_tools import BY_NAME, TOOLS, ArgumentError, check_arguments

    def verdict(tool: str, arguments: dict[str, Any]) -> bool:
        try:
            check_arguments(BY_NAME[tool], arguments)
        except ArgumentError:
            return False
        return True

    for name, (tool, arguments, _) in BAD_CALLS.items():
        spec = BY_NAME.get(tool)
        if spec is None:
            continue
        schema = spec.input_schema()
        lenient = {
            key: [value]
            if isinstance(value, str) and schema["properties"].get(key, {}).get("type") == "array"
            else value
            for key, value in arguments.items()
        }
        valid = jsonschema.Draft202012Validator(schema).is_valid(lenient)
        assert verdict(tool, arguments) == valid, name
    for spec in TOOLS:  # each schema's own defaults are accepted
        defaults = {
            key: value["default"]
            for key, value in spec.input_schema()["properties"].items()
            if "default" in value
        }
        assert verdict(spec.name, defaults) is ("required" not in spec.input_schema()), spec.name

    good = {
        "query": "postgres",
        "also": ["pg pool"],
        "repo": "",
        "type": ["gotcha"],
        "tag": ["tool/postgres"],
        "include_inactive": True,
        "limit": 20,
    }
    assert check_arguments(BY_NAME["recall"], good) == good
    jsonschema.validate(good, BY_NAME["recall"].input_schema())
    # What the schema allows is allowed: 3.0 is an integer in JSON Schema, and comes back as 3.
    checked = check_arguments(BY_NAME["recall"], {"query": "pg", "limit": 3.0})
    assert checked["limit"] == 3 and type(checked["limit"]) is int
    # One string where a list is expected is a list of one; anything else is still refused.
    assert check_arguments(BY_NAME["recall"], {"query": "pg", "type": "gotcha"})["type"] == [
        "gotcha"
    ]
    note = "billing--integration-tests-use-httpx--2026-11-02"
    assert check_arguments(BY_NAME["get_note"], {"id": note}) == {"id": [note]}
    with pytest.raises(ArgumentError, match="query must be the words"):
        check_arguments(BY_NAME["recall"], {"query": ["pg"]})  # a list is not a string
    with pytest.raises(ArgumentError, match="takes its arguments as a JSON object"):
        check_arguments(BY_NAME["recall"], ["pg"])


def test_remember_proposes_on_a_branch_and_never_touches_main(
    team_vault: Vault, work_repo: Path
) -> None:
    from lore.integrations.mcp_server import ToolFailure, VaultTools
    from tests.support import git

    git(team_vault.root, "config", "user.name", "Agent User")
    git(team_vault.root, "config", "user.email", "agent@example.invalid")
    tools = VaultTools(None, work_repo)
    main_before = git(team_vault.root, "rev-parse", "main")
    note = {
        "title": "Ledger exports run after the nightly reconcile job",
        "type": "gotcha",
        "tags": ["service/billing"],
        "what": "Ledger CSV exports must start after the nightly reconcile job finishes.",
        "why": "An export that starts earlier misses the day's adjustments.",
        "repo": "payments-api",
    }
    done = tools.call("remember", note)
    # The vault has no remote here, so the proposal stays a local branch to push later.
    assert done["status"] == "committed", done
    branch = done["branch"]
    assert branch == f"lore/{done['id']}"
    assert git(team_vault.root, "rev-parse", "main") == main_before
    added = git(team_vault.root, "diff", "--name-only", "main", branch)
    assert added == f"notes/{done['id']}.md"
    listed = tools.call("list_proposals", {})
    assert [p["id"] for p in listed["vaults"][0]["proposals"]] == [done["id"]]

    token = "ghp_" + "x9K2mQ7vL4pR8sT1wZ6yB3nC5dF0gH2jK4lM"  # built at run time: no literal token
    with pytest.raises(ToolFailure) as secret:
        tools.call("remember", {**note, "title": "Deploy token", "what": f"Use {token} to deploy."})
    blocked = secret.value.data
    assert blocked is not None and blocked["status"] == "blocked"
    assert any(f["rule"].startswith("secret/") for f in blocked["findings"])
    assert token not in json.dumps(blocked) and token not in str(secret.value)
    branches = git(team_vault.root, "branch", "--list", "lore/*")
    assert branches.count("lore/") == 1  # the blocked note left no branch behind


def test_a_blocked_remember_is_an_error_result_that_offers_no_force(
    team_vault: Vault, work_repo: Path
) -> None:
    note = {
        "title": "Ledger exports run after the nightly reconcile job",
        "type": "gotcha",
        "tags": ["tool/not-in-the-taxonomy"],  # a curator error: nothing is proposed
        "what": "Ledger CSV exports must start after the nightly reconcile job finishes.",
    }

    async def steps(session: ClientSession) -> Any:
        return await session.call_tool("remember", note)

    result = run_session(team_vault, work_repo, steps)
    assert result.is_error is True
    data = result.structured_content
    assert data["status"] == "blocked" and data["vault"] == team_vault.root.name
    assert any(f["rule"].startswith("taxonomy/") for f in data["findings"])
    text = result.content[0].text
    assert "nothing was proposed" in text and "call remember again" in text
    assert "--force" not in text and "--force" not in json.dumps(data)


def test_without_the_sdk_lore_mcp_says_how_to_get_it() -> None:
    import subprocess

    code = (
        "import sys; sys.modules['mcp'] = None\n"  # as if the [mcp] extra were not installed
        "from lore.cli.main import main\nraise SystemExit(main(['mcp']))\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert run.returncode == 2
    assert "needs the `mcp` package" in run.stderr and "Traceback" not in run.stderr


def test_every_tool_is_in_the_help_and_the_docs_with_an_example_its_schema_accepts() -> None:
    """`lore mcp --help` and docs/mcp.md name every tool with all its arguments, and give
    one example call each, which the tool's own schema accepts."""
    import re
    import subprocess

    from lore.integrations.mcp_tools import TOOLS, check_arguments

    help_text = subprocess.run(
        [sys.executable, "-m", "lore", "mcp", "--help"],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "COLUMNS": "100"},
    ).stdout
    docs = (Path(__file__).resolve().parents[2] / "docs" / "mcp.md").read_text(encoding="utf-8")
    for tool in TOOLS:
        for text, where in ((help_text, "lore mcp --help"), (docs, "docs/mcp.md")):
            signature = re.search(rf"{tool.name}\(([^)]*)\)", text)
            assert signature, f"{where} does not list {tool.name}"
            named = set(re.findall(r"\w+", signature[1]))
            assert named == set(tool.params), (where, tool.name, named)
        # help: the example is the first line after the signature that opens a JSON object,
        # with the lines that complete it
        lines = help_text[help_text.index(f"{tool.name}(") :].splitlines()
        start = next(i for i, line in enumerate(lines) if line.strip().startswith("{"))
        example = next(
            parsed
            for end in range(start, len(lines))
            if (parsed := _json_or_none(" ".join(lines[start : end + 1]))) is not None
        )
        check_arguments(tool, example)
        # docs: the first ```json block of the tool's own section
        section = docs[docs.index(f"### `{tool.name}(") :]
        section = section[: section.find("\n### ", 1) if "\n### " in section[1:] else None]
        block = re.search(r"```json\n(.*?)\n```", section, re.DOTALL)
        assert block, f"docs/mcp.md has no example call for {tool.name}"
        check_arguments(tool, json.loads(block[1]))


def _json_or_none(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return None
