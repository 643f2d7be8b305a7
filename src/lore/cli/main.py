"""`lore` entry point: builds the parser from the command modules and maps errors to exit codes.

Each command lives in its own module with `register(subparsers)`, which adds a
sub-parser and sets `handler` to a function `(args) -> int`; the options several
commands share are defined once, in `options`. Modules are imported only when their
command runs (through the `commands` table), so `lore recall` pays for nothing else; a
plain `lore recall` does not even import argparse (`recall_args.parse_plain`). No
command module imports this one: `lore completion` is handed the whole parser
(`args.whole_parser`).
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence

from lore import __version__
from lore.cli.commands import COMMANDS, GROUPS
from lore.errors import ExitCode, LoreError, Stopped, stop_like_ctrl_c

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse

DESCRIPTION = """\
lore: shared, reviewed memory for your team's AI coding agents.

Notes live as markdown in a git repository (the vault); lore keeps a local SQLite
index so recall answers in milliseconds, offline.

Vault: --vault PATH (or a registered name), else the registered vault you stand in (curate,
review and doctor: any vault checkout you stand in), else $LORE_VAULT, else the user
config's default. Agents are served registered vaults only.
Exit codes: 0 ok, 1 problems found, 2 bad usage or input, 3 internal error, 130 Ctrl-C."""


def build_parser(
    only: str | None = None, *, for_shells: bool = False, names_only: bool = False
) -> argparse.ArgumentParser:
    """The whole parser, or (`only`) the top level with that one command, which is cheaper.

    `for_shells`: the commands stay visible to argparse (`lore completion` hands the
    parser to shtab); `lore --help` lists them itself, grouped (`command_list`).
    `names_only`: each command is a bare name, its module not loaded — for a command line
    that names no command (`lore`, `lore --help`, `lore recal`), where argparse needs the
    names (to say "did you mean") but never a command's own options."""
    import argparse

    from lore.cli.parsing import Parser

    parser = Parser(
        prog="lore",
        usage="lore [-h] [--version] COMMAND ...",
        description=DESCRIPTION,
        epilog=command_list(),
    )
    parser.add_argument("--version", action="version", version=f"lore {__version__}")
    # The commands are listed by group in the epilog (`command_list`), not by argparse.
    sub = parser.add_subparsers(
        dest="command",
        metavar="COMMAND",
        help="a command" if for_shells else argparse.SUPPRESS,
        prog="lore",
    )
    for name, (module_name, _group, help_text) in COMMANDS.items():
        if only is not None and name != only:
            continue
        if names_only:
            sub.add_parser(name, help=help_text)
            continue
        module = importlib.import_module(module_name)
        module.register(sub, name, help_text)
        if getattr(module, "NEEDS_WHOLE_PARSER", False):
            # A command about the command line itself (`lore completion`) is handed the
            # whole parser: no command module imports this one (DESIGN §4).
            sub.choices[name].set_defaults(whole_parser=lambda: build_parser(for_shells=True))
    return parser


def command_list() -> str:
    """`lore --help`'s commands, grouped in the order a team meets them (`GROUPS`)."""
    width = max(len(name) for name in COMMANDS) + 2
    sections = []
    for group, heading in GROUPS.items():
        rows = [
            f"  {name:<{width}}{help_text}"
            for name, (_module, in_group, help_text) in COMMANDS.items()
            if in_group == group
        ]
        if rows:
            sections.append(f"{heading}:\n" + "\n".join(rows))
    return (
        "\n\n".join(sections) + "\n\n`lore COMMAND --help` shows a command's options and examples."
    )


def _pick_command(argv: Sequence[str]) -> str | None:
    for arg in argv:
        if arg in COMMANDS:
            return arg
        if not arg.startswith("-"):
            return None
    return None


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    command = _pick_command(args_list)
    if command in QUIET_COMMANDS:  # they write for an agent, and catch what they must
        return _run(command, args_list)
    from lore.cli.pipes import reader_tolerant

    with reader_tolerant():  # `lore … | head` keeps the command's own exit code
        return _run(command, args_list)


