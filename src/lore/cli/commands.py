"""The commands of `lore`: each one's module, its group and its line in `lore --help`.

Read by the entry point (`main`) to build the parser and the grouped `lore --help`, by
the crash report (`crash`) to tell a command name from a value it must not log, and by
`lore completion` for the shells.

A new command is one row: `"name": (module, GROUP, "one-line help")`, where GROUP is
one of `GROUPS` — the order a team meets the commands in. Within a group, `lore
--help` lists them in the order of this table.
"""

from __future__ import annotations

SETUP, DAILY, REVIEW, KEEP, AGENTS = "setup", "daily", "review", "keep", "agents"

# group -> its heading in `lore --help`, in the order a team meets them.
GROUPS: dict[str, str] = {
    SETUP: "set up (once per team, once per person)",
    DAILY: "every day",
    REVIEW: "review what is proposed",
    KEEP: "keep the vault true",
    AGENTS: "run by your agents (hooks and MCP clients)",
}

# command name -> (module, group, one-line help).
COMMANDS: dict[str, tuple[str, str, str]] = {
    "recall": ("lore.cli.recall_cmd", DAILY, "find the notes that answer a question, ranked"),
    "show": ("lore.cli.show_cmd", DAILY, "print one note by id"),
    "index": ("lore.cli.index_cmd", KEEP, "show the local index's state, or rebuild it"),
    "demo": ("lore.cli.demo_cmd", SETUP, "create a demo vault and run a few recalls in it"),
    "curate": (
        "lore.cli.curate_cmd",
        REVIEW,
        "review notes: taxonomy, conventions, secrets, injection",
    ),
    "taxonomy": (
        "lore.cli.taxonomy_cmd",
        DAILY,
        "the vault's types, tags and repos (--json for agents)",
    ),
    "hook": (
        "lore.cli.hook_cmd",
        AGENTS,
        "agent hook entry point: the session digest, prompt recall",
    ),
    "install": (
        "lore.cli.install_cmd",
        SETUP,
        "connect an agent: hooks, skills and the MCP server",
    ),
    "uninstall": ("lore.cli.install_cmd", SETUP, "remove what `lore install` added to an agent"),
    "mcp": (
        "lore.cli.mcp_cmd",
        AGENTS,
        "run the MCP server over stdio: recall, read and propose notes",
    ),
    "remember": (
        "lore.cli.remember_cmd",
        DAILY,
        "draft a note, check it, propose it as a pull request",
    ),
    "import": (
        "lore.cli.import_cmd",
        SETUP,
        "bring ADRs, agent files and other memory tools' notes in",
    ),
    "proposals": (
        "lore.cli.proposals_cmd",
        REVIEW,
        "list open proposals and the curator's verdict",
    ),
    "drafts": ("lore.cli.drafts_cmd", DAILY, "the local inbox of checked notes not yet proposed"),
    "capture": (
        "lore.cli.capture_cmd",
        DAILY,
        "distil an agent session log into draft notes (a model)",
    ),
    "drift": ("lore.cli.drift_cmd", KEEP, "find notes whose files changed in a code repository"),
    "sync": ("lore.cli.sync_cmd", DAILY, "fetch and fast-forward every vault, refresh its index"),
    "init": (
        "lore.cli.init_cmd",
        SETUP,
        "create a new vault from the template (optionally on GitHub)",
    ),
    "connect": ("lore.cli.connect_cmd", SETUP, "clone an existing vault, register it and index it"),
    "vaults": ("lore.cli.vaults_cmd", SETUP, "list the registered vaults and their state"),
    "doctor": ("lore.cli.doctor_cmd", SETUP, "print resolved paths, tool versions and what to fix"),
    "garden": ("lore.cli.garden_cmd", KEEP, "audit the vault and propose one cleanup pull request"),
    "review": ("lore.cli.review_cmd", REVIEW, "review memory PRs: findings, similar notes, merge"),
    "stats": (
        "lore.cli.stats_cmd",
        KEEP,
        "the vault in numbers: types, authors, growth, staleness",
    ),
    "site": (
        "lore.cli.site_cmd",
        KEEP,
        "a static website of the reviewed notes: pulse, map, search",
    ),
    "completion": (
        "lore.cli.completion_cmd",
        SETUP,
        "print a shell completion script: bash, zsh or fish",
    ),
}
