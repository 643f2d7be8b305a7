"""`lore proposals`: the open proposals of a vault and the curator's verdict on each.

Three sources, merged by branch: the pull requests on GitHub whose branch starts with
`lore/` (through `gh`, with their checks), the `lore/` branches pushed to a remote
that is not GitHub and not merged yet, and the local `lore/` branches that stopped
before their pull request was opened — those need `lore remember --resume` (or
`lore drift --resume`, `lore garden --resume` for the changes those commands propose).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lore.errors import GhError, UsageError
from lore.files import write_atomic
from lore.note.ids import is_valid_id
from lore.note.parse import inspect_note
from lore.paths import lore_home
from lore.sanitize import sanitize_field
from lore.sanitize.secret_scan import mask_secrets
from lore.team.proposals.branches import BRANCH_PREFIX, REMOTE, base_of, cleanup, resume_command
from lore.vault import gh, git
from lore.vault.local_state import check_state_dir
from lore.vault.remote import github_repo
from lore.vault.repository import has_changes
from lore.vault.resolved import Vault
from lore.vault.worktree import worktrees
from lore.versioned import versioned


@dataclass
class ProposalRow:
    id: str
    branch: str
    state: str  # "open", "pushed", "unfinished"
    title: str = ""
    url: str | None = None
    author: str | None = None
    curator: str = "unknown"  # passed, failed, running, no check, unknown
    next_step: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "id": sanitize_field(self.id),
            "branch": sanitize_field(self.branch),
            "state": self.state,
            "title": sanitize_field(self.title),
            "url": self.url,
            "author": None if self.author is None else sanitize_field(self.author),
            "curator": self.curator,
            "next": self.next_step or None,
        }


@dataclass
class ProposalList:
    vault: str
    rows: list[ProposalRow] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "vault": self.vault,
            "proposals": [row.to_json() for row in self.rows],
            "notices": self.notices,
        }


def proposals_json(listings: list[tuple[str, ProposalList]]) -> dict[str, Any]:
    """`lore proposals --json` and the MCP `list_proposals` tool: one entry per vault."""
    return versioned(
        {"vaults": [{"name": name, **listing.to_json()} for name, listing in listings]}
    )


def curator_status(checks: list[dict[str, Any]] | None) -> str:
    """The curator's verdict from a pull request's `statusCheckRollup`."""
    found = [
        check
        for check in checks or []
        if "curat" in str(check.get("name") or check.get("context") or "").lower()
    ]
    if not found:
        return "no check"
    states = {
        str(check.get("conclusion") or check.get("state") or check.get("status") or "").upper()
        for check in found
    }
    if states & {"FAILURE", "ERROR", "TIMED_OUT", "CANCELLED", "ACTION_REQUIRED"}:
        return "failed"
    if states <= {"SUCCESS", "NEUTRAL", "SKIPPED"}:
        return "passed"
    return "running"


def list_proposals(where: Vault | Path) -> ProposalList:
    vault = Vault.of(where)
    root = vault.root
    listing = ProposalList(vault=str(root))
    if not vault.is_git:
        listing.notices.append(f"{root} is not a git repository: it has no proposals.")
        return listing
    check_state_dir(root, vault.state_dir)  # where the proposals are kept: a file hides them
    url = git.remote_url(root, REMOTE, vault.found)
    github = github_repo(url)
    seen: set[str] = set()
    if github is not None:
        try:
            pulls = gh.pr_list(github.gh_repo)
        except GhError as exc:
            listing.notices.append(f"Open pull requests could not be listed: {exc}")
            pulls = []
        for pull in pulls:
            branch = str(pull.get("headRefName") or "")
            if not branch.startswith(BRANCH_PREFIX):
                continue
            seen.add(branch)
            author = pull.get("author") or {}
            listing.rows.append(
                ProposalRow(
                    id=branch[len(BRANCH_PREFIX) :],
                    branch=branch,
                    state="open",
                    title=mask_secrets(str(pull.get("title") or "")),
                    url=str(pull.get("url") or "") or None,
                    author=str(author.get("login") or "") or None,
                    curator=curator_status(pull.get("statusCheckRollup")),
                )
            )
    elif url is not None:
        base_ref = base_of(vault, REMOTE)[1]
        pushed = git.list_refs(root, f"refs/remotes/{REMOTE}/{BRANCH_PREFIX}")
        for ref, commit in sorted(pushed.items()):
            if git.is_ancestor(root, commit, base_ref):
                continue  # merged
            branch = ref[len(f"refs/remotes/{REMOTE}/") :]
            seen.add(branch)
            listing.rows.append(
                ProposalRow(
                    id=branch[len(BRANCH_PREFIX) :],
                    branch=branch,
                    state="pushed",
                    title=_title_at(root, ref, branch[len(BRANCH_PREFIX) :]),
                    next_step=f"Open or review the merge request for {branch} on {url}.",
                )
            )
    trees = worktrees(vault)
    for ref in sorted(git.list_refs(root, f"refs/heads/{BRANCH_PREFIX}")):
        branch = ref[len("refs/heads/") :]
        if branch in seen:
            continue
        note_id = branch[len(BRANCH_PREFIX) :]
        tree = trees.get(branch)
        path = f"notes/{note_id}.md"
        written = tree is not None and (tree / path).is_file()
        title = _title_at(root, ref, note_id)
        if not title and written:
            assert tree is not None
            title = _title_of((tree / path).read_bytes(), path)
        if not written and _holds_nothing(vault, ref, tree):
            # Stopped before the note was written (a closed terminal at "Propose?" in an
            # older lore): there is nothing to finish, only to remove.
            listing.rows.append(
                ProposalRow(
                    id=note_id,
                    branch=branch,
                    state="unfinished",
                    curator="local",
                    next_step=f"never written: remove it with `lore proposals discard {note_id}`",
                )
            )
            continue
        if tree is not None and has_changes(tree, path):
            step = "not committed yet"
        elif url is None:
            step = f"committed locally (no remote): git merge {branch}"
        else:
            step = "not pushed or no pull request yet"
        listing.rows.append(
            ProposalRow(
                id=note_id,
                branch=branch,
                state="unfinished",
                title=title,
                curator="local",
                next_step=f"{step}; finish with `{resume_command(vault, note_id)}`, or "
                f"`lore proposals discard {note_id}`"
                if url is not None
                else step,
            )
        )
    return listing


def _holds_nothing(vault: Vault, ref: str, tree: Path | None) -> bool:
    """The branch has no commit of its own and its worktree no change: nothing to send."""
    root = vault.root
    commit = git.resolve_commit(root, ref)
    base = base_of(vault, REMOTE if git.remote_url(root, REMOTE, vault.found) else None)[1]
    if commit is None or not git.is_ancestor(root, commit, base):
        return False
    return tree is None or not has_changes(tree, ".")


def _title_at(root: Path, ref: str, note_id: str) -> str:
    """The title of the proposal's note as its branch has it, or ""."""
    path = f"notes/{note_id}.md"
    raw = git.read_file_at(root, ref, path)
    return _title_of(raw, path) if raw is not None else ""


