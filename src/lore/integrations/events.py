"""What each agent sends a hook and what it reads back: one small adapter per agent.

An agent runs `lore hook EVENT --agent NAME` and writes a JSON payload on stdin. The
adapter turns it into one `HookEvent` (working directory, session id, source, prompt)
and renders lore's context in the shape that agent documents:

| agent | session start | prompt |
| --- | --- | --- |
| claude-code | `hookSpecificOutput.additionalContext` | the same (`UserPromptSubmit`) |
| codex | `hookSpecificOutput.additionalContext` | the same (`UserPromptSubmit`) |
| gemini-cli | `hookSpecificOutput.additionalContext` | the same (`BeforeAgent`) |
| cursor | `additional_context` | none: `beforeSubmitPrompt` cannot add context |
| copilot-cli | `additionalContext` | none: `userPromptSubmitted` output is not read |

The sources for each shape are cited in docs/agents/. Output is ASCII JSON (non-ASCII
escaped), so no agent's locale can garble it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from lore.record import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

AGENTS = ("claude-code", "codex", "cursor", "copilot-cli", "gemini-cli")
EVENTS = ("session-start", "prompt")
MAX_PAYLOAD_BYTES = 4 * 1024 * 1024  # a prompt with a pasted log is big; more is not a prompt

# hookEventName each agent expects back, per lore event (None: the agent reads no context).
_EVENT_NAMES: dict[str, dict[str, str | None]] = {
    "claude-code": {"session-start": "SessionStart", "prompt": "UserPromptSubmit"},
    "codex": {"session-start": "SessionStart", "prompt": "UserPromptSubmit"},
    "gemini-cli": {"session-start": "SessionStart", "prompt": "BeforeAgent"},
    "cursor": {"session-start": "sessionStart", "prompt": None},
    "copilot-cli": {"session-start": "sessionStart", "prompt": None},
}


class HookEvent(Record):
    """One hook invocation, whatever agent sent it."""

    __slots__ = ("agent", "cwd", "event", "prompt", "session_id", "source")

    def __init__(
        self,
        agent: str,
        event: str,
        cwd: str,
        *,
        session_id: str = "",
        source: str = "startup",
        prompt: str = "",
    ) -> None:
        self.agent = agent
        self.event = event
        self.cwd = cwd
        self.session_id = session_id
        self.source = source
        self.prompt = prompt


def supports(agent: str, event: str) -> bool:
    """Whether the agent reads context back from this event at all."""
    return _EVENT_NAMES.get(agent, {}).get(event) is not None


def decode_payload(raw: bytes) -> dict[str, Any]:
    """The payload as a dict; anything else (empty, not JSON, not an object) is `{}`."""
    if not raw or len(raw) > MAX_PAYLOAD_BYTES:
        return {}
    try:
        data = json.loads(raw.decode("utf-8", "replace"))
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def detect_agent(payload: dict[str, Any]) -> str:
    """Best guess when `--agent` was not given; the Claude Code shape is the safe default.

    Claude Code, Codex and Gemini CLI read the same output shape, so telling them
    apart does not matter; Cursor and Copilot CLI send tell-tale fields.
    """
    if "workspace_roots" in payload or "conversation_id" in payload:
        return "cursor"
    if "sessionId" in payload or "initialPrompt" in payload:
        return "copilot-cli"
    if payload.get("hook_event_name") in ("BeforeAgent", "AfterAgent", "BeforeTool"):
        return "gemini-cli"
    return "claude-code"


def _text(payload: dict[str, Any], *keys: str) -> str:
    for key in keys:
        value = payload.get(key)
        if isinstance(value, str) and value:
            return value
    return ""


def parse_event(agent: str | None, event: str, payload: dict[str, Any]) -> HookEvent:
    """The agent's payload as a `HookEvent`; missing fields fall back to the process's view."""
    name = agent if agent in AGENTS else detect_agent(payload)
    cwd = _text(payload, "cwd")
    if not cwd:
        roots = payload.get("workspace_roots")
        if isinstance(roots, list) and roots and isinstance(roots[0], str):
            cwd = roots[0]
    if not cwd:
        cwd = os.environ.get("CLAUDE_PROJECT_DIR") or os.environ.get("GEMINI_PROJECT_DIR") or ""
    if not cwd:
        cwd = str(Path.cwd())
    return HookEvent(
        name,
        event,
        cwd,
        session_id=_text(payload, "session_id", "sessionId", "conversation_id"),
        source=_text(payload, "source", "trigger") or "startup",
        prompt=_text(payload, "prompt", "initialPrompt", "initial_prompt"),
    )


def render_output(agent: str, event: str, context: str) -> bytes | None:
    """The bytes to print on stdout for this agent, or None when it reads nothing back."""
    event_name = _EVENT_NAMES.get(agent, {}).get(event)
    if event_name is None or not context:
        return None
    data: dict[str, Any]
    if agent == "cursor":
        data = {"additional_context": context}
    elif agent == "copilot-cli":
        data = {"additionalContext": context}
    else:
        data = {"hookSpecificOutput": {"hookEventName": event_name, "additionalContext": context}}
    return (json.dumps(data, ensure_ascii=True) + "\n").encode("ascii")
