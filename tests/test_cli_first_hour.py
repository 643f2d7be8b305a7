"""The command line in a new user's first hour: mistakes get help, output survives a pipe.

A mistyped command or option gets "did you mean" and the usage of the command that
was typed; `lore` alone is bad usage, as with git; `--help` groups the commands in the
order a team meets them; `lore show PREFIX` offers the ids that start with it; output
that is not a terminal is never hard-wrapped; `lore init` says each instruction once;
`lore doctor` counts the lines it marks; the demo names the command that ran it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from lore.cli.commands import COMMANDS, GROUPS
from lore.cli.main import main
from tests.support import GIT_IDENTITY, Vault, note_text


def run_lore(
    *args: str, env: dict[str, str] | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    clean = {key: value for key, value in os.environ.items() if key != "COLUMNS"}
    return subprocess.run(
        [sys.executable, "-m", "lore", *args],
        capture_output=True, text=True, env={**clean, **GIT_IDENTITY, **(env or {})}, cwd=cwd, timeout=120,
    )  # fmt: skip


def test_a_mistyped_command_gets_did_you_mean() -> None:
    done = run_lore("recal", "pool")
    assert done.returncode == 2
    assert "invalid choice: 'recal' (did you mean 'recall'?)" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_mistyped_option_gets_did_you_mean_and_the_commands_own_usage(
    make_vault: Callable[..., Vault],
) -> None:
    vault = make_vault()
    done = run_lore("recall", "pool", "--limt", "3", "--vault", str(vault.root))
    assert done.returncode == 2
    assert done.stderr.startswith("usage: lore recall "), done.stderr
    assert "unrecognized arguments: --limt 3 (did you mean '--limit'?)" in done.stderr
    nested = run_lore("drafts", "propose", "--yse")
    assert nested.returncode == 2
    assert nested.stderr.startswith("usage: lore drafts propose "), nested.stderr
    assert "did you mean '--yes'?" in nested.stderr


def test_lore_alone_is_bad_usage_like_git() -> None:
    done = run_lore()
    assert done.returncode == 2
    assert "set up" in done.stdout and "recall" in done.stdout


def test_help_groups_every_command_in_the_order_a_team_meets_them() -> None:
    text = run_lore("--help").stdout
    headings = [text.index(f"\n{heading}:\n") for heading in GROUPS.values()]
    assert headings == sorted(headings), "the groups are listed in GROUPS' order"
    assert list(GROUPS)[:4] == ["setup", "daily", "review", "keep"]
    for name, (_module, group, help_text) in COMMANDS.items():
        assert group in GROUPS, f"{name}: unknown group {group!r}"
        start = text.index(f"\n{GROUPS[group]}:\n")
        end = min([i for i in headings if i > start] or [len(text)])
        assert f"  {name} " in text[start:end] and help_text in text[start:end], name


def test_show_with_a_prefix_offers_the_ids_that_start_with_it(
    make_vault: Callable[..., Vault], capsys: pytest.CaptureFixture[str]
) -> None:
    vault = make_vault(
        {
            "billing--retries-are-capped--2026-01-01": note_text("Retries are capped"),
            "billing--refunds-take-a-day--2026-01-02": note_text("Refunds take a day"),
            "auth--tokens-expire--2026-01-03": note_text("Tokens expire"),
        }
    )
    assert main(["show", "billing--", "--vault", str(vault.root)]) == 2
    err = capsys.readouterr().err
    assert (
        "Ids that start with it: billing--refunds-take-a-day--2026-01-02, "
        "billing--retries-are-capped--2026-01-01." in err
    )
    assert "auth--" not in err


def test_output_to_a_pipe_is_never_hard_wrapped(tmp_path: Path, isolated_home: Path) -> None:
    deep = tmp_path / ("a-rather-long-folder-name-" * 4) / "team-vault"
    made = run_lore("init", str(deep))
    assert made.returncode == 0, made.stderr
    for line in made.stdout.splitlines():
        if line.startswith("  - .github/workflows/"):
            assert line.rstrip().endswith("the same in each workflow."), line
    assert f"--source {deep} --push`" in made.stdout  # one line, however long
    listed = run_lore("vaults")
    assert listed.returncode == 0, listed.stderr
    assert str(deep) in listed.stdout, listed.stdout


def test_init_tells_teammates_to_connect_to_the_shared_remote(tmp_path: Path) -> None:
    """Never to the first person's working folder, which no teammate can reach."""
    folder = tmp_path / "team-memory"
    done = run_lore("init", str(folder))
    assert done.returncode == 0, done.stderr
    advice = done.stdout.strip().splitlines()[-1]
    assert f"lore connect {folder}" not in done.stdout, advice
    assert f"gh repo create OWNER/NAME --private --source {folder} --push" in advice, advice
    assert "teammates then run `lore connect OWNER/NAME`" in advice, advice


