"""The docs, `lore install --help` and the README follow the agents table.

One table (`lore.integrations.agents.AGENTS`) names every agent, its files and its hook
events; a page per agent documents them. Adding an agent to the table without a page,
or moving a file without saying so in the docs, fails here.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from lore.integrations.agents import AGENTS

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs" / "agents"


@pytest.mark.parametrize("name", list(AGENTS))
def test_each_agent_has_a_page_naming_its_files_and_events(name: str) -> None:
    agent = AGENTS[name]
    page = (DOCS / f"{name}.md").read_text(encoding="utf-8")
    assert page.startswith(f"# {agent.title}\n")
    for what in ("hooks", "mcp", "skills"):
        user = agent.default_location(what).rstrip("/")
        assert user in page or f"{user}/" in page, f"{name}.md does not name {user}"
        assert agent.project[what] in page, f"{name}.md does not name {agent.project[what]}"
    for agent_event in agent.events.values():
        if agent_event is not None:
            assert f"`{agent_event}`" in page, f"{name}.md does not name {agent_event}"
    assert f"lore install {name}" in page and f"lore uninstall {name}" in page
    assert "## Sources" in page and "https://" in page


def test_the_index_lists_every_agent_and_only_those() -> None:
    index = (DOCS / "index.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| ([^|]+) \| \[([\w-]+)\.md\]", index, re.MULTILINE)
    assert [(title.strip(), page) for title, page in rows] == [
        (agent.title, agent.name) for agent in AGENTS.values()
    ]
    pages = {path.stem for path in DOCS.glob("*.md")} - {"index", "verified", "drafts"}
    assert pages == set(AGENTS)


def test_install_help_and_readme_follow_the_table(capsys: pytest.CaptureFixture[str]) -> None:
    from lore.cli.main import main

    with pytest.raises(SystemExit):
        main(["install", "--help"])
    help_text = capsys.readouterr().out
    for agent in AGENTS.values():
        assert agent.name in help_text
        assert agent.default_location("hooks") in help_text
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    connect = readme.split("## Connect your agents", 1)[1].split("\n## ", 1)[0]
    assert all(name in connect for name in AGENTS)


def test_no_install_command_leaves_owner_unexplained() -> None:
    """Every page with an install command for OWNER/gh-lore says what OWNER is."""
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    for page in pages:
        text = page.read_text(encoding="utf-8")
        commands = re.findall(
            r"(?:gh extension install|/plugin marketplace add|git clone \S*)OWNER/gh-lore", text
        )
        commands += re.findall(r"github\.com/OWNER/gh-lore", text)
        prose = " ".join(text.split())  # the sentence may wrap
        if commands:
            explained = r"`OWNER`( below)? is the GitHub account that hosts gh-lore"
            assert re.search(explained, prose), page
