"""`lore hook EVENT`: from an agent's payload to the context it injects, failing open.

`run_hook` reads the vault(s) and the current repository, starts the background
work (a throttled `lore sync`, and an index refresh when the index is stale or
unusable), and returns the agent-shaped output for `session-start` (the session
digest), `prompt` (prompt recall, opt-in) or `session-end` (the once-a-session nudge,
`lore.integrations.nudge`). It never waits for the network or for an index build: it
reads each index as it stands. A payload that is not a JSON object gets no answer. The
CLI adapter turns any error into silence and exit 0.

The session digest is given once per agent session: at a start whose source resumes a
history that still holds it (the agents table's `kept_on`, e.g. `resume`), a session
that already got the same digest gets nothing (`lore.integrations.session_state`).
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

from lore.integrations.agents import AGENTS
from lore.integrations.events import (
    EVENTS,
    HookEvent,
    decode_payload,
    parse_event,
    render_output,
    supports,
)
from lore.integrations.hook_index import IndexView, is_damage, open_view
from lore.vault.settings import section_values
from lore.vaults import VaultRef, hook_vaults

INDEX_REFRESH_INTERVAL_S = 60.0
INDEX_REFRESH_TIMEOUT_S = 900.0


def run_hook(
    event_name: str,
    agent: str | None,
    raw_payload: bytes,
    *,
    sync_command: list[str] | None = None,
) -> bytes | None:
    """The bytes to print for this hook, or None for silence. May raise: callers fail open."""
    if event_name not in EVENTS:
        return None
    payload = decode_payload(raw_payload)
    if payload is None:  # not the JSON object every agent sends: nothing to answer
        return None
    event = parse_event(agent, event_name, payload)
    if event.event == "session-end":
        return _session_end(event)
    refs = hook_vaults()
    if not refs:
        return None
    from lore.vault.git import current_repo_name

    repo = current_repo_name(Path(event.cwd))
    repo = repo.lower() if repo else None
    views: list[tuple[VaultRef, IndexView]] = []
    try:
        for ref in refs:
            view = open_view(ref.root)
            if view is None or view.stale:
                _refresh_index(ref.root)
            if view is not None:
                views.append((ref, view))
        if event.event == "session-start":
            _start_sync(sync_command, views)
        if not views or not supports(event.agent, event.event):
            return None
        if event.event == "session-start":
            context = _session_start(event, views, repo)
        else:
            context = _prompt_context(views, event.prompt, repo)
    except Exception as exc:
        for ref, _ in views:  # a damaged page: rebuild in the background, stay silent
            if is_damage(exc, ref.root):
                _refresh_index(ref.root, rebuild=True)
        raise
    finally:
        for _, view in views:
            view.close()
    return render_output(event.agent, event.event, context)


def _session_end(event: HookEvent) -> bytes | None:
    """The nudge, at most once a session; every other end of turn is silent and cheap."""
    if event.continued or not supports(event.agent, event.event):
        return None
    from lore.integrations.nudge import end_of_turn

    opened: list[IndexView] = []

    def served_view() -> IndexView | None:
        refs = hook_vaults()
        view = open_view(refs[0].root) if refs else None
        if view is not None:
            opened.append(view)
        return view

    def vault_root() -> Path | None:
        refs = hook_vaults()
        return refs[0].root if refs else None

    try:
        text = end_of_turn(event, served_view, vault_root)
    finally:
        for view in opened:
            view.close()
    return render_output(event.agent, event.event, text)


def _session_start(
    event: HookEvent, views: list[tuple[VaultRef, IndexView]], repo: str | None
) -> str:
    """The digest (unless this session already has it), and the nudge after a compaction."""
    from lore.integrations.digest import DigestSource, cached_digest, fingerprint
    from lore.integrations.session_state import load_state, save_state

    first = views[0][1]
    digest = ""
    if first.hooks()["session_start"]:
        sources = [DigestSource(ref.name, view) for ref, view in views]
        budget = section_values(first.settings(), "digest")["budget_chars"]
        digest = cached_digest(sources, repo, budget)
    state = load_state(event.agent, event.session_id)
    if state is None:
        return digest
    known = AGENTS[event.agent]
    kept = fingerprint(digest) if digest else ""
    context = digest
    if kept and event.source in known.kept_on and state.digest == kept:
        context = ""  # the resumed history holds this very digest
    nudge = ""
    if event.source in known.nudge_on_start:
        from lore.integrations.nudge import after_compaction

        nudge = after_compaction(state, first)
        context = f"{context}\n{nudge}" if context else nudge
    if nudge or (kept and kept != state.digest):
        state.digest = kept or state.digest
        save_state(state)
    return context


def _prompt_context(views: list[tuple[VaultRef, IndexView]], prompt: str, repo: str | None) -> str:
    from lore.integrations.prompt import prompt_context  # loads the recall engine

    for ref, view in views:
        context = prompt_context(view, ref.name, prompt, repo)
        if context:
            return context
    return ""


def launch_once(name: str, argv: list[str], *, interval_s: float, timeout_s: float) -> bool:
    """`lore.integrations.launcher.launch_once`, imported when a job is started (it brings
    `subprocess`, which the session-end hook does not need)."""
    from lore.integrations.launcher import launch_once as start

    return start(name, argv, interval_s=interval_s, timeout_s=timeout_s)


def _refresh_index(root: Path, *, rebuild: bool = False) -> None:
    key = hashlib.sha256(str(root).encode("utf-8", "surrogateescape")).hexdigest()[:16]
    command = [sys.executable, "-m", "lore", "index", "--vault", str(root), "--json"]
    if rebuild:
        command.append("--rebuild")
    launch_once(
        f"index-rebuild-{key}" if rebuild else f"index-{key}",
        command,
        interval_s=INDEX_REFRESH_INTERVAL_S,
        timeout_s=INDEX_REFRESH_TIMEOUT_S,
    )


def _start_sync(command: list[str] | None, views: list[tuple[VaultRef, IndexView]]) -> None:
    if not command:
        return
    section = views[0][1].hooks() if views else section_values({}, "hooks")
    launch_once(
        "sync",
        command,
        interval_s=section["sync_interval_minutes"] * 60,
        timeout_s=section["sync_timeout_seconds"],
    )
