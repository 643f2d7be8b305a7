"""`lore install codex` on the config.toml files people have, edited with tomlkit.

Every valid file gets lore's server (and the hooks flag where the file has not decided
it), keeps every other line as written, installs twice without a change and uninstalls
to its original bytes. A file Codex could not read stops the install before anything
is written, for every file of the agent.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from lore.errors import LoreError
from lore.integrations.install.ownership import Launcher
from lore.integrations.install.run import check, install, uninstall

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

CONFIGS = Path(__file__).resolve().parent / "fixtures" / "configs"
LORE = Launcher("lore", ["/opt/lore/bin/lore"])
SERVER = {"command": "/opt/lore/bin/lore", "args": ["mcp"]}
REAL = ["codex-config.toml", "codex-config-dotted.toml", "codex-config-inline.toml"]


@pytest.fixture(autouse=True)
def no_codex_home(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CODEX_HOME", raising=False)


def place(home: Path, text: str | bytes) -> Path:
    config = home / ".codex" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, str):
        config.write_text(text, encoding="utf-8", newline="")
    else:
        config.write_bytes(text)
    return config


@pytest.mark.parametrize("fixture", REAL)
def test_a_real_config_keeps_every_line_and_gets_lores_entries(
    fixture: str, isolated_home: Path
) -> None:
    original = (CONFIGS / fixture).read_bytes()
    config = place(isolated_home, original)
    before = tomllib.loads(original.decode())
    changes = install("codex", None, LORE)
    assert not [c for c in changes if c.action in ("failed", "skipped")], changes
    text = config.read_text(encoding="utf-8")
    after = tomllib.loads(text)
    assert after["mcp_servers"]["lore"] == SERVER
    for line in original.decode().splitlines():  # nothing of the user's was rewritten
        assert line in text.splitlines(), line
    features = after.get("features", {})
    if isinstance(before.get("features"), dict) and fixture.endswith("inline.toml"):
        assert features == before["features"]  # an inline table is left as it is
    else:
        assert features == {**before.get("features", {}), "hooks": True}
    assert {k: v for k, v in after.items() if k not in ("features", "mcp_servers")} == {
        k: v for k, v in before.items() if k not in ("features", "mcp_servers")
    }
    others = {k: v for k, v in after["mcp_servers"].items() if k != "lore"}
    assert others == before.get("mcp_servers", {})
    assert {c.action for c in install("codex", None, LORE) if c.path == config} == {"unchanged"}
    assert {r.label: r.state for r in check("codex", None, LORE)}[
        "mcp server + hooks feature"
    ] == "installed"
    uninstall("codex", None)
    assert config.read_bytes() == original


@pytest.mark.parametrize("fixture", REAL)
def test_uninstall_after_the_user_edited_removes_only_lores_lines(
    fixture: str, isolated_home: Path
) -> None:
    original = (CONFIGS / fixture).read_text(encoding="utf-8")
    config = place(isolated_home, original)
    install("codex", None, LORE)
    edited = config.read_text(encoding="utf-8") + '\n[mcp_servers.mine]\ncommand = "mine"\n'
    config.write_text(edited, encoding="utf-8")
    uninstall("codex", None)
    left = config.read_text(encoding="utf-8")
    assert "lore" not in left
    parsed = tomllib.loads(left)
    assert parsed["mcp_servers"]["mine"] == {"command": "mine"}
    assert parsed == tomllib.loads(original + '\n[mcp_servers.mine]\ncommand = "mine"\n')


def test_what_lore_0_1_wrote_is_replaced_in_place_and_removed(isolated_home: Path) -> None:
    config = place(isolated_home, (CONFIGS / "codex-config-lore-0.1.toml").read_text())
    install("codex", None, LORE)
    text = config.read_text(encoding="utf-8")
    assert "# >>> lore" not in text and "/home/dev/.local/bin/lore" not in text
    assert tomllib.loads(text)["mcp_servers"]["lore"] == SERVER
    config.write_text(text + "# my note\n", encoding="utf-8")  # not lore's to restore
    uninstall("codex", None)
    left = config.read_text(encoding="utf-8")
    assert tomllib.loads(left) == {"model": "gpt-5-codex", "features": {"web_search_request": True}}
    assert left.endswith("# my note\n")


def test_crlf_and_a_byte_order_mark_survive(isolated_home: Path) -> None:
    text = '\ufeffmodel = "gpt-5"\r\n\r\n[features]\r\nweb_search_request = true\r\n'
    config = place(isolated_home, text.encode("utf-8"))
    install("codex", None, LORE)
    written = config.read_bytes().decode("utf-8")
    assert tomllib.loads(written)["features"] == {"web_search_request": True, "hooks": True}
    assert 'model = "gpt-5"\r\n' in written


def test_a_decided_hooks_flag_is_left_alone(isolated_home: Path) -> None:
    for decided in ("hooks = false", "codex_hooks = true", "hooks = true"):
        original = f'model = "gpt-5"\n\n[features]\n{decided}\n'
        config = place(isolated_home, original)
        install("codex", None, LORE)
        assert tomllib.loads(config.read_text())["features"] == tomllib.loads(original)["features"]
        uninstall("codex", None)
        assert config.read_text() == original
    states = {r.label: r.state for r in check("codex", None, LORE)}
    assert states["mcp server + hooks feature"] == "missing"


def test_an_empty_or_missing_file_gets_features_and_server(isolated_home: Path) -> None:
    install("codex", None, LORE)
    config = isolated_home / ".codex" / "config.toml"
    text = config.read_text(encoding="utf-8")
    assert tomllib.loads(text) == {"features": {"hooks": True}, "mcp_servers": {"lore": SERVER}}
    assert text.count("# lore install") == 2
    uninstall("codex", None)
    assert not config.exists()


def test_a_file_codex_cannot_read_stops_the_whole_install(isolated_home: Path) -> None:
    broken = 'model = "gpt-5"\n[features]\nhooks = tru\n'
    config = place(isolated_home, broken)
    with pytest.raises(LoreError) as raised:
        install("codex", None, LORE)
    message = str(raised.value)
    assert str(config) in message and "line 3" in message and "Nothing was changed" in message
    assert config.read_text() == broken
    assert not (isolated_home / ".codex" / "hooks.json").exists()  # never half installed
    assert not (isolated_home / ".agents").exists()


def test_the_cli_says_one_sentence_and_exits_2(
    isolated_home: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from lore.cli.main import main
    from lore.integrations.install import ownership

    monkeypatch.setattr(ownership, "current_launcher", lambda: LORE)
    place(isolated_home, "[features\n")
    assert main(["install", "codex"]) == 2
    err = capsys.readouterr().err
    assert "is not valid TOML" in err and "Traceback" not in err


def test_a_foreign_lore_server_is_a_conflict(isolated_home: Path) -> None:
    original = '[mcp_servers.lore]\ncommand = "python"\nargs = ["-m", "folklore"]\n'
    config = place(isolated_home, original)
    changes = install("codex", None, LORE)
    assert [c.action for c in changes if c.path == config] == ["skipped"]
    assert config.read_text() == original


def test_the_real_codex_reads_what_lore_wrote(isolated_home: Path, tmp_path: Path) -> None:
    """With the real Codex CLI (npm @openai/codex) on PATH, `codex mcp get lore` reads the
    server from each edited file; skipped where it is not installed (as in CI)."""
    codex = shutil.which("codex")
    if codex is None:
        pytest.skip("the Codex CLI is not on PATH (npm install @openai/codex)")
    import os
    import subprocess

    for fixture in REAL:
        shutil.rmtree(isolated_home / ".codex", ignore_errors=True)
        place(isolated_home, (CONFIGS / fixture).read_text())
        install("codex", None, LORE)
        run = subprocess.run(
            [codex, "mcp", "get", "lore"],
            capture_output=True,
            text=True,
            env={**os.environ, "HOME": str(isolated_home)},
            timeout=60,
        )
        assert run.returncode == 0 and "/opt/lore/bin/lore" in run.stdout, (fixture, run)
