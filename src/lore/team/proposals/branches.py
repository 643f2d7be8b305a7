"""Proposal branches: what `lore remember` and the change sets of the gardener and drift share.

A proposal is a branch `lore/<name>` cut from the remote's default branch, committed in
a worktree of its own in the vault's state folder, `<git dir>/lore/proposals/<name>/`
(the user's checkout is never touched), with its metadata beside it (`<name>.json`: the
base branch and the command that resumes it). `publish_branch` pushes the branch and
opens the pull request; when either fails, the branch, the worktree and the metadata stay and
`ProposalError` says where the work is kept and which command finishes it. Once the
remote holds the branch, `cleanup` removes the local copies.

Notes are proposed by `lore.team.proposals.note`, change sets by `lore.team.proposals.changes`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lore.errors import GhError, ProposalError, VaultError
from lore.files import write_atomic
from lore.vault import gh, git
from lore.vault.remote import RemoteError, github_repo
from lore.vault.repository import delete_branch, push_branch
from lore.vault.resolved import Vault
from lore.vault.worktree import proposals_dir, remove_worktree

BRANCH_PREFIX = "lore/"
REMOTE = "origin"


@dataclass
class Outcome:
    """What became of a proposal: "opened" (a pull request), "pushed" or "committed"."""

    note_id: str
    branch: str
    status: str
    pr_url: str | None = None
    next_steps: list[str] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.note_id,
            "path": f"notes/{self.note_id}.md",
            "branch": self.branch,
            "status": self.status,
            "pull_request": self.pr_url,
            "next": self.next_steps,
            "notices": self.notices,
        }


# ---- where a proposal starts ----


def check_vault(vault: Vault) -> None:
    """Raise `VaultError` unless the vault is a git repository with a commit to start from."""
    root = vault.root
    if not vault.is_git:
        raise VaultError(
            f"The vault {root} is not a git repository, so a note cannot be proposed.",
            fix="Proposals are pull requests: connect a team vault with `lore connect`, "
            "or create one with `lore init`.",
        )
    if git.head_commit(root, vault.found) is None:
        raise VaultError(f"The vault {root} has no commits yet.", fix="Commit its files first.")


def base_of(where: Vault | Path, remote: str | None) -> tuple[str, str]:
    """(branch name, ref) a proposal starts from and is proposed to: the branch lore
    serves (`[vault] reviewed_branch`, else the remote's default branch) when known."""
    vault = Vault.of(where)
    root = vault.root
    current = git.current_branch(root, vault.found)
    if remote is not None:
        served = vault.reviewed if remote == REMOTE else None
        candidates = [served.branch if served is not None and served.source == "remote" else None]
        candidates.append(git.remote_default_branch(root, remote))
        upstream = git.upstream_of(root, current) if current else None
        if upstream and upstream.startswith(remote + "/"):
            candidates.append(upstream[len(remote) + 1 :])
        candidates += [current, "main", "master"]
        for name in candidates:
            if name and git.ref_exists(root, f"refs/remotes/{remote}/{name}"):
                return name, f"refs/remotes/{remote}/{name}"
    return current or "HEAD", "HEAD"


def taken_names(vault: Vault) -> set[str]:
    """Names a new proposal cannot have: its branch (here or pushed) or folder exists."""
    names: set[str] = set()
    for prefix in (f"refs/heads/{BRANCH_PREFIX}", f"refs/remotes/{REMOTE}/{BRANCH_PREFIX}"):
        names |= {ref.rsplit("/", 1)[-1] for ref in git.list_refs(vault.root, prefix)}
    folder = proposals_dir(vault)
    if folder.is_dir():
        names |= {entry.name for entry in folder.iterdir() if entry.is_dir()}
    return names


# ---- what is kept beside each worktree ----


def _meta_path(vault: Vault, name: str) -> Path:
    return proposals_dir(vault) / f"{name}.json"


def write_meta(vault: Vault, name: str, data: dict[str, Any]) -> None:
    """Record a proposal (`proposals/<name>.json` in the state folder): its base, and how
    to resume it."""
    write_atomic(_meta_path(vault, name), json.dumps(data, indent=2).encode("utf-8"))


def read_meta(vault: Vault, name: str) -> dict[str, Any]:
    try:
        data = json.loads(_meta_path(vault, name).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def resume_command(vault: Vault, name: str) -> str:
    """What finishes the unfinished proposal on `lore/<name>`: its own command, as recorded."""
    recorded = read_meta(vault, name).get("resume")
    return str(recorded) if recorded else f"lore remember --resume {name}"


def cleanup(vault: Vault, name: str, worktree: Path | None) -> None:
    """Remove a proposal's worktree, its local branch and its metadata."""
    if worktree is not None:
        remove_worktree(vault, worktree)
    delete_branch(vault.root, BRANCH_PREFIX + name)
    _meta_path(vault, name).unlink(missing_ok=True)


# ---- publishing: push the branch, open the pull request ----


@dataclass
class PullRequest:
    """What the pull request of a proposal says."""

    title: str
    body: str
    labels: list[str]


_PUSH_HINTS = {
    "rejected": "The remote refused the branch (a protection rule or an existing branch "
    "of that name); check with your vault's admins.",
    "auth": "git could not sign in to the remote: run `gh auth login` (and "
    "`gh auth setup-git`) or check your SSH key.",
    "unreachable": "The remote could not be reached: check the network or the URL "
    "(git -C {root} remote -v).",
    "timeout": "The remote did not answer in time: try again when the network is back.",
}


def publish_branch(
    vault: Vault,
    name: str,
    request: PullRequest,
    *,
    worktree: Path | None,
    base_branch: str,
    what: str,
    kept: str,
    resume: str,
    timeout: float,
    notices: list[str],
    pushed: bool = False,
) -> Outcome:
    """Push `lore/<name>` and open its pull request; clean up once the remote holds it.

    `what` is "note" or "change", `kept` where the work stays when something fails and
    `resume` the command that finishes it. `pushed` says the branch is on the remote
    already (a resume from the remote): then an open pull request is looked up first.
    """
    branch = BRANCH_PREFIX + name
    root = vault.root
    url = git.remote_url(root, REMOTE, vault.found)
    if url is None:
        if worktree is not None:
            remove_worktree(vault, worktree)
        _meta_path(vault, name).unlink(missing_ok=True)
        return Outcome(
            name,
            branch,
            "committed",
            next_steps=[
                f"This vault has no remote: the {what} is committed on the branch {branch}.",
                f"Review it, then merge it: git -C {root} merge {branch}",
            ],
            notices=notices,
        )
    if not pushed:
        try:
            push_branch(root, branch, REMOTE, timeout=timeout, gh=gh.gh_executable())
        except RemoteError as exc:
            hint = _PUSH_HINTS.get(exc.kind, "").format(root=root)
            raise ProposalError(
                f"The {what} is committed on the branch {branch}, but the push to {REMOTE} "
                f"failed: {exc.detail or exc.kind}.",
                fix=f"Nothing is lost (the {what} is in {kept}). {hint} Then run `{resume}`.",
            ) from None
    github = github_repo(url)
    if github is None:
        cleanup(vault, name, worktree)
        return Outcome(
            name,
            branch,
            "pushed",
            next_steps=[
                f"Pushed the branch {branch} to {url}, which is not on GitHub.",
                f"Open a merge request from {branch} into {base_branch} there.",
            ],
            notices=notices,
        )
    compare = f"{github.web_url}/compare/{base_branch}...{branch}?expand=1"
    try:
        existing = gh.pr_for_branch(github.gh_repo, branch) if pushed else None
        pr_url = str(existing["url"]) if existing else None
        if pr_url is None:
            pr_url = gh.pr_create(
                github.gh_repo,
                base=base_branch,
                head=branch,
                title=request.title,
                body=request.body,
                labels=request.labels,
            )
    except GhError as exc:
        raise ProposalError(
            f"The branch {branch} is pushed, but the pull request could not be opened: "
            f"{exc.message}",
            fix=f"{exc.fix or ''} Then run `{resume}` — or open it in the browser: "
            f"{compare}".strip(),
        ) from None
    cleanup(vault, name, worktree)
    return Outcome(name, branch, "opened", pr_url=pr_url, notices=notices)
