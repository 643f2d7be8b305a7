"""The session-end nudge: each agent's documented end-of-turn payload in, its shape out.

Every agent's payload (test_hook_payloads.DOCUMENTED, cited there) runs through a real
`lore hook session-end` process, `--agent` after and before the event, against a real
git vault. The transcripts are written in each agent's own format (the formats were read
from the agents' own CLIs, installed from npm: Claude Code's JSONL of content blocks,
Codex's rollout JSONL of response items, Copilot CLI's events.jsonl, Gemini CLI's chat
JSONL; Cursor's is not documented, so its session counts by size).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from lore.index.build import open_index
from lore.integrations.agents import AGENTS, BLOCK, DENY, FOLLOWUP
from tests.integrations.conftest import payload as recorded_payload
from tests.integrations.test_hook_payloads import DOCUMENTED, fill
from tests.support import Vault, git


def compact(value: object) -> str:
    """JSON as the agents write it (JSON.stringify, serde_json): no spaces."""
    return json.dumps(value, separators=(",", ":"))


def transcript_lines(agent: str, calls: int, edits: int) -> list[str]:
    """`calls` tool calls, `edits` of them file edits, in the agent's transcript format."""
    lines: list[str] = []
    for n in range(calls):
        edit = n < edits
        if agent == "claude-code":
            block = {
                "type": "tool_use",
                "id": f"toolu_{n}",
                "name": "Edit" if edit else "Bash",
                "input": {"file_path": "src/retry.py"} if edit else {"command": "pytest"},
            }
            lines.append(
                compact(
                    {
                        "type": "assistant",
                        "sessionId": "abc123",
                        "message": {"role": "assistant", "content": [block]},
                    }
                )
            )
            lines.append(
                compact(
                    {
                        "type": "user",
                        "message": {
                            "role": "user",
                            "content": [
                                {
                                    "type": "tool_result",
                                    "tool_use_id": f"toolu_{n}",
                                    "content": "ok",
                                }
                            ],
                        },
                    }
                )
            )
        elif agent == "codex":
            item = (
                {
                    "type": "custom_tool_call",
                    "name": "apply_patch",
                    "call_id": f"c{n}",
                    "input": "*** Begin Patch\n*** End Patch",
                }
                if edit
                else {
                    "type": "function_call",
                    "name": "shell",
                    "call_id": f"c{n}",
                    "arguments": compact({"command": ["pytest"]}),
                }
            )
            lines.append(
                compact(
                    {"timestamp": "2026-11-20T10:00:00Z", "type": "response_item", "payload": item}
                )
            )
        elif agent == "copilot-cli":
            data = {"toolCallId": f"t{n}", "toolName": "edit" if edit else "bash", "arguments": {}}
            lines.append(compact({"type": "tool.execution_start", "data": data, "id": f"e{n}"}))
        elif agent == "gemini-cli":
            call = {
                "id": f"c{n}",
                "name": "replace" if edit else "run_shell_command",
                "args": {},
                "result": [],
                "status": "success",
            }
            lines.append(
                compact({"id": f"m{n}", "type": "gemini", "content": "", "toolCalls": [call]})
            )
        else:  # cursor: no documented format; only its size counts
            lines.append(compact({"role": "assistant", "text": "x" * 2000}))
    return lines


def write_transcript(path: Path, agent: str, *, calls: int, edits: int = 0) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = transcript_lines(agent, calls, edits)
    if agent == "gemini-cli":
        lines.insert(0, compact({"sessionId": "a3c0e5b2", "projectHash": "5f2a"}))
    with path.open("a", encoding="utf-8") as handle:
        handle.write("".join(line + "\n" for line in lines))
    return path


def real_work(path: Path, agent: str) -> Path:
    """A session that read, ran and edited: enough for the nudge, in any agent's format."""
    if agent == "cursor":
        return write_transcript(path, agent, calls=300)  # ~600 KB
    return write_transcript(path, agent, calls=8, edits=2)


def end_payload(agent: str, cwd: Path, transcript: Path | None, **changes: Any) -> bytes:
    _, documented = DOCUMENTED[agent]["session-end"]
    return fill({**documented, **changes}, cwd, transcript)


def hook(args: list[str], stdin: bytes, **env: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "lore", "hook", *args],
        input=stdin,
        capture_output=True,
        env={**os.environ, **env},
        timeout=60,
    )


