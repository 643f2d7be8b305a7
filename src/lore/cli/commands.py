"""The commands of `lore`: each one's module and its line in `lore --help`.

Read by the entry point (`main`) to build the parser and by the crash report
(`crash`) to tell a command name from a value it must not log.
"""

from __future__ import annotations

# command name -> (module, one-line help). Order is the order of `lore --help`.
COMMANDS: dict[str, tuple[str, str]] = {
    "recall": ("lore.cli.recall_cmd", "find the notes that answer a question, ranked"),
    "show": ("lore.cli.show_cmd", "print one note by id"),
    "index": ("lore.cli.index_cmd", "show the local index's state, or rebuild it"),
    "demo": ("lore.cli.demo_cmd", "create a demo vault and run a few recalls in it"),
    "curate": ("lore.cli.curate_cmd", "review notes: taxonomy, conventions, secrets, injection"),
    "taxonomy": ("lore.cli.taxonomy_cmd", "the vault's types, tags and repos (--json for agents)"),
    "hook": ("lore.cli.hook_cmd", "agent hook entry point: the session digest, prompt recall"),
    "install": ("lore.cli.install_cmd", "connect an agent: hooks, skills and the MCP server"),
    "uninstall": ("lore.cli.install_cmd", "remove what `lore install` added to an agent"),
    "mcp": ("lore.cli.mcp_cmd", "run the MCP server over stdio: recall, read and propose notes"),
    "remember": ("lore.cli.remember_cmd", "draft a note, check it, propose it as a pull request"),
    "import": ("lore.cli.import_cmd", "bring ADRs, agent files and other memory tools' notes in"),
    "proposals": ("lore.cli.proposals_cmd", "list open proposals and the curator's verdict"),
    "drafts": ("lore.cli.drafts_cmd", "the local inbox of checked notes not yet proposed"),
    "capture": ("lore.cli.capture_cmd", "distil an agent session log into draft notes (a model)"),
    "drift": ("lore.cli.drift_cmd", "find notes whose files changed in a code repository"),
    "sync": ("lore.cli.sync_cmd", "fetch and fast-forward every vault, refresh its index"),
    "init": ("lore.cli.init_cmd", "create a new vault from the template (optionally on GitHub)"),
    "connect": ("lore.cli.connect_cmd", "clone an existing vault, register it and index it"),
    "vaults": ("lore.cli.vaults_cmd", "list the registered vaults and their state"),
    "doctor": ("lore.cli.doctor_cmd", "print resolved paths, tool versions and what to fix"),
    "garden": ("lore.cli.garden_cmd", "audit the vault and propose one cleanup pull request"),
    "review": ("lore.cli.review_cmd", "review memory PRs: findings, similar notes, merge"),
    "stats": ("lore.cli.stats_cmd", "the vault in numbers: types, authors, growth, staleness"),
}
