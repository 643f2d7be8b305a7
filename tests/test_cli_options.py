"""The options of `lore`: the shared ones defined once, every one in docs/cli.md."""

from __future__ import annotations

import argparse
import ast
import re
from collections.abc import Iterator
from pathlib import Path

from lore.cli import options
from lore.cli.main import build_parser

ROOT = Path(__file__).resolve().parent.parent
CLI = ROOT / "src" / "lore" / "cli"
SHARED = ("--json", "--vault", "--timeout", "--dry-run", "--yes", "--force", "--resume")
SHARED += ("--no-semantic",)


def commands() -> Iterator[tuple[str, argparse.ArgumentParser]]:
    """Every command's parser and every sub-action's (`drafts propose`)."""
    parser = build_parser(for_shells=True)
    stack = [("", parser)]
    while stack:
        name, current = stack.pop()
        if name:
            yield name, current
        for action in current._actions:
            if isinstance(action, argparse._SubParsersAction):
                stack += [(f"{name} {child}".strip(), sub) for child, sub in action.choices.items()]


def doc_section(command: str) -> str:
    """The section of docs/cli.md on `lore COMMAND` (a sub-action: its command's)."""
    text = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    top = command.split(maxsplit=1)[0]
    for section in re.split(r"^## ", text, flags=re.M):
        if section.startswith(f"`lore {top}"):
            return section
    return ""


def test_every_option_is_in_the_reference() -> None:
    missing = [
        f"lore {name} {option}"
        for name, parser in commands()
        for action in parser._actions
        for option in action.option_strings
        if option.startswith("--") and option != "--help" and option not in doc_section(name)
    ]
    assert missing == []


def test_a_shared_option_is_defined_only_in_the_options_module() -> None:
    """No command module spells a shared option itself (`lore.cli.options` does)."""
    found = []
    for path in sorted(CLI.glob("*.py")):
        if path.name == "options.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "add_argument"
                and any(isinstance(arg, ast.Constant) and arg.value in SHARED for arg in node.args)
            ):
                found.append(f"{path.name}:{node.lineno}")
    assert found == []


def test_a_shared_option_reads_the_same_in_every_command() -> None:
    helps: dict[str, set[str]] = {}
    for _, parser in commands():
        for action in parser._actions:
            for option in action.option_strings:
                if option in SHARED and action.help:
                    # a timeout's default and a resume's metavar are the command's own
                    text = re.sub(r"\(default [0-9.]+\)", "(default N)", action.help)
                    helps.setdefault(option, set()).add(text.replace("ID is", "NAME is"))
    assert set(helps) == set(SHARED)
    several = {option: texts for option, texts in helps.items() if len(texts) > 1}
    vaults = {options.VAULT_HELP, options.EVERY_VAULT_HELP}
    assert several == {"--vault": vaults}  # one vault, or one of every registered vault
