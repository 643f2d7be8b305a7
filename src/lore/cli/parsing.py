"""The argparse classes every `lore` parser uses: one formatter, sized without `shutil`."""

from __future__ import annotations

import argparse
import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


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
    """`lore`'s parsers (the sub-commands' too): `HelpFormatter` unless told otherwise."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)
