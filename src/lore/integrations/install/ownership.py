"""What lore owns in an agent's files, and the commands it writes there.

- A hook handler is lore's when its command runs `lore hook EVENT --agent NAME`
  (any path to `lore`, `gh lore`, the `gh-lore` shim, `python -m lore`, or the finder
  below): `--agent` is written only by installers.
- An MCP server entry is lore's when it runs `lore mcp` (same rule, the finder's
  `sh -c` script included).
- A skill is lore's when its SKILL.md frontmatter carries `source: gh-lore`.
- In a TOML file, lore's table is the `[mcp_servers.lore]` that runs `lore mcp`, and a
  line it added elsewhere ends with `# lore install` (older installs also wrote
  `# >>> lore` … `# <<< lore` around their block).

`Launcher` says how lore is started: the command a person or an agent types (`lore`,
`gh lore`) and the absolute command user-level entries run (GUI agents do not share the
shell's PATH). A repository's files are committed and read by every teammate, whoever
ran the install, so they run neither: they run the finder (`FIND_LORE`), a few lines
of POSIX shell that take the `lore` on PATH, else the `gh lore` extension's shim where
the GitHub CLI keeps it, and exit 0 in silence when there is neither. The files then
hold no path of this machine and work for pipx and gh-extension users alike.
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
MCP_IN_SCRIPT = re.compile(r"(?:\blore(?:\.exe)?[\"']?|-m\s+lore)\s+mcp\b")
SKILL_MARKER = "source: gh-lore"
_SHELLS = ("sh", "bash", "dash", "zsh")
MCP_NAME = "lore"
_LORE_NAMES = ("lore", "lore.exe", "gh-lore")


class Launcher(Record):
    """How lore is started, for people and agents (`text`) and for user-level entries
    (`argv`, absolute)."""

    __slots__ = ("argv", "text")

    def __init__(self, text: str, argv: list[str]) -> None:
        self.text = text
        self.argv = argv


def current_launcher() -> Launcher:
    """How this lore was started: by `gh lore`, as `lore` on PATH, or neither."""
    extension = os.environ.get("LORE_GH_EXTENSION_DIR")
    if extension:
        return Launcher("gh lore", [str(Path(extension) / "gh-lore")])
    found = shutil.which("lore")
    if found:
        return Launcher("lore", [str(Path(found).absolute())])
    argv = [sys.executable, "-m", "lore"]
    return Launcher(command_line(argv), argv)


# Where the GitHub CLI keeps an extension on Linux and macOS: its data folder
# ($GH_DATA_DIR, else $XDG_DATA_HOME/gh, else ~/.local/share/gh), in extensions/gh-NAME/.
# The shim there is run directly, without gh's own start-up. Only plain `$NAME` forms:
# Gemini CLI resolves `$NAME`, `${NAME}` and `${NAME:-default}` in its settings (a
# nested default comes out wrong) and Claude Code `${NAME}` in .mcp.json, each to the
# value the shell would see anyway. (An unset $GH_DATA_DIR probes /extensions/…, which
# holds no shim.)
GH_EXTENSION_SHIMS = (
    '"$GH_DATA_DIR/extensions/gh-lore/gh-lore"',
    '"$XDG_DATA_HOME/gh/extensions/gh-lore/gh-lore"',
    '"$HOME/.local/share/gh/extensions/gh-lore/gh-lore"',
)
FIND_LORE = (
    f'for lore in "$(command -v lore)" {" ".join(GH_EXTENSION_SHIMS)}; '
    'do [ -x "$lore" ] && break; lore=; done; '
    '[ -n "$lore" ] || exit 0; '
)


def command_line(argv: list[str]) -> str:
    """A shell command line for the agent's hook runner."""
    if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
        return subprocess.list2cmdline(argv)
    return shlex.join(argv)


def hook_command(launcher: Launcher, event: str, agent: str, *, project: bool) -> str:
    """The hook's command line; in a repository, the finder, silent without lore."""
    if project:
        return f'{FIND_LORE}"$lore" hook {event} --agent {agent}'
    return command_line([*launcher.argv, "hook", event, "--agent", agent])


def powershell_hook_command(launcher: Launcher, event: str, agent: str, *, project: bool) -> str:
    """The same for PowerShell (Copilot CLI on Windows): `lore`, else `gh lore`, else nothing."""
    if not project:
        return subprocess.list2cmdline([*launcher.argv, "hook", event, "--agent", agent])
    found = "-ErrorAction SilentlyContinue"
    return (
        f"if (Get-Command lore {found}) {{ lore hook {event} --agent {agent} }} "
        f"elseif (Get-Command gh {found}) {{ gh lore hook {event} --agent {agent} 2>$null }}; "
        "exit 0"
    )


def mcp_command(launcher: Launcher, *, project: bool) -> tuple[str, list[str]]:
    """The MCP server entry's command and arguments (in a repository: `sh -c` the finder)."""
    if project:
        return "sh", ["-c", f'{FIND_LORE}exec "$lore" mcp']
    return launcher.argv[0], [*launcher.argv[1:], "mcp"]


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
    if words and Path(words[0]).name in _SHELLS and words[1:2] == ["-c"]:  # the finder
        return any(MCP_IN_SCRIPT.search(word) for word in words[2:3])
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
