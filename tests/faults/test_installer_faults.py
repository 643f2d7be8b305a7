"""Installer faults: symlinked, read-only and immutable configs, a full disk, interruptions.

Each case is a real fault on real files under an isolated home, and asserts the exit
code, the message, and that the user's bytes (files, links, folders) are exactly as
they were — or, for symlinks, that lore edited through the link and left it a link.
Immutable files (`chattr +i`) and a full disk (a small tmpfs in a private mount
namespace, `unshare -m`) need root; those cases skip otherwise.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from lore.cli.main import main
from lore.integrations.agents import AGENTS
from lore.integrations.install import ownership
from lore.integrations.install.ownership import Launcher

CONFIGS = Path(__file__).resolve().parents[1] / "integrations" / "fixtures" / "configs"
LORE = Launcher("lore", ["/opt/lore/bin/lore"])
ROOT = hasattr(os, "geteuid") and os.geteuid() == 0

# agent -> (fixture, its place under $HOME): the file holding the agent's hooks.
HOOKS_FILE = {
    "claude-code": ("claude-settings.json", ".claude/settings.json"),
    "codex": ("codex-hooks.json", ".codex/hooks.json"),
    "cursor": ("cursor-hooks.json", ".cursor/hooks.json"),
    "copilot-cli": ("copilot-mcp-config.json", ".copilot/mcp-config.json"),
    "gemini-cli": ("gemini-settings.json", ".gemini/settings.json"),
}


@pytest.fixture(autouse=True)
def agent_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "COPILOT_HOME", "LORE_GH_EXTENSION_DIR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(ownership, "current_launcher", lambda: LORE)


def seed(home: Path, agent: str) -> Path:
    fixture, relative = HOOKS_FILE[agent]
    target = home / relative
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(CONFIGS / fixture, target)
    return target


def snapshot(root: Path) -> dict[str, object]:
    """Every file, link and folder under `root` except lore's own state."""
    state: dict[str, object] = {}
    for path in sorted(root.rglob("*")):
        name = str(path.relative_to(root))
        if name.startswith("lore-home"):
            continue
        if path.is_symlink():
            state[name] = ("link", os.readlink(path))
        elif path.is_dir():
            state[name] = "folder"
        else:
            state[name] = path.read_bytes()
    return state


def lore_state(home: Path) -> dict[str, bytes]:
    base = home / "lore-home"
    return {
        str(p.relative_to(base)): p.read_bytes() for p in sorted(base.rglob("*")) if p.is_file()
    }


def no_temporary_files(root: Path) -> bool:
    return not [p for p in root.rglob("*") if p.name.endswith(".tmp")]


@pytest.fixture
def immutable() -> Iterator[list[Path]]:
    """Paths to `chattr +i`; the flag is taken off again after the test."""
    if not ROOT or shutil.which("chattr") is None:
        pytest.skip("chattr +i needs root and e2fsprogs")
    flagged: list[Path] = []
    yield flagged
    for path in flagged:
        subprocess.run(["chattr", "-i", str(path)], check=False)


def make_immutable(flagged: list[Path], path: Path) -> None:
    result = subprocess.run(["chattr", "+i", str(path)], capture_output=True, text=True)
    if result.returncode != 0:
        pytest.skip(f"this filesystem has no immutable flag: {result.stderr.strip()}")
    flagged.append(path)


# ---- symbolic links (a dotfiles repository) ----


@pytest.mark.parametrize("agent", list(HOOKS_FILE))
def test_a_symlinked_config_is_edited_through_the_link_and_restored(
    agent: str, isolated_home: Path
) -> None:
    fixture, relative = HOOKS_FILE[agent]
    dotfiles = isolated_home / "dotfiles" / agent
    dotfiles.mkdir(parents=True)
    target = dotfiles / Path(relative).name
    shutil.copyfile(CONFIGS / fixture, target)
    link = isolated_home / relative
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(target)
    original = target.read_bytes()
    before = snapshot(isolated_home)

    assert main(["install", agent]) == 0
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_bytes() != original and b"/opt/lore/bin/lore" in target.read_bytes()
    assert not any(p.is_file() and not p.is_symlink() for p in link.parent.glob(link.name))

    assert main(["uninstall", agent]) == 0
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_bytes() == original
    assert snapshot(isolated_home) == before


