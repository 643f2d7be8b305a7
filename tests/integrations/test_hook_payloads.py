"""Each agent's own documented hook payload in, that agent's exact output shape out.

The payloads are written from each agent's documentation (cited per agent below),
with only the working directory, the prompt and the transcript filled in. Each runs
through a real `lore hook` process, with `--agent` after the event (as `lore install`
writes it) and before it, against a real git vault whose index the library built. The
session-end payloads are exercised in test_nudge.py.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from lore.index.build import open_index
from lore.integrations.agents import AGENTS, CAMEL, NESTED, SNAKE
from tests.support import Vault

PROMPT = "why do the billing integration tests use httpx against the container?"

# agent -> lore event -> (documentation, payload); "{CWD}", "{PROMPT}" and "{TRANSCRIPT}"
# are filled in.
DOCUMENTED: dict[str, dict[str, tuple[str, dict[str, Any]]]] = {
    "claude-code": {
        # https://code.claude.com/docs/en/hooks (SessionStart and UserPromptSubmit input)
        "session-start": (
            "https://code.claude.com/docs/en/hooks#sessionstart",
            {
                "session_id": "abc123",
                "transcript_path": "/home/dev/.claude/projects/x/abc123.jsonl",
                "cwd": "{CWD}",
                "permission_mode": "default",
                "hook_event_name": "SessionStart",
                "source": "startup",
            },
        ),
        "prompt": (
            "https://code.claude.com/docs/en/hooks#userpromptsubmit",
            {
                "session_id": "abc123",
                "transcript_path": "/home/dev/.claude/projects/x/abc123.jsonl",
                "cwd": "{CWD}",
                "permission_mode": "default",
                "hook_event_name": "UserPromptSubmit",
                "prompt": "{PROMPT}",
            },
        ),
        "session-end": (
            "https://code.claude.com/docs/en/hooks#stop",
            {
                "session_id": "abc123",
                "transcript_path": "{TRANSCRIPT}",
                "cwd": "{CWD}",
                "permission_mode": "default",
                "hook_event_name": "Stop",
                "stop_hook_active": False,
                "last_assistant_message": "The retry now backs off; tests pass.",
            },
        ),
    },
    "codex": {
        # https://developers.openai.com/codex/hooks; every required field of
        # codex-rs/hooks/schema/generated/session-start.command.input.schema.json and
        # user-prompt-submit.command.input.schema.json in openai/codex
        "session-start": (
            "https://developers.openai.com/codex/hooks",
            {
                "session_id": "019d036d-c7fa-72d2-b6fd-78878bfe34e4",
                "transcript_path": None,
                "cwd": "{CWD}",
                "hook_event_name": "SessionStart",
                "model": "gpt-5-codex",
                "permission_mode": "default",
                "source": "startup",
            },
        ),
        "prompt": (
            "https://developers.openai.com/codex/hooks",
            {
                "session_id": "019d036d-c7fa-72d2-b6fd-78878bfe34e4",
                "transcript_path": None,
                "cwd": "{CWD}",
                "hook_event_name": "UserPromptSubmit",
                "model": "gpt-5-codex",
                "permission_mode": "default",
                "turn_id": "019d036e-3164-72c3-a170-98925564c4fc",
                "prompt": "{PROMPT}",
            },
        ),
        # every required field of codex-rs/hooks/schema/generated/stop.command.input.schema.json
        "session-end": (
            "https://developers.openai.com/codex/hooks",
            {
                "session_id": "019d036d-c7fa-72d2-b6fd-78878bfe34e4",
                "turn_id": "019d036e-3164-72c3-a170-98925564c4fc",
                "transcript_path": "{TRANSCRIPT}",
                "cwd": "{CWD}",
                "hook_event_name": "Stop",
                "model": "gpt-5-codex",
                "permission_mode": "default",
                "stop_hook_active": False,
                "last_assistant_message": "Done: the retry backs off.",
            },
        ),
    },
    "cursor": {
        # https://cursor.com/docs/agent/hooks (common fields; sessionStart adds session_id,
        # is_background_agent, composer_mode; beforeSubmitPrompt adds prompt, attachments)
        "session-start": (
            "https://cursor.com/docs/agent/hooks",
            {
                "conversation_id": "c6a1f7a2",
                "generation_id": "9e2b4c1d",
                "model": "claude-4.5-sonnet",
                "hook_event_name": "sessionStart",
                "cursor_version": "2.4.21",
                "workspace_roots": ["{CWD}"],
                "user_email": "dev@example.com",
                "transcript_path": None,
                "session_id": "c6a1f7a2",
                "is_background_agent": False,
                "composer_mode": "agent",
            },
        ),
        "prompt": (
            "https://cursor.com/docs/agent/hooks",
            {
                "conversation_id": "c6a1f7a2",
                "generation_id": "1b7d3e5f",
                "hook_event_name": "beforeSubmitPrompt",
                "workspace_roots": ["{CWD}"],
                "prompt": "{PROMPT}",
                "attachments": [],
            },
        ),
        # stop: status and loop_count (the follow-ups already sent), plus the common fields
        "session-end": (
            "https://cursor.com/docs/agent/hooks",
            {
                "conversation_id": "c6a1f7a2",
                "generation_id": "4d2c8b0e",
                "model": "claude-4.5-sonnet",
                "hook_event_name": "stop",
                "cursor_version": "2.4.21",
                "workspace_roots": ["{CWD}"],
                "user_email": "dev@example.com",
                "transcript_path": "{TRANSCRIPT}",
                "status": "completed",
                "loop_count": 0,
            },
        ),
    },
    "copilot-cli": {
        # https://docs.github.com/en/copilot/reference/hooks-configuration ("Session start
        # hook" input: timestamp, cwd, source, initialPrompt "if provided"): no field
        # names the agent, so only --agent tells lore which shape to print.
        "session-start": (
            "https://docs.github.com/en/copilot/reference/hooks-configuration",
            {"timestamp": 1704614400000, "cwd": "{CWD}", "source": "new"},
        ),
        "prompt": (
            "https://docs.github.com/en/copilot/reference/hooks-configuration",
            {"timestamp": 1704614500000, "cwd": "{CWD}", "prompt": "{PROMPT}"},
        ),
        # agentStop (CLI hooks reference): sessionId, timestamp, cwd, transcriptPath,
        # stopReason; stop_hook_active since 1.0.72 (Copilot CLI's changelog)
        "session-end": (
            "https://docs.github.com/en/copilot/reference/copilot-cli-reference/cli-hooks-reference",
            {
                "sessionId": "714bfd7c",
                "timestamp": 1704614600000,
                "cwd": "{CWD}",
                "transcriptPath": "{TRANSCRIPT}",
                "stopReason": "end_turn",
                "stop_hook_active": False,
            },
        ),
    },
    "gemini-cli": {
        # https://geminicli.com/docs/hooks/reference (base input; SessionStart adds source,
        # BeforeAgent adds prompt)
        "session-start": (
            "https://geminicli.com/docs/hooks/reference",
            {
                "session_id": "a3c0e5b2",
                "transcript_path": "/home/dev/.gemini/tmp/5f2a/chats/session.json",
                "cwd": "{CWD}",
                "hook_event_name": "SessionStart",
                "timestamp": "2026-11-02T10:30:00.000Z",
                "source": "startup",
            },
        ),
        "prompt": (
            "https://geminicli.com/docs/hooks/reference",
            {
                "session_id": "a3c0e5b2",
                "transcript_path": "/home/dev/.gemini/tmp/5f2a/chats/session.json",
                "cwd": "{CWD}",
                "hook_event_name": "BeforeAgent",
                "timestamp": "2026-11-02T10:31:12.000Z",
                "prompt": "{PROMPT}",
            },
        ),
        # AfterAgent: prompt, prompt_response, stop_hook_active
        "session-end": (
            "https://geminicli.com/docs/hooks/reference",
            {
                "session_id": "a3c0e5b2",
                "transcript_path": "{TRANSCRIPT}",
                "cwd": "{CWD}",
                "hook_event_name": "AfterAgent",
                "timestamp": "2026-11-02T10:40:00.000Z",
                "prompt": "{PROMPT}",
                "prompt_response": "The retry now backs off.",
                "stop_hook_active": False,
            },
        ),
    },
}

# Copilot CLI's other documented forms of the same event: the CLI hooks reference
# (https://docs.github.com/en/copilot/reference/copilot-cli-reference/cli-hooks-reference)
# adds `sessionId`, and `initialPrompt` is there when the session starts with a prompt.
COPILOT_VARIANTS = [
    {"sessionId": "714bfd7c", "timestamp": 1704614400000, "cwd": "{CWD}", "source": "startup"},
    {"timestamp": 1704614400000, "cwd": "{CWD}", "source": "new", "initialPrompt": "Fix it"},
]


def fill(payload: dict[str, Any], cwd: Path, transcript: Path | None = None) -> bytes:
    text = json.dumps(payload).replace("{CWD}", json.dumps(str(cwd))[1:-1])
    text = text.replace('"{TRANSCRIPT}"', json.dumps(str(transcript)) if transcript else "null")
    return text.replace("{PROMPT}", PROMPT).encode("utf-8")


def hook(args: list[str], stdin: bytes) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "lore", "hook", *args],
        input=stdin,
        capture_output=True,
        env=os.environ.copy(),
        timeout=60,
    )


def expected_shape(agent: str, event: str, context: str) -> dict[str, Any]:
    known = AGENTS[agent]
    if known.output == NESTED:
        return {NESTED: {"hookEventName": known.events[event], CAMEL: context}}
    return {SNAKE if known.output == SNAKE else CAMEL: context}


@pytest.fixture
def prompt_vault(team_vault: Vault) -> Vault:
    (team_vault.root / "lore.toml").write_text("[hooks]\nprompt = true\n", encoding="utf-8")
    team_vault.commit("turn on prompt recall")
    conn, _ = open_index(team_vault.root)
    conn.close()
    return team_vault


def test_every_agent_in_the_table_has_documented_payloads() -> None:
    assert set(DOCUMENTED) == set(AGENTS)
    for agent, events in DOCUMENTED.items():
        assert set(events) == {"session-start", "prompt", "session-end"}, agent
        assert all(source.startswith("https://") for source, _ in events.values())


@pytest.mark.parametrize("position", ["after", "before"])
@pytest.mark.parametrize("event", ["session-start", "prompt"])
@pytest.mark.parametrize("agent", list(DOCUMENTED))
def test_documented_payload_gets_the_agents_exact_shape(
    agent: str, event: str, position: str, prompt_vault: Vault, work_repo: Path
) -> None:
    _, payload = DOCUMENTED[agent][event]
    args = [event, "--agent", agent] if position == "after" else ["--agent", agent, event]
    run = hook(args, fill(payload, work_repo))
    assert run.returncode == 0 and run.stderr == b""
    if not AGENTS[agent].reads(event):
        assert run.stdout == b""  # this agent reads nothing back from this event
        return
    assert run.stdout.isascii() and run.stdout.endswith(b"\n")
    data = json.loads(run.stdout)
    assert run.stdout == (json.dumps(data, ensure_ascii=True) + "\n").encode()
    context = next(iter(data.values()))
    if isinstance(context, dict):
        context = context[CAMEL]
    assert data == expected_shape(agent, event, context)
    assert "billing--integration-tests-use-httpx--2026-11-02" in context


@pytest.mark.parametrize("payload", COPILOT_VARIANTS)
@pytest.mark.parametrize(
    "args",
    [
        ["session-start", "--agent", "copilot-cli"],
        ["--agent", "copilot-cli", "session-start"],
        ["session-start", "--agent=copilot-cli"],
        ["session-start", "--agent", "copilot-cli", "--a-flag-of-a-newer-lore", "x"],
    ],
)
def test_copilot_session_start_in_every_documented_form(
    payload: dict[str, Any], args: list[str], team_vault: Vault, work_repo: Path
) -> None:
    run = hook(args, fill(payload, work_repo))
    assert run.returncode == 0 and run.stderr == b""
    data = json.loads(run.stdout)
    assert list(data) == [CAMEL] and "payments-api" in data[CAMEL]


def test_help_still_works(capsys: pytest.CaptureFixture[str]) -> None:
    from lore.cli.main import main

    with pytest.raises(SystemExit) as stop:
        main(["hook", "--help"])
    assert stop.value.code == 0
    out = capsys.readouterr().out
    assert "--agent NAME" in out and all(name in out for name in AGENTS)
