"""The Claude Code plugin marketplace in this repository, and the skills shipped in the package."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

from lore import __version__
from lore.integrations.agents import AGENTS, LORE_EVENTS
from lore.integrations.install.agents import SKILLS, components, skill_sources
from lore.integrations.install.components import EventHooks, McpServer
from lore.integrations.install.ownership import FIND_LORE, Launcher, is_lore_hook, is_lore_mcp

ROOT = Path(__file__).resolve().parents[2]
PLUGIN = ROOT / "plugins" / "lore"
PACKAGE_SKILLS = ROOT / "src" / "lore" / "integrations" / "skills"


def frontmatter(text: str) -> dict[str, object]:
    match = re.match(r"^---\n(.*?)\n---\n", text, re.DOTALL)
    assert match, "SKILL.md must start with YAML frontmatter"
    data = yaml.safe_load(match[1])
    assert isinstance(data, dict)
    return data


@pytest.mark.parametrize("name", SKILLS)
def test_skills_follow_the_agent_skills_format(name: str) -> None:
    text = (PACKAGE_SKILLS / name / "SKILL.md").read_text(encoding="utf-8")
    meta = frontmatter(text)
    assert meta["name"] == name  # must match the folder
    assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", name) and len(name) <= 64
    description = meta["description"]
    assert isinstance(description, str) and "\n" not in description
    assert 0 < len(description) <= 500  # the spec allows 1024; Codex checks 500
    assert meta["metadata"] == {"source": "gh-lore"}  # lore's ownership marker
    assert len(text.splitlines()) < 500
    assert skill_sources()[name] == text.encode("utf-8")


def test_skills_ship_inside_the_package(tmp_path: Path) -> None:
    import zipfile
    from importlib.resources import files

    for name in SKILLS:
        resource = files("lore.integrations").joinpath("skills", name, "SKILL.md")
        assert resource.is_file()
    wheel = pytest.importorskip("hatchling.builders.wheel", reason="hatchling builds the wheel")
    [built] = list(
        wheel.WheelBuilder(str(ROOT)).build(directory=str(tmp_path), versions=["standard"])
    )
    names = set(zipfile.ZipFile(built).namelist())
    assert {f"lore/integrations/skills/{name}/SKILL.md" for name in SKILLS} <= names


def test_marketplace_lists_the_plugin() -> None:
    market = json.loads((ROOT / ".claude-plugin" / "marketplace.json").read_text())
    assert market["name"] == "lore" and market["owner"]["name"]
    [entry] = market["plugins"]
    assert entry["name"] == "lore" and entry["source"] == "./plugins/lore"
    assert (ROOT / entry["source"]).resolve() == PLUGIN
    manifest = json.loads((PLUGIN / ".claude-plugin" / "plugin.json").read_text())
    assert manifest["name"] == entry["name"]
    assert manifest["version"] == entry["version"] == __version__


def test_plugin_hooks_mcp_and_skills(tmp_path: Path) -> None:
    """The plugin is what `lore install claude-code --project` writes, read from the agents
    table: the same events, the same guarded commands, the same MCP server and skills."""
    claude = AGENTS["claude-code"]
    hooks = json.loads((PLUGIN / "hooks" / "hooks.json").read_text())["hooks"]
    assert set(hooks) == {claude.events[event] for event in LORE_EVENTS}
    for lore_event in LORE_EVENTS:
        [group] = hooks[claude.events[lore_event]]
        [handler] = group["hooks"]
        assert handler["type"] == "command" and handler["timeout"] <= 30
        assert is_lore_hook(handler["command"])
        assert handler["command"].endswith(f'"$lore" hook {lore_event} --agent claude-code')
        assert handler["command"].startswith(FIND_LORE)  # lore or gh lore; silent without
    lore = Launcher("lore", ["/usr/local/bin/lore"])
    parts = components("claude-code", tmp_path, lore)
    [settings] = [p for p in parts if isinstance(p, EventHooks)]
    written = json.loads(settings.install(None) or b"")
    assert written["hooks"] == hooks
    servers = json.loads((PLUGIN / ".mcp.json").read_text())["mcpServers"]
    assert list(servers) == ["lore"] and is_lore_mcp(servers["lore"])
    [server] = [p for p in parts if isinstance(p, McpServer)]
    assert {k: server.entry[k] for k in ("command", "args")} == servers["lore"]
    for name in SKILLS:  # the plugin carries the package's skills, byte for byte
        assert (PLUGIN / "skills" / name / "SKILL.md").read_bytes() == skill_sources()[name]
