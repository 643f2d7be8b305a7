"""Every import reads through one walker: no link carries it out of the folder it was given.

A folder someone else wrote (a cloned repository, a teammate's export) may hold links:
a linked folder (`docs/adr/archive -> ../../../private`), linked files
(`0009-launch.md -> ~/private/plan.md`), or a start folder that is itself a link
(`docs/adr -> ../../private`). The target's text must never become a candidate — let
alone be pushed as a branch everyone with read access to the vault sees — and a hostile
tree (a loop, a pipe, a dangling link, a folder nested 50 deep) must never stop an
import with an internal error. These run through the real CLI against a real git
repository and a vault whose remote is a local bare repository; `gh` is the fake of
tests/team/conftest.py (GitHub's API cannot be reached from a test).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from lore.errors import UsageError
from lore.team.imports.walk import Entry, Link, Unreadable, look, read_text, real_start, walk
from tests.support import git
from tests.team.conftest import FakeGh, Remote
from tests.team.imports.conftest import FIXTURES, run_import

SECRET_WORDS = "PRIVATE-7731"  # in the private files only: it must reach no note, no branch
PRIVATE_ADR = f"""\
# 9. Launch the partner programme

Date: 2026-01-05

## Status

Accepted

## Context

The board asked for a plan for the payments service partner launch.

## Decision

We will launch on the date in the private plan, codename {SECRET_WORDS}, in the payments API.
"""
PRIVATE_ENTITY = f"""\
---
title: Launch plan for the payments service
type: note
tags: payments
---

The payments service partner launch is codename {SECRET_WORDS}; postgres is ready.
"""
PRIVATE_CRUMB = f"""\
---
name: Launch plan for the payments service
description: The payments service partner launch is codename {SECRET_WORDS}.
type: fact
confidence: 0.9
status: active
tags: postgres
created_at: 2026-01-05T09:00:00+00:00
---

Postgres is ready for the launch.
"""
PRIVATE_AGENTS = f"""\
# Agents

- Always run `make check` before pushing: the payments service launch is {SECRET_WORDS}.
"""
PRIVATE_TEXT = {
    "adr": ("0009-launch-the-partner-programme.md", PRIVATE_ADR),
    "basic-memory": ("launch-plan.md", PRIVATE_ENTITY),
    "foldcrumbs": ("fact_launch_plan.md", PRIVATE_CRUMB),
    "agents-md": ("AGENTS.md", PRIVATE_AGENTS),
}
SOURCE = {  # each kind's fixture, and the folder in it that is imported
    "adr": ("adr/nygard", "doc/adr"),
    "basic-memory": ("basic-memory/project", "."),
    "foldcrumbs": ("foldcrumbs/memory", "."),
    "agents-md": ("agents/web-app", "."),
}
KINDS = tuple(SOURCE)


@pytest.fixture
def checkout(remote: Remote, clone_of: Callable[..., Path]) -> Path:
    """The user's clone of the team vault."""
    return clone_of()


@pytest.fixture
def private(tmp_path: Path) -> Path:
    """A private folder outside every repository, holding one file of each kind's format."""
    folder = tmp_path / "private"
    folder.mkdir()
    for name, text in PRIVATE_TEXT.values():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def make_repo(tmp_path: Path, kind: str, plant: Callable[[Path], None]) -> tuple[Path, Path]:
    """(repository, the folder to import): the kind's fixture committed, after `plant` ran."""
    fixture, folder = SOURCE[kind]
    root = tmp_path / "code" / "payments-api"
    shutil.copytree(FIXTURES / fixture, root, symlinks=True)
    plant(root / folder)
    git(root, "init", "-q", "-b", "main")
    git(root, "remote", "add", "origin", "https://github.com/acme/payments-api.git")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "fixtures")
    return root, (root / folder)


def dry_run(capsys: pytest.CaptureFixture[str], checkout: Path, kind: str, *paths: Path) -> dict:
    code, data, out, err = run_import(
        capsys, kind, *map(str, paths), "--vault", str(checkout), "--dry-run", "--json"
    )
    assert code in (0, 1), (code, out, err)  # never 3: a hostile tree is not an internal error
    assert data is not None, (code, out, err)
    return data


