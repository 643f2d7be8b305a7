"""`lore install AGENT`, `lore install --check` and `lore uninstall AGENT`."""

from __future__ import annotations

import argparse
import importlib.util
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lore.cli.options import add_dry_run, add_json
from lore.cli.output import console, notice, print_json, safe
from lore.errors import ExitCode, LoreError, UsageError
from lore.integrations.agents import AGENT_NAMES, AGENTS
from lore.integrations.install.ownership import current_launcher
from lore.integrations.install.run import changes_json, check, check_json, install, uninstall
from lore.team.imports.kinds import KIND_OF_AGENT
from lore.team.imports.memory_stores import AGENT_NAME, CLAUDE, default_store, new_since
from lore.vault.git import find_git_dir
from lore.vaults import one_vault

if TYPE_CHECKING:
    from lore.integrations.install.ownership import Launcher
    from lore.integrations.install.run import Change


def _where() -> str:
    """Each agent's files at user level, from the agents table."""
    lines = []
    for agent in AGENTS.values():
        files = dict.fromkeys(agent.default_location(what) for what in ("hooks", "mcp", "skills"))
        lines.append(f"  {agent.name:<12} {', '.join(files)}")
    return "\n".join(lines)


INSTALL_EPILOG = f"""\
examples:
  lore install claude-code            hooks, skills and MCP server for your user
  lore install codex --project        the same in this repository's .codex/ and .agents/
  lore install --check                what is installed where, for every agent
  lore uninstall cursor               remove what lore added (original bytes come back)

What each agent gets (docs/agents/AGENT.md has the details and sources):
  hooks    `lore hook session-start` (the session digest); where the agent can
           inject context from a prompt hook, `lore hook prompt` (recall on the
           prompt, off unless the vault's lore.toml has [hooks] prompt = true); and
           `lore hook session-end` (once a session, after real work, the question
           whether to draft a note; [hooks] session_end = false turns it off)
  skills   lore-recall and lore-remember (Agent Skills format)
  MCP      a server named "lore" running `lore mcp`

Where (user level; --project writes the repository's own files instead):
{_where()}

Entries run the command that started this install: `lore` (its absolute path at user
level) or, run as `gh lore install`, `gh lore`; the skills and the session digest tell
the agent that command. With --project nothing holds a path of this machine and the
files work for every teammate: entries find `lore` on PATH, else the `gh lore`
extension, and stay silent where neither is installed.
Only lore's own entries are touched; every other entry is left as it is. The first
change to a file saves its original under $LORE_HOME/installs/. All files change or
none does: a file that cannot be written (read-only, immutable, a full disk) stops
the install with exit code 2 before anything is written, and so does a file that is not
valid JSON or TOML. For Codex the hooks feature flag is set unless config.toml already
decides it (config.toml keeps its formatting).
"""

UNINSTALL_EPILOG = """\
examples:
  lore uninstall claude-code          what `lore install claude-code` added
  lore uninstall codex --project      the same in this repository's files

Only lore's entries go: hook handlers that run `lore hook … --agent …`, the MCP server
named "lore" that runs `lore mcp`, and skills marked `source: gh-lore`.
"""


def register(sub: Any, name: str, help_text: str) -> None:
    uninstalling = name == "uninstall"
    parser = sub.add_parser(
        name,
        help=help_text,
        description=(
            "Remove what `lore install` added to an agent's files: lore's hook entries, skills "
            "and MCP server. A file lore created is deleted; a file nobody changed since is "
            "restored to its original bytes; otherwise only lore's entries are removed."
            if uninstalling
            else "Connect a coding agent to the vault: merge lore's hooks, skills and MCP "
            "server entry into the agent's configuration, user-level or (--project) for this "
            "repository. Idempotent; other tools' entries are never touched."
        ),
        epilog=UNINSTALL_EPILOG if uninstalling else INSTALL_EPILOG,
    )
    parser.add_argument(
        "agent",
        nargs=None if uninstalling else "?",
        choices=AGENT_NAMES,
        metavar="AGENT",
        help=", ".join(AGENT_NAMES),
    )
    parser.add_argument(
        "--project",
        action="store_true",
        help="this repository's configuration instead of your user configuration",
    )
    if not uninstalling:
        parser.add_argument(
            "--check",
            action="store_true",
            help="report what is installed where (for you, and in the repository you are in); "
            "change nothing",
        )
        parser.add_argument(
            "--no-prompt",
            action="store_true",
            help="leave out the prompt hook (prompt recall is opt-in in lore.toml anyway)",
        )
        add_dry_run(parser)
    add_json(parser)
    parser.set_defaults(handler=run_uninstall if uninstalling else run_install)


def _project_root(args: argparse.Namespace) -> Path | None:
    if not args.project:
        return None
    return _current_repository() or Path.cwd()


def _launcher() -> Launcher:
    return current_launcher()


