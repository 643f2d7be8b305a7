"""What lore puts into each agent's files, at the locations the agents table names.

The table (`lore.integrations.agents.AGENTS`) says where each agent reads hooks, skills
and MCP servers, at user level and in a repository (`--project`), and which event names
its hooks use; this module builds the entries in each agent's own format:

- claude-code: hook groups under `hooks.EVENT` in settings.json, the MCP server in
  `~/.claude.json` (`.mcp.json` in a repository);
- codex: hook groups in hooks.json, the MCP server and the hooks feature flag in
  config.toml (edited with tomlkit, which keeps the user's formatting);
- cursor: flat `sessionStart` and `stop` lists with `"version": 1` in hooks.json, mcp.json;
- copilot-cli: a hooks file lore owns whole (`lore.json`), mcp-config.json (`.github/mcp.json`);
- gemini-cli: named hook groups and the MCP server in one settings.json.

Each agent gets a hook for every lore event it reads (session start, prompt unless
`--no-prompt`, session end). Every agent gets the two skills, with the lore command of
the launcher (`lore` or `gh lore`) written into their instructions; a repository's
copy says `lore` and how to run it as `gh lore`. Sources: docs/agents/NAME.md.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from lore.integrations.agents import AGENTS, LORE_EVENTS, Agent
from lore.integrations.install.components import (
    CodexConfig,
    Component,
    EventHooks,
    McpServer,
    OwnedJsonFile,
    SkillFile,
)
from lore.integrations.install.ownership import (
    Launcher,
    hook_command,
    mcp_command,
    powershell_hook_command,
)

SKILLS = ("lore-recall", "lore-remember")
HOOK_TIMEOUT_S = 10
STATUS = "Loading the team's notes (lore)"
_VARIABLE = re.compile(r"^\{\$(\w+)\|([^}]*)\}")
# `lore SUBCOMMAND` in a skill's text: where another launcher (`gh lore`) goes instead.
_LORE_IN_SKILL = re.compile(
    r"(?<![\w./-])lore(?= (?:recall|show|remember|connect|demo|sync|index|install|init)\b)"
)


_GH_NOTE = re.compile(r"^\(If `lore` is not on PATH but the GitHub CLI is[^\n]*\n\n", re.MULTILINE)


def skill_sources() -> dict[str, bytes]:
    """The skills shipped inside the package: name -> SKILL.md bytes (they say `lore`)."""
    base = Path(__file__).resolve().parent.parent / "skills"
    return {name: (base / name / "SKILL.md").read_bytes() for name in SKILLS}


def render_skill(source: bytes, command: str) -> bytes:
    """A skill's text with `command` (e.g. `gh lore`) wherever it says to run `lore …`,
    without the line that tells a repository's readers how to run `gh lore` instead."""
    if command == "lore":
        return source
    text = _GH_NOTE.sub("", source.decode("utf-8"))
    return _LORE_IN_SKILL.sub(lambda _: command, text).encode("utf-8")


def location(agent: Agent, what: str, project: Path | None) -> Path:
    """Where `what` (hooks, mcp, skills) lives for this agent, at user level or in `project`."""
    if project is not None:
        return project / agent.project[what]
    text = agent.user[what]
    variable = _VARIABLE.match(text)
    if variable:
        value = os.environ.get(variable[1])
        base = Path(value).expanduser() if value else Path(variable[2]).expanduser()
        return base / text[variable.end() :].lstrip("/")
    return Path(text).expanduser()


def components(
    agent: str, project: Path | None, launcher: Launcher, *, prompt: bool = True
) -> list[Component]:
    """What `lore install AGENT` writes, for user scope (`project` None) or a repository."""
    known = AGENTS.get(agent)
    if known is None:
        raise ValueError(agent)
    builder = {
        "claude-code": _claude_code,
        "codex": _codex,
        "cursor": _cursor,
        "copilot-cli": _copilot_cli,
        "gemini-cli": _gemini_cli,
    }[agent]
    parts = builder(known, project, launcher, prompt and known.reads("prompt"))
    skills = location(known, "skills", project)
    command = "lore" if project is not None else launcher.text  # committed: every teammate's
    for name, source in skill_sources().items():
        parts.append(SkillFile(skills / name / "SKILL.md", render_skill(source, command)))
    return parts


