"""Installers, starting from realistic config files that already hold other tools' entries.

For every agent: install adds lore's entries and leaves the others exactly as they
were; installing again changes nothing; uninstalling gives back the original bytes.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from lore.integrations.install.ownership import Launcher
from lore.integrations.install.run import check, install, uninstall
from lore.integrations.install.transaction import InstallError
from tests.integrations.conftest import AGENTS
from tests.support import git

CONFIGS = Path(__file__).resolve().parent / "fixtures" / "configs"
LORE = Launcher("lore", ["/opt/lore/bin/lore"])

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

# agent -> existing files in a realistic home: (fixture, path under $HOME)
EXISTING = {
    "claude-code": [
        ("claude-settings.json", ".claude/settings.json"),
        ("claude.json", ".claude.json"),
    ],
    "codex": [
        ("codex-config.toml", ".codex/config.toml"),
        ("codex-hooks.json", ".codex/hooks.json"),
    ],
    "cursor": [
        ("cursor-hooks.json", ".cursor/hooks.json"),
        ("cursor-mcp.json", ".cursor/mcp.json"),
    ],
    "copilot-cli": [
        ("copilot-mcp-config.json", ".copilot/mcp-config.json"),
        ("copilot-notification-hooks.json", ".copilot/hooks/notification-hooks.json"),
    ],
    "gemini-cli": [("gemini-settings.json", ".gemini/settings.json")],
}


@pytest.fixture(autouse=True)
def agent_homes(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "COPILOT_HOME"):
        monkeypatch.delenv(name, raising=False)


def seed_home(agent: str, home: Path) -> dict[Path, bytes]:
    originals: dict[Path, bytes] = {}
    for fixture, relative in EXISTING[agent]:
        target = home / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(CONFIGS / fixture, target)
        originals[target] = target.read_bytes()
    return originals


def snapshot(home: Path) -> dict[str, bytes]:
    """Every file under the home folder except lore's own state (ledger, backups)."""
    return {
        str(path.relative_to(home)): path.read_bytes()
        for path in sorted(home.rglob("*"))
        if path.is_file() and "lore-home" not in path.parts
    }


