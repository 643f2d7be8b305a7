"""`--type`, `--tag` and `--repo` are checked against the taxonomy names the index stores.

An unknown name is bad usage (exit 2) naming the known values; a vault without a
taxonomy accepts any name; several vaults accept a name any of them knows; the scan
fallback checks against the files. The names come from the index (the `vocabulary`
meta row), kept up to date with the taxonomy like the rest of the index.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from lore.cli.main import main
from lore.index.build import open_index
from lore.index.schema import VOCABULARY_KEY
from lore.paths import index_path
from tests.support import Vault, git, note_text

NOTE = {"scope--topic--2026-01-01": note_text()}


def _recall(root: Path, *args: str) -> int:
    return main(["recall", "httpx", "--vault", str(root), "--json", *args])


def test_an_unknown_tag_is_bad_usage_naming_the_known_tags(
    make_vault: Callable[..., Vault], capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_vault(NOTE).root
    assert _recall(root, "--tag", "servce/billing") == 2
    err = capsys.readouterr().err
    assert "--tag servce/billing is not a tag in the vault's taxonomy" in err
    assert "service/billing, service/notifications" in err and "Did you mean service/billing" in err
    assert _recall(root, "--tag", "BilLing") == 0  # lower-cased: the tag's name in a dimension
    assert json.loads(capsys.readouterr().out)["results"]
    for known in ("tool/httpx", "httpx", "tool"):  # a full tag, a name, a whole dimension
        assert _recall(root, "--tag", known) == 0, known
        capsys.readouterr()
    assert _recall(root, "--tag", "tool/httpx", "--tag", "nosuch") == 2
    assert "--tag nosuch is not a tag or a dimension" in capsys.readouterr().err


def test_an_unknown_tag_lists_the_tags_of_its_dimension_only(
    make_vault: Callable[..., Vault], capsys: pytest.CaptureFixture[str]
) -> None:
    # Every tag of a taxonomy was a wall of text (a thousand characters in the MCP's
    # one-sentence answer): the tags of the dimension it names, at most twelve of them.
    root = make_vault(NOTE).root
    assert _recall(root, "--tag", "tool/nowhere") == 2
    err = capsys.readouterr().err
    listed = err.split("(known tool tags: ", 1)[1].split(")", 1)[0]
    assert "domain/" not in listed and "service/" not in listed
    names = listed.split(" and ", 1)[0].split(", ")
    assert len(names) <= 12 and all(name.startswith("tool/") for name in names)
    if " more: " in listed:
        assert "`lore taxonomy` lists them" in listed
    assert _recall(root, "--tag", "nosuch/thing") == 2
    assert "(known dimensions: " in capsys.readouterr().err


def test_an_alias_suggests_the_name_it_stands_for(
    make_vault: Callable[..., Vault], capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_vault(NOTE).root
    assert _recall(root, "--tag", "pg") == 2  # `tool/postgres` lists the alias pg
    assert "Did you mean tool/postgres?" in capsys.readouterr().err


def test_the_names_are_read_from_the_index(
    make_vault: Callable[..., Vault], capsys: pytest.CaptureFixture[str]
) -> None:
    vault = make_vault(NOTE)
    conn, _ = open_index(vault.root)
    conn.close()
    with sqlite3.connect(index_path(vault.root)) as db:
        stored = json.loads(
            db.execute("SELECT value FROM meta WHERE key = ?", (VOCABULARY_KEY,)).fetchone()[0]
        )
        assert "convention" in stored["types"] and "payments-api" in stored["repos"]
        stored["types"] = ["only-this-one"]
        db.execute("UPDATE meta SET value = ? WHERE key = ?", (json.dumps(stored), VOCABULARY_KEY))
    # The index is fresh, so what it stored is what the check reads.
    assert _recall(vault.root, "--type", "convention") == 2
    assert "(known types: only-this-one)" in capsys.readouterr().err


def test_a_new_taxonomy_entry_is_known_after_its_commit(
    make_vault: Callable[..., Vault], capsys: pytest.CaptureFixture[str]
) -> None:
    vault = make_vault(NOTE)
    assert _recall(vault.root, "--repo", "ledger") == 2
    capsys.readouterr()
    taxonomy = vault.root / "_taxonomy.md"
    text = taxonomy.read_text(encoding="utf-8")
    taxonomy.write_text(
        text.replace("- `web-app` —", "- `ledger` — The ledger.\n- `web-app` —"), encoding="utf-8"
    )
    vault.commit("add the ledger repository")
    assert _recall(vault.root, "--repo", "ledger") == 0


def test_a_vault_without_a_taxonomy_accepts_any_name(
    make_vault: Callable[..., Vault], capsys: pytest.CaptureFixture[str]
) -> None:
    vault = make_vault(NOTE)
    git(vault.root, "rm", "-q", "_taxonomy.md")
    vault.commit("no taxonomy")
    assert _recall(vault.root, "--type", "anything", "--tag", "x/y", "--repo", "z") == 0


def test_an_index_from_before_the_vocabulary_is_rebuilt(
    make_vault: Callable[..., Vault], capsys: pytest.CaptureFixture[str]
) -> None:
    vault = make_vault(NOTE)
    conn, _ = open_index(vault.root)
    conn.close()
    with sqlite3.connect(index_path(vault.root)) as db:  # as lore wrote it before
        db.execute("DELETE FROM meta WHERE key = ?", (VOCABULARY_KEY,))
        db.execute("UPDATE meta SET value = '1' WHERE key = 'schema'")
        db.execute("PRAGMA user_version = 1")
    assert _recall(vault.root, "--type", "gotchaa") == 2
    assert "Did you mean gotcha?" in capsys.readouterr().err


def test_several_vaults_accept_a_name_any_of_them_knows(
    make_vault: Callable[..., Vault], isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    team = make_vault(NOTE, repos=("payments-api",))
    org = make_vault(NOTE, repos=("web-app", "ledger"))
    (isolated_home / "config.toml").write_text(
        f'default = "team"\n[vaults.team]\npath = "{team.root}"\n'
        f'[vaults.org]\npath = "{org.root}"\n',
        encoding="utf-8",
    )
    for repo in ("payments-api", "ledger"):
        assert main(["recall", "httpx", "--json", "--repo", repo]) == 0, repo
        assert json.loads(capsys.readouterr().out)["results"]
    assert main(["recall", "httpx", "--json", "--repo", "billing"]) == 2
    assert "(known repositories: ledger, payments-api, web-app)" in capsys.readouterr().err


def test_the_scan_fallback_checks_against_the_files(
    make_vault: Callable[..., Vault], capsys: pytest.CaptureFixture[str]
) -> None:
    vault = make_vault(NOTE)
    index_path(vault.root).parent.write_text("not a folder")  # the index cannot be made
    assert _recall(vault.root, "--type", "gotchaa") == 2
    assert "--type gotchaa is not a type" in capsys.readouterr().err
    assert _recall(vault.root, "--type", "convention") == 0
    assert json.loads(capsys.readouterr().out)["engine"] == "scan"