def _hook(
    agent: Agent, launcher: Launcher, event: str, project: Path | None, **extra: Any
) -> dict[str, Any]:
    command = hook_command(launcher, event, agent.name, project=project is not None)
    return {"type": "command", "command": command, **extra}


def lore_events(agent: Agent, prompt: bool) -> list[str]:
    """The lore events an install hooks for this agent: those it reads, prompt if asked."""
    return [event for event in LORE_EVENTS if agent.reads(event) and (prompt or event != "prompt")]


def _handlers(
    agent: Agent, launcher: Launcher, project: Path | None, prompt: bool, **extra: Any
) -> list[tuple[str, dict[str, Any]]]:
    return [
        (str(agent.events[event]), _hook(agent, launcher, event, project, **extra))
        for event in lore_events(agent, prompt)
    ]


def _server(
    launcher: Launcher,
    project: Path | None,
    head: dict[str, Any] | None = None,
    tail: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """An MCP server entry: `head` fields, then command and args, then `tail` fields."""
    command, args = mcp_command(launcher, project=project is not None)
    return {**(head or {}), "command": command, "args": args, **(tail or {})}


def _claude_code(
    agent: Agent, project: Path | None, launcher: Launcher, prompt: bool
) -> list[Component]:
    handlers = _handlers(agent, launcher, project, prompt, timeout=HOOK_TIMEOUT_S)
    server = _server(launcher, project, {"type": "stdio"}, {"env": {}})
    return [
        EventHooks(location(agent, "hooks", project), handlers, flat=False),
        McpServer(location(agent, "mcp", project), server),
    ]


def _codex(agent: Agent, project: Path | None, launcher: Launcher, prompt: bool) -> list[Component]:
    handlers = _handlers(agent, launcher, project, prompt, timeout=HOOK_TIMEOUT_S)
    handlers[0][1]["statusMessage"] = STATUS  # shown while the session-start hook runs
    command, args = mcp_command(launcher, project=project is not None)
    return [
        EventHooks(location(agent, "hooks", project), handlers, flat=False),
        CodexConfig(location(agent, "mcp", project), command, args),
    ]


def _cursor(
    agent: Agent, project: Path | None, launcher: Launcher, prompt: bool
) -> list[Component]:
    handlers = [
        (
            str(agent.events[event]),
            {"command": hook_command(launcher, event, agent.name, project=project is not None)},
        )
        for event in lore_events(agent, prompt)
    ]
    return [
        EventHooks(location(agent, "hooks", project), handlers, flat=True),
        McpServer(location(agent, "mcp", project), _server(launcher, project)),
    ]


def _copilot_cli(
    agent: Agent, project: Path | None, launcher: Launcher, prompt: bool
) -> list[Component]:
    scoped = project is not None
    hooks = {
        "version": 1,
        "hooks": {
            str(agent.events[event]): [
                {
                    "type": "command",
                    "bash": hook_command(launcher, event, agent.name, project=scoped),
                    "powershell": powershell_hook_command(
                        launcher, event, agent.name, project=scoped
                    ),
                    "timeoutSec": HOOK_TIMEOUT_S,
                }
            ]
            for event in lore_events(agent, prompt)
        },
    }
    server = _server(launcher, project, {"type": "local"}, {"tools": ["*"]})
    return [
        OwnedJsonFile(location(agent, "hooks", project), hooks),
        McpServer(location(agent, "mcp", project), server),
    ]


def _gemini_cli(
    agent: Agent, project: Path | None, launcher: Launcher, prompt: bool
) -> list[Component]:
    details = {  # a name (`/hooks disable lore-prompt`) and a description per hook
        "session-start": (
            "lore-session-start",
            "The team's reviewed notes for this repository (lore)",
        ),
        "prompt": ("lore-prompt", "Notes that match the prompt (lore; lore.toml turns it on)"),
        "session-end": (
            "lore-session-end",
            "Once a session: ask whether to draft a note for the team (lore)",
        ),
    }
    handlers = []
    for event in lore_events(agent, prompt):
        name, description = details[event]
        hook = _hook(agent, launcher, event, project)
        handlers.append(
            (
                str(agent.events[event]),
                {
                    "name": name,
                    **hook,
                    "timeout": HOOK_TIMEOUT_S * 1000,
                    "description": description,
                },
            )
        )
    settings = location(agent, "hooks", project)
    return [
        EventHooks(settings, handlers, flat=False),
        McpServer(location(agent, "mcp", project), _server(launcher, project)),
    ]
