"""Where each agent reads hooks, skills and MCP servers, and what lore puts there.

User scope (the default) writes under the agent's home folder; project scope
(`--project`) writes the repository's own configuration. Sources are cited in
docs/agents/<agent>.md.

- claude-code: hooks in `~/.claude/settings.json`, skills in `~/.claude/skills/`, the MCP
  server in `~/.claude.json`; project: `.claude/settings.json`, `.claude/skills/`, `.mcp.json`.
- codex: hooks in `~/.codex/hooks.json`, the MCP server and the hooks feature flag in
  `~/.codex/config.toml`, skills in `~/.agents/skills/`; project: `.codex/…`, `.agents/skills/`.
- cursor: `~/.cursor/hooks.json`, `~/.cursor/skills/`, `~/.cursor/mcp.json`; project:
  the same under `.cursor/`.
- copilot-cli: `~/.copilot/hooks/lore.json`, `~/.copilot/skills/`,
  `~/.copilot/mcp-config.json`; project: `.github/hooks/lore.json`, `.github/skills/`,
  `.github/mcp.json`.
- gemini-cli: hooks and the MCP server in `~/.gemini/settings.json`, skills in
  `~/.gemini/skills/`; project: the same under `.gemini/`.

`CLAUDE_CONFIG_DIR`, `CODEX_HOME` and `COPILOT_HOME` move those agents' home folders.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from lore.integrations.events import AGENTS
from lore.integrations.install.components import (
    CodexConfig,
    Component,
    EventHooks,
    McpServer,
    OwnedJsonFile,
    SkillFile,
)
from lore.integrations.install.ownership import hook_command

SKILLS = ("lore-recall", "lore-remember")
HOOK_TIMEOUT_S = 10
STATUS = "Loading the team's notes (lore)"


def skill_sources() -> dict[str, bytes]:
    """The skills shipped inside the package: name -> SKILL.md bytes."""
    base = Path(__file__).resolve().parent.parent / "skills"
    return {name: (base / name / "SKILL.md").read_bytes() for name in SKILLS}


def _home(env: str, default: str) -> Path:
    value = os.environ.get(env)
    return Path(value).expanduser() if value else Path.home() / default


def _skills(folder: Path) -> list[Component]:
    return [
        SkillFile(folder / name / "SKILL.md", content) for name, content in skill_sources().items()
    ]


def components(
    agent: str, project: Path | None, lore_argv: list[str], *, prompt: bool = True
) -> list[Component]:
    """What `lore install AGENT` writes, for user scope (`project` None) or a repository."""
    if agent not in AGENTS:
        raise ValueError(agent)
    builder = {
        "claude-code": _claude_code,
        "codex": _codex,
        "cursor": _cursor,
        "copilot-cli": _copilot_cli,
        "gemini-cli": _gemini_cli,
    }[agent]
    return builder(project, lore_argv, prompt)


def _nested(lore_argv: list[str], agent: str, event: str, **extra: Any) -> dict[str, Any]:
    return {"type": "command", "command": hook_command(lore_argv, event, agent), **extra}


def _claude_code(project: Path | None, argv: list[str], prompt: bool) -> list[Component]:
    home = _home("CLAUDE_CONFIG_DIR", ".claude")
    base = project / ".claude" if project else home
    if project:
        mcp_file = project / ".mcp.json"
    elif os.environ.get("CLAUDE_CONFIG_DIR"):
        mcp_file = home / ".claude.json"
    else:
        mcp_file = Path.home() / ".claude.json"
    handlers = [("SessionStart", _nested(argv, "claude-code", "session-start", timeout=10))]
    if prompt:
        handlers.append(("UserPromptSubmit", _nested(argv, "claude-code", "prompt", timeout=10)))
    server = {"type": "stdio", "command": argv[0], "args": [*argv[1:], "mcp"], "env": {}}
    return [
        EventHooks(base / "settings.json", handlers, flat=False),
        *_skills(base / "skills"),
        McpServer(mcp_file, server),
    ]


def _codex(project: Path | None, argv: list[str], prompt: bool) -> list[Component]:
    base = project / ".codex" if project else _home("CODEX_HOME", ".codex")
    skills = (project or Path.home()) / ".agents" / "skills"
    extra = {"timeout": HOOK_TIMEOUT_S, "statusMessage": STATUS}
    handlers = [("SessionStart", _nested(argv, "codex", "session-start", **extra))]
    if prompt:
        handlers.append(("UserPromptSubmit", _nested(argv, "codex", "prompt", timeout=10)))
    return [
        EventHooks(base / "hooks.json", handlers, flat=False),
        CodexConfig(base / "config.toml", argv),
        *_skills(skills),
    ]


def _cursor(project: Path | None, argv: list[str], prompt: bool) -> list[Component]:
    base = (project or Path.home()) / ".cursor"
    # Cursor's beforeSubmitPrompt cannot add context, so there is no prompt hook.
    handler = {"command": hook_command(argv, "session-start", "cursor")}
    return [
        EventHooks(base / "hooks.json", [("sessionStart", handler)], flat=True),
        *_skills(base / "skills"),
        McpServer(base / "mcp.json", {"command": argv[0], "args": [*argv[1:], "mcp"]}),
    ]


def _copilot_cli(project: Path | None, argv: list[str], prompt: bool) -> list[Component]:
    home = _home("COPILOT_HOME", ".copilot")
    hooks_dir = project / ".github" / "hooks" if project else home / "hooks"
    command = hook_command(argv, "session-start", "copilot-cli")
    # userPromptSubmitted output is not read by Copilot CLI, so there is no prompt hook.
    hooks = {
        "version": 1,
        "hooks": {
            "sessionStart": [
                {
                    "type": "command",
                    "bash": command,
                    "powershell": command,
                    "timeoutSec": HOOK_TIMEOUT_S,
                }
            ]
        },
    }
    server = {"type": "local", "command": argv[0], "args": [*argv[1:], "mcp"], "tools": ["*"]}
    mcp_file = project / ".github" / "mcp.json" if project else home / "mcp-config.json"
    skills = project / ".github" / "skills" if project else home / "skills"
    return [
        OwnedJsonFile(hooks_dir / "lore.json", hooks),
        *_skills(skills),
        McpServer(mcp_file, server),
    ]


def _gemini_cli(project: Path | None, argv: list[str], prompt: bool) -> list[Component]:
    base = (project or Path.home()) / ".gemini"
    handlers = [
        (
            "SessionStart",
            {
                "name": "lore-session-start",
                **_nested(argv, "gemini-cli", "session-start"),
                "timeout": HOOK_TIMEOUT_S * 1000,
                "description": "The team's reviewed notes for this repository (lore)",
            },
        )
    ]
    if prompt:
        handlers.append(
            (
                "BeforeAgent",
                {
                    "name": "lore-prompt",
                    **_nested(argv, "gemini-cli", "prompt"),
                    "timeout": HOOK_TIMEOUT_S * 1000,
                    "description": "Notes that match the prompt (lore; lore.toml turns it on)",
                },
            )
        )
    settings = base / "settings.json"
    return [
        EventHooks(settings, handlers, flat=False),
        McpServer(settings, {"command": argv[0], "args": [*argv[1:], "mcp"]}),
        *_skills(base / "skills"),
    ]
