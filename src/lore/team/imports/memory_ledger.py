"""What was already brought in from an agent's private memory, so nothing is offered twice.

An agent's memory is rewritten around its facts — Gemini CLI appends to one file, Claude
Code adds files and rewrites its index, Codex regroups its handbook — so a fact is known
by its own words, not by where it sits: `fact_key` is the kind and the fact's words in
lower case (`summary_key`'s shape). The ledger keeps, per vault, the key of every fact an
import saved to the drafts inbox (and the draft it became), whatever the user then did
with the draft: a fact imported once is not offered again, even when its file changed
around it, and a draft the user discarded stays discarded. It also keeps, per memory
store, when it was last imported and the files it held then, which the session-end
nudge compares with what the store holds now.

One JSON file in the vault's machine-local folder (`lore.paths.state_dir`), written
atomically; nothing here imports more than the standard library, because the
session-end hook reads it (`lore.integrations.nudge`).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

LEDGER_FILE = "imported-memories.json"
FORMAT = 1
_WORD = re.compile(r"[a-z0-9]+")


def fact_key(kind: str, text: str) -> str:
    """`claude-memory|run make check before a change works`: the kind and the fact's words."""
    return f"{kind}|{' '.join(_WORD.findall(text.lower()))}"


def ledger_path(vault_root: Path) -> Path:
    from lore.paths import state_dir

    return state_dir(vault_root) / LEDGER_FILE


def read_ledger(vault_root: Path) -> dict[str, Any]:
    """The ledger, or an empty one (a missing or unreadable file is a fresh start)."""
    try:
        data = json.loads(ledger_path(vault_root).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        data = {}
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        data = {}
    facts = data.get("facts")
    stores = data.get("stores")
    return {
        "format": FORMAT,
        "facts": facts if isinstance(facts, dict) else {},
        "stores": stores if isinstance(stores, dict) else {},
    }


def known_facts(vault_root: Path) -> dict[str, dict[str, Any]]:
    return {k: v for k, v in read_ledger(vault_root)["facts"].items() if isinstance(v, dict)}


def record(
    vault_root: Path,
    facts: dict[str, dict[str, Any]],
    store: str | None = None,
    files: dict[str, float] | None = None,
    when: str = "",
) -> None:
    """Add `facts` (key -> what became of it) and, for `store`, the files it holds now."""
    from lore.files import write_atomic

    ledger = read_ledger(vault_root)
    ledger["facts"].update(facts)
    if store is not None:
        ledger["stores"][store] = {"imported": when, "files": files or {}}
    path = ledger_path(vault_root)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, (json.dumps(ledger, indent=1, sort_keys=True) + "\n").encode("utf-8"))


def store_files(vault_root: Path, store: str) -> dict[str, float] | None:
    """The files (name -> modification time) `store` held at its last import, or None."""
    entry = read_ledger(vault_root)["stores"].get(store)
    if not isinstance(entry, dict) or not isinstance(entry.get("files"), dict):
        return None
    return {k: v for k, v in entry["files"].items() if isinstance(v, (int, float))}
