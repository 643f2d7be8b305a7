"""A curate is a target: one value says what is checked, built by each adapter from its flags."""

from __future__ import annotations

import argparse
import inspect
from collections.abc import Callable
from typing import Any

import pytest

from lore.cli.curate_cmd import target_of
from lore.curator.context import sources
from lore.curator.run import build_context, curate
from lore.curator.target import Drafts, Paths, Range, WholeVault
from lore.errors import UsageError
from tests.curator.conftest import TODAY
from tests.support import Vault

FLAGS = {"base", "head", "paths", "all_notes", "drafts", "at", "policy_approved_by"}


@pytest.mark.parametrize(
    "function",
    [curate, build_context, sources.context_for_range, sources.context_for_paths],
)
def test_the_library_takes_a_target_not_the_flags(function: Callable[..., Any]) -> None:
    parameters = inspect.signature(function).parameters
    assert "target" in parameters
    assert FLAGS & set(parameters) == set()


def flags(**given: Any) -> argparse.Namespace:
    values = {"base": None, "head": None, "paths": [], "all_notes": False}
    return argparse.Namespace(**{**values, "policy_approved_by": None, **given})


@pytest.mark.parametrize(
    ("given", "target"),
    [
        ({"base": "origin/main"}, Range("origin/main", "HEAD")),
        ({"base": "main", "head": "pr"}, Range("main", "pr")),
        (
            {"base": "main", "head": "pr", "policy_approved_by": "@octocat"},
            Range("main", "pr", policy_approved_by="octocat"),
        ),
        ({"paths": ["notes/a.md", "notes/"]}, Paths(("notes/a.md", "notes/"))),
        ({"all_notes": True}, WholeVault()),
    ],
)
def test_lore_curate_builds_one_target_from_its_flags(
    given: dict[str, Any], target: object
) -> None:
    assert target_of(flags(**given)) == target


@pytest.mark.parametrize(
    ("given", "says"),
    [
        ({}, "Tell the curator what to check"),
        ({"base": "main", "all_notes": True}, "Tell the curator what to check"),
        ({"paths": ["a.md"], "all_notes": True}, "Tell the curator what to check"),
        ({"all_notes": True, "policy_approved_by": "octocat"}, "needs --base and --head"),
        ({"base": "main", "policy_approved_by": "not a login!"}, "is not a GitHub login"),
    ],
)
def test_a_command_line_that_names_no_one_target_is_bad_usage(
    given: dict[str, Any], says: str
) -> None:
    with pytest.raises(UsageError, match=says):
        target_of(flags(**given))


def test_a_target_checks_what_it_holds() -> None:
    assert Range("main", policy_approved_by=" @octo-cat").policy_approved_by == "octo-cat"
    with pytest.raises(UsageError):
        Range("main", policy_approved_by="bot[bot]")
    assert Paths(iter(["a.md"])) == Paths(("a.md",))  # any iterable, kept as a tuple
    assert Drafts().files == {} and Drafts().at is None


def test_each_target_reviews_its_own_files(curator_vault: Vault) -> None:
    """The same vault, four targets: what each one checked, and in which mode."""
    root = curator_vault.root
    whole = curate(root, WholeVault(), today=TODAY)
    one = whole.checked[0]
    draft = {"notes/new--draft--2026-02-01.md": (root / one).read_bytes()}
    reviews = {
        "paths": curate(root, Paths([one]), today=TODAY),
        "drafts": curate(root, Drafts(draft), today=TODAY),
        "drafts at main": curate(root, Drafts(draft, at="main"), today=TODAY),
        "range": curate(root, Range("main", "main"), today=TODAY),
    }
    assert whole.mode == "all" and len(whole.checked) > 1
    assert (reviews["paths"].mode, reviews["paths"].checked) == ("paths", [one])
    for name in ("drafts", "drafts at main"):
        assert reviews[name].checked == list(draft), name
    assert (reviews["range"].mode, reviews["range"].checked) == ("range", [])