def test_init_says_each_instruction_once(tmp_path: Path) -> None:
    done = run_lore("init", str(tmp_path / "vault"))
    assert done.returncode == 0, done.stderr
    edits = [line for line in done.stdout.splitlines() if line.startswith("  - ")]
    assert len(edits) == len(set(edits)) == 3, edits
    assert sum("with the gh-lore repository and commit" in line for line in edits) == 1
    workflow_line = next(line for line in edits if "lore-curator.yml" in line)
    assert "lore-garden.yml" in workflow_line  # both places, one instruction
    # Programs still get one entry per place to edit: the curator's curate and comment
    # jobs each run the action, the garden and site workflows once each; CODEOWNERS; the
    # taxonomy.
    again = run_lore("init", str(tmp_path / "json"), "--json", "--no-register")
    places = [entry.split(": ", 1)[0] for entry in json.loads(again.stdout)["edit"]]
    assert sum("lore-curator.yml:" in place for place in places) == 2, places
    assert len(places) == len(set(places)) == 6, places


def test_doctor_counts_the_lines_it_marks(
    make_vault: Callable[..., Vault], isolated_home: Path, tmp_path: Path
) -> None:
    vault = make_vault()
    gone = tmp_path / "gone"
    (isolated_home / "config.toml").write_text(
        f'default = "team"\n[vaults.team]\npath = "{vault.root}"\n[vaults.old]\npath = "{gone}"\n',
        encoding="utf-8",
    )
    done = run_lore("doctor", "--offline", cwd=tmp_path)
    assert done.returncode == 1
    lines = done.stdout.splitlines()
    marked = [line for line in lines if line.startswith("  fix ")]
    assert any(str(gone) in line for line in marked), done.stdout  # the missing vault
    assert lines[-1].startswith(f"{len(marked)} thing(s) to fix"), done.stdout


@pytest.mark.slow
def test_the_demo_names_the_command_that_ran_it(tmp_path: Path) -> None:
    script = Path(sys.executable).with_name("lore")
    if not script.is_file():
        pytest.skip("no `lore` console script next to this Python")
    venv = script.parent.parent
    env = {key: value for key, value in os.environ.items() if key != "COLUMNS"}
    env["PATH"] = "/usr/bin:/bin"  # this lore is not on PATH: the user typed its path
    done = subprocess.run(
        [f"{script.parent.name}/lore", "demo", str(tmp_path / "demo")],
        cwd=venv, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    typed = f"{script.parent.name}/lore"
    assert f"  {typed} recall how do we run database migrations --explain" in done.stdout
    assert f"$ {typed} recall --vault {tmp_path / 'demo'} " in done.stdout
    assert "\n  lore recall" not in done.stdout


def test_the_vault_you_stand_in_comes_before_lore_vault_for_reviewing_only(
    make_vault: Callable[..., Vault], tmp_path: Path
) -> None:
    """A reviewer's `lore curate` works on the checkout it stands in; what agents are
    told (recall, show) comes from `LORE_VAULT`, as the folder is not registered
    (tests/security/test_registered_vaults.py holds that line)."""
    here = make_vault({"here--only-in-this-vault--2026-01-01": note_text("Only here")})
    elsewhere = make_vault(
        {"else--only-in-that-vault--2026-01-01": note_text("Only there", tags="[tool/nope]")}
    )
    env = {"LORE_VAULT": str(elsewhere.root)}
    assert run_lore("curate", "--all", env=env, cwd=tmp_path).returncode == 1  # that vault
    checked = run_lore("curate", "--all", "--format", "json", env=env, cwd=here.root / "notes")
    assert checked.returncode == 0, checked.stdout  # this one: its note is fine
    assert "else--only" not in checked.stdout
    shown = run_lore("show", "here--only-in-this-vault--2026-01-01", env=env, cwd=here.root)
    assert shown.returncode == 2, shown.stderr
    assert "looks like a vault but is not registered" in shown.stderr
    found = run_lore("recall", "only", "--json", env=env, cwd=here.root)
    assert [r["id"] for r in json.loads(found.stdout)["results"]] == [
        "else--only-in-that-vault--2026-01-01"
    ]
    # Outside any vault, LORE_VAULT still decides; a code repository's notes/ is no vault.
    code = tmp_path / "code"
    (code / "notes").mkdir(parents=True)
    (code / ".git").mkdir()
    found = run_lore("recall", "only", "--json", env=env, cwd=code / "notes")
    assert [r["id"] for r in json.loads(found.stdout)["results"]] == [
        "else--only-in-that-vault--2026-01-01"
    ]
    assert "looks like a vault" not in found.stderr


def test_curate_that_checks_nothing_is_bad_usage(make_vault: Callable[..., Vault]) -> None:
    vault = make_vault()
    done = run_lore("curate", "notes/", cwd=vault.root)  # only .gitkeep in it
    assert done.returncode == 2
    assert done.stderr.startswith("lore: Nothing was checked: notes/ holds no note file")
    assert "0 files" not in done.stdout