def load(path: Path) -> dict[str, object]:
    if path.suffix == ".toml":
        return tomllib.loads(path.read_text(encoding="utf-8"))
    data = json.loads(path.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


@pytest.mark.parametrize("agent", AGENTS)
def test_install_reinstall_uninstall(agent: str, isolated_home: Path) -> None:
    originals = seed_home(agent, isolated_home)
    before = snapshot(isolated_home)

    changes = install(agent, None, LORE)
    assert {c.action for c in changes} <= {"created", "updated"}, changes
    assert all(row.state == "installed" for row in check(agent, None, LORE)), check(
        agent, None, LORE
    )
    for path in originals:  # every file that existed got a backup of its original bytes
        assert any(c.path == path and "original saved" in c.detail for c in changes) or (
            path.name == "notification-hooks.json"
        )
    assert_foreign_entries_kept(agent, isolated_home)
    installed = snapshot(isolated_home)

    again = install(agent, None, LORE)
    assert {c.action for c in again} == {"unchanged"}
    assert snapshot(isolated_home) == installed

    removed = uninstall(agent, None)
    assert {c.action for c in removed} <= {"restored", "removed"}, removed
    assert snapshot(isolated_home) == before
    assert all(row.state == "missing" for row in check(agent, None, LORE))


def assert_foreign_entries_kept(agent: str, home: Path) -> None:
    if agent == "claude-code":
        settings = load(home / ".claude/settings.json")
        hooks = settings["hooks"]
        assert isinstance(hooks, dict)
        assert (
            hooks["PostToolUse"] == load(CONFIGS / "claude-settings.json")["hooks"]["PostToolUse"]
        )  # type: ignore[index]
        assert hooks["SessionStart"][0]["hooks"][0]["command"] == "bd prime"
        assert hooks["SessionStart"][1]["hooks"][0]["command"] == (
            "/opt/lore/bin/lore hook session-start --agent claude-code"
        )
        assert settings["statusLine"] and settings["permissions"]
        claude = load(home / ".claude.json")
        servers = claude["mcpServers"]
        assert isinstance(servers, dict)
        assert list(servers) == ["github", "lore"]
        assert servers["lore"] == {
            "type": "stdio",
            "command": "/opt/lore/bin/lore",
            "args": ["mcp"],
            "env": {},
        }
        assert claude["numStartups"] == 184 and "projects" in claude
        assert (home / ".claude/skills/lore-recall/SKILL.md").is_file()
    elif agent == "codex":
        text = (home / ".codex/config.toml").read_text(encoding="utf-8")
        original = (CONFIGS / "codex-config.toml").read_text(encoding="utf-8")
        assert text.startswith(original.split("[features]\n")[0])  # comments kept
        config = tomllib.loads(text)
        assert config["features"] == {"web_search_request": True, "hooks": True}
        assert config["mcp_servers"]["github"]["command"] == "npx"
        assert config["mcp_servers"]["lore"] == {"command": "/opt/lore/bin/lore", "args": ["mcp"]}
        assert config["profiles"]["deep"]["model"] == "gpt-5"
        hooks = load(home / ".codex/hooks.json")["hooks"]
        assert isinstance(hooks, dict)
        assert hooks["PreToolUse"] == load(CONFIGS / "codex-hooks.json")["hooks"]["PreToolUse"]  # type: ignore[index]
        assert [g["hooks"][0]["command"].split()[-1] for g in hooks["SessionStart"]] == [
            "~/.codex/hooks/commit_attribution.py",
            "codex",
        ]
        assert (home / ".agents/skills/lore-remember/SKILL.md").is_file()
    elif agent == "cursor":
        hooks = load(home / ".cursor/hooks.json")
        assert hooks["version"] == 1
        assert hooks["hooks"]["afterFileEdit"] == [{"command": "./hooks/format.sh"}]  # type: ignore[index]
        assert hooks["hooks"]["sessionStart"] == [  # type: ignore[index]
            {"command": "/opt/lore/bin/lore hook session-start --agent cursor"}
        ]
        assert "beforeSubmitPrompt" not in hooks["hooks"]  # type: ignore[operator]
        assert list(load(home / ".cursor/mcp.json")["mcpServers"]) == ["playwright", "lore"]  # type: ignore[arg-type]
    elif agent == "copilot-cli":
        ours = load(home / ".copilot/hooks/lore.json")
        assert ours["version"] == 1
        start = ours["hooks"]["sessionStart"][0]  # type: ignore[index]
        assert start["bash"] == "/opt/lore/bin/lore hook session-start --agent copilot-cli"
        assert (home / ".copilot/hooks/notification-hooks.json").read_bytes() == (
            CONFIGS / "copilot-notification-hooks.json"
        ).read_bytes()
        servers = load(home / ".copilot/mcp-config.json")["mcpServers"]
        assert list(servers) == ["playwright", "context7", "lore"]  # type: ignore[arg-type]
        assert servers["lore"]["tools"] == ["*"]  # type: ignore[index]
    elif agent == "gemini-cli":
        settings = load(home / ".gemini/settings.json")
        hooks = settings["hooks"]
        original = load(CONFIGS / "gemini-settings.json")["hooks"]
        assert hooks["BeforeTool"] == original["BeforeTool"]  # type: ignore[index]
        assert hooks["disabled"] == ["auto-test"]  # type: ignore[index]
        assert hooks["SessionStart"][0]["hooks"][0]["name"] == "lore-session-start"  # type: ignore[index]
        assert hooks["BeforeAgent"][0]["hooks"][0]["timeout"] == 10000  # type: ignore[index]
        assert list(settings["mcpServers"]) == ["github", "lore"]  # type: ignore[arg-type]
        assert settings["general"] == {"vimMode": True, "preferredEditor": "code"}


def test_uninstall_keeps_edits_made_after_install(isolated_home: Path) -> None:
    seed_home("cursor", isolated_home)
    install("cursor", None, LORE)
    hooks_file = isolated_home / ".cursor/hooks.json"
    data = json.loads(hooks_file.read_text())
    data["hooks"]["stop"] = [{"command": "./hooks/notify.sh"}]
    hooks_file.write_text(json.dumps(data, indent=2))
    changes = uninstall("cursor", None)
    assert {c.path.name: c.action for c in changes}["hooks.json"] == "updated"
    after = json.loads(hooks_file.read_text())
    assert "sessionStart" not in after["hooks"]
    assert after["hooks"]["stop"] == [{"command": "./hooks/notify.sh"}]
    assert after["hooks"]["afterFileEdit"] == [{"command": "./hooks/format.sh"}]
    assert (isolated_home / ".cursor/mcp.json").read_bytes() == (
        CONFIGS / "cursor-mcp.json"
    ).read_bytes()


def test_installing_over_an_old_lore_command_replaces_it_in_place(isolated_home: Path) -> None:
    seed_home("claude-code", isolated_home)
    install("claude-code", None, Launcher("lore", ["/old/venv/bin/lore"]))
    changes = install("claude-code", None, LORE)
    assert {c.path.name for c in changes if c.action == "updated"} == {
        "settings.json",
        ".claude.json",
    }
    settings = json.loads((isolated_home / ".claude/settings.json").read_text())
    commands = [h["command"] for group in settings["hooks"]["SessionStart"] for h in group["hooks"]]
    assert commands == ["bd prime", "/opt/lore/bin/lore hook session-start --agent claude-code"]
    uninstall("claude-code", None)
    assert (isolated_home / ".claude/settings.json").read_bytes() == (
        CONFIGS / "claude-settings.json"
    ).read_bytes()


def test_a_foreign_lore_server_is_a_conflict_left_alone(isolated_home: Path) -> None:
    mcp = isolated_home / ".cursor/mcp.json"
    mcp.parent.mkdir(parents=True)
    foreign = b'{"mcpServers": {"lore": {"command": "node", "args": ["lore-wiki.js"]}}}\n'
    mcp.write_bytes(foreign)
    changes = install("cursor", None, LORE)
    skipped = [c for c in changes if c.action == "skipped"]
    assert len(skipped) == 1 and "does not run `lore mcp`" in skipped[0].detail
    assert mcp.read_bytes() == foreign
    assert {r.label: r.state for r in check("cursor", None, LORE)}["mcp server"] == "conflict"
    uninstall("cursor", None)
    assert mcp.read_bytes() == foreign


def test_unparsable_files_are_not_touched(isolated_home: Path) -> None:
    settings = isolated_home / ".gemini/settings.json"
    settings.parent.mkdir(parents=True)
    jsonc = b'{\n  // my settings\n  "ui": {"theme": "GitHub"}\n}\n'
    settings.write_bytes(jsonc)
    with pytest.raises(InstallError, match=r"not plain JSON.*Nothing was changed"):
        install("gemini-cli", None, LORE)
    assert settings.read_bytes() == jsonc
    assert not (isolated_home / ".gemini/skills").exists()  # nothing half installed
    dry = install("gemini-cli", None, LORE, dry_run=True)
    assert [c.action for c in dry if c.path == settings] == ["failed"]


def test_codex_respects_a_decided_hooks_flag(isolated_home: Path) -> None:
    config = isolated_home / ".codex/config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('model = "gpt-5"\n\n[features]\nhooks = false\n', encoding="utf-8")
    install("codex", None, LORE)
    parsed = tomllib.loads(config.read_text(encoding="utf-8"))
    assert parsed["features"] == {"hooks": False}
    states = {r.label: r.state for r in check("codex", None, LORE)}
    assert states["mcp server + hooks feature"] == "hooks feature off"
    uninstall("codex", None)
    assert config.read_text(encoding="utf-8") == 'model = "gpt-5"\n\n[features]\nhooks = false\n'


def test_codex_block_is_added_to_a_file_without_features(isolated_home: Path) -> None:
    config = isolated_home / ".codex/config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('model = "gpt-5"\n', encoding="utf-8")
    python = Launcher("python -m lore", [sys.executable, "-m", "lore"])
    install("codex", None, python)
    text = config.read_text(encoding="utf-8")
    parsed = tomllib.loads(text)
    assert parsed["features"] == {"hooks": True}
    assert parsed["mcp_servers"]["lore"]["args"] == ["-m", "lore", "mcp"]
    assert text.count("# lore install") == 2  # the flag line and the server table
    assert install("codex", None, python)[0].action == "unchanged"
    uninstall("codex", None)
    assert config.read_text(encoding="utf-8") == 'model = "gpt-5"\n'


def test_project_scope_writes_the_repository_files(tmp_path: Path, isolated_home: Path) -> None:
    project = tmp_path / "repo"
    project.mkdir()
    install("copilot-cli", project, LORE)
    assert (project / ".github/hooks/lore.json").is_file()
    assert (project / ".github/skills/lore-recall/SKILL.md").is_file()
    assert "lore" in json.loads((project / ".github/mcp.json").read_text())["mcpServers"]
    assert not (isolated_home / ".copilot").exists()
    uninstall("copilot-cli", project)
    assert list(project.iterdir()) == []  # the folders lore created went with its files


def test_cli_install_check_and_uninstall(
    isolated_home: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from lore.cli.main import main
    from lore.integrations.install import ownership

    monkeypatch.setattr(ownership, "current_launcher", lambda: LORE)
    seed_home("gemini-cli", isolated_home)
    assert main(["install", "gemini-cli", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["agent"] == "gemini-cli" and result["scope"] == "user"
    assert {c["action"] for c in result["changes"]} == {"created", "updated"}
    assert main(["install", "--check", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["results"]
    gemini = {r["what"]: r["state"] for r in rows if r["agent"] == "gemini-cli"}
    assert set(gemini.values()) == {"installed"}
    assert {r["state"] for r in rows if r["agent"] == "codex"} == {"missing"}
    assert main(["install", "gemini-cli"]) == 0
    out = capsys.readouterr()
    assert "unchanged" in out.out and "No vault is configured" in out.err
    assert main(["uninstall", "gemini-cli"]) == 0
    assert "restored" in capsys.readouterr().out
    assert main(["install"]) == 2


def test_check_reports_what_install_project_wrote_in_this_repository(
    isolated_home: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`lore install codex --project`, then `lore install --check` in the same repository:
    codex shows as installed there (it read "missing" unless --project was given too)."""
    from lore.cli.main import main
    from lore.integrations.install import ownership

    monkeypatch.setattr(ownership, "current_launcher", lambda: LORE)
    repo = tmp_path / "payments-api"
    (repo / "src").mkdir(parents=True)
    git(repo, "init", "-q")
    monkeypatch.chdir(repo / "src")
    assert main(["install", "codex", "--project", "--json"]) == 0
    capsys.readouterr()
    assert main(["install", "--check", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["results"]
    project = [row for row in rows if row["scope"] == f"project {repo}"]
    assert project and {row["agent"] for row in project} == {"codex"}, rows
    assert {row["state"] for row in project} == {"installed"}, project
    assert {row["state"] for row in rows if row["scope"] == "user"} == {"missing"}
    assert main(["install", "--check"]) == 0
    out = capsys.readouterr().out
    assert f"codex (project {repo} scope)" in out and "claude-code (project" not in out, out
