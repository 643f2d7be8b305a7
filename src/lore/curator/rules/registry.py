"""The rule families, in the order they run: a plain tuple, no discovery, no plugins."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from lore.curator.context.model import CuratorContext
from lore.curator.finding import ERROR, Finding
from lore.curator.review import semantic
from lore.curator.rules import (
    contradiction,
    convention,
    duplicate,
    filename,
    frontmatter,
    injection,
    lifecycle,
    link,
    policy,
    secret,
    taxonomy,
)


class RuleFamily(Protocol):
    """A module under `rules/`: its name, its rule ids, and its check."""

    @property
    def NAME(self) -> str: ...  # noqa: N802 - module constants

    @property
    def RULES(self) -> Mapping[str, str]: ...  # noqa: N802 - rule id -> what it catches

    def check(self, context: CuratorContext) -> list[Finding]: ...


FAMILIES: tuple[RuleFamily, ...] = (
    frontmatter,
    filename,
    taxonomy,
    link,
    convention,
    secret,
    injection,
    duplicate,
    contradiction,
    lifecycle,
    policy,
)


def all_rules() -> dict[str, str]:
    """Every rule id the curator can report, with a one-line description."""
    rules: dict[str, str] = {}
    for family in FAMILIES:
        rules.update(family.RULES)
    rules.update(semantic.RULES)  # the optional model review (not a family: it runs last)
    return rules


def stopped(name: str, exc: Exception) -> Finding:
    """The error a family that failed unexpectedly leaves instead of its findings, so a
    broken rule blocks a pull request instead of waving it through."""
    return Finding(
        f"{name}/internal-error",
        ERROR,
        "",
        None,
        f"the {name} rules stopped with {type(exc).__name__}; this is a bug in lore, so the "
        "change is not approved",
        "Report it with the files that caused it.",
    )
