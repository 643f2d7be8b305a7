"""An agent's session log, read as untrusted data for `lore capture`.

Two formats, one JSON object a line, recognised line by line:

- Claude Code (`~/.claude/projects/<project>/<session>.jsonl`): lines of `type` "user" or
  "assistant" carry `message.content`, a string or a list of blocks — `text`,
  `tool_use` (`name`, `input`), `tool_result` (`content`, a string or text blocks) and
  `thinking`, which is left out. Other line types (summaries, system and progress
  events, file snapshots) are skipped.
- Codex (`~/.codex/sessions/YYYY/MM/DD/rollout-….jsonl`): lines `{timestamp, type,
  payload}`; `event_msg` payloads `user_message` / `agent_message` are the conversation
  as the user saw it, `response_item` payloads `message` (roles user / assistant;
  developer and injected instructions are left out), `function_call` (`name`,
  `arguments`), `function_call_output` (`output`) and `reasoning` (left out). When a log
  has both views of the messages, the `event_msg` one is used.

Whatever the file holds, what comes out of `Transcript.render` is bounded and clean:
at most `MAX_READ_BYTES` of the file are read (the end of a longer one, where a
session's conclusions are), tool output is cut short, the whole is cut to `max_chars`
(the start of the session and as much of its end as fits), and every line of that has
the characters that hide or steer text removed (`lore.sanitize`), every secret the
curator's scan recognises masked, and paths under the session's working directory made
relative to it (the machine's folders stay here). Only the rendered lines are cleaned:
scanning every message of a 64 MB log took 20 s. Nothing here sends anything anywhere;
`lore.team.capture` does.
"""

from __future__ import annotations

import contextlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lore.errors import UsageError
from lore.sanitize import sanitize_text
from lore.sanitize.secret_scan import redact, scan_secrets

MAX_READ_BYTES = 64 * 1024 * 1024
MAX_LINE_BYTES = 4 * 1024 * 1024
MAX_TEXT_CHARS = 4000  # one message
MAX_TOOL_CHARS = 600  # one tool call or its output
MAX_PROMPT_CHARS = 48_000  # the whole transcript handed to the model
HEAD_SHARE = 0.25  # of MAX_PROMPT_CHARS, kept from the start (the task as first stated)
CLAUDE, CODEX = "claude-code", "codex"
_CLAUDE_TYPES = frozenset({"user", "assistant"})
_CODEX_TYPES = frozenset({"session_meta", "response_item", "event_msg", "turn_context"})
_TEXT_BLOCKS = frozenset({"text", "input_text", "output_text"})
# Text Codex itself puts into user messages (AGENTS.md, the environment), not the user's.
_INJECTED = ("<user_instructions>", "<environment_context>", "# AGENTS.md instructions")


@dataclass
class Turn:
    """One message or tool step: who (`user`, `assistant`, `tool`) and what it said."""

    role: str
    text: str
    view: str = ""  # Codex: "event" or "item", the two views of the same messages