def test_a_dangling_link_gets_its_target_created_and_removed_again(
    isolated_home: Path,
) -> None:
    link = isolated_home / ".gemini" / "settings.json"
    link.parent.mkdir(parents=True)
    target = isolated_home / "dotfiles" / "gemini" / "settings.json"  # neither exists yet
    link.symlink_to(target)
    (isolated_home / "dotfiles").mkdir()
    before = snapshot(isolated_home)

    assert main(["install", "gemini-cli"]) == 0
    assert link.is_symlink() and json.loads(target.read_text())["mcpServers"]["lore"]

    assert main(["uninstall", "gemini-cli"]) == 0
    assert link.is_symlink() and not target.exists()
    assert not target.parent.exists()  # the folder lore created for it went too
    assert snapshot(isolated_home) == before


# ---- read-only and immutable targets: exit 2, nothing written ----


def assert_refused(
    capsys: pytest.CaptureFixture[str],
    home: Path,
    args: list[str],
    before: dict[str, object],
    lore_before: dict[str, bytes],
    *words: str,
) -> str:
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("lore: ") and err.count("\n") == 1, err
    assert "Nothing was changed." in err and "Traceback" not in err
    for word in words:
        assert word in err, (word, err)
    assert snapshot(home) == before
    assert lore_state(home) == lore_before  # no ledger entry, no backup, no record
    assert no_temporary_files(home)
    return err


