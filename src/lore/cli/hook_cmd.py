"""`lore hook EVENT`: the entry point agents run; it always exits 0, silent on any error.

Its arguments are read by `parse_args`, not argparse, so that they fail open too: the
event is the first word, `--agent NAME` (or `--agent=NAME`) counts wherever it stands,
and anything else (a flag a newer lore wrote into a shared config) is ignored. Only
`-h`/`--help` goes to argparse, for the help text.
"""

from __future__ import annotations

import argparse
import os
import sys

from lore.integrations.agents import AGENT_NAMES

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

HARD_LIMIT_S = 2.0  # past this the process exits 0 with no output, whatever it is doing
MAX_STDIN = 4 * 1024 * 1024

EPILOG = """\
events:
  session-start   print the session digest: the team's notes for this repository
  prompt          print the notes that clearly match the prompt (opt-in: lore.toml
                  [hooks] prompt = true)
  session-end     at the end of a turn, once per session that did real work, ask the
                  agent whether to draft a note for the team (off: [hooks]
                  session_end = false in lore.toml or in your user config)

Agents run this with their hook payload (JSON) on stdin; `lore install AGENT` writes
the entries. Output is the agent's documented JSON (hookSpecificOutput.additionalContext
for Claude Code, Codex and Gemini CLI; additional_context for Cursor; additionalContext
for Copilot CLI; at session end, the decision or follow-up that makes the agent take
one more turn). A hook never fails a session: any problem means exit 0 and no output.

example:
  echo '{"cwd": "'"$PWD"'", "source": "startup"}' | lore hook session-start --agent claude-code
"""


def register(sub: Any, name: str, help_text: str) -> None:
    parser = sub.add_parser(
        name,
        help=help_text,
        description="Agent hook entry point: read the agent's payload on stdin and print "
        "the context lore injects. Fails open: exit 0 and no output on any error.",
        epilog=EPILOG,
    )
    parser.add_argument("event", help="session-start, prompt or session-end")
    parser.add_argument(
        "--agent",
        metavar="NAME",
        help=f"{', '.join(AGENT_NAMES)} (default: guessed from the payload); before or "
        "after the event",
    )
    parser.set_defaults(handler=run)


def parse_args(argv: list[str]) -> argparse.Namespace | None:
    """`lore hook ARGV` as a namespace, or None when help was asked for (argparse prints it).

    Never fails: a missing event is "" (no output), an unknown word or flag is ignored.
    """
    if "-h" in argv or "--help" in argv:
        return None
    event = ""
    agent: str | None = None
    index = 0
    while index < len(argv):
        arg = argv[index]
        index += 1
        if arg == "--agent":
            agent = argv[index] if index < len(argv) else None
            index += 1
        elif arg.startswith("--agent="):
            agent = arg.partition("=")[2]
        elif not arg.startswith("-") and not event:
            event = arg
    return argparse.Namespace(command="hook", event=event, agent=agent or None, handler=run)


def sync_command() -> list[str] | None:
    """`python -m lore sync --quiet` once `lore sync` exists; until then nothing to sync."""
    from lore.cli.commands import COMMANDS

    if "sync" not in COMMANDS:
        return None
    return [sys.executable, "-m", "lore", "sync", "--quiet"]


def run(args: argparse.Namespace) -> int:
    cancel = _start_watchdog(HARD_LIMIT_S)
    output: bytes | None = None
    try:
        from lore.integrations.hooks import run_hook

        output = run_hook(args.event, args.agent, _read_stdin(), sync_command=sync_command())
    except BaseException:  # noqa: BLE001 - a hook must never fail the agent's session
        output = None
    cancel()
    if output:
        try:
            sys.stdout.buffer.write(output)
            sys.stdout.buffer.flush()
        except OSError:
            pass
    return 0


def _read_stdin() -> bytes:
    stream = sys.stdin
    if stream is None or stream.isatty():
        return b""
    return stream.buffer.read(MAX_STDIN + 1)


def _start_watchdog(seconds: float) -> Any:
    """Exit silently once `seconds` pass (0: never); returns a function that disarms it."""
    if seconds <= 0:
        return lambda: None
    import signal

    if hasattr(signal, "setitimer"):  # POSIX: a timer signal, no thread

        def expire(signum: int, frame: object) -> None:
            os._exit(0)

        signal.signal(signal.SIGALRM, expire)
        signal.setitimer(signal.ITIMER_REAL, seconds)
        return lambda: signal.setitimer(signal.ITIMER_REAL, 0)
    import threading  # pragma: no cover - Windows

    timer = threading.Timer(seconds, os._exit, (0,))  # pragma: no cover
    timer.daemon = True  # pragma: no cover
    timer.start()  # pragma: no cover
    return timer.cancel  # pragma: no cover
