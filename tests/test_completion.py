"""`lore completion SHELL`: the scripts complete lore's commands, options and choices.

Each script is loaded into the real shell and asked to complete, the way the shell
does when Tab is pressed: bash through its completion function and `COMP_WORDS`, fish
through `complete -C`; zsh's script is checked by zsh's own parser and must define the
completion function. A shell that is not installed is skipped, saying so.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from lore.cli.commands import COMMANDS


def script(shell: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "lore", "completion", shell],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stdout


def needs(shell: str) -> str:
    found = shutil.which(shell)
    if found is None:
        pytest.skip(f"{shell} is not installed here")
    return found


def bash_complete(tmp_path: Path, words: list[str]) -> list[str]:
    loaded = tmp_path / "lore.bash"
    loaded.write_text(script("bash"), encoding="utf-8")
    line = " ".join(words)
    probe = (
        f'source "{loaded}"\n'
        f"COMP_WORDS=({line}); COMP_CWORD={len(words) - 1}; COMP_LINE='{line}'; "
        f"COMP_POINT={len(line)}\n"
        '_shtab_lore "lore" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"\n'
        'printf "%s\\n" "${COMPREPLY[@]}"\n'
    )
    done = subprocess.run(
        [needs("bash"), "--norc", "--noprofile", "-c", probe],
        capture_output=True, text=True, timeout=60, env={**os.environ, "HOME": str(tmp_path)},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


def test_bash_completes_commands_options_and_actions(tmp_path: Path) -> None:
    assert "recall" in bash_complete(tmp_path, ["lore", "rec"])
    assert set(bash_complete(tmp_path, ["lore", ""])) >= set(COMMANDS)
    assert "--limit" in bash_complete(tmp_path, ["lore", "recall", "--li"])
    assert "propose" in bash_complete(tmp_path, ["lore", "drafts", "pro"])
    assert "fish" in bash_complete(tmp_path, ["lore", "completion", "f"])


def test_fish_completes_commands_and_options(tmp_path: Path) -> None:
    fish = needs("fish")
    loaded = tmp_path / "lore.fish"
    loaded.write_text(script("fish"), encoding="utf-8")
    env = {**os.environ, "HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "config")}

    def complete(line: str) -> list[str]:
        done = subprocess.run(
            [fish, "--no-config", "-c", f"source {loaded}; complete -C '{line}'"],
            capture_output=True, text=True, timeout=60, env=env,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        return [row.split("\t", 1)[0] for row in done.stdout.splitlines()]

    assert "recall" in complete("lore rec")
    assert "--limit" in complete("lore recall --li")


def test_zsh_parses_the_script_and_defines_the_function(tmp_path: Path) -> None:
    zsh = needs("zsh")
    loaded = tmp_path / "_lore"
    loaded.write_text(script("zsh"), encoding="utf-8")
    syntax = subprocess.run([zsh, "-n", str(loaded)], capture_output=True, text=True)
    assert syntax.returncode == 0, syntax.stderr
    probe = (
        f"autoload -Uz compinit; compinit -u -d {tmp_path}/zcompdump; "
        f"fpath=({tmp_path} $fpath); autoload -Uz _lore; whence -w _lore"
    )
    done = subprocess.run(
        [zsh, "-f", "-c", probe], capture_output=True, text=True, timeout=60,
        env={**os.environ, "HOME": str(tmp_path)},
    )  # fmt: skip
    assert done.returncode == 0 and "function" in done.stdout, done.stderr + done.stdout
    text = loaded.read_text(encoding="utf-8")
    assert "recall" in text and "--limit" in text


def test_completion_stays_off_the_hot_path() -> None:
    probe = "import sys; from lore.cli.main import build_parser; build_parser()"
    done = subprocess.run(  # every command's module loaded, as `lore --help` does
        [sys.executable, "-c", probe + "\nprint('shtab' in sys.modules)"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert "False" in done.stdout
