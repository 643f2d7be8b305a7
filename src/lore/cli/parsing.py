"""The argparse classes every `lore` parser uses: one formatter, sized without `shutil`,
and errors that help: "did you mean" for a mistyped command, choice or option, and the
usage of the sub-command that was typed, not the top level's."""

from __future__ import annotations

import argparse
import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any, NoReturn


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Descriptions and epilogs kept as written; sized without importing `shutil`.

    argparse makes a formatter for every `add_argument`, and its default one imports
    `shutil` (with zlib, bz2 and lzma) just to read the terminal's width: 2 ms on
    every `lore recall`. The width is found the way `shutil.get_terminal_size` does.
    """

    def __init__(
        self,
        prog: str,
        indent_increment: int = 2,
        max_help_position: int = 24,
        width: int | None = None,
    ) -> None:
        if width is None:
            width = terminal_columns() - 2
        super().__init__(prog, indent_increment, max_help_position, width)


def terminal_columns() -> int:
    """$COLUMNS, else the width of the terminal on stdout, else 80."""
    try:
        columns = int(os.environ.get("COLUMNS", "0"))
    except ValueError:
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


class Parser(argparse.ArgumentParser):
    """`lore`'s parsers (the sub-commands' too): `HelpFormatter` unless told otherwise.

    argparse (before 3.14) names no close match for a mistyped choice, and reports an
    unknown option of a sub-command with the top level's usage; `_check_value` and
    `parse_args` below do both the way git does.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)

    def _check_value(self, action: argparse.Action, value: Any) -> None:
        choices = action.choices
        if choices is None or value in choices:
            return
        names = [str(choice) for choice in choices]
        close = did_you_mean(str(value), names)
        message = f"invalid choice: '{value}'" + (
            f" (did you mean {close}?)" if close else f" (choose from {', '.join(names)})"
        )
        raise argparse.ArgumentError(action, message)

    def error(self, message: str) -> NoReturn:
        """A usage error goes to `cli.main` like every other error (it prints it as
        argparse would, or as JSON under --json), instead of exiting here."""
        from lore.errors import BadArguments

        raise BadArguments(message, usage=self.format_usage(), prog=self.prog)

    def parse_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> argparse.Namespace:
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:
            target = chosen_parser(self, parsed)
            target.error(unrecognized(target, extras))
        return parsed


def did_you_mean(word: str, candidates: Sequence[str]) -> str | None:
    """The candidates close to `word`, quoted and joined with "or", or None."""
    import difflib

    close = difflib.get_close_matches(word, candidates, n=3, cutoff=0.7)
    return " or ".join(f"'{name}'" for name in close) or None


def chosen_parser(parser: argparse.ArgumentParser, parsed: argparse.Namespace) -> Any:
    """The innermost sub-command parser the command line chose (`lore drafts propose`)."""
    while True:
        sub = next((a for a in parser._actions if isinstance(a, argparse._SubParsersAction)), None)
        chosen = getattr(parsed, sub.dest, None) if sub is not None and sub.dest else None
        if sub is None or chosen not in sub.choices:
            return parser
        parser = sub.choices[chosen]


def unrecognized(parser: argparse.ArgumentParser, extras: Sequence[str]) -> str:
    """'unrecognized arguments: --limt (did you mean '--limit'?)'."""
    options = [name for name in parser._option_string_actions if name.startswith("--")]
    hints = {}
    for extra in extras:
        name = extra.partition("=")[0]
        close = did_you_mean(name, options) if name.startswith("-") else None
        if close:
            hints[name] = close
    message = "unrecognized arguments: " + " ".join(extras)
    if len(hints) == 1:
        return f"{message} (did you mean {next(iter(hints.values()))}?)"
    said = "; ".join(f"{name}: did you mean {close}?" for name, close in hints.items())
    return message + (f" ({said})" if said else "")
