"""`lore recall`'s plain-argument fast path agrees with argparse, or leaves it to argparse."""

from __future__ import annotations

import contextlib
import io

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lore.cli import recall_cmd
from lore.cli.main import build_parser
from lore.cli.recall_args import OPTIONS, parse_plain
from lore.errors import BadArguments

PARSER = build_parser(only="recall")

TOKENS = st.sampled_from(
    [
        *OPTIONS,
        *(f"{option}=" for option in OPTIONS),
        "--repo=web-app",
        "--limit=3",
        "--limit=x",
        "--type=gotcha",
        "--or=pg pool",
        "--since=2026-11-01",
        "connection pool exhausted",
        "--json=yes",
        "--lim",
        "--jso",
        "--help",
        "-h",
        "--",
        "-",
        "-1",
        "-x",
        "3",
        "0",
        " 7 ",
        "",
        "postgres",
        "lock timeout",
        "src/app.py",
        "a=b",
        "recall",
        "naïve",
    ]
)


def _argparse(argv: list[str]) -> dict[str, object] | None:
    """What argparse makes of `lore recall ARGV`, or None when it refuses (or prints help)."""
    with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
        try:
            return vars(PARSER.parse_args(["recall", *argv]))
        except (SystemExit, BadArguments):  # help, or a usage error for cli.main to print
            return None


@settings(max_examples=1500, deadline=None)
@given(argv=st.lists(TOKENS, max_size=7))
def test_fast_path_agrees_with_argparse(argv: list[str]) -> None:
    fast = parse_plain(argv, handler=recall_cmd.run)
    if fast is None:
        return  # argparse decides, as it always did
    assert vars(fast) == _argparse(argv)


@pytest.mark.parametrize(
    "argv",
    [
        ["why", "do", "tests", "use", "httpx"],
        ["--json", "postgres", "lock", "timeout"],
        ["ECONNRESET", "--type", "gotcha", "--type=decision", "--json"],
        ["retries", "--repo", "", "--limit", "3", "--all", "--explain", "--vault", "team"],
        ["pgbouncer", "pooling", "--or", "pg pool exhausted", "--or=connection limit", "--json"],
        ["deploys", "--since", "2026-11-01", "--json"],
    ],
)
def test_plain_calls_take_the_fast_path(argv: list[str]) -> None:
    fast = parse_plain(argv, handler=recall_cmd.run)
    assert fast is not None
    assert vars(fast) == _argparse(argv)


@pytest.mark.parametrize(
    "argv",
    [
        ["--help"],
        ["--lim", "3", "x"],  # an abbreviation: argparse resolves it
        ["a", "--json", "b"],  # two runs of words: argparse refuses
        ["--limit", "-1", "x"],  # a value that looks like an option
        ["--limit", "three", "x"],
        ["--since", "2026-11-01"],  # no query: argparse (then `run` lists the changes)
        [],
    ],
)
def test_anything_else_is_left_to_argparse(argv: list[str]) -> None:
    assert parse_plain(argv, handler=recall_cmd.run) is None