def _title_of(raw: bytes, path: str) -> str:
    report = inspect_note(raw, path)
    return mask_secrets(report.note.title) if report.note is not None else ""


def discard_proposal(where: Vault | Path, note_id: str) -> list[str]:
    """`lore proposals discard ID`: remove a proposal that never left this machine — its
    worktree, its local branch and its metadata. A branch already pushed stays on the
    remote (closing its pull request is a decision for GitHub); what to do is returned."""
    vault = Vault.of(where)
    root = vault.root
    if not vault.is_git:
        raise UsageError(f"{root} is not a git repository: it has no proposals.")
    if not is_valid_id(note_id):
        raise UsageError(f"'{note_id}' is not a proposal id.", fix="`lore proposals` lists them.")
    check_state_dir(root, vault.state_dir)
    branch = BRANCH_PREFIX + note_id
    tree = worktrees(vault).get(branch)
    if not git.ref_exists(root, f"refs/heads/{branch}") and tree is None:
        raise UsageError(
            f"There is no local proposal {note_id} in {root}.",
            fix="`lore proposals` lists the proposals; a pushed one is closed on GitHub.",
        )
    path = f"notes/{note_id}.md"
    said = []
    written = tree / path if tree is not None else None
    raw = written.read_bytes() if written is not None and written.is_file() else None
    if raw is None and git.ref_exists(root, f"refs/heads/{branch}"):
        raw = git.read_file_at(root, f"refs/heads/{branch}", path)
    if raw is not None:  # nothing the user wrote is lost: a copy outside the vault
        copy = lore_home() / "discarded" / f"{note_id}.md"
        write_atomic(copy, raw, mode=0o600)
        said.append(f"A copy of the note is kept in {copy}.")
    cleanup(vault, note_id, tree)
    if git.ref_exists(root, f"refs/remotes/{REMOTE}/{branch}"):
        said.append(
            f"{branch} is still on {REMOTE}: close its pull request, or delete it with "
            f"`git push {REMOTE} --delete {branch}`."
        )
    return said