def _run(command: str | None, args_list: list[str]) -> int:
    try:
        if command not in _OWN_SIGNALS:
            stop_like_ctrl_c()
        args = _fast_args(command, args_list)
        if args is None:
            parser = build_parser(only=command, names_only=command is None)
            args = parser.parse_args(args_list)
            if getattr(args, "handler", None) is None:  # `lore` alone: no command, like git
                parser.print_help()
                return ExitCode.BAD_INPUT
        if command not in QUIET_COMMANDS:
            _show_index_builds()
        return int(args.handler(args))
    except LoreError as exc:
        return _failed(exc, args_list)
    except Stopped as stopped:  # the terminal closed (SIGHUP) or SIGTERM: cleaned up already
        _say_if_possible("\nStopped: nothing was left half done.\n")
        return 128 + stopped.signum
    except KeyboardInterrupt:
        _say_if_possible("\nInterrupted.\n")
        return ExitCode.INTERRUPTED
    except EOFError:  # Ctrl-D (or no input left) at a prompt: the user cancelled
        sys.stderr.write("\nlore: cancelled: no answer was given.\n")
        return ExitCode.INTERRUPTED
    except BrokenPipeError:
        # A pipe lore itself writes to closed early (the streams a command prints to drop
        # a gone reader's output, `cli.pipes`): what other tools would die of, SIGPIPE.
        return ExitCode.READER_GONE
    except SystemExit:
        raise
    except Exception as exc:  # noqa: BLE001 - the last line of defence
        from lore.cli.crash import report_crash

        return _failed(LoreError(report_crash(exc)), args_list, ExitCode.INTERNAL)
    finally:
        _show_index_builds(False)


QUIET_COMMANDS = {"hook", "mcp"}  # an agent reads their output: no progress bar, ever


def _show_index_builds(show: bool = True) -> None:
    """An index build a command starts (the first in a clone, a rebuild) shows its
    progress on a terminal, as `lore index` does; never on a pipe."""
    if not show:  # undo, only where it was done: a command that built nothing loads nothing
        loaded = sys.modules.get("lore.index.fill")
        if loaded is not None:
            setattr(loaded, "BUILD_PROGRESS", None)  # noqa: B010 - a module not imported here
    elif sys.stderr is not None and sys.stderr.isatty():
        from lore.cli.output import DelayedProgress
        from lore.index import fill

        fill.BUILD_PROGRESS = lambda: DelayedProgress("Indexing notes")


# Commands that keep their own signal handling: the hooks (their watchdog, fail-open),
# recall (nothing to clean up, and the fastest start), the MCP server (its SDK's loop).
_OWN_SIGNALS = frozenset({"hook", "recall", "mcp"})


def _say_if_possible(text: str) -> None:
    """A last word on stderr, which may be a terminal that is gone."""
    try:
        sys.stderr.write(text)
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


def _fast_args(command: str | None, argv: list[str]) -> argparse.Namespace | None:
    """`lore recall`'s arguments without argparse when they are plain (see `recall_args`);
    `lore hook`'s always (they must fail open, see `hook_cmd.parse_args`)."""
    if command == "hook" and argv and argv[0] == "hook":
        from lore.cli import hook_cmd

        return hook_cmd.parse_args(argv[1:])
    if command != "recall" or not argv or argv[0] != "recall":
        return None
    from lore.cli import recall_cmd
    from lore.cli.recall_args import parse_plain

    return parse_plain(argv[1:], handler=recall_cmd.run)


def _failed(exc: LoreError, args_list: list[str], code: int | None = None) -> int:
    """The one place an error becomes an exit code: its sentence on stderr and, when the
    command was asked for JSON, the same as one JSON object on stdout (`error_json`)."""
    from lore.errors import BadArguments

    code = int(exc.exit_code) if code is None else code
    if isinstance(exc, BadArguments):  # as argparse prints it, under the command's usage
        sys.stderr.write(f"{exc.usage}{exc.prog}: error: {exc.message}\n")
    else:
        _print_error(str(exc))
    if _wants_json(args_list):
        from lore.cli.output import error_json, print_json

        print_json(error_json(exc.message, exc.fix, code))
    return code


def _wants_json(args_list: list[str]) -> bool:
    """`--json`, or `--format json` (`lore curate`), before any `--`."""
    words = args_list[: args_list.index("--")] if "--" in args_list else args_list
    pairs = zip(words, [*words[1:], ""], strict=True)
    return "--json" in words or any(
        word == "--format=json" or (word == "--format" and value == "json") for word, value in pairs
    )


def _print_error(message: str) -> None:
    sys.stderr.write(f"lore: {message}\n")


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
