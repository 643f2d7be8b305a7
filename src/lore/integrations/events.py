"""What each agent sends a hook and what it reads back: one small adapter per agent.

An agent runs `lore hook EVENT --agent NAME` and writes a JSON payload on stdin. The
adapter turns it into one `HookEvent` (working directory, session id, source, prompt,
transcript, and whether an end-of-turn hook already made the agent continue) and
renders lore's text in the shape that agent documents. Which agent reads which event,
under which event name and in which shape, is the agents table
(`lore.integrations.agents.AGENTS`):

| shape | agents |
| --- | --- |
| `{"hookSpecificOutput": {"hookEventName", "additionalContext"}}` | Claude Code, Codex, Gemini |
| `{"additional_context": …}` | Cursor (session start only) |
| `{"additionalContext": …}` | Copilot CLI (session start and prompt) |
| session end: `{"decision": "block", "reason": …}` | Claude Code, Codex, Copilot CLI |
| session end: `{"decision": "deny", "reason": …}` | Gemini CLI (`AfterAgent`) |
| session end: `{"followup_message": …}` | Cursor (`stop`) |

A payload that is not a JSON object is no event at all: the hook stays silent. The
sources for each shape are cited in docs/agents/. Output is ASCII JSON (non-ASCII
escaped), so no agent's locale can garble it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from lore.integrations.agents import AGENTS, CAMEL, FOLLOWUP, LORE_EVENTS, NESTED, SNAKE
from lore.record import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

EVENTS = LORE_EVENTS
MAX_PAYLOAD_BYTES = 4 * 1024 * 1024  # a prompt with a pasted log is big; more is not a prompt


class HookEvent(Record):
    """One hook invocation, whatever agent sent it."""

    __slots__ = (
        "agent",
        "continued",
        "cwd",
        "event",
        "prompt",
        "session_id",
        "source",
        "transcript",
    )

    def __init__(
        self,
        agent: str,
        event: str,
        cwd: str,
        *,
        session_id: str = "",
        source: str = "startup",
        prompt: str = "",
        transcript: str = "",
        continued: bool = False,
    ) -> None:
        self.agent = agent
        self.event = event
        self.cwd = cwd
        self.session_id = session_id
        self.source = source
        self.prompt = prompt
        self.transcript = transcript  # the session's transcript file, when the agent names one
        self.continued = continued  # this end of turn follows one an end-of-turn hook forced


def supports(agent: str, event: str) -> bool:
    """Whether the agent reads context back from this event at all."""
    known = AGENTS.get(agent)
    return known is not None and known.reads(event)


def decode_payload(raw: bytes) -> dict[str, Any] | None:
    """The payload as a dict, or None when it is not one (empty, not JSON, not an object,
    too big): agents always send an object, so anything else is no event to answer."""
    if not raw or len(raw) > MAX_PAYLOAD_BYTES:
        return None
    try:
        data = json.loads(raw.decode("utf-8"))
    except ValueError:  # UnicodeDecodeError is a ValueError
        return None
    return data if isinstance(data, dict) else None


def detect_agent(payload: dict[str, Any]) -> str:
    """Best guess when `--agent` was not given; the Claude Code shape is the safe default.

    Claude Code, Codex and Gemini CLI read the same output shape, so telling them
    apart does not matter; Cursor and Copilot CLI send tell-tale fields.
    """
    if "workspace_roots" in payload or "conversation_id" in payload:
        return "cursor"
    if "sessionId" in payload or "initialPrompt" in payload or "transcriptPath" in payload:
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
    loops = payload.get("loop_count")  # Cursor's stop: how many follow-ups came before
    return HookEvent(
        name,
        event,
        cwd,
        session_id=_text(payload, "session_id", "sessionId", "conversation_id"),
        source=_text(payload, "source", "trigger") or "startup",
        prompt=_text(payload, "prompt", "initialPrompt", "initial_prompt"),
        transcript=_text(payload, "transcript_path", "transcriptPath"),
        continued=payload.get("stop_hook_active") is True
        or (isinstance(loops, int) and not isinstance(loops, bool) and loops > 0),
    )


def render_output(agent: str, event: str, context: str) -> bytes | None:
    """The bytes to print on stdout for this agent, or None when it reads nothing back.

    At session end the text is what the agent's next turn is asked to consider.
    """
    known = AGENTS.get(agent)
    event_name = known.events.get(event) if known else None
    if known is None or event_name is None or not context:
        return None
    data: dict[str, Any]
    if event == "session-end":
        if known.continues == FOLLOWUP:
            data = {FOLLOWUP: context}
        else:
            data = {"decision": known.continues, "reason": context}
    elif known.output == NESTED:
        data = {NESTED: {"hookEventName": event_name, CAMEL: context}}
    elif known.output == SNAKE:
        data = {SNAKE: context}
    else:
        data = {CAMEL: context}
    return (json.dumps(data, ensure_ascii=True) + "\n").encode("ascii")
