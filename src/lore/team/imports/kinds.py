"""The kinds of `lore import`, in one place: the command line lists them without importing
the importers (this module imports nothing)."""

from __future__ import annotations

MEMORY_KINDS = ("claude-memory", "gemini-memory", "codex-memory")  # to the drafts inbox
KINDS = ("adr", "agents-md", "foldcrumbs", "basic-memory", *MEMORY_KINDS)
REVIEWED = ("agents-md", "foldcrumbs", "basic-memory")  # each candidate is shown and kept or not
# The agent (as lore.integrations.agents names it) whose private memory each kind reads.
AGENT_OF_KIND = {
    "claude-memory": "claude-code",
    "gemini-memory": "gemini-cli",
    "codex-memory": "codex",
}
KIND_OF_AGENT = {agent: kind for kind, agent in AGENT_OF_KIND.items()}
