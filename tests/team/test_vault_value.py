"""The vault is a value: resolved once (`lore.vault.resolved.Vault`) and passed down.

A proposal goes through some twenty functions — the checks, the lock, the fetch, the
base branch, the ids already taken, the worktree, its record, the curator and the index
it reads — and each used to find the vault's git directory again from a bare path.
These tests count what `start_proposal` finds, and check what the value holds.
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import lore.gitfiles
import lore.paths
from lore.index.build import open_index
from lore.paths import index_path, state_dir
from lore.team.drafts.draft import NoteInput
from lore.team.proposals.note import start_proposal
from lore.vault.resolved import Vault
from lore.vaults import VaultRef
from tests.support import git
from tests.team.conftest import FakeGh, Remote

NOTE = NoteInput(
    title="Retries use jittered backoff",
    type="convention",
    tags=["pattern/retries"],
    repo=["payments-api"],
    what="Outbound HTTP retries use exponential backoff with full jitter.",
    author="octocat",
)


@pytest.fixture
def checkout(remote: Remote, clone_of: Callable[..., Path]) -> Path:
    return clone_of()


@pytest.fixture
def lookups(monkeypatch: pytest.MonkeyPatch) -> Iterator[Counter[str]]:
    """How often lore looks for a git directory (`find_git_dir`) or works out a state
    folder (`state_dir`), wherever a module imported them from."""
    counts: Counter[str] = Counter()
    originals = {"find_git_dir": lore.gitfiles.find_git_dir, "state_dir": lore.paths.state_dir}

    def counted(name: str, function: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            counts[name] += 1
            return function(*args, **kwargs)

        return call

    wrappers = {name: counted(name, function) for name, function in originals.items()}
    for module in list(sys.modules.values()):
        if not getattr(module, "__name__", "").startswith("lore"):
            continue
        for name, function in originals.items():
            if getattr(module, name, None) is function:
                monkeypatch.setattr(module, name, wrappers[name])
    yield counts


def test_start_proposal_finds_the_git_directory_once(
    checkout: Path, fake_gh: FakeGh, lookups: Counter[str]
) -> None:
    """As a proposal usually finds the vault: its index built (by `lore sync`, a hook)."""
    conn, _ = open_index(checkout)
    conn.close()
    lookups.clear()
    proposal = start_proposal(checkout, NOTE)
    assert proposal.worktree is not None and proposal.worktree.is_dir()
    assert proposal.findings == []
    assert dict(lookups) == {"find_git_dir": 1, "state_dir": 1}
    lookups.clear()
    start_proposal(Vault(checkout), NOTE, dry_run=True)
    assert dict(lookups) == {"find_git_dir": 1, "state_dir": 1}


def test_the_lookup_counter_sees_a_path_passed_down(checkout: Path, lookups: Counter[str]) -> None:
    """The counter can fail: the old way, a bare path per layer, finds again each time."""
    lookups.clear()
    for _ in range(3):
        index_path(checkout)
    assert lookups["find_git_dir"] == 3


def test_a_vault_holds_what_every_layer_used_to_find_again(checkout: Path) -> None:
    vault = Vault.of(VaultRef("team", checkout))
    assert (vault.name, vault.root) == ("team", checkout.resolve())
    assert vault.found == (checkout.resolve(), checkout.resolve() / ".git")
    assert vault.git_dir == vault.common_dir == checkout.resolve() / ".git"
    assert vault.state_dir == state_dir(checkout)
    assert vault.index_path == index_path(checkout)
    assert Vault.of(vault) is vault
    reviewed = vault.reviewed
    assert reviewed is not None and reviewed.label == "origin/main"


def test_settings_and_taxonomy_are_the_reviewed_branchs(remote: Remote, checkout: Path) -> None:
    """What the checkout has on disk (a pull request checked out, an edit) is not what the
    vault says; after a fetch moves the reviewed branch, `refs_moved` reads it again."""
    vault = Vault(checkout)
    taxonomy = vault.taxonomy
    assert taxonomy is not None and "payments-api" in taxonomy.repos
    (checkout / "_taxonomy.md").write_text("# Taxonomy\n\n## Repos\n- `forged` — no.\n", "utf-8")
    (checkout / "lore.toml").write_text("[recall]\nlimit = 3\n", encoding="utf-8")
    assert "forged" not in Vault(checkout).taxonomy.repos  # type: ignore[union-attr]
    on_disk = Vault(checkout).reviewed_settings
    assert on_disk is not None and on_disk.differs and "limit = 3" not in (on_disk.text or "")
    git(checkout, "checkout", "-q", "--", "_taxonomy.md", "lore.toml")
    work = remote.work()
    (work / "lore.toml").write_text("[recall]\nlimit = 4\n", encoding="utf-8")
    git(work, "commit", "-qam", "recall four")
    git(work, "push", "-q", "origin", "main")
    git(checkout, "fetch", "-q")
    kept = vault.reviewed_settings
    assert kept is not None and "limit = 4" not in (kept.text or "")  # read once, kept
    vault.refs_moved()
    moved = vault.reviewed_settings
    assert moved is not None and moved.text == "[recall]\nlimit = 4\n"


def test_a_folder_that_is_not_a_work_tree_keeps_its_state_under_lore_home(
    tmp_path: Path, isolated_home: Path
) -> None:
    folder = tmp_path / "plain-vault"
    (folder / "notes").mkdir(parents=True)
    vault = Vault(folder)
    assert (vault.found, vault.git_dir, vault.reviewed) == (None, None, None)
    assert vault.state_dir == state_dir(folder)
    assert vault.state_dir.is_relative_to(isolated_home)