def run_install(args: argparse.Namespace) -> int:
    project = _project_root(args)
    if args.check:
        return _check(args.agent, project, args.json)
    if not args.agent:
        raise UsageError(
            "Name the agent to install for.",
            fix=f"One of: {', '.join(AGENT_NAMES)} (or `lore install --check`).",
        )

    changes = install(
        args.agent, project, _launcher(), prompt=not args.no_prompt, dry_run=args.dry_run
    )
    _report(args, changes, "install")
    if not args.json and not args.dry_run:
        notice(AGENTS[args.agent].next_steps)
        _warn_without_mcp()
        _warn_without_vault()
        _offer_memory_import(args.agent)
    return _exit_code(changes)


def _offer_memory_import(agent: str) -> None:
    """Where the agent keeps private memories of its own, say how to bring them to review."""
    kind = KIND_OF_AGENT.get(agent)
    if kind is None:
        return
    count = new_since(kind, default_store(kind, Path.cwd()), None)
    if count:
        where = " for this repository" if kind == CLAUDE else ""
        notice(
            f"{AGENT_NAME[kind]} already keeps {count} memory file(s) of its own{where}. "
            f"`lore import {kind}` turns the facts about the code into drafts for you to "
            "review (facts about you stay private, nothing is proposed until you say so)."
        )


def run_uninstall(args: argparse.Namespace) -> int:
    changes = uninstall(args.agent, _project_root(args))
    _report(args, changes, "uninstall")
    return _exit_code(changes)


def _exit_code(changes: list[Change]) -> int:
    bad = any(change.action in ("skipped", "failed") for change in changes)
    return ExitCode.PROBLEMS_FOUND if bad else ExitCode.OK


def _report(args: argparse.Namespace, changes: list[Change], verb: str) -> None:
    scope = f"project {_project_root(args)}" if args.project else "user"
    if args.json:
        print_json(changes_json(verb, args.agent, scope, changes))
        return

    out = console()
    out.print(f"lore {verb} {args.agent} ({scope} scope)")
    if not changes:
        out.print("  nothing of lore's was there" if verb == "uninstall" else "  nothing to do")
    for change in changes:
        colour = {"skipped": "yellow", "failed": "red"}.get(change.action, "green")
        line = f"  [{colour}]{change.action:<10}[/] {safe(_home_relative(change.path))}"
        line += f"  [dim]{safe(change.label)}[/]"
        out.print(line, soft_wrap=True)
        if change.detail:
            out.print(f"             [dim]{safe(change.detail)}[/]", soft_wrap=True)


def _check(agent: str | None, project: Path | None, as_json: bool) -> int:
    launcher = _launcher()
    agents = [agent] if agent else list(AGENT_NAMES)
    here = project or _current_repository()
    rows = [(name, "user", status) for name in agents for status in check(name, None, launcher)]
    if here is not None:
        # The repository you stand in: every agent with --project, else the agents that
        # have something of lore's in its files (`install X --project` wrote them).
        for name in agents:
            found = check(name, here, launcher)
            if project is not None or any(status.state != "missing" for status in found):
                rows += [(name, f"project {here}", status) for status in found]
        rows.sort(key=lambda row: agents.index(row[0]))  # each agent's scopes together
    if as_json:
        print_json(check_json(launcher, rows))
        return ExitCode.OK

    out = console()
    out.print(
        f"lore runs as: {safe(' '.join(launcher.argv))} (agents are told: {safe(launcher.text)})",
        soft_wrap=True,
    )
    current = None
    for name, scope, status in rows:
        if (name, scope) != current:
            current = (name, scope)
            out.print(f"[bold]{name}[/] ({safe(scope)} scope)")
        colour = {"installed": "green", "missing": "dim", "outdated": "yellow"}.get(
            status.state, "red"
        )
        out.print(
            f"  [{colour}]{status.state:<10}[/] {safe(status.label):<28} "
            f"{safe(_home_relative(status.path))}",
            soft_wrap=True,
        )
    return ExitCode.OK


def _current_repository() -> Path | None:
    found = find_git_dir(Path.cwd())
    return found[0] if found else None


def _home_relative(path: Path) -> str:
    try:
        return "~/" + path.relative_to(Path.home()).as_posix()
    except ValueError:
        return str(path)


def _warn_without_mcp() -> None:
    """The MCP entry starts `lore mcp`, which needs the `mcp` extra."""
    if importlib.util.find_spec("mcp") is None:
        notice(
            "The MCP server entry needs lore's mcp extra, which this lore lacks: reinstall "
            "it with the extra (in a clone of gh-lore: pipx install --force '.[mcp]'), or "
            "use `gh lore`, which has it."
        )


def _warn_without_vault() -> None:
    try:
        one_vault(None)
    except LoreError:
        notice(
            "No vault is configured yet, so the hooks will stay silent: "
            "`lore connect OWNER/REPO` clones your team's vault (or set LORE_VAULT)."
        )
