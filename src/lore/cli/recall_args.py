"""`lore recall`'s arguments read without argparse, when they are plain.

Importing argparse and building its parser costs about 5 ms (with `gettext` and
`locale`), an eighth of a whole `lore recall`, the command agents run most. Most
calls are plain: query words in one run, and the command's own long options spelled
out (`--limit 3`, `--repo=web`). For those, `parse_plain` returns what argparse
would; for anything else (`--help`, abbreviations, `--`, a word or value that starts
with `-`, a bad number, query words split by options) it returns None and argparse
decides, errors included. tests/test_recall_args.py checks the two agree.
"""

from __future__ import annotations

from types import SimpleNamespace

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable

# option -> (attribute, kind); the parser in recall_cmd.register has the same options
OPTIONS = {
    "--or": ("also", "append"),
    "--since": ("since", "value"),
    "--repo": ("repo", "value"),
    "--type": ("type", "append"),
    "--tag": ("tag", "append"),
    "--limit": ("limit", "int"),
    "--vault": ("vault", "value"),
    "--all": ("include_inactive", "flag"),
    "--explain": ("explain", "flag"),
    "--json": ("json", "flag"),
}


def parse_plain(
    argv: list[str], *, handler: Callable[[argparse.Namespace], int]
) -> argparse.Namespace | None:
    """The namespace argparse would make from `lore recall ARGV`, or None to ask argparse."""
    values: dict[str, object] = {
        "command": "recall",
        "query": None,
        "also": [],
        "since": None,
        "repo": None,
        "type": [],
        "tag": [],
        "limit": 10,
        "vault": None,
        "include_inactive": False,
        "explain": False,
        "json": False,
        "handler": handler,
    }
    query: list[str] = []
    query_ended = False
    index = 0
    while index < len(argv):
        arg = argv[index]
        index += 1
        if not arg.startswith("-"):
            if query_ended:
                return None  # a second run of words: argparse reports it
            query.append(arg)
            continue
        if query:
            query_ended = True
        name, has_value, value = arg.partition("=")
        if name not in OPTIONS:
            return None
        attribute, kind = OPTIONS[name]
        if kind == "flag":
            if has_value:
                return None
            values[attribute] = True
            continue
        if not has_value:
            if index >= len(argv) or argv[index].startswith("-"):
                return None
            value = argv[index]
            index += 1
        if kind == "int":
            try:
                values[attribute] = int(value)
            except ValueError:
                return None
        elif kind == "append":
            values[attribute] = [*values[attribute], value]  # type: ignore[misc]
        else:
            values[attribute] = value
    if not query:
        return None
    values["query"] = query
    return SimpleNamespace(**values)  # type: ignore[return-value]
