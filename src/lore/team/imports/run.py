"""`plan_import`: read a source kind into a checked batch, against the vault it will join.

The vault is fetched first (offline, the last fetched state serves) and read at the
commit a proposal would start from (`lore.team.imports.vault_view`); the reader of the
kind turns the paths into drafts, with the vault's taxonomy, body limit and the user's
`--repo`/`--tag`; `lore.team.imports.batch` then decides what is proposed. The CLI
shows the plan, lets the user review it and calls `lore.team.imports.propose`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from lore.errors import UsageError
from lore.team.imports.batch import plan_batch
from lore.team.imports.kinds import KINDS, MEMORY_KINDS
from lore.team.imports.memory_ledger import known_facts
from lore.team.imports.memory_stores import AGENT_NAME, default_store
from lore.team.imports.model import Draft, ImportPlan, Progress, ReadOptions, Skip
from lore.team.imports.tagging import Tagger
from lore.team.imports.vault_view import VaultView, read_view
from lore.team.imports.walk import real_start
from lore.team.proposals.branches import check_vault
from lore.team.proposals.changes import start_change
from lore.team.proposals.note import find_author
from lore.vault import git
from lore.vault.remote import NETWORK_TIMEOUT, GitHubRepo, github_repo
from lore.vault.resolved import Vault

Reader = Callable[[list[Path], ReadOptions], tuple[list[Draft], list[Skip]]]
MISSING_STORE = {
    "claude-memory": "Run it inside the repository whose memories you want, or give the "
    "memory folder: lore import claude-memory ~/.claude/projects/<project>/memory",
    "gemini-memory": "Gemini CLI writes there when it saves a memory (save_memory); give "
    "the file if yours is elsewhere: lore import gemini-memory PATH/GEMINI.md",
    "codex-memory": "Codex keeps memories only with `[features] memories = true` in "
    "~/.codex/config.toml; give the folder if yours is elsewhere: lore import codex-memory "
    "PATH/memories",
}
BODY_ROOM = 20  # words kept free under `max_body_words` (the body's headings and links)
MAX_WORDS = 200  # the conventions' aim, when the vault allows more


def reader_for(kind: str) -> Reader:
    if kind == "adr":
        from lore.team.imports.adr import read_adrs

        return read_adrs
    if kind == "agents-md":
        from lore.team.imports.agents_md import read_agent_files

        return read_agent_files
    if kind == "foldcrumbs":
        from lore.team.imports.foldcrumbs import read_foldcrumbs

        return read_foldcrumbs
    if kind == "basic-memory":
        from lore.team.imports.basic_memory import read_basic_memory

        return read_basic_memory
    if kind == "claude-memory":
        from lore.team.imports.claude_memory import read_claude_memory

        return read_claude_memory
    if kind == "gemini-memory":
        from lore.team.imports.gemini_memory import read_gemini_memory

        return read_gemini_memory
    if kind == "codex-memory":
        from lore.team.imports.codex_memory import read_codex_memory

        return read_codex_memory
    raise UsageError(
        f"'{kind}' is not a kind of import.", fix="Use one of: " + ", ".join(KINDS) + "."
    )


def open_vault(root: Path, *, timeout: float = NETWORK_TIMEOUT) -> VaultView:
    """The vault as a proposal would start from it, after a fetch."""
    vault = Vault.of(root)
    check_vault(vault)
    base_branch, base_ref = start_change(vault, timeout=timeout)
    return read_view(vault.root, base_branch, base_ref)


def plan_import(
    view: VaultView,
    kind: str,
    paths: list[Path],
    *,
    repo: str | None = None,
    tags: list[str] | None = None,
    progress: Progress | None = None,
    author_lookup: Callable[[Path, GitHubRepo | None], str | None] = find_author,
) -> ImportPlan:
    """Read `paths` as `kind` and check the batch against `view`."""
    reader = reader_for(kind)
    given = [tag.strip().lower() for tag in tags or [] if tag.strip()]
    known = set(view.taxonomy.tags) if view.taxonomy is not None else set()
    unknown = [tag for tag in given if tag not in known]
    if unknown:
        raise UsageError(
            f"--tag {unknown[0]} is not in the vault's _taxonomy.md.",
            fix="Use a tag listed in _taxonomy.md, or add it there in a pull request first.",
        )
    if not paths and kind in MEMORY_KINDS:
        paths = [default_store(kind, Path.cwd())]
        if not paths[0].exists():
            raise UsageError(
                f"{AGENT_NAME[kind]} keeps no memory at {paths[0]} (its documented place"
                f"{' for this repository' if kind == 'claude-memory' else ''}).",
                fix=MISSING_STORE[kind],
            )
    for path in paths:
        if not path.exists():
            raise UsageError(
                f"{path}: no such file or folder.", fix="Give the folders to import from."
            )
    starts = [real_start(path) for path in paths]  # a link out of its repository is refused
    options = ReadOptions(
        tagger=Tagger(view.taxonomy),
        max_words=min(MAX_WORDS, view.max_body_words - BODY_ROOM),
        max_title=view.max_title_chars,
        repo=repo,
        tags=given,
        types=frozenset(view.taxonomy.types) if view.taxonomy is not None else frozenset(),
        progress=progress,
        known_facts=known_facts(view.root) if kind in MEMORY_KINDS else {},
    )
    drafts, skipped = reader(starts, options)
    author = author_lookup(view.root, github_repo(git.remote_url(view.root)))
    plan = plan_batch(
        view,
        kind,
        drafts,
        skipped,
        author=author,
        merge_repos=kind == "agents-md",
        progress=progress,
    )
    plan.sources = starts
    return plan
