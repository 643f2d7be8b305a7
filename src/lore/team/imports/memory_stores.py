"""Where each agent keeps its private memory, as its documentation says, and what is new there.

- **Claude Code** (auto memory, code.claude.com/docs/en/memory): one folder per project,
  `~/.claude/projects/<project>/memory/` (`$CLAUDE_CONFIG_DIR` in place of `~/.claude`),
  where `<project>` is the canonical git root of the folder Claude Code runs in (the main
  work tree, so every worktree shares it; the folder itself outside git) with every
  character but ASCII letters and digits turned into `-`; a name longer than 200
  characters is cut there and given a hash, which is matched by its first 200.
- **Gemini CLI** (`save_memory`, geminicli.com/docs/tools/memory): the facts go under
  `## Gemini Added Memories` in `~/.gemini/GEMINI.md`, whose name `context.fileName` in
  `~/.gemini/settings.json` may change.
- **Codex** (developers.openai.com/codex/memories): with `[features] memories = true`,
  the memories of earlier threads are folded into `~/.codex/memories/MEMORY.md`
  (`$CODEX_HOME` in place of `~/.codex`).

`snapshot` lists a store's memory files with their modification times, and `new_since`
compares that with what the last import recorded (`memory_ledger`): the session-end
nudge's count of memories the team has not seen. Standard library and `lore.gitfiles`
only: the hook imports this.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

CLAUDE = "claude-memory"
GEMINI = "gemini-memory"
CODEX = "codex-memory"
AGENT_NAME = {CLAUDE: "Claude Code", GEMINI: "Gemini CLI", CODEX: "Codex"}
CLAUDE_INDEX = "MEMORY.md"
GEMINI_SECTION = "## Gemini Added Memories"
MAX_SANITIZED = 200


def _home(env: str, default: str) -> Path:
    value = os.environ.get(env, "").strip()
    return Path(value).expanduser() if value else Path.home() / default


def claude_project_key(folder: Path) -> str:
    """The name Claude Code gives a project's folder under `projects/`."""
    return re.sub(r"[^a-zA-Z0-9]", "-", str(folder))


def canonical_root(cwd: Path) -> Path:
    """The main work tree of the repository `cwd` is in (every worktree shares it), else `cwd`."""
    from lore.gitfiles import common_dir, find_git_dir

    found = find_git_dir(cwd)
    if found is None:
        return cwd.resolve()
    common = common_dir(found[1])
    if common.name == ".git" and common.parent.is_dir():
        return common.parent.resolve()
    return found[0].resolve()


def claude_memory_dir(cwd: Path) -> Path:
    """Claude Code's auto memory folder for the project `cwd` is in."""
    projects = _home("CLAUDE_CONFIG_DIR", ".claude") / "projects"
    key = claude_project_key(canonical_root(cwd))
    if len(key) > MAX_SANITIZED:
        prefix = key[:MAX_SANITIZED] + "-"
        try:
            found = sorted(p for p in projects.iterdir() if p.name.startswith(prefix))
        except OSError:
            found = []
        key = found[0].name if found else prefix
    return projects / key / "memory"


def gemini_memory_file() -> Path:
    """The global context file Gemini CLI's `save_memory` appends to."""
    folder = Path.home() / ".gemini"
    name = "GEMINI.md"
    try:
        settings = json.loads((folder / "settings.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        settings = {}
    context = settings.get("context") if isinstance(settings, dict) else None
    configured = context.get("fileName") if isinstance(context, dict) else None
    if isinstance(configured, list) and configured and isinstance(configured[0], str):
        configured = configured[0]
    if isinstance(configured, str) and configured.strip() and "/" not in configured:
        name = configured.strip()
    return folder / name


def codex_memory_dir() -> Path:
    return _home("CODEX_HOME", ".codex") / "memories"


def default_store(kind: str, cwd: Path) -> Path:
    if kind == CLAUDE:
        return claude_memory_dir(cwd)
    if kind == GEMINI:
        return gemini_memory_file()
    return codex_memory_dir()


def store_name(kind: str, path: Path) -> str:
    """The ledger's name for a store: its kind and real path."""
    return f"{kind}:{path.resolve()}"


def snapshot(kind: str, path: Path) -> dict[str, float]:
    """The store's memory files (name -> modification time); nothing follows a link."""
    found: dict[str, float] = {}
    if kind == CLAUDE:
        try:
            entries = list(os.scandir(path))
        except OSError:
            return found
        for entry in entries:
            if entry.name.endswith(".md") and entry.is_file(follow_symlinks=False):
                try:
                    found[entry.name] = entry.stat(follow_symlinks=False).st_mtime
                except OSError:
                    continue
        return found
    file = path if kind == GEMINI else path / "MEMORY.md"
    try:
        info = os.lstat(file)
    except OSError:
        return found
    found[file.name] = info.st_mtime
    return found


def new_memories(kind: str, cwd: Path, vault_root: Path) -> int:
    """How many of the agent's memory files for `cwd` are new since this vault last imported."""
    from lore.team.imports.memory_ledger import store_files

    path = default_store(kind, cwd)
    return new_since(kind, path, store_files(vault_root, store_name(kind, path)))


def new_since(kind: str, path: Path, before: dict[str, float] | None) -> int:
    """How many memory files changed or appeared since the last import (all, if none)."""
    now = snapshot(kind, path)
    if kind == CLAUDE:
        now.pop(CLAUDE_INDEX, None)
    if before is None:
        return len(now)
    return sum(1 for name, mtime in now.items() if before.get(name, -1.0) < mtime)
