"""An index file lore did not make cannot run anything: hardened connections, exact schema.

Every connection to an index on disk sets `PRAGMA trusted_schema = OFF` (and SQLite's
defensive mode where Python offers it, 3.12+), and an index whose schema holds a
trigger, a view or any object lore's schema does not create is damaged: moved aside and
rebuilt from the notes. An index file reached through a symbolic link is never opened.
Real SQLite files in a real git vault.
"""

from __future__ import annotations

import json
import sqlite3
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from lore.cli.main import main
from lore.index.build import connect, open_index
from lore.index.health import connect_existing, inspect_index
from lore.index.schema import OBJECTS, create_schema, schema_objects
from lore.integrations.hook_index import open_view
from lore.paths import index_path
from tests.support import Vault, note_text

NOTE = "billing--invoices-are-immutable--2026-10-30"
LATER = "billing--refunds-post-to-the-ledger--2026-10-31"
FORGED = "FORGED by a trigger"


@pytest.fixture
def vault(make_vault: Callable[..., Vault]) -> Vault:
    made = make_vault(
        {
            NOTE: note_text(
                "Invoices are immutable once issued",
                tags="[service/billing]",
                body="## What\nAn issued invoice is never edited; a credit note corrects it.\n",
            )
        }
    )
    conn, _ = open_index(made.root)
    conn.close()
    return made


def plant(vault: Vault, sql: str) -> None:
    conn = sqlite3.connect(index_path(vault.root), isolation_level=None)
    conn.execute(sql)
    conn.close()


def recall(vault: Vault, query: str, capsys: pytest.CaptureFixture[str]) -> tuple[dict, str]:
    code = main(["recall", query, "--vault", str(vault.root), "--json", "--all"])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out), err


def test_the_schema_objects_are_what_create_schema_makes() -> None:
    conn = sqlite3.connect(":memory:")
    create_schema(conn)
    assert schema_objects(conn) == OBJECTS


def test_a_trigger_in_the_index_is_never_run_the_index_is_rebuilt(
    vault: Vault, capsys: pytest.CaptureFixture[str]
) -> None:
    plant(
        vault,
        f"CREATE TRIGGER forge AFTER UPDATE ON meta BEGIN UPDATE notes SET title = '{FORGED}'; END",
    )
    vault.write(
        LATER,
        note_text("Refunds post to the ledger", tags="[service/billing]"),
    )
    vault.commit("a later note")  # the next recall updates the index: the trigger would fire
    found, err = recall(vault, "invoice credit note", capsys)
    assert FORGED not in json.dumps(found)
    assert [hit["title"] for hit in found["results"]][:1] == ["Invoices are immutable once issued"]
    assert "schema objects lore did not create (trigger forge)" in err
    conn = sqlite3.connect(index_path(vault.root))
    assert schema_objects(conn) == OBJECTS
    conn.close()
    assert index_path(vault.root).with_name("index.db.aside").is_file()


def test_a_view_in_the_index_makes_it_damaged(
    vault: Vault, capsys: pytest.CaptureFixture[str]
) -> None:
    plant(vault, "CREATE VIEW notes_view AS SELECT id, title FROM notes")
    assert inspect_index(index_path(vault.root)).damaged
    assert open_view(vault.root) is None  # the hooks do not read it either
    assert main(["index", "--vault", str(vault.root)]) == 0
    assert "(view notes_view)" in capsys.readouterr().err
    conn = sqlite3.connect(index_path(vault.root))
    assert ("view", "notes_view") not in schema_objects(conn)
    conn.close()


def test_an_extra_table_or_index_makes_it_damaged(
    vault: Vault, capsys: pytest.CaptureFixture[str]
) -> None:
    plant(vault, "CREATE INDEX notes_title ON notes(title)")
    found, err = recall(vault, "invoice", capsys)
    assert "index notes_title" in err and found["results"]
    conn = sqlite3.connect(index_path(vault.root))
    assert schema_objects(conn) == OBJECTS
    conn.close()


def test_every_connection_to_an_index_on_disk_is_hardened(vault: Vault) -> None:
    path = index_path(vault.root)
    view = open_view(vault.root)
    assert view is not None
    conns = [
        connect(path),
        connect_existing(path),
        connect_existing(path, read_only=True),
        view.conn,
    ]
    conns.append(open_index(vault.root)[0])
    for conn in conns:
        assert conn.execute("PRAGMA trusted_schema").fetchone()[0] == 0
        if sys.version_info >= (3, 12) and hasattr(sqlite3, "SQLITE_DBCONFIG_DEFENSIVE"):
            assert conn.getconfig(sqlite3.SQLITE_DBCONFIG_DEFENSIVE)
        conn.close()


def test_an_index_reached_through_a_link_is_never_opened(
    vault: Vault, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = index_path(vault.root)
    forged = tmp_path / "forged.db"
    conn = sqlite3.connect(path)
    conn.execute(f"VACUUM INTO '{forged}'")
    conn.close()
    conn = sqlite3.connect(forged, isolation_level=None)
    conn.execute("UPDATE notes SET title = ?", (FORGED,))
    conn.execute("INSERT INTO notes_fts(notes_fts) VALUES ('rebuild')")
    conn.close()
    before = forged.read_bytes()
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    path.symlink_to(forged)
    assert open_view(vault.root) is None
    found, err = recall(vault, "invoice credit note", capsys)
    assert FORGED not in json.dumps(found) and found["results"]
    assert "symbolic link" in err
    assert not path.is_symlink() and path.is_file()
    assert forged.read_bytes() == before
