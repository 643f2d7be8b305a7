"""The pieces an installer puts into an agent's files, each able to add, remove and check itself.

A component maps a file's current bytes to its new bytes (None: no file), touching
only what `ownership` says is lore's. When the parsed content would not change, the
original bytes are returned as they are, so installing twice writes nothing.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

from lore.errors import LoreError
from lore.integrations.install.ownership import (
    MCP_NAME,
    is_lore_hook,
    is_lore_mcp,
    is_lore_skill,
)
from lore.integrations.install.transaction import InstallError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib


class Conflict(LoreError):
    """Something that is not lore's sits where lore's entry would go; it is left alone."""


INSTALLED = "installed"
MISSING = "missing"
OUTDATED = "outdated"


class Component:
    label = ""

    def __init__(self, path: Path) -> None:
        self.path = path

    def install(self, data: bytes | None) -> bytes | None:
        raise NotImplementedError

    def uninstall(self, data: bytes | None) -> bytes | None:
        raise NotImplementedError

    def status(self, data: bytes | None) -> str:
        raise NotImplementedError


# ---- JSON files ----


def load_json(data: bytes | None, path: Path) -> dict[str, Any]:
    if data is None or not data.strip():
        return {}
    try:
        value = json.loads(data.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise InstallError(
            f"{path} is not plain JSON ({exc}); lore will not rewrite it.",
            fix="Fix the file (comments are not allowed there), or add lore's entry by hand "
            "as shown in docs/agents/.",
        ) from None
    if not isinstance(value, dict):
        raise InstallError(f"{path} does not hold a JSON object; lore will not rewrite it.")
    return value


def dump_json(value: dict[str, Any]) -> bytes:
    return (json.dumps(value, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


class JsonComponent(Component):
    """A component that edits one JSON object; unchanged content keeps its bytes."""

    def install(self, data: bytes | None) -> bytes | None:
        before = load_json(data, self.path)
        after = self.add(json.loads(json.dumps(before)))
        return data if after == before and data is not None else dump_json(after)

    def uninstall(self, data: bytes | None) -> bytes | None:
        if data is None:
            return None
        before = load_json(data, self.path)
        after = self.remove(json.loads(json.dumps(before)))
        if after == before:
            return data
        return None if _is_empty(after) else dump_json(after)

    def status(self, data: bytes | None) -> str:
        try:
            return self.inspect(load_json(data, self.path))
        except InstallError:
            return "unreadable"

    def add(self, value: dict[str, Any]) -> dict[str, Any]:
        raise NotImplementedError

    def remove(self, value: dict[str, Any]) -> dict[str, Any]:
        raise NotImplementedError

    def inspect(self, value: dict[str, Any]) -> str:
        raise NotImplementedError


def _is_empty(value: dict[str, Any]) -> bool:
    return not value or value == {"version": 1}


def _section(value: dict[str, Any], key: str, path: Path) -> dict[str, Any]:
    section = value.setdefault(key, {})
    if not isinstance(section, dict):
        raise InstallError(f"{path}: '{key}' is not an object; lore will not rewrite it.")
    return section


class EventHooks(JsonComponent):
    """Hook handlers under `hooks.EVENT` (Claude Code, Codex and Gemini CLI nest them in groups
    of `{"matcher", "hooks": [...]}`; Cursor lists them flat with `"version": 1`)."""

    label = "hooks"

    def __init__(self, path: Path, handlers: list[tuple[str, dict[str, Any]]], *, flat: bool):
        super().__init__(path)
        self.handlers = handlers
        self.flat = flat

    def add(self, value: dict[str, Any]) -> dict[str, Any]:
        if self.flat and "version" not in value:
            value = {"version": 1, **value}
        hooks = _section(value, "hooks", self.path)
        for event, handler in self.handlers:
            entries = hooks.setdefault(event, [])
            if not isinstance(entries, list):
                raise InstallError(f"{self.path}: hooks.{event} is not a list.")
            hooks[event] = self._placed(entries, handler)
        return value

    def _placed(self, entries: list[Any], handler: dict[str, Any]) -> list[Any]:
        """Ours replaces the first handler lore owns (keeping its place), or is appended."""
        placed = False
        result: list[Any] = []
        for entry in entries:
            if self.flat:
                if isinstance(entry, dict) and is_lore_hook(entry.get("command")):
                    if not placed:
                        result.append(handler)
                        placed = True
                    continue
                result.append(entry)
                continue
            inner = entry.get("hooks") if isinstance(entry, dict) else None
            if not isinstance(inner, list):
                result.append(entry)
                continue
            kept: list[Any] = []
            for item in inner:
                if isinstance(item, dict) and is_lore_hook(item.get("command")):
                    if not placed:
                        kept.append(handler)
                        placed = True
                    continue
                kept.append(item)
            if kept:
                result.append({**entry, "hooks": kept})
        if not placed:
            result.append(handler if self.flat else {"hooks": [handler]})
        return result

    def remove(self, value: dict[str, Any]) -> dict[str, Any]:
        hooks = value.get("hooks")
        if not isinstance(hooks, dict):
            return value
        for event in list(hooks):
            entries = hooks[event]
            if not isinstance(entries, list):
                continue
            cleaned = [e for e in (self._without_lore(e) for e in entries) if e is not None]
            if cleaned:
                hooks[event] = cleaned
            else:
                del hooks[event]
        if not hooks:
            del value["hooks"]
        return value

    def _without_lore(self, entry: Any) -> Any:
        if not isinstance(entry, dict):
            return entry
        if self.flat:
            return None if is_lore_hook(entry.get("command")) else entry
        inner = entry.get("hooks")
        if not isinstance(inner, list):
            return entry
        kept = [i for i in inner if not (isinstance(i, dict) and is_lore_hook(i.get("command")))]
        if len(kept) == len(inner):
            return entry
        return {**entry, "hooks": kept} if kept else None

    def inspect(self, value: dict[str, Any]) -> str:
        hooks = value.get("hooks")
        if not isinstance(hooks, dict):
            hooks = {}
        found = [self._owned(hooks.get(event)) for event, _ in self.handlers]
        wanted = [handler for _, handler in self.handlers]
        if all(found[i] == wanted[i] for i in range(len(wanted))):
            return INSTALLED
        return OUTDATED if any(found) else MISSING

    def _owned(self, entries: Any) -> dict[str, Any] | None:
        for entry in entries if isinstance(entries, list) else []:
            if self.flat:
                items: Any = [entry]
            else:
                items = entry.get("hooks") if isinstance(entry, dict) else []
            for item in items if isinstance(items, list) else []:
                if isinstance(item, dict) and is_lore_hook(item.get("command")):
                    return dict(item)
        return None


class McpServer(JsonComponent):
    """`mcpServers.lore` (Claude Code, Cursor, Copilot CLI, Gemini CLI)."""

    label = "mcp server"

    def __init__(self, path: Path, entry: dict[str, Any], container: str = "mcpServers"):
        super().__init__(path)
        self.entry = entry
        self.container = container

    def add(self, value: dict[str, Any]) -> dict[str, Any]:
        servers = _section(value, self.container, self.path)
        existing = servers.get(MCP_NAME)
        if existing is not None and not is_lore_mcp(existing):
            raise Conflict(
                f"{self.path} already has an MCP server named '{MCP_NAME}' that does not run "
                "`lore mcp`; it was left as it is.",
                fix="Rename or remove it, then run `lore install` again.",
            )
        servers[MCP_NAME] = self.entry
        return value

    def remove(self, value: dict[str, Any]) -> dict[str, Any]:
        servers = value.get(self.container)
        if isinstance(servers, dict) and is_lore_mcp(servers.get(MCP_NAME)):
            del servers[MCP_NAME]
            if not servers:
                del value[self.container]
        return value

    def inspect(self, value: dict[str, Any]) -> str:
        servers = value.get(self.container)
        existing = servers.get(MCP_NAME) if isinstance(servers, dict) else None
        if existing == self.entry:
            return INSTALLED
        if existing is None:
            return MISSING
        return OUTDATED if is_lore_mcp(existing) else "conflict"


class OwnedJsonFile(JsonComponent):
    """A JSON file lore owns whole (Copilot CLI reads every file in its hooks folder)."""

    label = "hooks"

    def __init__(self, path: Path, content: dict[str, Any]) -> None:
        super().__init__(path)
        self.content = content

    def _ours(self, value: dict[str, Any]) -> bool:
        return is_lore_hook(json.dumps(value))

    def add(self, value: dict[str, Any]) -> dict[str, Any]:
        if value and not self._ours(value):
            raise Conflict(f"{self.path} exists and is not lore's; it was left as it is.")
        return dict(self.content)

    def remove(self, value: dict[str, Any]) -> dict[str, Any]:
        return {} if self._ours(value) else value

    def inspect(self, value: dict[str, Any]) -> str:
        if value == self.content:
            return INSTALLED
        if not value:
            return MISSING
        return OUTDATED if self._ours(value) else "conflict"


# ---- skills ----


class SkillFile(Component):
    def __init__(self, path: Path, content: bytes) -> None:
        super().__init__(path)
        self.content = content
        self.label = f"skill {path.parent.name}"

    def install(self, data: bytes | None) -> bytes | None:
        if data is not None and not is_lore_skill(data.decode("utf-8", "replace")):
            raise Conflict(f"{self.path} exists and is not lore's; it was left as it is.")
        return self.content

    def uninstall(self, data: bytes | None) -> bytes | None:
        if data is not None and is_lore_skill(data.decode("utf-8", "replace")):
            return None
        return data

    def status(self, data: bytes | None) -> str:
        if data is None:
            return MISSING
        if data == self.content:
            return INSTALLED
        return OUTDATED if is_lore_skill(data.decode("utf-8", "replace")) else "conflict"


# ---- Codex config.toml ----

# What older installs wrote around their lines; removed wherever it is still found.
BLOCK_START = "# >>> lore (added by `lore install codex`; `lore uninstall codex` removes it) >>>"
BLOCK_END = "# <<< lore <<<"
LINE_MARK = "lore install"  # the comment on every line lore adds to config.toml
_BLOCK = re.compile(re.escape(BLOCK_START) + r"\n.*?" + re.escape(BLOCK_END) + r"\n?", re.DOTALL)


def _strip_old_block(text: str) -> str:
    found = _BLOCK.search(text)
    if not found:
        return text
    start, end = found.span()
    if text[max(0, start - 2) : start] == "\n\n":
        start -= 1  # the blank line that separated the block
    return text[:start] + text[end:]


# The server table as lore writes it; removed as text, so that a comment the user wrote
# after it stays (tomlkit counts such a comment as part of the table).
_SERVER_TABLE = re.compile(
    r"^\[mcp_servers\.lore\][ \t]*#[ \t]*" + re.escape(LINE_MARK) + r"[ \t]*\r?\n"
    r"(?:(?:command|args)[ \t]*=[^\n]*\n){2}(?:[ \t]*\r?\n)?",
    re.MULTILINE,
)
# The flag line lore adds (`hooks = true # lore install`, or its dotted form).
_FLAG_LINE = re.compile(
    r"^[ \t]*(?:features[ \t]*\.[ \t]*)?hooks[ \t]*=[ \t]*true[ \t]*#[ \t]*"
    + re.escape(LINE_MARK)
    + r"[ \t]*\r?\n",
    re.MULTILINE,
)


class CodexConfig(Component):
    """`[mcp_servers.lore]` and the hooks feature flag in Codex's `config.toml`.

    Edited with tomlkit, which keeps every comment, blank line, key order, dotted key
    (`features.x = true`) and inline table (`features = {…}`) as the user wrote them.
    lore's server table and any line it adds carry a `# lore install` comment. An
    inline `features` table cannot hold a comment, so lore leaves it as it is (current
    Codex turns hooks on by default). Imported only by `lore install`.
    """

    label = "mcp server + hooks feature"

    def __init__(self, path: Path, command: str, args: list[str]) -> None:
        super().__init__(path)
        self.command = command
        self.args = args

    def _parse(self, text: str) -> Any:
        import tomlkit
        from tomlkit.exceptions import ParseError

        try:
            return tomlkit.parse(text)
        except ParseError as exc:
            raise InstallError(
                f"{self.path} is not valid TOML: {exc}; lore will not rewrite it.",
                fix="Fix that line (Codex cannot read the file either), or add lore's "
                "[mcp_servers.lore] table by hand as docs/agents/codex.md shows.",
            ) from None

    def install(self, data: bytes | None) -> bytes | None:
        import tomlkit

        original = "" if data is None else data.decode("utf-8-sig")
        doc = self._parse(_strip_old_block(original))
        servers = doc.get("mcp_servers")
        existing = servers.get(MCP_NAME) if hasattr(servers, "get") else None
        if existing is not None and not is_lore_mcp(existing.unwrap()):
            raise Conflict(
                f"{self.path} already has an [mcp_servers.{MCP_NAME}] that does not run "
                "`lore mcp`; it was left as it is.",
                fix="Remove it, then run `lore install codex` again.",
            )
        if servers is not None and not hasattr(servers, "get"):
            raise InstallError(
                f"{self.path}: 'mcp_servers' is not a table; lore will not rewrite it."
            )
        features = doc.get("features")
        if features is None:
            flag = tomlkit.item(True)
            flag.comment(LINE_MARK)
            table = tomlkit.table()
            table.add("hooks", flag)
            doc.add("features", table)
        elif not isinstance(features, tomlkit.items.InlineTable) and not (
            "hooks" in features or "codex_hooks" in features
        ):
            flag = tomlkit.item(True)
            flag.comment(LINE_MARK)
            features["hooks"] = flag
        server = tomlkit.table()
        server.add("command", self.command)
        server.add("args", self.args)
        server.comment(LINE_MARK)
        server.add(tomlkit.nl())  # a blank line before whatever table follows
        if servers is None:
            servers = tomlkit.table(is_super_table=True)
            doc.add("mcp_servers", servers)
        if MCP_NAME in servers and servers[MCP_NAME].unwrap() == server.unwrap():
            server = servers[MCP_NAME]
        servers[MCP_NAME] = server
        new = tomlkit.dumps(doc)
        if new.endswith("\n\n") and not original.endswith("\n\n"):
            new = new.rstrip("\n") + "\n"
        if new == original:
            return data
        return new.encode("utf-8")

    def uninstall(self, data: bytes | None) -> bytes | None:
        if data is None:
            return None
        original = data.decode("utf-8-sig")
        text = _FLAG_LINE.sub("", _strip_old_block(original))
        unmarked = _SERVER_TABLE.sub("", text)
        if unmarked != text and "lore" not in _plain(
            self._parse(unmarked).get("mcp_servers") or {}
        ):
            text = unmarked
        if LINE_MARK not in text and text == original:
            return data
        doc = self._parse(text)
        servers = doc.get("mcp_servers")
        if hasattr(servers, "get") and is_lore_mcp(_plain(servers.get(MCP_NAME))):
            del servers[MCP_NAME]
        for name in ("mcp_servers", "features"):  # an empty table says nothing
            table = doc.get(name)
            if table is not None and hasattr(table, "unwrap") and table.unwrap() == {}:
                del doc[name]
        import tomlkit

        new = tomlkit.dumps(doc)
        if new == original:
            return data
        return new.encode("utf-8") if new.strip() else None

    def status(self, data: bytes | None) -> str:
        if data is None:
            return MISSING
        text = data.decode("utf-8", "replace")
        try:
            parsed = tomllib.loads(text)
        except tomllib.TOMLDecodeError:
            return "unreadable"
        server = (parsed.get("mcp_servers") or {}).get(MCP_NAME)
        if server is None:
            return MISSING
        if not is_lore_mcp(server):
            return "conflict"
        features = parsed.get("features") or {}
        enabled = features.get("hooks", features.get("codex_hooks", True))
        if enabled is False:
            return "hooks feature off"
        wanted = {"command": self.command, "args": self.args}
        return INSTALLED if server == wanted else OUTDATED


def _plain(item: Any) -> Any:
    return item.unwrap() if hasattr(item, "unwrap") else item
