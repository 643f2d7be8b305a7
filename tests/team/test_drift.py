"""`lore drift`: real git histories with pinned dates, a bare vault remote, and a fake `gh`.

The code repository is built commit by commit with pinned author and committer dates
around the notes' date (2026-10-10): a change before it, then a change, a rename (and
a change to the renamed file) and a deletion after it.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from lore.cli.main import main
from lore.curator.run import curate
from lore.curator.target import Paths, Range
from lore.note.parse import parse_note
from lore.team.drift import find_drift
from tests.support import GIT_IDENTITY, git, note_text
from tests.team.conftest import PR_URL, FakeGh, Remote, snapshot

NOTE = "payments-api--ledger-writes-go-through-the-service--2026-10-10"
OTHER_REPO = "web-app--ledger-client-is-generated--2026-10-10"
SUPERSEDED = "payments-api--ledger-writes-are-direct--2026-10-10"
REPLACEMENT = "payments-api--ledger-writes-are-batched--2026-10-10"
EXPIRED = "payments-api--ledger-freeze-until-october--2026-10-10"
FILES = "[src/a.py, src/b.py, src/c.py, src/before.py, docs/untouched.md]"


def _note(title: str, repo: str, files: str, **extra: str) -> str:
    return note_text(
        title,
        tags="[pattern/retries]",
        date="2026-10-10",
        repo=repo,
        files_touched=files,
        body=f"## What\n{title}.\n",
        **extra,
    )


NOTES = {
    NOTE: _note("Ledger writes go through the service", "payments-api", FILES),
    OTHER_REPO: _note("The ledger client is generated", "web-app", "[src/a.py]"),
    SUPERSEDED: _note("Ledger writes are direct", "payments-api", "[src/a.py]"),
    REPLACEMENT: _note(
        "Ledger writes are batched",
        "payments-api",
        "[docs/untouched.md]",
        supersedes=f"[{SUPERSEDED}]",
    ),
    EXPIRED: _note(
        "Ledger freeze until October", "payments-api", "[src/a.py]", expires="2026-10-31"
    ),
}


def commit_at(repo: Path, day: str, message: str) -> str:
    stamp = f"{day}T12:00:00+00:00"
    env = {**os.environ, **GIT_IDENTITY, "GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp}
    subprocess.run(
        ["git", "-c", "commit.gpgsign=false", "commit", "-q", "-a", "-m", message],
        cwd=repo,
        env=env,
        check=True,
    )
    return git(repo, "rev-parse", "HEAD")


@pytest.fixture
def code_repo(tmp_path: Path) -> dict[str, str | Path]:
    """payments-api: created 10-01, before.py changed 10-05, then a, b, c after 10-10."""
    repo = tmp_path / "payments-api"
    (repo / "src").mkdir(parents=True)
    (repo / "docs").mkdir()
    for name in ("src/a.py", "src/c.py", "src/before.py", "docs/untouched.md"):
        (repo / name).write_text(f"# {name}\n", encoding="utf-8")
    (repo / "src/b.py").write_text("".join(f"line {n}\n" for n in range(20)), encoding="utf-8")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    shas: dict[str, str | Path] = {"root": repo, "created": commit_at(repo, "2026-10-01", "Create")}
    (repo / "src/before.py").write_text("# changed before the note\n", encoding="utf-8")
    shas["before"] = commit_at(repo, "2026-10-05", "Change before.py")
    (repo / "src/a.py").write_text("# changed after the note\n", encoding="utf-8")
    (repo / "docs/untouched.md").write_text("# same day as the note\n", encoding="utf-8")
    shas["same_day"] = commit_at(repo, "2026-10-10", "Same-day edit")
    (repo / "src/a.py").write_text("# changed after the note, again\n", encoding="utf-8")
    shas["modify"] = commit_at(repo, "2026-10-20", "Change a.py")
    git(repo, "mv", "src/b.py", "src/b2.py")
    shas["rename"] = commit_at(repo, "2026-10-21", "Rename b.py to b2.py")
    with (repo / "src/b2.py").open("a", encoding="utf-8") as handle:
        handle.write("line 20\n")
    shas["after_rename"] = commit_at(repo, "2026-10-22", "Grow b2.py")
    git(repo, "rm", "-q", "src/c.py")
    shas["delete"] = commit_at(repo, "2026-10-23", "Delete c.py")
    return shas


@pytest.fixture
def checkout(remote: Remote, clone_of: Callable[..., Path]) -> Path:
    for note_id, text in NOTES.items():
        remote.commit_note(note_id, text, f"add {note_id}")
    return clone_of()


def drift(*args: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, object]]:
    code = main(["drift", *args, "--json"])
    return code, json.loads(capsys.readouterr().out)


def test_modified_renamed_and_deleted_are_reported(
    checkout: Path, code_repo: dict[str, str | Path]
) -> None:
    report = find_drift(checkout, Path(code_repo["root"]))
    assert report.repo == "payments-api"
    assert report.checked == 2  # NOTE and REPLACEMENT: not the other repo's, not inactive ones
    assert [note.id for note in report.notes] == [NOTE]
    files = {item.path: item for item in report.notes[0].files}
    assert set(files) == {"src/a.py", "src/b.py", "src/c.py"}  # not before.py, not same-day
    assert files["src/a.py"].status == "modified"
    assert [c.sha for c in files["src/a.py"].commits] == [code_repo["modify"]]
    assert (files["src/b.py"].status, files["src/b.py"].new_path) == ("renamed", "src/b2.py")
    assert [c.sha for c in files["src/b.py"].commits] == [
        code_repo["rename"],
        code_repo["after_rename"],
    ]
    assert files["src/c.py"].status == "deleted" and files["src/c.py"].new_path is None
    assert [c.subject for c in report.notes[0].commits] == [
        "Change a.py",
        "Rename b.py to b2.py",
        "Grow b2.py",
        "Delete c.py",
    ]


def test_folder_entries_drift_when_anything_under_them_changes(
    remote: Remote, clone_of: Callable[..., Path], code_repo: dict[str, str | Path]
) -> None:
    root = Path(code_repo["root"])
    (root / "legacy").mkdir()
    (root / "legacy/old.py").write_text("# old\n", encoding="utf-8")
    git(root, "add", "-A")
    commit_at(root, "2026-10-24", "Add legacy/")
    git(root, "rm", "-q", "-r", "legacy")
    gone = commit_at(root, "2026-10-25", "Remove legacy/")
    layout = "payments-api--source-layout--2026-10-10"
    legacy = "payments-api--legacy-folder--2026-10-10"
    quiet = "payments-api--docs-layout--2026-10-10"
    remote.commit_note(layout, _note("The source layout", "payments-api", "[src]"))
    remote.commit_note(legacy, _note("The legacy folder", "payments-api", "[legacy/]"))
    remote.commit_note(quiet, _note("The docs layout", "payments-api", "[docs/]"))

    report = find_drift(clone_of(), root)
    found = {note.id: {f.path: f for f in note.files} for note in report.notes}
    assert set(found) == {layout, legacy}  # docs/ changed only on the note's own day
    src = found[layout]["src"]
    assert src.status == "modified" and src.new_path is None
    assert [c.sha for c in src.commits] == [
        code_repo[step] for step in ("modify", "rename", "after_rename", "delete")
    ]
    assert found[legacy]["legacy/"].status == "deleted"
    assert found[legacy]["legacy/"].commits[-1].sha == gone


def test_since_looks_only_at_later_commits(
    checkout: Path, code_repo: dict[str, str | Path]
) -> None:
    report = find_drift(checkout, Path(code_repo["root"]), since=str(code_repo["after_rename"]))
    files = {item.path: item.status for item in report.notes[0].files}
    assert files == {"src/c.py": "deleted"}


def test_json_shape_and_exit_code(
    checkout: Path, code_repo: dict[str, str | Path], capsys: pytest.CaptureFixture[str]
) -> None:
    code, data = drift(
        "--vault", str(checkout), "--code-repo", str(code_repo["root"]), capsys=capsys
    )
    assert code == 1  # drift found and not proposed
    assert data["version"] == 1 and data["repo"] == "payments-api"
    assert data["head"] == code_repo["delete"] and data["proposal"] is None
    (note,) = data["notes"]  # type: ignore[misc]
    assert note["id"] == NOTE and note["path"] == f"notes/{NOTE}.md"
    assert note["files"][1] == {
        "path": "src/b.py",
        "status": "renamed",
        "new_path": "src/b2.py",
        "commits": [code_repo["rename"], code_repo["after_rename"]],
    }
    assert note["commits"][0] == {
        "sha": code_repo["modify"],
        "date": "2026-10-20T12:00:00+00:00",
        "subject": "Change a.py",
        "files": ["src/a.py"],
    }


def test_no_drift_is_exit_zero(
    checkout: Path, code_repo: dict[str, str | Path], capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["--vault", str(checkout), "--code-repo", str(code_repo["root"])]
    code, data = drift(*args, "--since", str(code_repo["delete"]), capsys=capsys)
    assert code == 0 and data["notes"] == []
    assert main(["drift", *args, "--since", "no-such-rev"]) == 2


def test_text_output(
    checkout: Path, code_repo: dict[str, str | Path], capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["drift", "--vault", str(checkout), "--code-repo", str(code_repo["root"])])
    out = capsys.readouterr().out
    assert code == 1
    assert NOTE in out and "src/b.py -> src/b2.py" in out and "deleted" in out
    assert "Grow b2.py" in out


def test_propose_edits_exactly_the_drifted_note(
    checkout: Path,
    code_repo: dict[str, str | Path],
    remote: Remote,
    fake_gh: FakeGh,
    capsys: pytest.CaptureFixture[str],
) -> None:
    root = Path(code_repo["root"])
    user_before, code_before = snapshot(checkout), snapshot(root)
    code, data = drift(
        "--vault", str(checkout), "--code-repo", str(root), "--propose", capsys=capsys
    )
    assert code == 0
    proposal = data["proposal"]
    assert isinstance(proposal, dict)
    branch = f"lore/drift-payments-api-{str(code_repo['delete'])[:8]}"
    assert proposal["branch"] == branch and proposal["pull_request"] == PR_URL
    assert sorted(remote.branches()) == [branch, "main"]
    changed = git(remote.bare, "diff", "--name-only", "main", branch).split()
    assert changed == [f"notes/{NOTE}.md"]
    before = parse_note(NOTES[NOTE].encode(), f"notes/{NOTE}.md")
    raw = git(remote.bare, "show", f"{branch}:notes/{NOTE}.md").encode() + b"\n"
    after = parse_note(raw, f"notes/{NOTE}.md")
    assert after == replace(
        before,
        confidence="medium",
        files_touched=("src/a.py", "src/b2.py", "src/c.py", "src/before.py", "docs/untouched.md"),
    )
    (create,) = fake_gh.calls_to("pr", "create")
    assert create[create.index("--base") + 1] == "main"
    assert create[create.index("--head") + 1] == branch
    body = create[create.index("--body") + 1]
    assert NOTE in body and "`src/b.py` renamed → `src/b2.py`" in body
    # nothing outside the proposal branch changed
    assert snapshot(checkout) == user_before and snapshot(root) == code_before
    assert git(checkout, "branch", "--list", "lore/*") == ""


def test_the_curator_accepts_the_marked_note(
    checkout: Path, code_repo: dict[str, str | Path], remote: Remote, fake_gh: FakeGh
) -> None:
    assert (
        main(
            ["drift", "--vault", str(checkout), "--code-repo", str(code_repo["root"]), "--propose"]
        )
        == 0
    )
    branch = f"lore/drift-payments-api-{str(code_repo['delete'])[:8]}"
    git(checkout, "fetch", "-q", "origin")
    review = curate(checkout, Range("origin/main", f"origin/{branch}"))
    original = curate(checkout, Paths([f"notes/{NOTE}.md"]))
    rules = {finding.rule for finding in review.findings if finding.is_error}
    assert rules <= {finding.rule for finding in original.findings if finding.is_error}


def test_a_note_already_low_is_listed_but_not_edited(
    remote: Remote,
    clone_of: Callable[..., Path],
    code_repo: dict[str, str | Path],
    fake_gh: FakeGh,
    capsys: pytest.CaptureFixture[str],
) -> None:
    remote.commit_note(NOTE, NOTES[NOTE].replace("confidence: high", "confidence: low"))
    checkout = clone_of()
    root = str(code_repo["root"])
    code, data = drift(
        "--vault", str(checkout), "--code-repo", root, "--since", str(code_repo["after_rename"]),
        "--propose", capsys=capsys,
    )  # fmt: skip
    assert code == 0  # nothing to edit (no rename in range, already low): no PR
    assert data["proposal"] is None and fake_gh.calls_to("pr", "create") == []
    assert [f["status"] for f in data["notes"][0]["files"]] == ["deleted"]  # type: ignore[index]
    assert remote.branches() == ["main"]


def test_push_failure_loses_nothing_and_touches_nothing_else(
    checkout: Path,
    code_repo: dict[str, str | Path],
    remote: Remote,
    fake_gh: FakeGh,
    capsys: pytest.CaptureFixture[str],
) -> None:
    hook = remote.bare / "hooks" / "pre-receive"
    hook.parent.mkdir(exist_ok=True)
    hook.write_text("#!/bin/sh\necho 'branch protection: no lore/ branches today' >&2\nexit 1\n")
    hook.chmod(0o755)
    root = Path(code_repo["root"])
    user_before, code_before = snapshot(checkout), snapshot(root)
    remote_before = git(remote.bare, "for-each-ref")
    code = main(["drift", "--vault", str(checkout), "--code-repo", str(root), "--propose"])
    err = capsys.readouterr().err
    assert code == 1
    branch = f"lore/drift-payments-api-{str(code_repo['delete'])[:8]}"
    assert "push to origin failed" in err and branch in err
    assert snapshot(checkout) == user_before and snapshot(root) == code_before
    assert git(remote.bare, "for-each-ref") == remote_before
    assert fake_gh.calls_to("pr", "create") == []
    # the edit is kept on the local proposal branch, and only there
    assert git(checkout, "diff", "--name-only", "main", branch).split() == [f"notes/{NOTE}.md"]
    kept = git(checkout, "show", f"{branch}:notes/{NOTE}.md")
    assert "confidence: medium" in kept and "src/b2.py" in kept
    name = branch.removeprefix("lore/")
    assert f"lore drift --resume {name}" in err
    assert main(["proposals", "--vault", str(checkout), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["vaults"][0]["proposals"]
    assert [row["state"] for row in rows] == ["unfinished"]
    assert f"`lore drift --resume {name}`" in rows[0]["next"]
    # once the remote accepts the branch, --resume finishes it: pushed, PR opened
    hook.unlink()
    assert main(["drift", "--vault", str(checkout), "--resume", name]) == 0
    pushed = git(remote.bare, "show", f"{branch}:notes/{NOTE}.md")
    assert pushed == kept
    assert len(fake_gh.calls_to("pr", "create")) == 1


def test_a_folder_that_is_not_a_repository_is_bad_input(
    checkout: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "plain").mkdir()
    code = main(["drift", "--vault", str(checkout), "--code-repo", str(tmp_path / "plain")])
    assert code == 2 and "not the top folder of a git repository" in capsys.readouterr().err


def test_log_changes_reads_odd_names_and_renames(tmp_path: Path) -> None:
    from lore.vault.history import log_changes

    repo = tmp_path / "odd"
    repo.mkdir()
    (repo / "a file é.txt").write_text("".join(f"row {n}\n" for n in range(20)), encoding="utf-8")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    first = commit_at(repo, "2026-10-01", "Create\n\nwith a body line")
    (repo / "dir").mkdir()
    git(repo, "mv", "a file é.txt", "dir/renamed file.txt")
    second = commit_at(repo, "2026-10-02", "Move it")
    logged = log_changes(repo, ["HEAD"])
    assert [(c.sha, c.subject) for c in logged] == [(first, "Create"), (second, "Move it")]
    (change,) = logged[1].changes
    assert (change.status, change.old_path, change.path) == (
        "R",
        "a file é.txt",
        "dir/renamed file.txt",
    )


def test_repo_override_and_org_wide_notes(
    remote: Remote, clone_of: Callable[..., Path], code_repo: dict[str, str | Path]
) -> None:
    remote.commit_note(NOTE, NOTES[NOTE].replace("repo: payments-api\n", ""))  # org-wide
    remote.commit_note(OTHER_REPO, NOTES[OTHER_REPO])
    checkout = clone_of()
    root = Path(code_repo["root"])
    assert find_drift(checkout, root).notes == []  # an org-wide note names no repository
    report = find_drift(checkout, root, repo="Web-App")
    assert report.repo == "Web-App"
    assert [(n.id, [f.status for f in n.files]) for n in report.notes] == [
        (OTHER_REPO, ["modified"])
    ]


def test_inside_the_code_repository_no_code_repo_is_needed_and_every_note_counts(
    checkout: Path,
    remote: Remote,
    code_repo: dict[str, str | Path],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`lore drift` in the code repository's checkout (a sub-folder of it, even) checks
    that repository; the count names every active note about it, files or not."""
    remote.commit_note(
        "payments-api--refunds-take-a-day--2026-10-02",
        note_text("Refunds take a day", repo="payments-api", date="2026-10-02"),
    )
    git(checkout, "pull", "-q")
    monkeypatch.chdir(Path(code_repo["root"]) / "src")
    args = ["drift", "--vault", str(checkout), "--since", str(code_repo["delete"])]
    assert main([*args, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["repo"], data["about"], data["checked"]) == ("payments-api", 3, 2)
    assert main(args) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "3 active note(s) are about payments-api; the 2 that name files" in out
    monkeypatch.chdir(checkout)
    assert main(["drift", "--vault", str(checkout)]) == 2
    assert "you are in the vault" in capsys.readouterr().err
