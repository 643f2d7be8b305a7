"""The agents lore connects to, in one table, and the command agents are told to run.

`AGENTS` holds one `Agent` per coding agent: its name on the command line, its
display name, the hook event names it uses for lore's three events (None: the agent
reads no context back from that event), the JSON shapes of a hook's output, and where
its configuration lives, at user level and in a repository (`--project`). The
installer, `lore hook`, `lore install --help`, the docs test and the plugin test all
read this table; docs/agents/NAME.md cites each agent's documentation.

For the session-end nudge (`lore.integrations.nudge`) the table also says how the
agent's end-of-turn hook makes it take one more turn (`continues`), which session
start sources resume a history that still holds the digest (`kept_on`), after which
start source the nudge rides on the digest (`nudge_on_start`: Claude Code's
compaction), and the byte patterns of its transcript that count tool calls and file
edits (`work`).

A location is a path with `~` for the home folder, `{$VAR|default}` for a folder an
environment variable moves, and no placeholder for a path relative to the repository.

`agent_command()` is the lore command an agent can run in a shell (`lore`, `gh lore`,
or a path), as the last `lore install` recorded it; the session digest, the prompt
hook's preface and the installed skills name it. This module is on the hook path:
it imports nothing heavy.
"""

from __future__ import annotations

import os
import re

from lore.paths import lore_home
from lore.record import Record

LORE_EVENTS = ("session-start", "prompt", "session-end")

# How a hook's output carries the context: {"hookSpecificOutput": {"hookEventName",
# "additionalContext"}}, {"additional_context": …} or {"additionalContext": …}.
NESTED = "hookSpecificOutput"
SNAKE = "additional_context"
CAMEL = "additionalContext"

# How an end-of-turn hook makes the agent take one more turn with lore's text:
# {"decision": "block", "reason": …}, {"decision": "deny", "reason": …} or
# {"followup_message": …}.
BLOCK = "block"
DENY = "deny"
FOLLOWUP = "followup_message"


class WorkMarkers(Record):
    """What marks work in an agent's transcript: the key and value of a JSON object that is
    a tool call, and of one that is a file edit.

    They are found in the transcript's text as JSON writes them, with any whitespace JSON
    allows around the colon (`"type":"tool_use"` compact, `"type": "tool_use"` indented),
    so a transcript counts the same in any layout; inside a string the quotes are escaped,
    so quoted JSON (a tool's output, Codex's `arguments`) is not counted. A regular
    expression over the bytes, not a JSON parser, since this runs in the session-end hook:
    1.1 MB of a Claude Code transcript took 3.5 ms of CPU this way and 82 ms through
    `json` (parsing each value and walking it), 2026-12-04.
    """

    __slots__ = ("edits", "tool_calls")

    def __init__(
        self, tool_calls: tuple[tuple[str, str], ...], edits: tuple[tuple[str, str], ...]
    ) -> None:
        self.tool_calls = tool_calls
        self.edits = edits

    def count(self, kind: str, data: bytes) -> int:
        """How many `kind` ("tool_calls" or "edits") markers `data` holds."""
        pairs = self.tool_calls if kind == "tool_calls" else self.edits
        if not pairs:
            return 0
        pattern = _MARKER_PATTERNS.get(pairs)
        if pattern is None:
            pattern = _MARKER_PATTERNS[pairs] = re.compile(
                b"|".join(
                    b'"' + re.escape(key.encode()) + rb'"\s*:\s*"' + re.escape(value.encode())
                    + b'"'
                    for key, value in pairs
                )
            )  # fmt: skip
        return sum(1 for _ in pattern.finditer(data))


_MARKER_PATTERNS: dict[tuple[tuple[str, str], ...], re.Pattern[bytes]] = {}


COMMAND_RECORD = "installs/command"  # under $LORE_HOME: the command `lore install` recorded
_COMMAND = re.compile(r"^[\w./:\\~+@ -]{1,300}$")  # a command line, not text for an agent


class Agent(Record):
    """One coding agent: its hook events and output shape, and where its files are."""

    __slots__ = (
        "continues",
        "events",
        "kept_on",
        "name",
        "next_steps",
        "nudge_on_start",
        "output",
        "project",
        "title",
        "user",
        "work",
    )

    def __init__(
        self,
        name: str,
        title: str,
        *,
        events: dict[str, str | None],
        output: str,
        continues: str,
        kept_on: tuple[str, ...],
        work: WorkMarkers,
        user: dict[str, str],
        project: dict[str, str],
        next_steps: str,
        nudge_on_start: tuple[str, ...] = (),
    ) -> None:
        self.name = name
        self.title = title
        self.events = events  # lore event -> the agent's hook event name (None: not read)
        self.output = output  # NESTED, SNAKE or CAMEL
        self.continues = continues  # BLOCK, DENY or FOLLOWUP (the session-end output)
        self.kept_on = kept_on  # session-start sources whose history still holds the digest
        self.nudge_on_start = nudge_on_start  # session-start sources the nudge rides on
        self.work = work  # what counts as a tool call and an edit in its transcript
        self.user = user  # "hooks", "mcp", "skills" -> location at user level
        self.project = project  # the same, relative to the repository
        self.next_steps = next_steps  # what to do after `lore install NAME`

    def reads(self, event: str) -> bool:
        """Whether the agent reads context back from this lore event."""
        return self.events.get(event) is not None

    def default_location(self, what: str) -> str:
        """A user-level location as the docs show it (`~/.claude/settings.json`)."""
        return re.sub(r"\{\$\w+\|([^}]*)\}", r"\1", self.user[what])