def expected(agent: str, text: str) -> dict[str, Any]:
    way = AGENTS[agent].continues
    if way == FOLLOWUP:
        return {"followup_message": text}
    assert way in (BLOCK, DENY)
    return {"decision": way, "reason": text}


LOOP_GUARD = {agent: {"stop_hook_active": True} for agent in AGENTS} | {"cursor": {"loop_count": 1}}


@pytest.mark.parametrize("position", ["after", "before"])
@pytest.mark.parametrize("agent", list(AGENTS))
def test_the_nudge_fires_once_after_real_work_in_the_agents_shape(
    agent: str, position: str, team_vault: Vault, work_repo: Path, tmp_path: Path
) -> None:
    args = (
        ["session-end", "--agent", agent]
        if position == "after"
        else ["--agent", agent, "session-end"]
    )
    transcript = write_transcript(tmp_path / "t" / "session.jsonl", agent, calls=1)
    quiet = hook(args, end_payload(agent, work_repo, transcript))
    assert (quiet.returncode, quiet.stdout, quiet.stderr) == (0, b"", b"")  # no real work yet

    real_work(transcript, agent)
    asked = hook(args, end_payload(agent, work_repo, transcript))
    assert asked.returncode == 0 and asked.stderr == b""
    assert asked.stdout.isascii() and asked.stdout.endswith(b"\n")
    data = json.loads(asked.stdout)
    text = data.get("reason") or data.get("followup_message")
    assert isinstance(text, str) and data == expected(agent, text)
    assert "lore-remember skill" in text and "`lore remember --draft`" in text
    assert "draft: true" in text and "not propose it as a pull request" in text
    assert len(text) < 800 and "\n" not in text  # one short paragraph

    real_work(transcript, agent)  # more work, a later turn: never twice
    again = hook(args, end_payload(agent, work_repo, transcript))
    assert (again.returncode, again.stdout, again.stderr) == (0, b"", b"")


@pytest.mark.parametrize("agent", list(AGENTS))
def test_a_forced_turn_never_gets_the_nudge(
    agent: str, team_vault: Vault, work_repo: Path, tmp_path: Path
) -> None:
    """The loop guard: an end of turn that an end-of-turn hook forced is silent, even in a
    session that did real work and was never asked; the next real end of turn is asked."""
    transcript = real_work(tmp_path / "t" / "session.jsonl", agent)
    forced = end_payload(agent, work_repo, transcript, **LOOP_GUARD[agent])
    run = hook(["session-end", "--agent", agent], forced)
    assert (run.returncode, run.stdout, run.stderr) == (0, b"", b"")
    run = hook(["session-end", "--agent", agent], end_payload(agent, work_repo, transcript))
    assert run.stdout