@pytest.mark.parametrize("agent", list(HOOKS_FILE))
def test_a_read_only_config_is_refused_before_anything_is_written(
    agent: str, isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = seed(isolated_home, agent)
    target.chmod(0o444)
    before = snapshot(isolated_home)
    err = assert_refused(
        capsys,
        isolated_home,
        ["install", agent],
        before,
        lore_state(isolated_home),
        str(target),
        "read-only",
        "chmod u+w",
    )
    assert "r--r--r--" in err
    target.chmod(0o644)
    assert main(["install", agent]) == 0  # once writable, the same command works


def test_an_immutable_config_is_refused(
    isolated_home: Path, capsys: pytest.CaptureFixture[str], immutable: list[Path]
) -> None:
    target = seed(isolated_home, "claude-code")
    make_immutable(immutable, target)
    before = snapshot(isolated_home)
    assert_refused(
        capsys,
        isolated_home,
        ["install", "claude-code"],
        before,
        lore_state(isolated_home),
        str(target),
        "Operation not permitted",
    )


def test_an_immutable_folder_is_refused(
    isolated_home: Path, capsys: pytest.CaptureFixture[str], immutable: list[Path]
) -> None:
    seed(isolated_home, "cursor")
    folder = isolated_home / ".cursor"
    make_immutable(immutable, folder)  # hooks.json may change, but not be replaced
    before = snapshot(isolated_home)
    assert_refused(
        capsys,
        isolated_home,
        ["install", "cursor"],
        before,
        lore_state(isolated_home),
        "not writable",
    )


def test_an_immutable_file_stops_an_uninstall_with_everything_in_place(
    isolated_home: Path, capsys: pytest.CaptureFixture[str], immutable: list[Path]
) -> None:
    seed(isolated_home, "claude-code")
    assert main(["install", "claude-code"]) == 0
    capsys.readouterr()
    skill = isolated_home / ".claude" / "skills" / "lore-recall" / "SKILL.md"
    make_immutable(immutable, skill)
    before = snapshot(isolated_home)
    assert_refused(
        capsys,
        isolated_home,
        ["uninstall", "claude-code"],
        before,
        lore_state(isolated_home),
        str(skill),
    )


def test_a_folder_where_a_config_file_belongs_is_refused(
    isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (isolated_home / ".cursor" / "mcp.json").mkdir(parents=True)
    before = snapshot(isolated_home)
    assert main(["install", "cursor"]) == 2
    err = capsys.readouterr().err
    assert "mcp.json" in err and "Traceback" not in err
    assert snapshot(isolated_home) == before and lore_state(isolated_home) == {}


def test_lore_home_that_cannot_keep_backups_stops_the_install(
    isolated_home: Path, capsys: pytest.CaptureFixture[str], immutable: list[Path]
) -> None:
    seed(isolated_home, "claude-code")
    installs = isolated_home / "lore-home" / "installs"
    installs.mkdir(parents=True)
    make_immutable(immutable, installs)
    before = snapshot(isolated_home)
    assert main(["install", "claude-code"]) == 2
    err = capsys.readouterr().err
    assert "Could not write" in err and "Nothing was changed." in err
    assert snapshot(isolated_home) == before


# ---- interruptions: Ctrl-C at every step, kill -9 between renames ----


def count_steps(home: Path) -> tuple[int, int]:
    """How many writes and renames an install of Claude Code makes (then undone)."""
    from lore.integrations.install import transaction

    calls = {"write": 0, "replace": 0}
    real_write, real_replace = transaction.write_atomic, Path.replace

    def write(*args: object, **kwargs: object) -> None:
        calls["write"] += 1
        real_write(*args, **kwargs)  # type: ignore[arg-type]

    def replace(self: Path, target: Path) -> Path:
        calls["replace"] += 1
        return real_replace(self, target)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(transaction, "write_atomic", write)
        patch.setattr(Path, "replace", replace)
        assert main(["install", "claude-code"]) == 0
    assert main(["uninstall", "claude-code"]) == 0
    return calls["write"], calls["replace"]


def test_ctrl_c_at_any_step_leaves_the_users_files_as_they_were(
    isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from lore.integrations.install import transaction

    seed(isolated_home, "claude-code")
    (isolated_home / ".claude.json").write_bytes((CONFIGS / "claude.json").read_bytes())
    before = snapshot(isolated_home)
    writes, renames = count_steps(isolated_home)
    assert snapshot(isolated_home) == before
    assert writes >= 5 and renames >= 5  # settings, .claude.json, two skills, ledger, ...
    lore_before = lore_state(isolated_home)
    real_write, real_replace = transaction.write_atomic, Path.replace
    for kind, steps in (("write", writes), ("replace", renames)):
        interrupted = 0
        for step in range(1, steps + 1):
            seen = {"n": 0}

            def interrupt_write(
                *args: object, step: int = step, seen: dict[str, int] = seen, **kwargs: object
            ) -> None:
                seen["n"] += 1
                if seen["n"] == step:
                    raise KeyboardInterrupt
                real_write(*args, **kwargs)  # type: ignore[arg-type]

            def interrupt_replace(
                self: Path, target: Path, step: int = step, seen: dict[str, int] = seen
            ) -> Path:
                seen["n"] += 1
                if seen["n"] == step:
                    raise KeyboardInterrupt
                return real_replace(self, target)

            with pytest.MonkeyPatch.context() as patch:
                if kind == "write":
                    patch.setattr(transaction, "write_atomic", interrupt_write)
                else:
                    patch.setattr(Path, "replace", interrupt_replace)
                code = main(["install", "claude-code"])
            if seen["n"] < step:  # this install needed fewer steps (its record was there)
                assert code == 0 and main(["uninstall", "claude-code"]) == 0
                break
            interrupted += 1
            assert code == 130, (kind, step)
            assert snapshot(isolated_home) == before, (kind, step)
            assert lore_state(isolated_home) == lore_before, (kind, step)
            assert no_temporary_files(isolated_home), (kind, step)
        assert interrupted >= 5, kind
    capsys.readouterr()


KILLER = textwrap.dedent(
    """
    import os, signal, sys
    from pathlib import Path
    from lore.integrations.install import ownership
    from lore.integrations.install.ownership import Launcher
    from lore.cli.main import main

    ownership.current_launcher = lambda: Launcher("lore", ["/opt/lore/bin/lore"])
    stop_at = int(sys.argv[1])
    real_replace, seen = Path.replace, [0]

    def replace(self, target):
        seen[0] += 1
        if seen[0] == stop_at:
            os.kill(os.getpid(), signal.SIGKILL)  # no cleanup, no finally
        return real_replace(self, target)

    Path.replace = replace
    sys.exit(main(["install", "claude-code"]))
    """
)


def test_kill_9_between_renames_never_tears_a_file_and_the_next_run_repairs(
    isolated_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    seed(isolated_home, "claude-code")
    (isolated_home / ".claude.json").write_bytes((CONFIGS / "claude.json").read_bytes())
    before = snapshot(isolated_home)
    assert main(["install", "claude-code"]) == 0
    installed = snapshot(isolated_home)
    assert main(["uninstall", "claude-code"]) == 0
    assert snapshot(isolated_home) == before
    capsys.readouterr()
    script = tmp_path / "killer.py"
    script.write_text(KILLER, encoding="utf-8")
    for stop_at in range(1, 7):
        run = subprocess.run(
            [sys.executable, str(script), str(stop_at)],
            env=os.environ.copy(),
            capture_output=True,
            timeout=120,
        )
        assert run.returncode == -signal.SIGKILL, (stop_at, run.stderr)
        now = snapshot(isolated_home)
        for name, value in now.items():  # every file is the old one or the new one, whole
            if name.endswith(".tmp"):
                continue
            assert value in (before.get(name), installed.get(name)), (stop_at, name)
        assert main(["install", "claude-code"]) == 0  # a later run finishes the job...
        assert snapshot(isolated_home) == installed
        assert no_temporary_files(isolated_home), [str(p) for p in isolated_home.rglob("*.tmp")]
        assert main(["uninstall", "claude-code"]) == 0  # ...and uninstall restores all
        assert snapshot(isolated_home) == before, stop_at
    capsys.readouterr()


# ---- a full disk ----

FULL_DISK = textwrap.dedent(
    """
    import json, os, shutil, subprocess, sys
    from pathlib import Path

    disk, lore_home, fixture = (Path(a) for a in sys.argv[1:4])
    which = sys.argv[4]
    home = disk / "home"
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    shutil.copyfile(fixture, settings)
    original = settings.read_bytes()
    if which == "lore-home":  # the agent files have room; lore's own state does not
        home, lore_home = lore_home / "home", disk / "lore-home"
        settings = home / ".claude" / "settings.json"
        settings.parent.mkdir(parents=True)
        shutil.copyfile(fixture, settings)
    filler = os.open(disk / "filler", os.O_WRONLY | os.O_CREAT)
    for size in (4096, 1):  # fill the disk to the last byte
        try:
            while True:
                os.write(filler, b"\\0" * size)
        except OSError:
            pass
    os.close(filler)
    env = {**os.environ, "HOME": str(home), "LORE_HOME": str(lore_home)}
    run = subprocess.run(
        [sys.executable, "-m", "lore", "install", "claude-code"],
        env=env, capture_output=True, text=True,
    )
    leftovers = [str(p) for p in home.rglob("*.tmp")]
    print(json.dumps({
        "code": run.returncode, "err": run.stderr,
        "untouched": settings.read_bytes() == original,
        "files": sorted(str(p.relative_to(home)) for p in home.rglob("*")),
        "leftovers": leftovers,
        "ledger": (lore_home / "installs" / "ledger.json").exists(),
    }))
    """
)


@pytest.mark.skipif(not ROOT or shutil.which("unshare") is None, reason="needs root and unshare")
@pytest.mark.parametrize("which", ["agent files", "lore-home"])
def test_a_full_disk_is_exit_2_with_the_users_files_untouched(which: str, tmp_path: Path) -> None:
    disk = tmp_path / "disk"
    disk.mkdir()
    script = tmp_path / "full_disk.py"
    script.write_text(FULL_DISK, encoding="utf-8")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    inner = (
        f"mount -t tmpfs -o size=256k tmpfs {disk} && "
        f"{sys.executable} {script} {disk} {elsewhere} {CONFIGS / 'claude-settings.json'} "
        f"'{which}'"
    )
    run = subprocess.run(
        ["unshare", "-m", "sh", "-c", inner],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}/usr/bin:/bin"},
    )
    if run.returncode != 0 and "mount" in run.stderr:
        pytest.skip(f"no private tmpfs here: {run.stderr.strip()}")
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    assert result["code"] == 2, result
    assert "No space left on device" in result["err"], result
    assert "Nothing was changed." in result["err"] and "Traceback" not in result["err"]
    assert result["untouched"] and result["leftovers"] == []
    assert result["files"] == [".claude", ".claude/settings.json"]  # no skills, no .claude.json
    assert not result["ledger"]


def test_every_agent_is_covered() -> None:
    assert set(HOOKS_FILE) == set(AGENTS)
