"""What lore owns in an agent's files, and the commands it writes there.

- A hook handler is lore's when its command runs `lore hook EVENT --agent NAME`
  (any path to `lore`, `gh lore`, the `gh-lore` shim, or `python -m lore`): `--agent`
  is written only by installers.
- An MCP server entry is lore's when it runs `lore mcp` (same rule).
- A skill is lore's when its SKILL.md frontmatter carries `source: gh-lore`.
- In a TOML file, lore's lines sit between `# >>> lore` and `# <<< lore` markers, or
  end with `# lore install`.

`Launcher` says how lore is started: the command a person or an agent types (`lore`,
`gh lore`), the absolute command user-level entries run (GUI agents do not share the
shell's PATH), and the command a repository's files run (looked up on PATH, so the
files hold no path of this machine). Hooks in a repository are guarded: a teammate
without lore gets silence, not an error, as the Claude Code plugin does.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from lore.record import Record

HOOK_COMMAND = re.compile(
    r"(?:\blore(?:\.exe)?[\"']?|-m\s+lore)\s+hook\s+[\w-]+\s+--agent\s+[\w-]+", re.IGNORECASE
)
SKILL_MARKER = "source: gh-lore"
MCP_NAME = "lore"
_LORE_NAMES = ("lore", "lore.exe", "gh-lore")


class Launcher(Record):
    """How lore is started, for people and agents (`text`), for user-level entries (`argv`,
    absolute) and for a repository's files (`portable`, looked up on PATH)."""

    __slots__ = ("argv", "portable", "text")

    def __init__(self, text: str, argv: list[str], portable: list[str]) -> None:
        self.text = text
        self.argv = argv
        self.portable = portable

    def command(self, project: bool) -> list[str]:
        return self.portable if project else self.argv


def current_launcher() -> Launcher:
    """How this lore was started: by `gh lore`, as `lore` on PATH, or neither."""
    extension = os.environ.get("LORE_GH_EXTENSION_DIR")
    if extension:
        return Launcher("gh lore", [str(Path(extension) / "gh-lore")], ["gh", "lore"])
    found = shutil.which("lore")
    if found:
        return Launcher("lore", [str(Path(found).absolute())], ["lore"])
    argv = [sys.executable, "-m", "lore"]
    return Launcher(command_line(argv), argv, ["lore"])


def command_line(argv: list[str]) -> str:
    """A shell command line for the agent's hook runner."""
    if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
        return subprocess.list2cmdline(argv)
    return shlex.join(argv)


def hook_command(launcher: Launcher, event: str, agent: str, *, project: bool) -> str:
    """The hook's command line; in a repository, guarded so that it is silent without lore."""
    argv = launcher.command(project)
    line = command_line([*argv, "hook", event, "--agent", agent])
    if not project:
        return line
    guard = f"command -v {shlex.quote(argv[0])} >/dev/null 2>&1 || exit 0; "
    if len(argv) == 1:
        return guard + line
    # `gh lore` where gh is installed but the extension is not: gh fails; stay silent.
    return f"{guard}{line} 2>/dev/null || exit 0"


def powershell_hook_command(launcher: Launcher, event: str, agent: str, *, project: bool) -> str:
    """The same for PowerShell (Copilot CLI on Windows)."""
    argv = launcher.command(project)
    line = subprocess.list2cmdline([*argv, "hook", event, "--agent", agent])
    if not project:
        return line
    return f"if (Get-Command {argv[0]} -ErrorAction SilentlyContinue) {{ {line} }}"


def mcp_command(launcher: Launcher, *, project: bool) -> tuple[str, list[str]]:
    """The MCP server entry's command and arguments."""
    argv = launcher.command(project)
    return argv[0], [*argv[1:], "mcp"]


def is_lore_hook(command: object) -> bool:
    return isinstance(command, str) and HOOK_COMMAND.search(command) is not None


def is_lore_mcp(entry: object) -> bool:
    """Whether an MCP server entry (dict with command/args) runs `lore mcp`."""
    if not isinstance(entry, dict):
        return False
    command = entry.get("command")
    args = entry.get("args") or []
    if not isinstance(command, str) or not isinstance(args, list):
        return False
    words = [*shlex_split(command), *(str(a) for a in args)]
    for index, word in enumerate(words):
        name = Path(word).name.lower()
        if name in _LORE_NAMES and words[index + 1 : index + 2] == ["mcp"]:
            return True
        if word == "-m" and words[index + 1 : index + 3] == ["lore", "mcp"]:
            return True
    return False


def shlex_split(text: str) -> list[str]:
    try:
        return shlex.split(text)
    except ValueError:
        return text.split()


def is_lore_skill(text: str) -> bool:
    head = text.split("\n---", 1)[0]
    return SKILL_MARKER in head
