"""The curator reads the vault through the index, and finds exactly what parsing the files finds.

Three ways to read the vault a change joins are compared finding by finding:

- the vault's index file (`<vault>/.lore/index.db`), brought to the review's base in a
  transaction that is rolled back (`lore.curator.context.vault_index`);
- an index built in memory from the base's files (`use_index=False`: what the curator
  does when the file cannot be used, and in CI);
- every note parsed and its terms counted in Python, as the curator did before it read
  the index (`fts5_usable` patched off: what runs where SQLite has no FTS5).

They are compared on the curator's fixture notes, on the public eval sets (eval/vault
and eval/curator as one vault and one pull request) and on a generated vault with
links, supersessions and duplicates, with the index fresh, stale, on another commit,
missing and damaged. A review never leaves its overlay in the index file.
"""

from __future__ import annotations

import json
import re
import sqlite3
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from lore.curator.context import vault_index
from lore.curator.run import CurateResult, curate
from lore.curator.target import Drafts, Paths, Range, Target
from lore.index.read import read_index
from lore.paths import index_path
from tests.curator.conftest import FIXTURES, TODAY, default_place, expand_secrets, load_manifest
from tests.curator.generated import change, vault_notes
from tests.faults.test_index_faults import DAMAGES, Damage
from tests.support import Vault, git

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

EVAL = Path(__file__).resolve().parents[2] / "eval"


def found(result: CurateResult) -> list[dict[str, Any]]:
    return [finding.to_json() for finding in result.findings]


def parsed(monkeypatch: pytest.MonkeyPatch, call: Callable[[], CurateResult]) -> CurateResult:
    """The review with every note parsed (the curator without FTS5)."""
    with monkeypatch.context() as patch:
        patch.setattr(vault_index, "fts5_usable", lambda: False)
        return call()


def three_ways(
    monkeypatch: pytest.MonkeyPatch, root: Path, target: Target
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]:
    index = found(curate(root, target, today=TODAY))
    memory = found(curate(root, target, today=TODAY, use_index=False))
    files = found(parsed(monkeypatch, lambda: curate(root, target, today=TODAY)))
    return index, memory, files


def differences(one: list[dict[str, Any]], other: list[dict[str, Any]]) -> list[str]:
    """The findings only one of two lists has, for a readable failure."""
    keys = [
        {(f["rule"], f["path"], f["line"], f["message"]) for f in side} for side in (one, other)
    ]
    return [f"- {key}" for key in sorted(keys[0] - keys[1])] + [
        f"+ {key}" for key in sorted(keys[1] - keys[0])
    ]


NOTE_ID = re.compile(r"[A-Za-z0-9 ._-]+--[a-z0-9-]+--\d{4}-\d{2}-\d{2}|Odd Name")


def verdicts(findings: list[dict[str, Any]]) -> list[tuple[str, ...]]:
    """Each finding as its rule, severity, place and the notes it names: what it says, without
    the likeness figures it quotes (those weigh terms by the vault's statistics, which the
    index counts over every word of a note, code and links included)."""
    return sorted(
        (
            f["rule"],
            f["severity"],
            f["path"],
            str(f["line"]),
            *sorted(set(NOTE_ID.findall(f["message"]))),
        )
        for f in findings
    )


JUDGEMENT = ("duplicate/near", "contradiction/")


