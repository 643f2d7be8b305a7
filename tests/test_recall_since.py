"""What changed: `lore recall --since DATE|COMMIT` over a real git history."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from lore.cli.main import main
from tests.support import GIT_IDENTITY, Vault, note_text

OLD = "billing--invoices-are-immutable--2025-01-10"
EDITED = "billing--refunds-go-through-the-ledger--2025-02-01"
GONE = "billing--retry-webhooks-hourly--2025-03-01"
NEW = "billing--webhooks-retry-with-backoff--2026-11-03"
GOTCHA = "postgres--vacuum-blocks-ddl--2026-11-05"


def commit_on(root: Path, day: str, message: str, *, branch: str | None = None) -> str:
    """Commit everything, authored and committed on `day` (noon, UTC)."""
    moment = f"{day}T12:00:00+00:00"
    env = {**os.environ, **GIT_IDENTITY, "GIT_AUTHOR_DATE": moment, "GIT_COMMITTER_DATE": moment}

    def git(*args: str) -> str:
        done = subprocess.run(
            ["git", "-c", "commit.gpgsign=false", *args],
            cwd=root,
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        return done.stdout.strip()

    if branch:
        git("checkout", "-q", "-B", branch)
    git("add", "-A")
    git("commit", "-q", "-m", message)
    return git("rev-parse", "HEAD")


@pytest.fixture
def history(make_vault: Callable[..., Vault], monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """A vault whose notes arrived over November 2026, one merge among them."""
    vault = make_vault(
        {
            OLD: note_text("Invoices are immutable once issued", tags="[service/billing]"),
            EDITED: note_text("Refunds go through the ledger", tags="[service/billing]"),
            GONE: note_text("Retry failed webhooks every hour", tags="[service/billing]"),
        }
    )
    root = vault.root
    monkeypatch.setenv("LORE_VAULT", str(root))
    monkeypatch.setenv("LORE_TODAY", "2026-11-30")
    start = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True)
    marks = {"start": start.stdout.strip()}  # the first commit, on 2026-11-01
    # a pull request written on the 2nd, merged on the 6th
    vault.write(GOTCHA, note_text("VACUUM FULL blocks DDL", type="gotcha", tags="[tool/postgres]"))
    commit_on(root, "2026-11-02", "a gotcha", branch="lore/vacuum")
    subprocess.run(["git", "checkout", "-q", "main"], cwd=root, check=True)
    vault.write(NEW, note_text("Webhooks retry with backoff", tags="[service/billing]"))
    vault.remove(GONE)
    marks["replaced"] = commit_on(root, "2026-11-03", "webhooks retry with backoff")
    text = (root / "notes" / f"{EDITED}.md").read_text(encoding="utf-8")
    (root / "notes" / f"{EDITED}.md").write_text(text + "\nRefunds post a reversing entry.\n")
    marks["edited"] = commit_on(root, "2026-11-04", "refunds: the reversing entry")
    moment = "2026-11-06T12:00:00+00:00"
    env = {**os.environ, **GIT_IDENTITY, "GIT_AUTHOR_DATE": moment, "GIT_COMMITTER_DATE": moment}
    subprocess.run(
        ["git", "merge", "-q", "--no-ff", "-m", "merge the gotcha", "lore/vacuum"],
        cwd=root,
        env=env,
        check=True,
    )
    return marks


def changes(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, object]:
    assert main(["recall", *args, "--json"]) == 0
    data: dict[str, object] = json.loads(capsys.readouterr().out)
    return data


def listed(data: dict[str, object]) -> list[tuple[str, str]]:
    return [(c["id"], c["change"]) for c in data["changes"]]  # type: ignore[attr-defined, index]


def test_since_a_day_lists_what_landed_newest_first(
    history: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    data = changes(capsys, "--since", "2026-11-03")
    # The gotcha's commit was written on the 2nd, but it landed (the merge) on the 6th.
    assert listed(data) == [(GOTCHA, "added"), (EDITED, "changed"), (NEW, "added")]
    assert [gone["id"] for gone in data["removed"]] == [GONE]  # type: ignore[attr-defined]
    first = data["changes"][0]  # type: ignore[index]
    assert first["committed"].startswith("2026-11-06") and first["type"] == "gotcha"
    assert first["title"] == "VACUUM FULL blocks DDL" and first["summary"]
    assert data["since"] == "2026-11-03" and data["vault"]["from_commit"] is None  # type: ignore[index]
    assert listed(changes(capsys, "--since", "2026-11-05")) == [(GOTCHA, "added")]
    assert listed(changes(capsys, "--since", "2026-11-07")) == []


def test_since_a_commit_and_the_filters(
    history: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    data = changes(capsys, "--since", history["replaced"])
    assert listed(data) == [(GOTCHA, "added"), (EDITED, "changed")]
    assert data["removed"] == [] and data["vault"]["from_commit"] == history["replaced"]  # type: ignore[index]
    assert listed(changes(capsys, "--since", history["start"][:10], "--type", "gotcha")) == [
        (GOTCHA, "added")
    ]
    limited = changes(capsys, "--since", history["start"], "--limit", "1")
    assert listed(limited) == [(GOTCHA, "added")] and limited["more"] == 2


def test_a_query_with_since_ranks_only_what_changed(
    history: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    everything = changes(capsys, "invoices", "refunds", "ledger")
    assert {hit["id"] for hit in everything["results"]} >= {OLD, EDITED}  # type: ignore[attr-defined]
    recent = changes(capsys, "invoices", "refunds", "ledger", "--since", "2026-11-03")
    found = [hit["id"] for hit in recent["results"]]  # type: ignore[attr-defined]
    assert found[0] == EDITED and OLD not in found  # OLD matches too, but did not change
    assert set(found) <= {EDITED, NEW, GOTCHA}
    assert recent["since"] == "2026-11-03"


def test_the_listing_for_people(
    history: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["recall", "--since", "2026-11-03"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("3 note(s) added or changed since 2026-11-03, newest first")
    assert f"   {GOTCHA}" in out and f"removed 2026-11-03  {GONE}" in out
    assert out.index(GOTCHA) < out.index(EDITED) < out.index(NEW)


@pytest.mark.parametrize(
    ("since", "says"),
    [
        ("2026-02-30", "neither a date (YYYY-MM-DD) nor a commit"),
        ("last-tuesday", "neither a date (YYYY-MM-DD) nor a commit"),
        ("--all", "neither a date (YYYY-MM-DD) nor a commit"),
        ("", "--since needs a day"),
    ],
)
def test_a_bad_since_is_one_sentence_and_exit_2(
    history: dict[str, str], capsys: pytest.CaptureFixture[str], since: str, says: str
) -> None:
    assert main(["recall", f"--since={since}"]) == 2
    err = capsys.readouterr().err
    assert says in err and "Traceback" not in err


def test_a_vault_without_git_has_no_history_to_list(
    make_vault: Callable[..., Vault],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    vault = make_vault({OLD: note_text("Invoices are immutable")}, use_git=False)
    monkeypatch.setenv("LORE_VAULT", str(vault.root))
    assert main(["recall", "--since", "2026-11-01"]) == 2
    assert "has no git history" in capsys.readouterr().err


def test_a_commit_of_an_unmerged_branch_shows_nothing_of_that_branch(
    history: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    """Only the reviewed branch's history and notes are listed, whatever commit is named:
    a pull request's own commit shows none of its notes."""
    root = Path(os.environ["LORE_VAULT"])
    unreviewed = "billing--skip-the-ledger--2026-11-20"
    (root / "notes" / f"{unreviewed}.md").write_text(
        note_text("Skip the ledger for refunds", tags="[service/billing]"), encoding="utf-8"
    )
    proposal = commit_on(root, "2026-11-20", "an unreviewed note", branch="lore/skip")
    subprocess.run(["git", "checkout", "-q", "main"], cwd=root, check=True)
    for since in (proposal, "2026-11-01"):
        data = changes(capsys, "--since", since)
        shown = json.dumps(data)
        assert unreviewed not in shown and "Skip the ledger" not in shown, since
    assert listed(changes(capsys, "--since", history["start"]))[0] == (GOTCHA, "added")
