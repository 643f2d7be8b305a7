"""The session-end nudge: once per session, after real work, ask the agent what to keep.

At the end of a turn the agent runs `lore hook session-end` (Claude Code and Codex
`Stop`, Gemini CLI `AfterAgent`, Copilot CLI `agentStop`, Cursor `stop`). Most turns
get nothing. The first turn that ends a session which did real work gets one short
paragraph, in the shape that makes the agent take one more turn (the agents table's
`continues`): did this session establish something the team will need, and if so,
draft it with the lore-remember skill as a draft the user confirms
(`lore remember --draft`, or the MCP tool `remember` with `draft: true`) — never a pull
request straight from here. Claude Code's `PreCompact` cannot reach the model, so there
the same question rides on the `SessionStart` that follows a compaction.

Real work, counted from the session's transcript (read incrementally: each hook reads
only the whole lines added since the last one, at most `READ_CAP` bytes; JSON compact
or pretty-printed over many lines, `WorkMarkers`):

- a file edited and at least `MIN_CALLS_WITH_EDIT` tool calls, or
- at least `MIN_CALLS` tool calls, or
- a transcript of at least `MIN_TRANSCRIPT_BYTES` (tool output is most of it), or,
  when the agent names no readable transcript, at least `MIN_TURNS` turns.

It never fires twice (the session's state says so), never loops (an end of turn that
an end-of-turn hook forced — `stop_hook_active`, Cursor's `loop_count` — is silent),
needs a session id, a vault and its index, and is off when the user config or the
vault's `lore.toml` (as indexed, from the served commit) says `[hooks] session_end =
false`. docs/agents/index.md describes it; bench/bench_hooks.py measures it.
"""

from __future__ import annotations

import stat
from pathlib import Path

from lore.integrations.agents import AGENTS, agent_command
from lore.integrations.session_state import SessionState, load_state, save_state

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from lore.integrations.agents import WorkMarkers
    from lore.integrations.events import HookEvent
    from lore.integrations.hook_index import IndexView

MIN_CALLS_WITH_EDIT = 5
MIN_CALLS = 20
MIN_TRANSCRIPT_BYTES = 512 * 1024
MIN_TURNS = 6
READ_CAP = 16 * 1024 * 1024
SETTING = "session_end"

QUESTION = (
    "did this session establish something your team will need again - a decision and "
    "its reason, a gotcha and how to avoid it, a convention, a runbook step - that the "
    "code does not already say? If it did, use the lore-remember skill: it first checks "
    "the vault for a note that already covers it, then drafts one small note and saves it "
    "as a draft for the user to confirm (`{command} remember --draft`, or the lore MCP "
    "tool remember with draft: true); do not propose it as a pull request from here. If "
    "nothing qualifies, say so in one line. lore asks this once per session."
)
AT_END = "lore, once per session: before you finish, " + QUESTION
AFTER_COMPACTION = "lore, once per session: this session was just compacted; " + QUESTION


def nudge_text(*, compacted: bool = False) -> str:
    """The paragraph the agent is asked, naming the lore command it can run."""
    template = AFTER_COMPACTION if compacted else AT_END
    return template.format(command=agent_command())


def switched_on(view: IndexView | None) -> bool:
    """Neither the user config nor the vault's lore.toml (as indexed) turns the nudge off."""
    if view is None or view.hooks().get(SETTING) is not True:
        return False
    from lore.config import user_hook_switches

    return user_hook_switches().get(SETTING, True) is not False


def end_of_turn(
    event: HookEvent,
    served_view: Callable[[], IndexView | None],
    vault_root: Callable[[], Path | None] = lambda: None,
) -> str:
    """The nudge for this end of turn, or "" (the answer to almost every turn).

    `served_view` opens the first vault's index; it is called only for a session that
    has not been asked yet, and the caller closes what it returned. `vault_root` names
    that vault, for the line about the agent's own new memories.
    """
    if event.continued:  # this turn was forced by an end-of-turn hook: never loop
        return ""
    state = load_state(event.agent, event.session_id)
    if state is None or state.nudged or not switched_on(served_view()):
        return ""
    state.turns += 1
    count_work(state, event.transcript, AGENTS[event.agent].work)
    if did_real_work(state):
        state.nudged = True
    save_state(state)
    if not state.nudged:
        return ""
    root = vault_root()
    extra = private_memories(event.agent, Path(event.cwd), root) if root is not None else ""
    return f"{nudge_text()} {extra}" if extra else nudge_text()


def private_memories(agent: str, cwd: Path, vault_root: Path) -> str:
    """A sentence about the agent's own memories this vault has not taken in, or "".

    Claude Code, Gemini CLI and Codex keep memories of their own on this machine
    (lore.team.imports.memory_stores); the count is of their memory files that appeared or
    changed since the vault's last `lore import` of them. Any error is silence.
    """
    from lore.team.imports.kinds import KIND_OF_AGENT

    kind = KIND_OF_AGENT.get(agent)
    if kind is None:
        return ""
    try:
        from lore.team.imports.memory_stores import AGENT_NAME, new_memories

        count = new_memories(kind, cwd, vault_root)
    except Exception:  # noqa: BLE001 - the hook fails open
        return ""
    if count <= 0:
        return ""
    return (
        f"{AGENT_NAME[kind]} also has {count} private memory file(s) here the team has not "
        f"seen: tell the user `{agent_command()} import {kind}` drafts them for review."
    )


def after_compaction(state: SessionState | None, view: IndexView) -> str:
    """At a session start that follows a compaction: the nudge, if it has not fired yet.

    A compaction means the context filled up: that is real work. The caller saves `state`.
    """
    if state is None or state.nudged or not switched_on(view):
        return ""
    state.nudged = True
    return nudge_text(compacted=True)


def did_real_work(state: SessionState) -> bool:
    if state.edits and state.tool_calls >= MIN_CALLS_WITH_EDIT:
        return True
    if state.tool_calls >= MIN_CALLS or state.size >= MIN_TRANSCRIPT_BYTES:
        return True
    return not state.transcript and state.turns >= MIN_TURNS


def count_work(state: SessionState, transcript: str, markers: WorkMarkers) -> None:
    """Add what the transcript gained since the last look to the session's counts.

    The transcript is the agent's own file; it is only read and counted, never shown.
    A file that shrank or changed name is counted again from its start.
    """
    path = Path(transcript)
    if not transcript or not path.is_absolute():
        state.transcript = ""
        return
    try:
        info = path.stat()
    except OSError:
        state.transcript = ""
        return
    if not stat.S_ISREG(info.st_mode):
        state.transcript = ""
        return
    if state.transcript != transcript or info.st_size < state.offset:
        state.transcript, state.offset, state.tool_calls, state.edits = transcript, 0, 0, 0
    state.size = info.st_size
    if info.st_size == state.offset:
        return
    try:
        with path.open("rb") as handle:
            handle.seek(state.offset)
            chunk = handle.read(min(info.st_size - state.offset, READ_CAP))
    except OSError:
        return
    end = chunk.rfind(b"\n") + 1
    if end == 0:
        if len(chunk) < READ_CAP:
            return  # a line still being written: count it next time
        end = len(chunk)
    whole = chunk[:end]
    state.offset += end
    state.tool_calls += markers.count("tool_calls", whole)
    state.edits += markers.count("edits", whole)