def assert_private_absent(data: dict) -> None:
    assert SECRET_WORDS not in str(data["notes"])


def reason_for(data: dict, suffix: str) -> str:
    found = [s["reason"] for s in data["skipped"] if s["source"].rstrip("/").endswith(suffix)]
    assert found, [s["source"] for s in data["skipped"]]
    return found[0]


@pytest.mark.parametrize("kind", ["adr", "basic-memory", "foldcrumbs"])
def test_a_linked_folder_out_of_the_folder_is_skipped_with_the_reason(
    kind: str,
    tmp_path: Path,
    private: Path,
    checkout: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, folder = make_repo(tmp_path, kind, lambda f: (f / "archive").symlink_to(private))
    data = dry_run(capsys, checkout, kind, folder)
    assert_private_absent(data)
    assert data["notes"]  # the rest of the folder is still imported
    assert reason_for(data, "archive") == "a link to a folder outside the repository: not followed"


@pytest.mark.parametrize("kind", KINDS)
def test_linked_files_out_of_the_folder_are_skipped_with_the_reason(
    kind: str,
    tmp_path: Path,
    private: Path,
    checkout: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The ADR case exited 3 ("internal error") before; agents-md already held."""
    name, _ = PRIVATE_TEXT[kind]
    linked = "CLAUDE.md" if kind == "agents-md" else name

    def plant(folder: Path) -> None:
        (folder / linked).symlink_to(private / name)

    _, folder = make_repo(tmp_path, kind, plant)
    data = dry_run(capsys, checkout, kind, folder)
    assert_private_absent(data)
    assert "outside the repository" in reason_for(data, linked)
    assert "not followed" in reason_for(data, linked)


@pytest.mark.parametrize("kind", KINDS)
def test_a_start_folder_that_links_out_of_its_repository_is_refused(
    kind: str,
    tmp_path: Path,
    private: Path,
    checkout: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    root, _ = make_repo(tmp_path, kind, lambda f: None)
    (root / "imported").symlink_to(private)
    code, _, out, err = run_import(
        capsys, kind, str(root / "imported"), "--vault", str(checkout), "--dry-run", "--json"
    )
    assert code == 2, (code, out, err)
    assert SECRET_WORDS not in out + err
    assert "imported is a link to" in err and "outside the repository" in err
    assert "give that path itself" in err


def test_a_start_folder_linked_inside_its_repository_is_read_there(
    tmp_path: Path, checkout: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root, folder = make_repo(tmp_path, "adr", lambda f: None)
    (root / "decisions").symlink_to(folder, target_is_directory=True)
    data = dry_run(capsys, checkout, "adr", root / "decisions")
    assert len(data["notes"]) >= 3
    assert all(n["source"].startswith("doc/adr/") for n in data["notes"])


@pytest.mark.parametrize("kind", ["adr", "basic-memory", "foldcrumbs"])
def test_yes_never_pushes_a_linked_files_text(
    kind: str,
    tmp_path: Path,
    private: Path,
    checkout: Path,
    remote: Remote,
    fake_gh: FakeGh,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """basic-memory pushed a linked private file as a branch before any review."""
    name, _ = PRIVATE_TEXT[kind]

    def plant(folder: Path) -> None:
        (folder / name).symlink_to(private / name)
        (folder / "archive").symlink_to(private)

    _, folder = make_repo(tmp_path, kind, plant)
    code, data, out, err = run_import(
        capsys, kind, str(folder), "--vault", str(checkout), "--yes", "--json",
        "--tag", "team/payments",
    )  # fmt: skip
    assert code in (0, 1), (code, out, err)
    assert data is not None and data["proposals"], (out, err)  # the rest was proposed
    pushed = git(remote.bare, "log", "--all", "-p", "--format=%B")
    assert "notes/" in pushed
    assert SECRET_WORDS not in pushed
    for call in fake_gh.calls():
        assert SECRET_WORDS not in " ".join(call)


def test_a_hostile_tree_never_stops_an_import(
    tmp_path: Path, checkout: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def plant(folder: Path) -> None:
        (folder / "loop.md").symlink_to(folder / "loop.md")  # a link to itself
        (folder / "gone.md").symlink_to(folder / "nowhere.md")  # a dangling link
        (folder / "ring").symlink_to(folder, target_is_directory=True)  # a folder loop
        os.mkfifo(folder / "0010-pipe.md")  # a reader that blocks forever if opened plainly
        deep = folder
        for depth in range(50):
            deep = deep / f"d{depth}"
        deep.mkdir(parents=True)
        (deep / "0011-deep.md").write_text(PRIVATE_ADR, encoding="utf-8")
        (folder / os.fsdecode(b"0012-caf\xe9.md")).write_bytes(b"\xff\xfe not text")

    _, folder = make_repo(tmp_path, "adr", plant)
    data = dry_run(capsys, checkout, "adr", folder)
    assert_private_absent(data)  # 50 folders deep: past the walk's depth
    assert "leads nowhere" in reason_for(data, "loop.md")
    assert "leads nowhere" in reason_for(data, "gone.md")
    assert reason_for(data, "ring") == "a link back to the folder given: not followed"
    assert reason_for(data, "0010-pipe.md").startswith("not a regular file")
    assert any("folders deep" in s["reason"] for s in data["skipped"])
    assert any(s["reason"] == "not UTF-8 text" for s in data["skipped"])


# ---- the walker itself ----


def test_a_link_swapped_in_after_the_walk_is_refused_by_the_kernel(tmp_path: Path) -> None:
    """The walk saw a real file and folder; each is a link when the read comes (O_NOFOLLOW)."""
    root = tmp_path / "tree"
    (root / "sub").mkdir(parents=True)
    (root / "sub" / "a.md").write_text("mine", encoding="utf-8")
    (root / "b.md").write_text("mine", encoding="utf-8")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "a.md").write_text(SECRET_WORDS, encoding="utf-8")
    found = walk(root)
    assert [e.relative for e in found.files] == ["b.md", "sub/a.md"]
    (root / "b.md").unlink()
    (root / "b.md").symlink_to(outside / "a.md")
    shutil.rmtree(root / "sub")
    (root / "sub").symlink_to(outside, target_is_directory=True)
    for entry in found.files:
        with pytest.raises(Unreadable, match="not followed"):
            read_text(entry)


def test_look_names_what_a_path_is_without_following_it(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / "AGENTS.md").write_text("x", encoding="utf-8")
    (root / "CLAUDE.md").symlink_to("AGENTS.md")
    (root / "docs").symlink_to(tmp_path, target_is_directory=True)
    assert look(root, "AGENTS.md") == Entry(root, "AGENTS.md")
    inside = look(root, "CLAUDE.md")
    assert isinstance(inside, Link) and inside.target == Entry(root, "AGENTS.md")
    outside = look(root, "docs/AGENTS.md")
    assert isinstance(outside, Link) and outside.target is None
    assert outside.reason == "a link to a folder outside the repository: not followed"
    assert look(root, "../AGENTS.md") == "a path that leaves the folder: not followed"


def test_real_start_outside_a_repository_is_the_users_own(tmp_path: Path) -> None:
    (tmp_path / "memory").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "memory", target_is_directory=True)
    assert real_start(tmp_path / "link") == (tmp_path / "memory").resolve()
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "adr").symlink_to(tmp_path / "memory", target_is_directory=True)
    with pytest.raises(UsageError, match="outside the repository"):
        real_start(repo / "adr")


def test_a_fifo_is_never_opened_for_reading(tmp_path: Path) -> None:
    """Opening a FIFO plainly blocks until a writer comes; the walker reports it instead."""
    folder = tmp_path / "memory"
    folder.mkdir()
    os.mkfifo(folder / "pipe.md")
    found = walk(folder)
    assert found.files == []
    assert found.skipped == [("pipe.md", "not a regular file (a pipe or a device)")]
    with pytest.raises(Unreadable, match="not a regular file"):
        read_text(Entry(folder, "pipe.md"))