def test_silent_without_a_vault_an_index_or_a_session(
    make_vault: Any, work_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    transcript = real_work(tmp_path / "t" / "session.jsonl", "claude-code")
    args = ["session-end", "--agent", "claude-code"]
    stdin = end_payload("claude-code", work_repo, transcript)
    assert hook(args, stdin).stdout == b""  # no vault configured at all
    assert hook(args, stdin, LORE_VAULT=str(tmp_path / "gone")).stdout == b""
    vault = make_vault()  # a vault whose index was never built
    assert hook(args, stdin, LORE_VAULT=str(vault.root)).stdout == b""
    conn, _ = open_index(vault.root)
    conn.close()
    nameless = end_payload("claude-code", work_repo, transcript, session_id="")
    assert hook(args, nameless, LORE_VAULT=str(vault.root)).stdout == b""
    for junk in (b"", b"[]", b"not json", b'{"stop_hook_active": "yes"'):
        run = hook(args, junk, LORE_VAULT=str(vault.root))
        assert (run.returncode, run.stdout, run.stderr) == (0, b"", b"")
    assert hook(args, stdin, LORE_VAULT=str(vault.root)).stdout  # and now it asks


def test_the_vault_turns_it_off_from_the_served_commit(
    team_vault: Vault, work_repo: Path, tmp_path: Path
) -> None:
    """`[hooks] session_end` is read as committed (and indexed), not from the working tree."""
    settings = team_vault.root / "lore.toml"
    original = settings.read_text(encoding="utf-8")
    settings.write_text(original.replace("session_end = true", "session_end = false"))
    assert "session_end = false" in settings.read_text(encoding="utf-8")
    args = ["session-end", "--agent", "codex"]
    first = real_work(tmp_path / "a.jsonl", "codex")
    assert hook(
        args, end_payload("codex", work_repo, first, session_id="s-1")
    ).stdout  # uncommitted
    team_vault.commit("no end-of-session nudge")
    conn, _ = open_index(team_vault.root)
    conn.close()
    second = real_work(tmp_path / "b.jsonl", "codex")
    assert hook(args, end_payload("codex", work_repo, second, session_id="s-2")).stdout == b""
    settings.write_text(original)  # back on in the working tree only: still off
    assert hook(args, end_payload("codex", work_repo, second, session_id="s-3")).stdout == b""


def test_the_user_config_turns_it_off(
    team_vault: Vault, work_repo: Path, tmp_path: Path, isolated_home: Path
) -> None:
    config = Path(os.environ["LORE_CONFIG"])
    config.write_text("[hooks]\nsession_end = false\n", encoding="utf-8")
    transcript = real_work(tmp_path / "t.jsonl", "gemini-cli")
    args = ["session-end", "--agent", "gemini-cli"]
    assert hook(args, end_payload("gemini-cli", work_repo, transcript)).stdout == b""
    config.write_text("[hooks]\nsession_end = true\n", encoding="utf-8")
    assert hook(args, end_payload("gemini-cli", work_repo, transcript)).stdout


def test_claude_code_asks_after_a_compaction_on_the_session_start(
    team_vault: Vault, work_repo: Path, tmp_path: Path
) -> None:
    """PreCompact cannot reach the model; the SessionStart that follows it (source
    "compact") can. The question rides on the digest there, once; a later Stop is silent."""
    start = recorded_payload("claude-code", "session-start", work_repo)
    compacted = json.dumps({**json.loads(start), "source": "compact"}).encode()
    run = hook(["session-start", "--agent", "claude-code"], compacted)
    context = json.loads(run.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "billing--integration-tests-use-httpx--2026-11-02" in context  # the digest, again
    assert context.rstrip().endswith("lore asks this once per session.")
    assert "just compacted" in context
    run = hook(["session-start", "--agent", "claude-code"], compacted)
    context = json.loads(run.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "once per session" not in context  # the digest only
    session = json.loads(start)["session_id"]
    transcript = real_work(tmp_path / "t.jsonl", "claude-code")
    stop = end_payload("claude-code", work_repo, transcript, session_id=session)
    assert hook(["session-end", "--agent", "claude-code"], stop).stdout == b""


@pytest.mark.parametrize("agent", [name for name in AGENTS if AGENTS[name].kept_on])
def test_a_resumed_session_that_has_the_digest_is_not_given_it_again(
    agent: str, team_vault: Vault, work_repo: Path
) -> None:
    start = json.loads(recorded_payload(agent, "session-start", work_repo))
    resumed = json.dumps({**start, "source": "resume"}).encode()
    first = hook(["session-start", "--agent", agent], json.dumps(start).encode())
    assert b"payments-api" in first.stdout
    again = hook(["session-start", "--agent", agent], resumed)
    assert (again.returncode, again.stdout) == (0, b"")
    other = json.dumps({**json.loads(resumed), **_other_session(agent)}).encode()
    assert b"payments-api" in hook(["session-start", "--agent", agent], other).stdout
    team_vault.write(  # a merged note: the resumed history holds an older digest
        "billing--refunds-run-nightly--2026-11-19",
        (team_vault.root / "notes/billing--integration-tests-use-httpx--2026-11-02.md")
        .read_text(encoding="utf-8")
        .replace("Integration tests use httpx", "Refunds run nightly"),
    )
    team_vault.commit("a new note")
    conn, _ = open_index(team_vault.root)
    conn.close()
    newer = hook(["session-start", "--agent", agent], resumed)
    assert b"billing--refunds-run-nightly--2026-11-19" in newer.stdout


def _other_session(agent: str) -> dict[str, str]:
    key = "sessionId" if agent == "copilot-cli" else "session_id"
    return {key: "another-session"}


def test_work_is_counted_incrementally_from_whole_lines(tmp_path: Path) -> None:
    from lore.integrations.nudge import count_work, did_real_work
    from lore.integrations.session_state import SessionState

    markers = AGENTS["claude-code"].work
    path = write_transcript(tmp_path / "t.jsonl", "claude-code", calls=3, edits=1)
    state = SessionState(tmp_path / "state.json")
    count_work(state, str(path), markers)
    assert (state.tool_calls, state.edits, state.offset) == (3, 1, path.stat().st_size)
    with path.open("a", encoding="utf-8") as handle:  # a line still being written
        handle.write('{"type":"assistant","message":{"content":[{"type":"tool_use","na')
    count_work(state, str(path), markers)
    assert state.tool_calls == 3 and not did_real_work(state)
    with path.open("a", encoding="utf-8") as handle:
        handle.write('me":"Write"}]}}\n')
    count_work(state, str(path), markers)
    assert (state.tool_calls, state.edits) == (4, 2)
    write_transcript(path, "claude-code", calls=1)
    count_work(state, str(path), markers)
    assert state.tool_calls == 5 and did_real_work(state)
    path.write_text("")  # a file that shrank is counted again from its start
    count_work(state, str(path), markers)
    assert (state.tool_calls, state.edits, state.offset) == (0, 0, 0)
    for odd in ("", "relative/path.jsonl", str(tmp_path), str(tmp_path / "missing.jsonl")):
        count_work(state, odd, markers)
        assert state.transcript == ""


def pretty(lines: list[str]) -> str:
    """The same values, pretty-printed over many lines each (a writer that indents)."""
    return "".join(json.dumps(json.loads(line), indent=2) + "\n" for line in lines)


@pytest.mark.parametrize("agent", [name for name in AGENTS if AGENTS[name].work.tool_calls])
def test_a_pretty_printed_transcript_counts_the_same_work(
    agent: str, team_vault: Vault, work_repo: Path, tmp_path: Path
) -> None:
    """The nudge reads any valid JSON values, not only compact lines: the same session
    written with `indent=2` is real work too (it counted none of it)."""
    transcript = tmp_path / "t" / "session.json"
    transcript.parent.mkdir()
    transcript.write_text(pretty(transcript_lines(agent, 8, 2)), encoding="utf-8")
    run = hook(["session-end", "--agent", agent], end_payload(agent, work_repo, transcript))
    assert run.returncode == 0 and run.stderr == b""
    assert b"lore-remember skill" in run.stdout, run.stdout


def test_pretty_printed_work_is_counted_once_as_its_lines_arrive(tmp_path: Path) -> None:
    from lore.integrations.nudge import count_work
    from lore.integrations.session_state import SessionState

    markers = AGENTS["claude-code"].work
    path = tmp_path / "t.json"
    text = pretty(transcript_lines("claude-code", 3, 1))
    cut = text.index('"name": "Bash"')  # inside the second call, mid-line
    path.write_text(text[:cut], encoding="utf-8")
    state = SessionState(tmp_path / "state.json")
    count_work(state, str(path), markers)
    assert (state.tool_calls, state.edits) == (2, 1)  # the second call's "type" line is in
    assert state.offset == text.rfind("\n", 0, cut) + 1  # the line being written waits
    path.write_text(text, encoding="utf-8")
    count_work(state, str(path), markers)
    assert (state.tool_calls, state.edits, state.offset) == (3, 1, path.stat().st_size)
    quoted = json.dumps({"type": "user", "text": json.dumps({"type": "tool_use"}, indent=1)})
    path.write_text(text + quoted + "\n", encoding="utf-8")  # JSON inside a string
    count_work(state, str(path), markers)
    assert state.tool_calls == 3
    one_document = json.dumps([json.loads(line) for line in transcript_lines("codex", 4, 1)])
    path.write_text(one_document + "\n", encoding="utf-8")  # smaller: counted from the start
    count_work(state, str(path), AGENTS["codex"].work)
    assert (state.tool_calls, state.edits) == (4, 1)


def test_without_a_transcript_turns_count(tmp_path: Path) -> None:
    from lore.integrations.nudge import MIN_TURNS, did_real_work
    from lore.integrations.session_state import SessionState

    state = SessionState(tmp_path / "s.json")
    state.turns = MIN_TURNS - 1
    assert not did_real_work(state)
    state.turns = MIN_TURNS
    assert did_real_work(state)
    state.transcript = "/a/transcript.jsonl"  # a transcript that shows no work: no
    assert not did_real_work(state)


def test_a_broken_state_file_reads_as_a_new_session(tmp_path: Path) -> None:
    from lore.integrations.session_state import load_state, save_state, state_path

    path = state_path("codex", "s-1")
    assert path is not None and "s-1" not in str(path)
    assert state_path("codex", "") is None
    path.parent.mkdir(parents=True)
    for junk in (b"", b"[]", b'{"nudged": "yes", "tool_calls": true}', b"\xff"):
        path.write_bytes(junk)
        state = load_state("codex", "s-1")
        assert state is not None and state.nudged is False and state.tool_calls == 0
    state.nudged = True
    save_state(state)
    reread = load_state("codex", "s-1")
    assert reread is not None and reread.nudged is True


def test_the_session_end_hook_imports_nothing_heavy(
    team_vault: Vault, work_repo: Path, tmp_path: Path
) -> None:
    transcript = real_work(tmp_path / "t.jsonl", "claude-code")
    code = (
        "import sys, runpy; sys.argv = ['lore', 'hook', 'session-end', '--agent', 'claude-code']\n"
        "try:\n    runpy.run_module('lore', run_name='__main__')\nexcept SystemExit:\n    pass\n"
        "heavy = {'yaml', 'git', 'rich', 'subprocess', 'dataclasses', 'tomllib', 'tomli', "
        "'tomlkit', 'lore.recall.engine', 'lore.integrations.digest'}\n"
        "print(sorted(heavy & set(sys.modules)), file=sys.stderr)\n"
    )
    stdin = end_payload("claude-code", work_repo, transcript)
    run = subprocess.run([sys.executable, "-c", code], input=stdin, capture_output=True, timeout=60)
    assert b'"decision"' in run.stdout
    assert run.stderr.strip() == b"[]", run.stderr


def test_the_project_hook_for_session_end_is_silent_without_lore(
    team_vault: Vault, tmp_path: Path
) -> None:
    from lore.integrations.install.ownership import Launcher, hook_command

    command = hook_command(Launcher("lore", ["lore"]), "session-end", "claude-code", project=True)
    bare = tmp_path / "bin"
    bare.mkdir()
    sh = subprocess.run(["sh", "-c", "command -v sh"], capture_output=True, text=True).stdout
    (bare / "sh").symlink_to(sh.strip())
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    transcript = real_work(tmp_path / "t.jsonl", "claude-code")
    run = subprocess.run(
        ["/bin/sh", "-c", command],
        input=end_payload("claude-code", repo, transcript),
        capture_output=True,
        env={"PATH": str(bare), "HOME": str(tmp_path / "nobody")},
        timeout=60,
    )
    assert (run.returncode, run.stdout, run.stderr) == (0, b"", b"")


@pytest.mark.parametrize("agent", ["claude-code", "gemini-cli", "codex"])
def test_the_nudge_mentions_the_agents_new_private_memories_until_they_are_imported(
    agent: str,
    team_vault: Vault,
    work_repo: Path,
    tmp_path: Path,
    isolated_home: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each agent's memory in its documented place (tests/fixtures/import/*-memory, whose
    READMEs cite the docs): the nudge counts the memory files this vault has not imported."""
    from lore.team.imports.kinds import KIND_OF_AGENT
    from lore.team.imports.memory_ledger import record
    from lore.team.imports.memory_stores import default_store, snapshot, store_name

    fixtures = Path(__file__).resolve().parents[1] / "fixtures" / "import"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(isolated_home / ".claude"))
    monkeypatch.setenv("CODEX_HOME", str(isolated_home / ".codex"))
    kind = KIND_OF_AGENT[agent]
    store = default_store(kind, work_repo)
    source = {
        "claude-memory": fixtures / "claude-memory" / "memory",
        "gemini-memory": fixtures / "gemini-memory" / ".gemini",
        "codex-memory": fixtures / "codex-memory" / "memories",
    }[kind]
    shutil.copytree(source, store if kind != "gemini-memory" else store.parent)
    files = {"claude-memory": 5, "gemini-memory": 1, "codex-memory": 1}[kind]

    transcript = real_work(tmp_path / "t" / "one.jsonl", agent)
    asked = hook(["session-end", "--agent", agent], end_payload(agent, work_repo, transcript))
    text = json.loads(asked.stdout).get("reason") or json.loads(asked.stdout)["followup_message"]
    assert f"{files} private memory file(s) here the team has not seen" in text
    assert f"`lore import {kind}` drafts them for review" in text
    assert len(text) < 800

    record(team_vault.root, {}, store_name(kind, store), snapshot(kind, store), when="2026-11-20")
    transcript = real_work(tmp_path / "t" / "two.jsonl", agent)
    payload = end_payload(agent, work_repo, transcript, session_id="second-session")
    later = hook(["session-end", "--agent", agent], payload)
    text = json.loads(later.stdout).get("reason") or json.loads(later.stdout)["followup_message"]
    assert "private memory" not in text  # everything there was imported