@dataclass
class Transcript:
    path: Path
    agent: str  # CLAUDE or CODEX (the first format seen)
    turns: list[Turn]
    skipped_lines: int = 0
    cut_bytes: int = 0  # bytes of the file's start not read
    secrets_masked: int = 0
    workdir: str = ""  # the last part of the session's working directory, when known
    workdir_path: str = ""  # the whole of it, made relative in what is sent
    notices: list[str] = field(default_factory=list)

    def render(self, max_chars: int = MAX_PROMPT_CHARS) -> tuple[str, int]:
        """The turns as clean text within `max_chars`, and how many turns were left out.

        Only the turns that fit are cleaned (the secret scan costs ~0.2 ms a turn: a
        64 MB log has 100,000 of them); `secrets_masked` counts what was masked in them.
        """
        lines = [f"[{turn.role}] {turn.text}" for turn in self.turns]
        budget = int(max_chars * 0.95)  # a mask can be longer than a short secret
        head: list[str] = []
        tail: list[str] = []
        used = 0
        if sum(len(line) + 1 for line in lines) <= budget:
            head = lines
        else:
            for line in lines:
                if used + len(line) + 1 > budget * HEAD_SHARE:
                    break
                head.append(line)
                used += len(line) + 1
            for line in reversed(lines[len(head) :]):
                if used + len(line) + 1 > budget - 80:
                    break
                tail.append(line)
                used += len(line) + 1
        left_out = len(lines) - len(head) - len(tail)
        chosen = (
            [*head, f"[… {left_out} messages of the session left out here …]"] if left_out else head
        )
        text = "\n".join(self._clean(line) for line in [*chosen, *reversed(tail)])
        return text[:max_chars], left_out

    def _clean(self, text: str) -> str:
        text = sanitize_text(text)
        prefix = self.workdir_path.rstrip("/") + "/" if len(self.workdir_path) > 1 else ""
        if prefix.startswith("/"):  # paths relative to the repository, as files_touched wants
            text = text.replace(prefix, "")
        values = {match.value for match in scan_secrets(text)}
        self.secrets_masked += len(values)
        return redact(text, values)


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split()) if limit <= MAX_TOOL_CHARS else text.strip()
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _block_text(content: Any) -> str:
    """The text in a content value: a string, or text blocks (other blocks ignored)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [
            str(block.get("text", ""))
            for block in content
            if isinstance(block, dict)
            and block.get("type") in ("text", "input_text", "output_text")
        ]
        return "\n".join(part for part in parts if part)
    return ""


def _tool_input(value: Any) -> str:
    if isinstance(value, dict):
        for key in ("command", "file_path", "path", "pattern", "url", "query", "description"):
            item = value.get(key)
            if isinstance(item, list):  # Codex's shell: ["bash", "-lc", "…"]
                item = " ".join(str(part) for part in item)
            if isinstance(item, str):
                return f"{key}: {item}"
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)[:MAX_TOOL_CHARS] if value is not None else ""


def _claude_turns(entry: dict[str, Any]) -> list[Turn]:
    message = entry.get("message")
    if not isinstance(message, dict):
        return []
    role = "assistant" if entry.get("type") == "assistant" else "user"
    content = message.get("content")
    if isinstance(content, str):
        return [Turn(role, _clip(content, MAX_TEXT_CHARS))]
    turns: list[Turn] = []
    for block in content if isinstance(content, list) else []:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text":
            turns.append(Turn(role, _clip(str(block.get("text", "")), MAX_TEXT_CHARS)))
        elif kind == "tool_use":
            name = str(block.get("name", "tool"))
            turns.append(Turn("tool", _clip(f"{name} {_tool_input(block.get('input'))}", 300)))
        elif kind == "tool_result":
            text = _block_text(block.get("content"))
            failed = " (failed)" if block.get("is_error") else ""
            turns.append(Turn("tool", _clip(f"result{failed}: {text}", MAX_TOOL_CHARS)))
    return turns


def _codex_item(item: dict[str, Any]) -> list[Turn]:
    kind = item.get("type")
    if kind == "message":
        role = item.get("role")
        text = _block_text(item.get("content"))
        if role not in ("user", "assistant") or text.lstrip().startswith(_INJECTED):
            return []
        return [Turn(str(role), _clip(text, MAX_TEXT_CHARS), "item")]
    if kind == "function_call":
        arguments = item.get("arguments")
        try:
            parsed = json.loads(arguments) if isinstance(arguments, str) else arguments
        except ValueError:
            parsed = arguments
        name = str(item.get("name", "tool"))
        return [Turn("tool", _clip(f"{name} {_tool_input(parsed)}", 300))]
    if kind == "function_call_output":
        output = item.get("output")
        if isinstance(output, str) and output.startswith("{"):
            # Codex's shell wraps its output: {"output": "…", "metadata": {…}}
            with contextlib.suppress(ValueError):
                output = json.loads(output)
        if isinstance(output, dict):
            output = output.get("output", output.get("content", ""))
        text = output if isinstance(output, str) else _block_text(output)
        return [Turn("tool", _clip(f"result: {text}", MAX_TOOL_CHARS))]
    return []


def _codex_event(payload: dict[str, Any]) -> list[Turn]:
    kind = payload.get("type")
    message = payload.get("message")
    if kind in ("user_message", "agent_message") and isinstance(message, str) and message:
        role = "user" if kind == "user_message" else "assistant"
        return [Turn(role, _clip(message, MAX_TEXT_CHARS), "event")]
    return []


def _read_lines(path: Path) -> tuple[list[bytes], int]:
    try:
        size = path.stat().st_size
        with path.open("rb") as handle:
            cut = max(0, size - MAX_READ_BYTES)
            handle.seek(cut)
            data = handle.read(MAX_READ_BYTES)
    except OSError as exc:
        raise UsageError(
            f"{path}: cannot be read ({exc.strerror}).",
            fix="Give the path of a Claude Code or Codex session log (.jsonl).",
        ) from None
    lines = data.split(b"\n")
    if cut:
        lines = lines[1:]  # the first line was cut in the middle
    return lines, cut


def read_transcript(path: Path) -> Transcript:
    """The session log at `path`, sanitized and with secrets masked (see the module)."""
    lines, cut = _read_lines(path)
    turns: list[Turn] = []
    agent = ""
    skipped = 0
    workdir = ""
    first_bad = 0
    for number, raw in enumerate(lines, 1):
        if not raw.strip():
            continue
        try:
            entry = json.loads(raw) if len(raw) <= MAX_LINE_BYTES else None
        except (ValueError, RecursionError):
            entry = None
        if not isinstance(entry, dict):
            skipped += 1
            first_bad = first_bad or number
            continue
        kind = entry.get("type")
        payload = entry.get("payload")
        if kind in _CODEX_TYPES and isinstance(payload, dict):
            agent = agent or CODEX
            if kind == "session_meta" and isinstance(payload.get("cwd"), str):
                workdir = payload["cwd"]
            turns += _codex_item(payload) if kind == "response_item" else _codex_event(payload)
        elif kind in _CLAUDE_TYPES and "message" in entry:
            agent = agent or CLAUDE
            if isinstance(entry.get("cwd"), str):
                workdir = entry["cwd"]
            turns += _claude_turns(entry)
    if any(turn.view == "event" for turn in turns):
        turns = [turn for turn in turns if turn.view != "item"]
    turns = [turn for turn in turns if turn.text.strip()]
    if not turns:
        where = f" (line {first_bad} is not JSON)" if first_bad else ""
        raise UsageError(
            f"{path}: no Claude Code or Codex session messages were found{where}.",
            fix="Give a session log: ~/.claude/projects/<project>/<session>.jsonl or "
            "~/.codex/sessions/YYYY/MM/DD/rollout-….jsonl.",
        )
    name = workdir.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1]
    transcript = Transcript(path, agent, turns, skipped, cut, 0, sanitize_text(name)[:100])
    transcript.workdir_path = workdir
    if cut:
        transcript.notices.append(
            f"{path} is larger than {MAX_READ_BYTES // (1024 * 1024)} MB: only its end was read."
        )
    return transcript
