"""The fence around recalled notes: a fixed preface, and markers carrying a nonce.

Notes reach an agent as reference data, never as instructions (DESIGN.md section 5).
The preface says so; the notes sit between an opening and a closing marker that
carry a nonce, and the preface names the nonce, so a note that writes its own
closing marker cannot end the block: it cannot know the nonce.

The nonce is derived, not drawn at random per session: HMAC-SHA256 under a secret
kept on this machine (`$LORE_HOME/hook-secret`, created on first use, mode 0600) of
the vault commits, the repository and the vault settings. Nobody who writes notes
knows the secret, and every merged note changes the commit, so no note can predict
the nonce of the digest it appears in. Because it is derived, the session digest is
byte-identical across sessions while the commit, repository and settings stay the
same, and rides the agent's prompt cache. If the secret cannot be read or created
(a read-only home), a random per-process key is used: still unforgeable, no longer
cache-stable.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import os
from collections.abc import Iterable

from lore.paths import lore_home
from lore.sanitize import sanitize_field

SECRET_FILE = "hook-secret"  # noqa: S105 - a file name, not a secret
NONCE_HEX = 16
_KEY: bytes | None = None


def _secret() -> bytes:
    global _KEY  # noqa: PLW0603 - read once per process
    if _KEY is not None:
        return _KEY
    path = lore_home() / SECRET_FILE
    try:
        key = bytes.fromhex(path.read_text(encoding="ascii").strip())
        if len(key) >= 16:
            _KEY = key
            return key
    except (OSError, ValueError):
        pass
    key = os.urandom(32)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="ascii") as handle:
            handle.write(key.hex() + "\n")
    except FileExistsError:
        with contextlib.suppress(OSError, ValueError):  # another hook created it first
            key = bytes.fromhex(path.read_text(encoding="ascii").strip())
    except OSError:
        pass  # read-only home: the random key still cannot be guessed
    _KEY = key
    return key


def derive_nonce(label: str, parts: Iterable[str]) -> str:
    """A hex nonce for this label and these inputs, stable on this machine."""
    message = "\0".join((label, *parts)).encode("utf-8", "surrogateescape")
    return hmac.new(_secret(), message, hashlib.sha256).hexdigest()[:NONCE_HEX]


def fenced(text: str, limit: int = 200) -> str:
    """Note-derived text for inside the fence: sanitized, one line, no angle brackets.

    Without `<` and `>` a note cannot write anything that looks like a marker.
    """
    return sanitize_field(text, limit).replace("<", "‹").replace(">", "›")


def attribute(text: str) -> str:
    """A value for a marker attribute: fenced, no quotes."""
    return fenced(text, 80).replace('"', "'")


def open_marker(nonce: str, vault: str, commit: str) -> str:
    return f'<lore-notes nonce="{nonce}" vault="{attribute(vault)}" commit="{attribute(commit)}">'


def close_marker(nonce: str) -> str:
    return f'</lore-notes nonce="{nonce}">'


def short_commit(version: str) -> str:
    """A commit as 12 hex digits; a folder vault's digest as it is."""
    if version.startswith("files:"):
        return version[:18]
    return version[:12] or "uncommitted"
