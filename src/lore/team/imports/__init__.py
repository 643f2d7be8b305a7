"""`lore import`: what a team already knows, brought into the vault as reviewed proposals.

One module per source kind turns files into `Draft`s — a note's fields, where it came
from and what of the source could not be mapped — or `Skip`s with a reason:

- `adr_parse` reads one Architecture Decision Record (Nygard/adr-tools, MADR 2-4,
  log4brains, one folder per ADR) and `adr` walks the folders, resolves supersession
  from either side and makes one draft per ADR;
- `agents_md` finds a repository's agent-instruction files (CLAUDE.md, AGENTS.md,
  GEMINI.md, Copilot's and Cursor's) and splits them into one draft per convention,
  gotcha or runbook, after `agent_rules` dropped what is only about the agent;
- `foldcrumbs` and `basic_memory` read those tools' stores, one memory or entity a draft.

The shared pieces make every kind behave the same: `walk` (the one way to a source's
files: no link followed out of the folder given, files opened with `O_NOFOLLOW`),
`markdown` (sections, items, sentences, without code, tables, images or hidden text),
`tagging` (tags from the vault's taxonomy), `code_repo` (the repository a file is in:
its name, GitHub URL at a commit, the date git first recorded the file), `vault_view`
(what the vault and its open proposals already hold), `batch` (ids, the duplicate
judgement, the curator's findings, the `--dry-run --json` shape) and `propose` (one pull
request for the batch, or one per note). Nothing here prints: `lore.cli.import_cmd`
shows, asks and reports.
"""

from __future__ import annotations