def structural(findings: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every finding but the judgement's (near duplicates, contradictions): links, lifecycle,
    statuses, word-for-word copies, same titles, the fields... exactly as written."""
    return [f for f in findings if not f["rule"].startswith(JUDGEMENT)]


def indexed_commit(root: Path) -> tuple[str, int]:
    """The commit the index file serves and its note count (read as recall reads it)."""

    def read(conn: sqlite3.Connection, state: Any) -> tuple[str, int]:
        return state.version, conn.execute("SELECT count(*) FROM notes").fetchone()[0]

    return read_index(root, read, fallback=False)


# ---- the fixture notes ----


def test_every_fixture_note_gets_the_same_findings_three_ways(
    curator_vault: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    manifest = load_manifest()
    cases = [
        (FIXTURES / "bad" / name, entry.get("place", default_place(name)))
        for name, entry in manifest.items()
        if entry.get("mode") != "range"  # pull-request fixtures: checked in test_fixtures
    ]
    cases += [(path, f"notes/{path.name}") for path in sorted((FIXTURES / "good").glob("*.md"))]
    for source, place in cases:
        target = curator_vault.root / place
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(expand_secrets(source.read_bytes()))
        index, memory, files = three_ways(monkeypatch, curator_vault.root, Paths([str(target)]))
        assert index == memory, (source.name, differences(index, memory))
        assert verdicts(index) == verdicts(files), (source.name, differences(index, files))
        target.unlink()
    assert len(cases) > 90


def test_the_fixture_notes_checked_together_as_a_pull_request(
    curator_vault: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    git(curator_vault.root, "checkout", "-q", "-b", "fixtures")
    for path in sorted((FIXTURES / "good").glob("*.md")):
        (curator_vault.root / "notes" / path.name).write_bytes(path.read_bytes())
    for name in ("dup-exact.md", "dup-near.md", "ct-number.md", "ct-opposite.md", "lc-cycle.md"):
        target = curator_vault.root / default_place(name)
        target.write_bytes((FIXTURES / "bad" / name).read_bytes())
    curator_vault.commit("the fixtures")
    index, memory, files = three_ways(monkeypatch, curator_vault.root, Range("main", "fixtures"))
    assert index == memory, differences(index, memory)
    assert verdicts(index) == verdicts(files), differences(index, files)
    rules = {finding["rule"] for finding in index}
    assert {"duplicate/exact", "duplicate/near", "contradiction/different-number"} <= rules


# ---- the public eval sets ----


def _inline(value: dict[str, Any], fallback: str) -> tuple[str, str]:
    lines = [f"title: {json.dumps(value.get('title') or 'Untitled')}", "type: gotcha"]
    tags = value.get("tags") or ["tool/kafka"]
    lines += [f"tags: [{', '.join(tags)}]", "confidence: medium", "date: 2025-06-01"]
    for key in ("repo", "services", "files_touched"):
        if value.get(key):
            item = value[key]
            lines.append(f"{key}: [{', '.join([item] if isinstance(item, str) else item)}]")
    return value.get("id", fallback), "---\n" + "\n".join(lines) + "\n---\n" + value["body"]


def _names(finding: dict[str, Any]) -> str:
    match = re.search(r"(?:than|of|as) ([A-Za-z0-9 ._-]+?)(?:,| \()", finding["message"])
    return match[1] if match else ""


def figures(findings: list[dict[str, Any]], pairs: list[dict[str, Any]]) -> dict[str, Any]:
    """Precision and recall of the judgement's warnings on the labelled pairs of the set:
    a pair is flagged when its new note's warning names its existing note."""
    flagged = {
        (Path(f["path"]).stem, _names(f), f["rule"].split("/", 1)[0])
        for f in findings
        if f["rule"].startswith(JUDGEMENT)
    }
    scores: dict[str, Any] = {}
    for label in ("duplicate", "contradiction"):
        hits = flags = labelled = 0
        for pair in pairs:
            if not isinstance(pair["new"], dict):
                continue
            new = pair["new"].get("id", f"{pair['id']}--new")
            existing = pair["existing"]
            if isinstance(existing, dict):
                existing = existing.get("id", f"{pair['id']}--existing")
            flag = (new, existing, label) in flagged
            flags += flag
            labelled += pair["label"] == label
            hits += flag and pair["label"] == label
        scores[label] = {"precision": round(hits / flags, 3), "recall": round(hits / labelled, 3)}
    return scores


def test_the_public_eval_gets_the_same_findings_three_ways(
    make_vault: Callable[..., Vault], monkeypatch: pytest.MonkeyPatch
) -> None:
    """eval/vault plus every pair's existing note is the vault; every new note is the change."""
    vault = make_vault()
    root = vault.root
    (root / "_taxonomy.md").write_bytes((EVAL / "vault" / "_taxonomy.md").read_bytes())
    for path in sorted((EVAL / "vault" / "notes").glob("*.md")):
        (root / "notes" / path.name).write_bytes(path.read_bytes())
    pairs = tomllib.loads((EVAL / "curator" / "pairs.toml").read_text(encoding="utf-8"))["pair"]
    for pair in pairs:
        if isinstance(pair["existing"], dict):
            vault.write(*_inline(pair["existing"], f"{pair['id']}--existing"))
    vault.commit("the eval vault")
    git(root, "checkout", "-q", "-b", "eval-pairs")
    for pair in pairs:
        if isinstance(pair["new"], dict):
            vault.write(*_inline(pair["new"], f"{pair['id']}--new"))
    vault.commit("the new notes of every pair")
    git(root, "checkout", "-q", "main")
    index, memory, files = three_ways(monkeypatch, root, Range("main", "eval-pairs"))
    assert index == memory, differences(index, memory)
    assert structural(index) == structural(files), differences(index, files)
    # The judgement weighs terms by the index's statistics (every word of title and
    # body, code included) where parsing counted prose terms only, and looks for its
    # candidates by BM25: a borderline pair may fall either way. What it finds on the
    # labelled pairs is as good as before.
    now, before = figures(index, pairs), figures(files, pairs)
    for label, scores in now.items():
        for name, value in scores.items():
            assert value >= before[label][name], (label, name, now, before)
    assert now == {
        "duplicate": {"precision": 1.0, "recall": 0.974},
        "contradiction": {"precision": 0.965, "recall": 0.965},
    }


# ---- a generated vault: links, supersessions, duplicates; every state of the index ----


@pytest.fixture
def generated(make_vault: Callable[..., Vault]) -> Vault:
    notes = vault_notes()
    vault = make_vault(notes)
    git(vault.root, "checkout", "-q", "-b", "change")
    added, deleted = change(notes)
    for note_id, text in added.items():
        vault.write(note_id, text)
    for note_id in deleted:
        vault.remove(note_id)
    (vault.root / "archive").mkdir()
    moved = sorted(notes)[60]
    (vault.root / "notes" / f"{moved}.md").rename(vault.root / "archive" / f"{moved}.md")
    vault.commit("the change")
    git(vault.root, "checkout", "-q", "main")
    return vault


def test_the_generated_change_is_judged_alike_three_ways(
    generated: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    index, memory, files = three_ways(monkeypatch, generated.root, Range("main", "change"))
    assert index == memory, differences(index, memory)
    assert structural(index) == structural(files), differences(index, files)
    rules = {finding["rule"] for finding in index}
    assert {
        "duplicate/exact",
        "duplicate/same-title",
        "link/unresolved",
        "link/depends-on-unresolved",
        "lifecycle/depends-on-inactive",
    } <= rules, sorted(rules)
    copies = [f["message"] for f in index if f["rule"] == "duplicate/exact"]
    assert "the body is the same as Odd Name's" in copies  # a file name the index skips


def test_an_index_on_another_commit_is_brought_to_the_base_and_left_as_it_was(
    generated: Vault,
) -> None:
    """The index serves the checkout (the change's branch); the base has moved on since the
    branch was made, with a note the change copies: only the base's notes are the vault."""
    root = generated.root
    names = sorted(vault_notes())
    base_only = "redis--added-on-main-later--2025-12-01"
    generated.write(base_only, (root / "notes" / f"{names[70]}.md").read_text())
    generated.remove(names[71])
    generated.commit("main moves on")
    git(root, "checkout", "-q", "change")
    generated.write(
        "redis--copy-of-main-note--2025-12-02", (root / "notes" / f"{names[70]}.md").read_text()
    )
    generated.commit("the change copies a note")
    expected = found(curate(root, Range("main", "change"), today=TODAY, use_index=False))
    assert f"the body is the same as {base_only}'s" in [f["message"] for f in expected]
    before = indexed_commit(root)  # the change's branch
    assert found(curate(root, Range("main", "change"), today=TODAY)) == expected
    assert indexed_commit(root) == before  # the overlay was rolled back


def test_a_stale_index_is_brought_up_to_date_first(
    generated: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = generated.root
    old = indexed_commit(root)[0]
    generated.write(
        "kafka--late-arrival--2025-09-09",
        (root / "notes" / f"{sorted(vault_notes())[2]}.md").read_text(),
    )
    head = generated.commit("one more note on main")
    assert old != head
    expected = found(curate(root, Range("main", "change"), today=TODAY, use_index=False))
    assert found(curate(root, Range("main", "change"), today=TODAY)) == expected
    assert indexed_commit(root)[0] == head


@pytest.mark.parametrize("damage", DAMAGES, ids=repr)
def test_a_damaged_index_is_healed_and_the_findings_do_not_change(
    generated: Vault, damage: Damage
) -> None:
    """Every damage the index fault suite does (tests/faults): the review heals the file
    when it meets the damage, or reads the base in memory, and finds the same."""
    root = generated.root
    expected = found(curate(root, Range("main", "change"), today=TODAY, use_index=False))
    indexed_commit(root)
    damage.make(index_path(root))
    result = curate(root, Range("main", "change"), today=TODAY)
    assert found(result) == expected
    assert damage.old or any("has been rebuilt from the notes" in n for n in result.notices)
    assert indexed_commit(root)[0] == git(root, "rev-parse", "HEAD")


def test_a_missing_index_changes_nothing(generated: Vault, monkeypatch: pytest.MonkeyPatch) -> None:
    root = generated.root
    assert not index_path(root).exists()
    # A pull request's review builds the base in memory and leaves no file behind...
    expected = found(curate(root, Range("main", "change"), today=TODAY, use_index=False))
    assert found(curate(root, Range("main", "change"), today=TODAY)) == expected
    assert not index_path(root).exists()
    # ...while a draft's check builds the vault's index, which recall uses next.
    draft = {
        "notes/kafka--draft--2026-11-02.md": (
            root / "notes" / f"{sorted(vault_notes())[9]}.md"
        ).read_bytes()
    }
    expected = found(curate(root, Drafts(draft, at="main"), today=TODAY, use_index=False))
    assert found(curate(root, Drafts(draft, at="main"), today=TODAY)) == expected
    assert index_path(root).exists()


def test_an_index_git_cannot_bring_to_the_base_is_not_used(
    generated: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = generated.root
    git(root, "checkout", "-q", "change")
    indexed_commit(root)
    expected = found(curate(root, Range("main", "change"), today=TODAY, use_index=False))
    monkeypatch.setattr(vault_index, "MIN_DIFF", 0)
    monkeypatch.setattr(vault_index, "MAX_DIFF_SHARE", 0.0)  # any diff is too large
    assert found(curate(root, Range("main", "change"), today=TODAY)) == expected


def test_files_checked_against_a_working_tree_with_changes(
    generated: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Edited, new, deleted and ignored note files of the working tree are the vault."""
    root = generated.root
    names = sorted(vault_notes())
    indexed_commit(root)  # the index serves HEAD; the working tree differs from it
    (root / "notes" / f"{names[4]}.md").write_text((root / "notes" / f"{names[8]}.md").read_text())
    (root / "notes" / f"{names[12]}.md").unlink()
    generated.write(
        "web--untracked-note--2025-10-10", (root / "notes" / f"{names[16]}.md").read_text()
    )
    (root / ".gitignore").write_text(".lore/\nnotes/ignored-*\n")
    (root / "notes" / "ignored-note.md").write_text(
        (root / "notes" / f"{names[18]}.md").read_text()
    )
    checked = root / "notes" / "kafka--checked-note--2026-11-03.md"
    checked.write_text((root / "notes" / f"{names[8]}.md").read_text())
    index, memory, files = three_ways(monkeypatch, root, Paths([str(checked)]))
    assert index == memory, differences(index, memory)
    assert structural(index) == structural(files), differences(index, files)
    assert any(finding["rule"] == "duplicate/exact" for finding in index)
