"""`lore import claude-memory | gemini-memory | codex-memory`: what agents remember, reviewed.

Each store is a fixture in the layout its agent documents (tests/fixtures/import/
claude-memory, gemini-memory and codex-memory; their READMEs cite the documentation),
placed where the agent keeps it — under the test's own home, `CLAUDE_CONFIG_DIR` or
`CODEX_HOME` — so the import runs through the real CLI with no PATH, as a person runs
it. The vault's remote is a local bare repository; `gh` is the fake of
tests/team/conftest.py, which would record any pull request (none may be opened).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from lore.team.drafts.inbox import list_drafts
from lore.team.imports.memory_stores import claude_project_key
from tests.support import git
from tests.team.conftest import FakeGh, Remote
from tests.team.imports.conftest import FIXTURES, frontmatter, note_by_source, run_import

SECRET = "ghp_" + "R8fK2mQ9vX4tL7wN3pZ6yB1cH5jD0sG8aE2u"


def body_section(text: str, name: str) -> str:
    rest = text.split(f"## {name}\n", 1)[1]
    return rest.split("\n## ", 1)[0].strip()


def reasons(data: dict) -> dict[str, str]:
    return {s["source"]: s["reason"] for s in data["skipped"]}


@pytest.fixture
def claude_store(
    code_repo: Callable[..., Path], isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[Path, Path]:
    """(the repository Claude Code ran in, its auto memory folder), as Claude Code lays
    them out: `$CLAUDE_CONFIG_DIR/projects/<the repository's path, sanitized>/memory`."""
    repo = code_repo("agents/payments-api", "payments-api")
    config = isolated_home / ".claude"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config))
    memory = config / "projects" / claude_project_key(repo.resolve()) / "memory"
    shutil.copytree(FIXTURES / "claude-memory" / "memory", memory)
    (memory / "reference_staging_token.md").write_text(
        "---\nname: reference_staging_token\ndescription: The staging deploy token\n"
        f"metadata:\n  type: reference\n---\n\nThe staging deploy token is {SECRET}.\n",
        encoding="utf-8",
    )
    monkeypatch.chdir(repo)
    return repo, memory


def test_claude_code_memory_in_its_documented_place_becomes_drafts(
    claude_store: tuple[Path, Path], checkout: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The layout of code.claude.com/docs/en/memory: MEMORY.md and one fact per topic file."""
    code, data, out, err = run_import(
        capsys, "claude-memory", "--vault", str(checkout), "--dry-run", "--json"
    )
    assert code in (0, 1), err
    assert data is not None, out
    real = note_by_source(data, "feedback_real_database.md")["text"]
    fields = frontmatter(real)
    assert fields["title"] == (
        "Integration tests of the ledger hit a real PostgreSQL database, never a mock"
    )  # the description
    assert fields["type"] == "convention" and fields["confidence"] == "medium"
    assert fields["repo"] == "payments-api"  # the repository Claude Code ran in
    assert body_section(real, "What").startswith("Integration tests of the ledger hit a real")
    assert body_section(real, "Why").startswith("A mocked database passed")
    assert body_section(real, "How").startswith("Every test under `tests/integration/`")
    flaky = frontmatter(note_by_source(data, "project_flaky_webhook_test.md")["text"])
    assert flaky["type"] == "gotcha"
    ci = frontmatter(note_by_source(data, "reference_ci_dashboards.md")["text"])
    assert ci["type"] == "reference"  # `type:` at the top, as older files have it
    migrate = note_by_source(data, "MEMORY.md:8")  # a fact kept in the index itself
    assert "make migrate" in migrate["text"]
    why = reasons(data)
    assert why["user_role.md"].startswith("a `user` memory: about you")
    assert why["feedback_answer_style.md"].startswith("about the agent, not the team")
    assert why["reference_staging_token.md"].startswith("contains what looks like a secret")
    assert SECRET not in out
    assert not any(s.startswith("MEMORY.md:") and "index" in r for s, r in why.items())


