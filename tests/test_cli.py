"""The command line as people and agents meet it: help, errors, exit codes, the demo."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from lore import __version__
from lore.cli.commands import COMMANDS
from lore.cli.main import main
from tests.support import Vault, note_text

DOCS = Path(__file__).resolve().parent.parent / "docs"


def run_lore(
    *args: str, env: dict[str, str] | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "lore", *args],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        cwd=cwd,
        timeout=120,
    )


def test_version() -> None:
    result = run_lore("--version")
    assert result.returncode == 0
    assert result.stdout.strip() == f"lore {__version__}"


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_command_has_help_and_docs(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main([command, "--help"])
    assert exited.value.code == 0
    assert len(capsys.readouterr().out) > 200
    reference = (DOCS / "cli.md").read_text(encoding="utf-8")
    assert f"## `lore {command}" in reference, f"docs/cli.md has no section for lore {command}"


@pytest.mark.parametrize(
    "command",
    [["recall", "anything"], ["remember", "--title", "x", "--dry-run"], ["doctor", "--offline"]],
)
def test_no_vault_is_a_clear_error_that_says_how_to_get_one(
    command: list[str], tmp_path: Path
) -> None:
    result = run_lore(*command, cwd=tmp_path)
    said = result.stdout if command[0] == "doctor" else result.stderr  # doctor: a checklist
    assert result.returncode == (1 if command[0] == "doctor" else 2), result.stderr
    assert "No vault is configured." in said, said
    assert "`lore connect OWNER/REPO`" in said and "`lore init`" in said, said
    assert "Traceback" not in result.stderr


def test_missing_vault_folder(tmp_path: Path) -> None:
    result = run_lore("recall", "x", "--vault", str(tmp_path / "nope"))
    assert result.returncode == 2
    assert "does not exist" in result.stderr


def test_config_default_vault(make_vault: Callable[..., Vault], isolated_home: Path) -> None:
    vault = make_vault({"scope--topic--2026-01-01": note_text()})
    (isolated_home / "config.toml").write_text(
        f'default = "team"\n[vaults.team]\npath = "{vault.root}"\n', encoding="utf-8"
    )
    result = run_lore("recall", "--json", "httpx")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["results"][0]["id"] == "scope--topic--2026-01-01"


def test_broken_config_names_the_file(isolated_home: Path) -> None:
    (isolated_home / "config.toml").write_text("default = [unclosed\n", encoding="utf-8")
    result = run_lore("recall", "x")
    assert result.returncode == 2
    assert "config.toml" in result.stderr and "not valid TOML" in result.stderr


def test_show(make_vault: Callable[..., Vault], capsys: pytest.CaptureFixture[str]) -> None:
    vault = make_vault(
        {
            "scope--topic--2026-01-01": note_text(
                body="## What\nHidden\u202e text and \x1b[31m escapes are removed.\n"
            )
        }
    )
    assert main(["show", "scope--topic--2026-01-01", "--vault", str(vault.root)]) == 0
    out = capsys.readouterr().out
    assert "title: Integration tests use httpx" in out
    assert "\u202e" not in out and "\x1b" not in out
    assert main(["show", "scope--topic--2026-01-01", "--json", "--vault", str(vault.root)]) == 0
    assert json.loads(capsys.readouterr().out)["active"] is True
    assert main(["show", "scope--topik--2026-01-01", "--vault", str(vault.root)]) == 2
    assert "Did you mean scope--topic--2026-01-01?" in capsys.readouterr().err


def test_index_command(
    make_vault: Callable[..., Vault], capsys: pytest.CaptureFixture[str]
) -> None:
    vault = make_vault(
        {"scope--topic--2026-01-01": note_text(), "broken--note--2026-01-01": "no frontmatter\n"}
    )
    vault.write("local--edit--2026-01-02", note_text("not committed"))
    assert main(["index", "--json", "--check", "--vault", str(vault.root)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["notes"] == 1
    assert data["integrity"] == "ok"
    assert data["skipped"][0]["path"] == "notes/broken--note--2026-01-01.md"
    assert data["uncommitted"] == ["notes/local--edit--2026-01-02.md"]
    assert main(["index", "--rebuild", "--vault", str(vault.root)]) == 0
    out = capsys.readouterr().out
    assert "rebuilt" in out and "not served until they are committed" in out


def test_unexpected_error_exits_3_with_a_log(
    make_vault: Callable[..., Vault],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    isolated_home: Path,
) -> None:
    # A stand-in bug: the only way to provoke an internal error on purpose.
    import lore.recall.engine

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("simulated bug")

    monkeypatch.setattr(lore.recall.engine, "recall", broken)
    vault = make_vault()
    assert main(["recall", "x", "--vault", str(vault.root)]) == 3
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "simulated bug" in err
    logs = list((isolated_home / "lore-home" / "logs").glob("crash-*.log"))
    assert logs and "Traceback" in logs[0].read_text()


def test_demo_builds_a_vault_and_recalls(tmp_path: Path) -> None:
    target = tmp_path / "demo"
    result = run_lore("demo", str(target), env={"COLUMNS": "120"})
    assert result.returncode == 0, result.stderr
    assert len(list((target / "notes").glob("*.md"))) >= 40
    assert (target / ".git").is_dir()
    status = subprocess.run(
        ["git", "status", "--porcelain"], cwd=target, capture_output=True, text=True, check=True
    )
    assert status.stdout == ""  # the index lives in the git directory
    assert "replaces postgres--pgbouncer-session-pooling" in result.stdout
    assert "× repo (same repository)" in result.stdout
    assert "bm25 total" in result.stdout
    again = run_lore("demo", str(target))
    assert again.returncode == 2
    assert "not an empty folder" in again.stderr


def test_demo_notes_pass_the_parser_and_taxonomy() -> None:
    from lore.demo import demo_files
    from lore.note.parse import inspect_note
    from lore.taxonomy import parse_taxonomy

    files = demo_files()
    taxonomy = parse_taxonomy(files["_taxonomy.md"].decode())
    assert taxonomy.problems == []
    notes = {p: d for p, d in files.items() if p.startswith("notes/")}
    assert len(notes) >= 40
    for path, data in notes.items():
        report = inspect_note(data, path)
        assert report.problems == [], path
        note = report.note
        assert note is not None
        assert note.type in taxonomy.types, path
        assert all(tag in taxonomy.tags for tag in note.tags), path
        assert all(repo in taxonomy.repos for repo in note.repo), path


def test_vault_by_registered_name(
    make_vault: Callable[..., Vault], isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    vault = make_vault({"scope--topic--2026-01-01": note_text()})
    (isolated_home / "config.toml").write_text(
        f'[vaults.team]\npath = "{vault.root}"\n[vaults.other]\npath = "{vault.root}"\n',
        encoding="utf-8",
    )
    assert main(["show", "scope--topic--2026-01-01", "--vault", "team", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["id"] == "scope--topic--2026-01-01"
    assert main(["show", "scope--topic--2026-01-01", "--vault", "nope"]) == 2
    err = capsys.readouterr().err
    assert "no vault registered as 'nope'" in err and "Registered: other, team." in err
    assert main(["show", "scope--topic--2026-01-01", "--vault", "gone/nope"]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_a_vault_path_that_is_a_file_says_so(
    make_vault: Callable[..., Vault], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    vault = make_vault({"scope--topic--2026-01-01": note_text()})
    assert main(["show", "scope--topic--2026-01-01", "--vault", str(vault.root / "README.md")]) == 2
    assert "is a file, not a vault folder" in capsys.readouterr().err


@pytest.mark.parametrize("output", ["--json", "--explain"])
def test_a_reader_that_goes_away_is_not_an_error(
    make_vault: Callable[..., Vault], output: str
) -> None:
    """`lore recall … | head -1`: the pipe closes before lore writes; it exits 0, silently."""
    notes = {
        f"bulk--retry-note-{i}--2026-01-01": note_text(f"Retry policy {i}", body="Retry.\n" * 50)
        for i in range(40)
    }
    vault = make_vault(notes)
    run_lore("index", "--vault", str(vault.root))  # built first, so only the write remains
    command = [sys.executable, "-m", "lore", "recall", "retry", "--limit", "40", output]
    process = subprocess.Popen(
        [*command, "--vault", str(vault.root)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()  # the reader is gone before the first line
    err = process.stderr.read().decode()
    assert process.wait(timeout=60) == 0, err
    assert "Traceback" not in err and "Exception ignored" not in err


def test_an_unknown_type_or_repo_filter_names_the_known_values(
    make_vault: Callable[..., Vault], capsys: pytest.CaptureFixture[str]
) -> None:
    vault = make_vault({"scope--topic--2026-01-01": note_text()})
    root = str(vault.root)
    assert main(["recall", "httpx", "--vault", root, "--type", "gotchaa"]) == 2
    err = capsys.readouterr().err
    assert "--type gotchaa is not a type" in err and "convention" in err and "gotcha," in err
    assert main(["recall", "httpx", "--vault", root, "--repo", "payments"]) == 2
    err = capsys.readouterr().err
    assert "--repo payments is not a repository" in err and "payments-api, web-app" in err
    assert main(["recall", "httpx", "--vault", root, "--type", "convention", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["results"]
    assert main(["recall", "httpx", "--vault", root, "--repo", "", "--json"]) == 0


@pytest.mark.parametrize(
    ("command", "code", "said"),
    [
        (["recall", "anything", "--json"], 2, "No vault is configured."),
        (["recall", "x", "--json", "--limit", "abc"], 2, "argument --limit: invalid int value"),
        (["index", "--json", "--vault", "{gone}"], 2, "{gone}"),
        (["curate", "--format", "json", "--vault", "{vault}", "notes/none.md"], 2, "none.md"),
        (["remember", "--json", "--yes", "--title", "x", "--vault", "{vault}"], 2, "no body"),
        (["sync", "--json", "--vault", "{gone}"], 2, "{gone}"),
    ],
    ids=lambda value: value[0] if isinstance(value, list) else None,
)
def test_an_error_under_json_is_one_json_object_on_stdout(
    command: list[str],
    code: int,
    said: str,
    make_vault: Callable[..., Vault],
    tmp_path: Path,
) -> None:
    """`{"version": 1, "error", "fix", "exit_code"}` on stdout (docs/cli.md), whatever the
    command and wherever the error comes from: a missing vault, argparse, the library."""
    vault = make_vault()
    values = {"vault": str(vault.root), "gone": str(tmp_path / "gone")}
    typed = [word.format(**values) for word in command]
    result = run_lore(*typed, cwd=tmp_path)
    assert result.returncode == code, result.stdout + result.stderr
    data = json.loads(result.stdout)  # one object, nothing else on stdout
    assert list(data) == ["version", "error", "fix", "exit_code"], data
    assert data["version"] == 1 and data["exit_code"] == code
    assert said.format(**values) in data["error"] + (data["fix"] or ""), data
    assert data["error"] in result.stderr  # people still read it there
    assert "Traceback" not in result.stderr


def test_an_internal_error_under_json_names_the_log(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from lore.cli import taxonomy_cmd

    def broken(args: object) -> int:
        raise RuntimeError("a bug")

    monkeypatch.setattr(taxonomy_cmd, "run", broken)
    assert main(["taxonomy", "--json"]) == 3
    data = json.loads(capsys.readouterr().out)
    assert data["exit_code"] == 3 and "internal error (RuntimeError: a bug)" in data["error"]
    assert "Details: " in data["error"]