AGENTS: dict[str, Agent] = {
    agent.name: agent
    for agent in (
        Agent(
            "claude-code",
            "Claude Code",
            events={
                "session-start": "SessionStart",
                "prompt": "UserPromptSubmit",
                "session-end": "Stop",
            },
            output=NESTED,
            continues=BLOCK,
            kept_on=("resume",),
            # PreCompact's output cannot reach the model; the SessionStart that follows a
            # compaction (source "compact") can (docs/agents/claude-code.md).
            nudge_on_start=("compact",),
            # transcript JSONL: assistant content blocks {"type":"tool_use","name":"Edit"…}
            work=WorkMarkers(
                (("type", "tool_use"),),
                (
                    ("name", "Edit"),
                    ("name", "Write"),
                    ("name", "MultiEdit"),
                    ("name", "NotebookEdit"),
                ),
            ),
            user={
                "hooks": "{$CLAUDE_CONFIG_DIR|~/.claude}/settings.json",
                "skills": "{$CLAUDE_CONFIG_DIR|~/.claude}/skills",
                "mcp": "{$CLAUDE_CONFIG_DIR|~}/.claude.json",
            },
            project={
                "hooks": ".claude/settings.json",
                "skills": ".claude/skills",
                "mcp": ".mcp.json",
            },
            next_steps="Start a new Claude Code session; /hooks and /mcp list lore. The plugin is "
            "an alternative (docs/agents/claude-code.md): use one, not both.",
        ),
        Agent(
            "codex",
            "Codex CLI",
            events={
                "session-start": "SessionStart",
                "prompt": "UserPromptSubmit",
                "session-end": "Stop",
            },
            output=NESTED,
            continues=BLOCK,
            kept_on=("resume",),
            # rollout JSONL: response items {"type":"function_call"…}, apply_patch for edits
            work=WorkMarkers(
                (
                    ("type", "function_call"),
                    ("type", "custom_tool_call"),
                    ("type", "local_shell_call"),
                ),
                (("name", "apply_patch"),),
            ),
            user={
                "hooks": "{$CODEX_HOME|~/.codex}/hooks.json",
                "mcp": "{$CODEX_HOME|~/.codex}/config.toml",
                "skills": "~/.agents/skills",
            },
            project={
                "hooks": ".codex/hooks.json",
                "mcp": ".codex/config.toml",
                "skills": ".agents/skills",
            },
            next_steps="Start Codex and approve the new hooks when it asks (/hooks lists them).",
        ),
        Agent(
            "cursor",
            "Cursor",
            # beforeSubmitPrompt can only allow or block a prompt, not add context.
            events={"session-start": "sessionStart", "prompt": None, "session-end": "stop"},
            output=SNAKE,
            continues=FOLLOWUP,
            kept_on=(),  # its sessionStart payload has no source
            work=WorkMarkers((), ()),  # its transcript format is not documented: size and turns
            user={
                "hooks": "~/.cursor/hooks.json",
                "mcp": "~/.cursor/mcp.json",
                "skills": "~/.cursor/skills",
            },
            project={
                "hooks": ".cursor/hooks.json",
                "mcp": ".cursor/mcp.json",
                "skills": ".cursor/skills",
            },
            next_steps="Restart Cursor. Cursor's IDE can drop sessionStart context in a race "
            "(docs/agents/cursor.md); the MCP server and skills work regardless.",
        ),
        Agent(
            "copilot-cli",
            "GitHub Copilot CLI",
            # userPromptSubmitted output is read since Copilot CLI 1.0.65 (its changelog).
            events={
                "session-start": "sessionStart",
                "prompt": "userPromptSubmitted",
                "session-end": "agentStop",
            },
            output=CAMEL,
            continues=BLOCK,
            kept_on=("resume",),
            # events.jsonl: {"type":"tool.execution_start","data":{"toolName":"edit"…}}
            work=WorkMarkers(
                (("type", "tool.execution_start"),),
                (("toolName", "edit"), ("toolName", "create")),
            ),
            user={
                "hooks": "{$COPILOT_HOME|~/.copilot}/hooks/lore.json",
                "mcp": "{$COPILOT_HOME|~/.copilot}/mcp-config.json",
                "skills": "{$COPILOT_HOME|~/.copilot}/skills",
            },
            project={
                "hooks": ".github/hooks/lore.json",
                "mcp": ".github/mcp.json",
                "skills": ".github/skills",
            },
            next_steps="Start a new Copilot CLI session; /mcp show and /skills list confirm it.",
        ),
        Agent(
            "gemini-cli",
            "Gemini CLI",
            events={
                "session-start": "SessionStart",
                "prompt": "BeforeAgent",
                "session-end": "AfterAgent",
            },
            output=NESTED,
            continues=DENY,
            kept_on=("resume",),
            # chat JSONL: message records with toolCalls [{"name":"replace"…,"status":…}]
            work=WorkMarkers(
                (("status", "success"), ("status", "error")),
                (("name", "replace"), ("name", "write_file")),
            ),
            user={
                "hooks": "~/.gemini/settings.json",
                "mcp": "~/.gemini/settings.json",
                "skills": "~/.gemini/skills",
            },
            project={
                "hooks": ".gemini/settings.json",
                "mcp": ".gemini/settings.json",
                "skills": ".gemini/skills",
            },
            next_steps="Start Gemini CLI; /hooks panel, /mcp and /skills list confirm it. If the "
            "hooks system is off, turn it on in /settings (Advanced).",
        ),
    )
}

AGENT_NAMES = tuple(AGENTS)


def agent_command() -> str:
    """The lore command an agent can run in a shell: `gh lore` when `gh lore` started this
    process, else what `lore install` recorded, else `lore`."""
    if os.environ.get("LORE_GH_EXTENSION_DIR"):
        return "gh lore"
    try:
        recorded = (lore_home() / COMMAND_RECORD).read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return "lore"
    return recorded if _COMMAND.match(recorded) else "lore"
