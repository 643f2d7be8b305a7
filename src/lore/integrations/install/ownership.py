"""What lore owns in an agent's files, and the commands it writes there.

- A hook handler is lore's when its command runs `lore hook EVENT --agent NAME`
  (any path to `lore`, or `python -m lore`): `--agent` is written only by installers.
- An MCP server entry is lore's when it runs `lore mcp` (same rule).
- A skill is lore's when its SKILL.md frontmatter carries `source: gh-lore`.
- In a TOML file, lore's lines sit between `# >>> lore` and `# <<< lore` markers, or
  end with `# lore install`.
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

HOOK_COMMAND = re.compile(
    r"(?:\blore(?:\.exe)?[\"']?|-m\s+lore)\s+hook\s+[\w-]+\s+--agent\s+[\w-]+", re.IGNORECASE
)
SKILL_MARKER = "source: gh-lore"
MCP_NAME = "lore"


def default_lore_argv() -> list[str]:
    """How an agent should start lore: the `lore` found on PATH, else this Python."""
    found = shutil.which("lore")
    if found:
        return [str(Path(found).absolute())]
    return [sys.executable, "-m", "lore"]


def command_line(argv: list[str]) -> str:
    """A shell command line for the agent's hook runner."""
    if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
        return subprocess.list2cmdline(argv)
    return shlex.join(argv)


def hook_command(lore_argv: list[str], event: str, agent: str) -> str:
    return command_line([*lore_argv, "hook", event, "--agent", agent])


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
        if name in ("lore", "lore.exe") and words[index + 1 : index + 2] == ["mcp"]:
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
