"""The agents lore connects to, in one table, and the command agents are told to run.

`AGENTS` holds one `Agent` per coding agent: its name on the command line, its
display name, the hook event names it uses for lore's two events (None: the agent
reads no context back from that event), the JSON shape of a hook's output, and where
its configuration lives, at user level and in a repository (`--project`). The
installer, `lore hook`, `lore install --help`, the docs test and the plugin test all
read this table; docs/agents/NAME.md cites each agent's documentation.

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

LORE_EVENTS = ("session-start", "prompt")

# How a hook's output carries the context: {"hookSpecificOutput": {"hookEventName",
# "additionalContext"}}, {"additional_context": …} or {"additionalContext": …}.
NESTED = "hookSpecificOutput"
SNAKE = "additional_context"
CAMEL = "additionalContext"

COMMAND_RECORD = "installs/command"  # under $LORE_HOME: the command `lore install` recorded
_COMMAND = re.compile(r"^[\w./:\\~+@ -]{1,300}$")  # a command line, not text for an agent


class Agent(Record):
    """One coding agent: its hook events and output shape, and where its files are."""

    __slots__ = ("events", "name", "next_steps", "output", "project", "title", "user")

    def __init__(
        self,
        name: str,
        title: str,
        *,
        events: dict[str, str | None],
        output: str,
        user: dict[str, str],
        project: dict[str, str],
        next_steps: str,
    ) -> None:
        self.name = name
        self.title = title
        self.events = events  # lore event -> the agent's hook event name (None: not read)
        self.output = output  # NESTED, SNAKE or CAMEL
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
            events={"session-start": "SessionStart", "prompt": "UserPromptSubmit"},
            output=NESTED,
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
            events={"session-start": "SessionStart", "prompt": "UserPromptSubmit"},
            output=NESTED,
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
            events={"session-start": "sessionStart", "prompt": None},
            output=SNAKE,
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
            # userPromptSubmitted output is not read.
            events={"session-start": "sessionStart", "prompt": None},
            output=CAMEL,
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
            events={"session-start": "SessionStart", "prompt": "BeforeAgent"},
            output=NESTED,
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