def test_claude_code_memory_goes_to_the_inbox_and_is_never_proposed(
    claude_store: tuple[Path, Path],
    checkout: Path,
    remote: Remote,
    fake_gh: FakeGh,
    capsys: pytest.CaptureFixture[str],
) -> None:
    branches = remote.branches()
    code, data, out, err = run_import(
        capsys, "claude-memory", "--vault", str(checkout), "--yes", "--json"
    )
    assert code == 0, err
    assert data is not None, out
    drafted = {d["source"]: d["id"] for d in data["drafts"]}
    assert set(drafted) == {
        "feedback_real_database.md",
        "project_flaky_webhook_test.md",
        "reference_ci_dashboards.md",
        "MEMORY.md:8",
    }
    inbox = {d.id: d for d in list_drafts(checkout)}
    assert set(inbox) == set(drafted.values())
    assert all(d.meta["origin"] == "import" for d in inbox.values())
    assert remote.branches() == branches  # nothing pushed
    assert fake_gh.calls_to("pr", "create") == []  # no pull request


def test_claude_code_memory_imported_twice_offers_nothing_new(
    claude_store: tuple[Path, Path], checkout: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Idempotent, even when the folder changes around the facts already taken in."""
    _, memory = claude_store
    first = run_import(capsys, "claude-memory", "--vault", str(checkout), "--json")
    assert first[0] == 0 and first[1] is not None, first[3]
    assert len(first[1]["drafts"]) == 4
    second = run_import(capsys, "claude-memory", "--vault", str(checkout), "--json")
    assert second[0] == 0 and second[1] is not None, second[3]
    assert second[1]["drafts"] == [] and second[1]["notes"] == []
    assert (
        "already imported on 2026-11-02 as the draft"
        in reasons(second[1])["feedback_real_database.md"]
    )
    # Claude Code rewrites its index, renames a topic file and adds a fact.
    index = memory / "MEMORY.md"
    index.write_text(
        "# Index, rewritten\n\n- Run `make migrate` before starting the API locally, or it "
        "fails on a missing table.\n",
        encoding="utf-8",
    )
    (memory / "reference_ci_dashboards.md").rename(memory / "reference_ci.md")
    (memory / "project_payouts_cutoff.md").write_text(
        "---\nname: payouts\ndescription: Payout files must reach the bank before 16:00 CET\n"
        "metadata:\n  type: project\n---\n\nPayout files must reach the bank before 16:00 "
        "CET, or the payouts slip a day.\n",
        encoding="utf-8",
    )
    third = run_import(capsys, "claude-memory", "--vault", str(checkout), "--json")
    assert third[0] == 0 and third[1] is not None, third[3]
    assert [d["source"] for d in third[1]["drafts"]] == ["project_payouts_cutoff.md"]
    assert len(list_drafts(checkout)) == 5


def test_a_missing_claude_memory_folder_says_where_it_looked(
    code_repo: Callable[..., Path],
    checkout: Path,
    isolated_home: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    repo = code_repo("agents/web-app", "web-app")
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(isolated_home / ".claude"))
    monkeypatch.chdir(repo)
    code, _, _, err = run_import(capsys, "claude-memory", "--vault", str(checkout), "--dry-run")
    assert code == 2
    assert "Claude Code keeps no memory at" in err and claude_project_key(repo.resolve()) in err
    assert "give the memory folder" in err


# ---- Gemini CLI ----


@pytest.fixture
def gemini_store(isolated_home: Path) -> Path:
    """~/.gemini/GEMINI.md, where Gemini CLI's save_memory appends (geminicli.com/docs/tools/memory)."""
    shutil.copytree(FIXTURES / "gemini-memory" / ".gemini", isolated_home / ".gemini")
    return isolated_home / ".gemini" / "GEMINI.md"


def test_gemini_added_memories_become_drafts_and_the_person_stays_out(
    gemini_store: Path, checkout: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, data, out, err = run_import(
        capsys, "gemini-memory", "--vault", str(checkout), "--dry-run", "--json"
    )
    assert code in (0, 1), err
    assert data is not None, out
    sources = sorted(n["source"] for n in data["notes"])
    assert sources == ["GEMINI.md:10", "GEMINI.md:11", "GEMINI.md:9"]
    lint = frontmatter(note_by_source(data, "GEMINI.md:10")["text"])
    assert lint["type"] == "convention" and "repo" not in lint  # a global file: org-wide
    refunds = frontmatter(note_by_source(data, "GEMINI.md:11")["text"])
    assert refunds["type"] == "gotcha"
    why = reasons(data)
    assert why["GEMINI.md:7"].startswith("about you, not the code")  # the docs' own example
    assert why["GEMINI.md:8"].startswith("about you, not the code")
    assert why["GEMINI.md"].startswith("3 line(s) outside `## Gemini Added Memories`")


def test_gemini_memory_imported_twice_offers_only_the_new_fact(
    gemini_store: Path, checkout: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first = run_import(capsys, "gemini-memory", "--vault", str(checkout), "--json")
    assert first[0] == 0 and first[1] is not None, first[3]
    assert len(first[1]["drafts"]) == 3
    again = run_import(capsys, "gemini-memory", "--vault", str(checkout), "--json")
    assert again[1] is not None and again[1]["drafts"] == []
    # save_memory appends a fact, and the person edits their own instructions above it.
    text = gemini_store.read_text(encoding="utf-8")
    text = text.replace("- Prefer small commits.\n", "- Prefer small commits.\n- Use tabs.\n")
    gemini_store.write_text(
        text + "- The ledger's nightly reconciliation job runs at 03:00 UTC and locks the "
        "entries table for about a minute.\n",
        encoding="utf-8",
    )
    third = run_import(capsys, "gemini-memory", "--vault", str(checkout), "--json")
    assert third[1] is not None, third[3]
    assert [d["source"] for d in third[1]["drafts"]] == ["GEMINI.md:13"]


def test_a_memory_dry_run_says_what_the_inbox_gets_and_what_the_taxonomy_lacks(
    gemini_store: Path, checkout: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A draft carries no `_taxonomy.md` line, so the import does not pretend to add one:
    a fact no tag fits still gets a tag (never `tags: []`), and the lines the drafts need
    are printed for the person to add before proposing them."""
    text = gemini_store.read_text(encoding="utf-8")
    gemini_store.write_text(
        text + "- Zanzibar tuples for the reporting service are rebuilt by the "
        "`zanzibar-sync` job every hour.\n",
        encoding="utf-8",
    )
    code, data, out, err = run_import(
        capsys, "gemini-memory", "--vault", str(checkout), "--repo", "reports-ui", "--dry-run"
    )
    assert code == 1, err  # the curator's unknown-repo and unknown-tag errors, said on each
    assert "4 draft(s) for the drafts inbox, checked against" in out
    assert "adds reports-ui" not in out and "proposes `" not in out
    assert "under ## Repos: - `reports-ui` — The reports-ui repository." in out
    assert "under ## tool: - `tool/zanzibar-sync` — zanzibar-sync" in out, out
    assert "Summary: 4 draft(s) would be saved to the drafts inbox" in err
    assert "Dry run: nothing was saved." in err
    code, data, out, err = run_import(
        capsys, "gemini-memory", "--vault", str(checkout), "--dry-run", "--json"
    )
    assert data is not None, out
    assert all(frontmatter(n["text"])["tags"] != "[]" for n in data["notes"])
    zanzibar = frontmatter(note_by_source(data, "GEMINI.md:12")["text"])
    assert zanzibar["tags"] == "[tool/zanzibar-sync]"


# ---- Codex ----


@pytest.fixture
def codex_store(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """$CODEX_HOME/memories, where Codex keeps memories (developers.openai.com/codex/memories)."""
    home = isolated_home / ".codex"
    shutil.copytree(FIXTURES / "codex-memory" / "memories", home / "memories")
    monkeypatch.setenv("CODEX_HOME", str(home))
    return home / "memories"


def test_codex_handbook_bullets_become_drafts_with_their_blocks_date_and_repository(
    codex_store: Path, checkout: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, data, out, err = run_import(
        capsys, "codex-memory", "--vault", str(checkout), "--dry-run", "--json"
    )
    assert code in (0, 1), err
    assert data is not None, out
    assert sorted(n["source"] for n in data["notes"]) == ["MEMORY.md:10", "MEMORY.md:9"]
    db = frontmatter(note_by_source(data, "MEMORY.md:9")["text"])
    assert db["date"] == "2026-10-14"  # the newest updated_at of its block
    assert db["repo"] == "payments-api"  # the one folder its threads ran in
    lock = frontmatter(note_by_source(data, "MEMORY.md:10")["text"])
    assert lock["type"] == "gotcha"
    why = reasons(data)
    assert why["MEMORY.md:20"].startswith("about you, not the code")
    assert why["MEMORY.md:21"].startswith("about the agent, not the team")
    assert why["memory_summary.md"].startswith("Codex's profile of you")
    assert why["skills"].startswith("procedures Codex wrote for itself")
    assert "MEMORY.md:11" not in why and "MEMORY.md:11" not in str(data["notes"])  # a skill link


def test_codex_memory_imported_twice_offers_nothing_new(
    codex_store: Path, checkout: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first = run_import(capsys, "codex-memory", "--vault", str(checkout), "--json")
    assert first[1] is not None and len(first[1]["drafts"]) == 2, first[3]
    # Codex regroups its handbook: the same bullets under a new header, in another order.
    (codex_store / "MEMORY.md").write_text(
        "---\nrollout_summary_files:\n  - x.md (success, cwd=/home/dev/src/payments-api, "
        "updated_at=2026-11-01T10:00:00Z)\ndescription: ledger\nkeywords: ledger\n---\n\n"
        "- Alembic migrations on the ledger set `lock_timeout = 5s`; a migration that waits "
        "longer fails with SQLSTATE 55P03, so run it outside peak hours.\n"
        "- The ledger's integration tests need `make db` first: without the container they "
        'fail with "connection refused" on port 5433.\n',
        encoding="utf-8",
    )
    again = run_import(capsys, "codex-memory", "--vault", str(checkout), "--json")
    assert again[1] is not None, again[3]
    assert again[1]["drafts"] == []
    assert all(
        "already imported" in r for s, r in reasons(again[1]).items() if s.startswith("MEMORY.md")
    )


def test_codex_without_memories_says_how_they_are_turned_on(
    isolated_home: Path,
    checkout: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("CODEX_HOME", str(isolated_home / ".codex"))
    code, _, _, err = run_import(capsys, "codex-memory", "--vault", str(checkout), "--dry-run")
    assert code == 2
    assert "[features] memories = true" in err


def test_the_ledger_is_the_vaults_own(
    gemini_store: Path,
    checkout: Path,
    clone_of: Callable[..., Path],
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Another clone of the vault (another vault, as far as lore knows) is offered everything."""
    run_import(capsys, "gemini-memory", "--vault", str(checkout), "--json")
    other = clone_of("second")
    code, data, _, err = run_import(capsys, "gemini-memory", "--vault", str(other), "--json")
    assert code == 0 and data is not None, err
    assert len(data["drafts"]) == 3
    assert git(other, "status", "--porcelain") == ""  # the ledger lives outside the work tree
    assert os.listdir(other / "notes") == os.listdir(checkout / "notes")


@pytest.mark.parametrize("with_memories", [True, False])
def test_lore_install_offers_the_import_of_the_agents_own_memories(
    with_memories: bool,
    isolated_home: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`lore install gemini-cli` with Gemini CLI's memories in their documented place."""
    from lore.cli.main import main

    if with_memories:
        shutil.copytree(FIXTURES / "gemini-memory" / ".gemini", isolated_home / ".gemini")
    monkeypatch.chdir(isolated_home)
    assert main(["install", "gemini-cli", "--no-prompt"]) == 0
    err = capsys.readouterr().err
    offer = "Gemini CLI already keeps 1 memory file(s) of its own. `lore import gemini-memory`"
    assert (offer in " ".join(err.split())) is with_memories
