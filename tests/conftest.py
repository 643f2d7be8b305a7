"""Shared fixtures: real git repositories in tmp_path, an isolated home, pinned git identity."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import settings

from lore.vault.seed import seed_files, write_files
from tests.support import SUITE_TODAY, Vault, git

# The property tests draw the same examples on every run and machine, so the README's test
# command cannot fail on a case no one has seen; a case found while writing a test is kept
# with `@example` beside it. `HYPOTHESIS_PROFILE=explore` draws new ones when hunting.
settings.register_profile("suite", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "suite"))


@pytest.fixture(autouse=True)
def isolated_home(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """No test reads or writes the real home, config or vault, or reads the real date.

    `LORE_TODAY` is pinned for every test (a test may pin its own day on top), so an
    answer that depends on today's date is the same on any day; `.ci/run` runs the
    suite's date-sensitive tests again with the machine's clock moved ahead
    (tests/clock_ahead.py) to catch code that reads the real clock instead.
    """
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("LORE_HOME", str(home / "lore-home"))
    monkeypatch.setenv("LORE_CONFIG", str(home / "config.toml"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_TEMPLATE_DIR", "")
    monkeypatch.setenv("LORE_TODAY", SUITE_TODAY)
    monkeypatch.delenv("LORE_VAULT", raising=False)
    monkeypatch.delenv("GIT_DIR", raising=False)
    monkeypatch.delenv("GIT_WORK_TREE", raising=False)
    return home


@pytest.fixture(autouse=True)
def no_install_source(
    monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """`lore init` sees no gh-lore commit in how this test run installed lore.

    A developer's clone of gh-lore on GitHub would otherwise pin every vault a test
    creates; the tests of that detection (tests/team/test_init_pin.py) set up their own.
    """
    from lore.team import curator_pin

    monkeypatch.setattr(curator_pin, "DISTRIBUTION", "gh-lore-not-installed-in-tests")
    monkeypatch.setattr(curator_pin, "SOURCE_TREE", tmp_path_factory.mktemp("no-source-tree"))
    monkeypatch.delenv("LORE_GH_EXTENSION_DIR", raising=False)


@pytest.fixture
def make_vault(tmp_path: Path) -> Callable[..., Vault]:
    counter = iter(range(1000))

    def factory(
        notes: dict[str, str] | None = None,
        *,
        use_git: bool = True,
        repos: tuple[str, ...] = ("payments-api", "web-app"),
    ) -> Vault:
        root = tmp_path / f"vault{next(counter)}"
        root.mkdir()
        write_files(root, seed_files())
        vault = Vault(root)
        vault.set_repos(*repos)
        for note_id, text in (notes or {}).items():
            vault.write(note_id, text)
        if use_git:
            git(root, "init", "-q")
            vault.commit("initial vault")
        return vault

    return factory


@pytest.fixture
def vault(make_vault: Callable[..., Vault]) -> Iterator[Vault]:
    yield make_vault()
