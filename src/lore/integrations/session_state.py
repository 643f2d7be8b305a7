"""What the hooks already did in one agent session: `$LORE_HOME/sessions/KEY.json`.

Each hook runs as a fresh process, so what must hold across one agent session — the
digest it already has, whether the session-end nudge fired, how far its transcript was
read and what that part counted — is kept in one small JSON file per session. The key
is a hash of the agent's name and its session id, so no id from a payload becomes a
path. Reading costs one open; writing, a temporary file and a rename. Anything wrong
with the file reads as a session lore knows nothing about; writing is best effort.
Files untouched for `KEEP_DAYS` days are removed, at most once a day. Every time here is
this process's clock (`time.time()`, also written as the files' mtimes), so ages are never
a difference between two clocks.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import time
from pathlib import Path

from lore.paths import lore_home
from lore.record import Record

SESSIONS_DIR = "sessions"
KEEP_DAYS = 14
PRUNE_STAMP = ".pruned"
_FIELDS = {
    "digest": str,
    "nudged": bool,
    "transcript": str,
    "offset": int,
    "size": int,
    "tool_calls": int,
    "edits": int,
    "turns": int,
}


class SessionState(Record):
    """One agent session as the hooks saw it."""

    __slots__ = (
        "digest",
        "edits",
        "nudged",
        "offset",
        "path",
        "size",
        "tool_calls",
        "transcript",
        "turns",
    )

    def __init__(self, path: Path) -> None:
        self.path = path
        self.digest = ""  # fingerprint of the last digest the session was given
        self.nudged = False  # the session-end nudge fired (it never fires twice)
        self.transcript = ""  # the transcript file counted so far
        self.offset = 0  # how far into it, in bytes (whole lines only)
        self.size = 0  # its size at the last look
        self.tool_calls = 0
        self.edits = 0
        self.turns = 0  # end-of-turn hooks seen

    def as_json(self) -> dict[str, object]:
        return {name: getattr(self, name) for name in _FIELDS}


def state_path(agent: str, session_id: str) -> Path | None:
    """Where this session's state lives, or None when the agent named no session."""
    if not session_id:
        return None
    key = hashlib.sha256(f"{agent}\0{session_id}".encode("utf-8", "surrogateescape"))
    return lore_home() / SESSIONS_DIR / f"{key.hexdigest()[:32]}.json"


def load_state(agent: str, session_id: str) -> SessionState | None:
    """The session's state (a fresh one when lore has none), or None without a session id."""
    path = state_path(agent, session_id)
    if path is None:
        return None
    state = SessionState(path)
    try:
        data = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return state
    if isinstance(data, dict):
        for name, kind in _FIELDS.items():
            value = data.get(name)
            if type(value) is kind:  # bool is not int here, nor int bool
                setattr(state, name, value)
    return state


def save_state(state: SessionState) -> None:
    """Write the state atomically; a failure only means the next hook knows less."""
    folder = state.path.parent
    temp = folder / f".{state.path.name}.{os.getpid()}.tmp"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        temp.write_text(json.dumps(state.as_json()), encoding="utf-8")
        now = time.time()
        os.utime(temp, (now, now))
        temp.replace(state.path)
    except OSError:
        with contextlib.suppress(OSError):
            temp.unlink(missing_ok=True)
        return
    _prune(folder)


def _prune(folder: Path) -> None:
    stamp = folder / PRUNE_STAMP
    now = time.time()
    try:
        if now - stamp.stat().st_mtime < 86400:
            return
    except OSError:
        pass
    try:
        stamp.touch()
        os.utime(stamp, (now, now))
        for entry in os.scandir(folder):
            if entry.name.endswith(".json") and now - entry.stat().st_mtime > KEEP_DAYS * 86400:
                Path(entry.path).unlink()
    except OSError:
        pass
