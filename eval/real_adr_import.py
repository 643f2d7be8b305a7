"""A repository's ADRs as `lore import adr` makes them: the notes the eval proposes.

The eval has no converter of its own. For each repository of the manifest, its snapshot
is cloned sharing its objects (`git clone --shared --no-checkout`), checked out at the
manifest's commit with only the markdown files of its ADR folders in the work tree (a
sparse checkout: the manifest's folders, not their subfolders, less the files it
skips), and `lore.team.imports.run.plan_import` — what `lore import adr --dry-run`
runs — reads them into a vault that holds only the taxonomy. Its origin is the
repository's GitHub address, so the notes' `source:` links name each ADR's file, as
an import from a team's own clone does.

What comes back (`ImportedRepository`) is each note the import would propose, keyed by
its ADR's file name and sorted in the order the eval proposes them
(`real_adr_manifest.proposal_order`: by number, else date), and each file the import
skipped with its reason. The eval then proposes every note in turn without the
`supersedes` and `## Related` links the import drew from the authors' status lines: a
proposal carries only its ADR's prose, and the curator is asked to find the rest.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from lore.note.model import Note
from lore.note.render import render_note
from lore.team.imports.model import Draft
from lore.team.imports.run import open_vault, plan_import
from real_adr_manifest import proposal_order, snapshot_dir

TAG = "source/adr"
IDENTITY = {
    "GIT_AUTHOR_NAME": "eval",
    "GIT_AUTHOR_EMAIL": "eval@example.invalid",
    "GIT_COMMITTER_NAME": "eval",
    "GIT_COMMITTER_EMAIL": "eval@example.invalid",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_TERMINAL_PROMPT": "0",
}


@dataclass
class ImportedAdr:
    """One ADR as the note the import would propose."""

    file: str  # its file name in the manifest's folders (what the labels name)
    note: Note  # id, title, date, ... as `lore import adr` made them
    draft: Draft

    @property
    def id(self) -> str:
        return self.note.id

    @property
    def date(self) -> str:
        return self.note.date

    def text(self, supersedes: tuple[str, ...] = ()) -> str:
        """The note's file: the import's own, without its `## Related` links, and with
        `supersedes` set to the given ids (none for a proposal)."""
        return render_note(replace(self.note, supersedes=supersedes, body=self.draft.body([])))


@dataclass
class ImportedRepository:
    repository: dict[str, Any]
    adrs: list[ImportedAdr]  # in the order the eval proposes them
    skipped: dict[str, str] = field(default_factory=dict)  # file name -> the import's reason

    def by_file(self) -> dict[str, ImportedAdr]:
        return {adr.file: adr for adr in self.adrs}


def taxonomy(*scopes: str) -> str:
    """The eval vault's taxonomy: one `decision` type, a repo per scope, the `source/adr` tag."""
    repos = "".join(
        f"- `{scope}` — The repository the decisions were taken for.\n" for scope in scopes
    )
    return (
        "# Taxonomy\n\n## Types\n- `decision` — A choice the team made, and why.\n\n"
        f"## Repos\n{repos}\n"
        "## source\n- `source/adr` — Imported from an architecture decision record.\n"
    )


def git(cwd: Path, *args: str, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        ["git", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, **IDENTITY, **(env or {})},
    )
    return done.stdout


def adr_folders(repository: dict[str, Any]) -> list[str]:
    """The repository's ADR folders: `folder`, then any `folders` read with it as one set."""
    return [repository["folder"], *repository.get("folders", [])]


def checkout(mirrors: Path, repository: dict[str, Any], scratch: Path) -> Path | str:
    """A clone of the snapshot at the manifest's commit, holding only the markdown files of
    the ADR folders (less `skip`); or why it cannot be made."""
    name, commit = repository["name"], repository["commit"]
    snapshot = snapshot_dir(mirrors, name)
    if not snapshot.is_dir():
        return f"no snapshot at {snapshot} (eval/fetch_adr_snapshots.py fetches it)"
    probe = subprocess.run(
        ["git", f"--git-dir={snapshot}", "cat-file", "-e", f"{commit}^{{commit}}"],
        capture_output=True,
        check=False,
    )
    if probe.returncode:
        return f"commit {commit} is not in {snapshot} (eval/fetch_adr_snapshots.py fetches it)"
    clone = scratch / name.replace("/", "+")
    git(scratch, "clone", "-q", "--shared", "--no-checkout", str(snapshot), str(clone))
    git(clone, "remote", "set-url", "origin", f"https://github.com/{name}.git")
    skip = set(repository.get("skip", []))
    patterns = [f"/{folder}/*.md" if folder else "/*.md" for folder in adr_folders(repository)]
    patterns += [
        f"!/{folder}/{file}" if folder else f"!/{file}"
        for folder in adr_folders(repository)
        for file in sorted(skip)
    ]
    git(clone, "sparse-checkout", "set", "--no-cone", *patterns)
    git(clone, "checkout", "-q", "--detach", commit)
    return clone


def make_vault(root: Path, scope: str, settings: str = "") -> None:
    """The eval's vault: the taxonomy (and `lore.toml` when given), one commit."""
    root.mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    (root / "notes").mkdir()
    (root / "notes" / ".gitkeep").write_text("", encoding="utf-8")
    (root / "_taxonomy.md").write_text(taxonomy(scope), encoding="utf-8")
    if settings:
        (root / "lore.toml").write_text(settings, encoding="utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "vault")


def import_repository(
    mirrors: Path, repository: dict[str, Any], scratch: Path, vault: Path
) -> ImportedRepository | str:
    """What `lore import adr` proposes from the repository's ADR folders, into `vault`
    (a vault made by `make_vault`, still empty), in the eval's order; or why not."""
    clone = checkout(mirrors, repository, scratch)
    if isinstance(clone, str):
        return clone
    listed = adr_folders(repository)
    # The import walks a folder and its subfolders: a listed folder inside another listed
    # one is read with it (the sparse checkout holds nothing else).
    tops = [
        folder
        for folder in listed
        if not any(
            other != folder and folder.startswith(f"{other}/" if other else "") for other in listed
        )
    ]
    folders = [clone / folder if folder else clone for folder in tops]
    missing = [str(f) for f in folders if not f.is_dir()]
    if missing:
        return f"no folder {missing[0]} at {repository['commit']}"
    plan = plan_import(
        open_vault(vault),
        "adr",
        folders,
        repo=repository["scope"],
        tags=[TAG],
        author_lookup=lambda root, github: None,
    )
    adrs = [
        ImportedAdr(Path(candidate.draft.source).name, candidate.note, candidate.draft)
        for candidate in plan.candidates
    ]
    adrs.sort(key=lambda adr: proposal_order(adr.file, adr.date))
    skipped = {Path(skip.source).name: skip.reason for skip in plan.skipped}
    return ImportedRepository(repository, adrs, skipped)
