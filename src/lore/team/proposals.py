"""Proposals: a note becomes a branch, a commit, a push and a pull request (`lore remember`).

`start_proposal` fills in the author and a unique id, creates the branch
`lore/<id>` from the remote's default branch in a worktree of its own under
`<vault>/.lore/proposals/<id>/` (the user's checkout is never touched), and runs the
curator's rules on the draft there — the same registry CI runs. The caller shows the
result and asks; then `submit` writes and commits the note, pushes the branch and
opens the pull request with `gh`, or `discard` removes the worktree and branch.

Nothing the user wrote is lost: when a commit, a push or the pull request fails,
the worktree, the branch and the note stay, and `ProposalError` says how to finish
with `resume` (`lore remember --resume <id>`). A note with a secret is never
committed or pushed, whatever the flags.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lore.curator.finding import Finding
from lore.curator.run import curate
from lore.errors import GhError, GitError, ProposalError, UsageError, VaultError
from lore.files import FileLock, LockTimeout, write_atomic
from lore.note.ids import is_valid_id
from lore.note.model import Note, is_github_handle
from lore.note.parse import parse_note
from lore.note.render import render_note
from lore.paths import INDEX_DIR
from lore.team.draft import NoteInput, build_note, with_unique_id
from lore.team.pr_body import pr_body, pr_labels, pr_title
from lore.vault import gh, git
from lore.vault.remote import NETWORK_TIMEOUT, GitHubRepo, RemoteError, github_repo, push_branch
from lore.vault.remote import fetch as fetch_remote
from lore.vault.worktree import (
    add_worktree,
    checkout_worktree,
    commit_files,
    delete_branch,
    has_changes,
    proposals_dir,
    remove_worktree,
    worktrees,
)

BRANCH_PREFIX = "lore/"
REMOTE = "origin"
LOCK_FILE = "remember.lock"
LOCK_TIMEOUT = 120.0


@dataclass
class Proposal:
    """A drafted note on its own branch and worktree, checked but not yet committed."""

    root: Path
    note: Note
    text: str
    branch: str
    worktree: Path
    base_branch: str
    base_ref: str
    remote: str | None
    github: GitHubRepo | None
    findings: list[Finding]
    preview: str
    agent: str | None = None
    notices: list[str] = field(default_factory=list)

    @property
    def secrets(self) -> list[Finding]:
        return [f for f in self.findings if f.family == "secret"]

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.is_error]

    @property
    def display_text(self) -> str:
        """The file as it will be proposed — with any secret masked, since it will not be."""
        if not self.secrets:
            return self.text
        from lore.curator.secrets import redact, scan_secrets

        return redact(self.text, {match.value for match in scan_secrets(self.text)})


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


# ---- who and where ----


def find_author(root: Path, github: GitHubRepo | None) -> str | None:
    """The author's GitHub handle from `gh api user`, else git's `github.user` or `user.name`.

    Only a value that is a GitHub handle is used (a `user.name` like "Ada Lovelace" is
    not): otherwise the note has no author, which the note format allows.
    """
    if github is not None:
        login = gh.current_login(github.host)
        if login:
            return login
    for key in ("github.user", "user.name"):
        value = git.config_value(root, key)
        if value and is_github_handle(value):
            return value
    return None


def _identity(root: Path, author: str | None) -> tuple[str, str] | None:
    """A commit identity when git has none: the GitHub handle and its no-reply address."""
    if git.config_value(root, "user.email") or not author or " " in author:
        return None
    return author, f"{author}@users.noreply.github.com"


def base_of(root: Path, remote: str | None) -> tuple[str, str]:
    """(branch name, ref) a proposal starts from: the remote's default branch when known."""
    current = git.current_branch(root)
    if remote is not None:
        candidates = [git.remote_default_branch(root, remote)]
        upstream = git.upstream_of(root, current) if current else None
        if upstream and upstream.startswith(remote + "/"):
            candidates.append(upstream[len(remote) + 1 :])
        candidates += [current, "main", "master"]
        for name in candidates:
            if name and git.ref_exists(root, f"refs/remotes/{remote}/{name}"):
                return name, f"refs/remotes/{remote}/{name}"
    return current or "HEAD", "HEAD"


def _taken_ids(root: Path, base_ref: str) -> set[str]:
    ids: set[str] = set()
    for ref in {base_ref, "HEAD"}:
        commit = git.resolve_commit(root, ref)
        if commit:
            ids |= {
                path.rsplit("/", 1)[-1].removesuffix(".md")
                for path in git.list_tree(root, commit, "notes")
            }
    for prefix in (f"refs/heads/{BRANCH_PREFIX}", f"refs/remotes/{REMOTE}/{BRANCH_PREFIX}"):
        ids |= {name.rsplit("/", 1)[-1] for name in git.list_refs(root, prefix)}
    folder = proposals_dir(root)
    if folder.is_dir():
        ids |= {entry.name for entry in folder.iterdir() if entry.is_dir()}
    return ids


def _check_vault(root: Path) -> None:
    if not git.is_git_work_tree(root):
        raise VaultError(
            f"The vault {root} is not a git repository, so a note cannot be proposed.",
            fix="Proposals are pull requests: connect a team vault with `lore connect`, "
            "or create one with `lore init`.",
        )
    if git.head_commit(root) is None:
        raise VaultError(f"The vault {root} has no commits yet.", fix="Commit its files first.")


def _meta_path(root: Path, note_id: str) -> Path:
    return proposals_dir(root) / f"{note_id}.json"


def _write_meta(root: Path, proposal_id: str, data: dict[str, Any]) -> None:
    write_atomic(_meta_path(root, proposal_id), json.dumps(data, indent=2).encode("utf-8"))


def _read_meta(root: Path, note_id: str) -> dict[str, Any]:
    try:
        data = json.loads(_meta_path(root, note_id).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def resume_command(root: Path, name: str) -> str:
    """What finishes the unfinished proposal on `lore/<name>`: its own command, as recorded."""
    recorded = _read_meta(root, name).get("resume")
    return str(recorded) if recorded else f"lore remember --resume {name}"


# ---- the steps ----


def start_proposal(
    root: Path,
    data: NoteInput,
    *,
    timeout: float = NETWORK_TIMEOUT,
    author_lookup: Callable[[Path, GitHubRepo | None], str | None] = find_author,
) -> Proposal:
    """Draft the note on a new branch and worktree and run the curator's rules on it."""
    root = root.resolve()
    _check_vault(root)
    url = git.remote_url(root, REMOTE)
    remote = REMOTE if url else None
    github = github_repo(url)
    author = data.author or author_lookup(root, github)
    note = build_note(data, author=author)
    notices: list[str] = []
    lock = FileLock(root / INDEX_DIR / LOCK_FILE, timeout=LOCK_TIMEOUT)
    try:
        lock.acquire()
    except LockTimeout:
        raise ProposalError(
            "Another `lore remember` has held this vault's proposal lock for two minutes.",
            fix="Wait for it to finish, then run the command again.",
        ) from None
    try:
        if remote is not None:
            try:
                fetch_remote(root, remote, timeout=timeout, gh=gh.gh_executable())
            except RemoteError as exc:
                notices.append(
                    f"Could not fetch {remote} ({exc.detail or exc.kind}); the proposal starts "
                    "from the last fetched state of its default branch."
                )
        base_branch, base_ref = base_of(root, remote)
        note = with_unique_id(note, _taken_ids(root, base_ref).__contains__, keep=bool(data.id))
        branch = BRANCH_PREFIX + note.id
        worktree = proposals_dir(root) / note.id
        add_worktree(root, worktree, branch, base_ref)
        _write_meta(
            root,
            note.id,
            {
                "id": note.id,
                "branch": branch,
                "base_branch": base_branch,
                "agent": data.agent or None,
                "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            },
        )
    finally:
        lock.release()
    text = render_note(note)
    try:
        result = curate(worktree, drafts={note.path: text.encode("utf-8")})
    except BaseException:
        _cleanup(root, note.id, branch, worktree)
        raise
    return Proposal(
        root=root,
        note=note,
        text=text,
        branch=branch,
        worktree=worktree,
        base_branch=base_branch,
        base_ref=base_ref,
        remote=remote,
        github=github,
        findings=result.findings,
        preview=result.previews.get(note.path, ""),
        agent=data.agent or None,
        notices=notices,
    )


def discard(proposal: Proposal) -> None:
    """Remove a proposal that was never committed: its worktree, branch and metadata."""
    _cleanup(proposal.root, proposal.note.id, proposal.branch, proposal.worktree)


def _cleanup(root: Path, note_id: str, branch: str, worktree: Path | None) -> None:
    if worktree is not None:
        remove_worktree(root, worktree)
    delete_branch(root, branch)
    _meta_path(root, note_id).unlink(missing_ok=True)


def _blocked(findings: list[Finding], force: bool, kept: str | None) -> ProposalError | None:
    secrets = [f for f in findings if f.family == "secret" and f.is_error]
    errors = [f for f in findings if f.is_error]
    where = f" The note is kept in {kept}." if kept else ""
    if secrets:
        first = secrets[0]
        line = f" on line {first.line}" if first.line else ""
        return ProposalError(
            f"The note contains what looks like a secret ({first.rule}{line}): nothing was "
            f"committed or pushed.{where}",
            fix="Remove the secret (and rotate it if it was real), then propose again. The "
            "secret scan cannot be overridden.",
        )
    if errors and not force:
        return ProposalError(
            f"The curator found {len(errors)} error(s), so nothing was proposed.{where}",
            fix="Fix them and propose again; or add --force to propose anyway (the pull "
            "request's curator check will fail the same way).",
        )
    return None


def submit(proposal: Proposal, *, force: bool = False, timeout: float = NETWORK_TIMEOUT) -> Outcome:
    """Commit the note on its branch, push it and open the pull request."""
    blocked = _blocked(proposal.findings, force, None)
    if blocked is not None:
        discard(proposal)
        raise blocked
    note_file = proposal.worktree / proposal.note.path
    write_atomic(note_file, proposal.text.encode("utf-8"))
    try:
        commit_files(
            proposal.worktree,
            [proposal.note.path],
            f"lore: {proposal.note.title}\n\nProposes {proposal.note.path}.",
            identity=_identity(proposal.root, proposal.note.author),
        )
    except GitError as exc:
        raise ProposalError(
            f"The note is written to {note_file} but could not be committed: {exc.message}",
            fix=f"{exc.fix or ''} Then run `lore remember --resume {proposal.note.id}`.".strip(),
        ) from None
    return _publish(
        proposal.root,
        proposal.note,
        proposal.text,
        proposal.preview,
        proposal.findings,
        worktree=proposal.worktree,
        base_branch=proposal.base_branch,
        agent=proposal.agent,
        forced=force and bool(proposal.errors),
        timeout=timeout,
        notices=proposal.notices,
    )


def _publish(
    root: Path,
    note: Note,
    text: str,
    preview: str,
    findings: list[Finding],
    *,
    worktree: Path | None,
    base_branch: str,
    agent: str | None,
    forced: bool,
    timeout: float,
    notices: list[str],
) -> Outcome:
    branch = BRANCH_PREFIX + note.id
    url = git.remote_url(root, REMOTE)
    kept = f"{worktree / note.path}" if worktree is not None else f"the branch {branch}"
    resume = f"lore remember --resume {note.id}"
    if url is None:
        if worktree is not None:
            remove_worktree(root, worktree)
        _meta_path(root, note.id).unlink(missing_ok=True)
        return Outcome(
            note.id,
            branch,
            "committed",
            next_steps=[
                f"This vault has no remote: the note is committed on the branch {branch}.",
                f"Review it, then merge it: git -C {root} merge {branch}",
            ],
            notices=notices,
        )
    try:
        if worktree is not None:  # without one, the branch is on the remote already
            push_branch(root, branch, REMOTE, timeout=timeout, gh=gh.gh_executable())
    except RemoteError as exc:
        hints = {
            "rejected": "The remote refused the branch (a protection rule or an existing branch "
            "of that name); check with your vault's admins.",
            "auth": "git could not sign in to the remote: run `gh auth login` (and "
            "`gh auth setup-git`) or check your SSH key.",
            "unreachable": "The remote could not be reached: check the network or the URL "
            f"(git -C {root} remote -v).",
            "timeout": "The remote did not answer in time: try again when the network is back.",
        }
        raise ProposalError(
            f"The note is committed on the branch {branch}, but the push to {REMOTE} failed: "
            f"{exc.detail or exc.kind}.",
            fix=f"Nothing is lost (the note is in {kept}). {hints.get(exc.kind, '')} "
            f"Then run `{resume}`.",
        ) from None
    github = github_repo(url)
    if github is None:
        _finish(root, note.id, branch, worktree)
        return Outcome(
            note.id,
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
        existing = gh.pr_for_branch(github.gh_repo, branch) if worktree is None else None
        pr_url = str(existing["url"]) if existing else None
        if pr_url is None:
            pr_url = gh.pr_create(
                github.gh_repo,
                base=base_branch,
                head=branch,
                title=pr_title(note),
                body=pr_body(note, text, preview, findings, agent=agent, forced=forced),
                labels=pr_labels(agent),
            )
    except GhError as exc:
        raise ProposalError(
            f"The branch {branch} is pushed, but the pull request could not be opened: "
            f"{exc.message}",
            fix=f"{exc.fix or ''} Then run `{resume}` — or open it in the browser: "
            f"{compare}".strip(),
        ) from None
    _finish(root, note.id, branch, worktree)
    return Outcome(note.id, branch, "opened", pr_url=pr_url, notices=notices)


def _finish(root: Path, note_id: str, branch: str, worktree: Path | None) -> None:
    """After a successful push: the pull request (or the remote branch) holds the note."""
    _cleanup(root, note_id, branch, worktree)


def resume(
    root: Path, note_id: str, *, force: bool = False, timeout: float = NETWORK_TIMEOUT
) -> Outcome:
    """Finish a proposal that stopped: commit what is left, push, open the pull request."""
    root = root.resolve()
    _check_vault(root)
    if not is_valid_id(note_id):
        raise UsageError(f"'{note_id}' is not a note id.", fix="`lore proposals` lists them.")
    branch = BRANCH_PREFIX + note_id
    path = f"notes/{note_id}.md"
    meta = _read_meta(root, note_id)
    base_branch = str(meta.get("base_branch") or base_of(root, REMOTE)[0])
    agent = meta.get("agent") or None
    if not git.ref_exists(root, f"refs/heads/{branch}"):
        remote_ref = f"refs/remotes/{REMOTE}/{branch}"
        raw = git.read_file_at(root, remote_ref, path) if git.ref_exists(root, remote_ref) else None
        if raw is None:
            raise UsageError(
                f"There is no unfinished proposal {note_id} in {root}.",
                fix="`lore proposals` lists the proposals and their state.",
            )
        note = parse_note(raw, path)
        return _publish(
            root,
            note,
            raw.decode("utf-8"),
            "",
            [],
            worktree=None,
            base_branch=base_branch,
            agent=agent,
            forced=False,
            timeout=timeout,
            notices=[],
        )
    worktree = worktrees(root).get(branch)
    if worktree is None or not worktree.is_dir():  # gone with `.lore/`: the branch has it
        if worktree is not None:
            remove_worktree(root, worktree)
        worktree = proposals_dir(root) / note_id
        checkout_worktree(root, worktree, branch)
    note_file = worktree / path
    if not note_file.is_file():
        raise ProposalError(
            f"The branch {branch} has no {path}.",
            fix=f"Put the note back in {note_file}, then run `lore remember --resume {note_id}`.",
        )
    if has_changes(worktree, path):
        checked = curate(worktree, paths=[path])
        blocked = _blocked(checked.findings, force, str(note_file))
        if blocked is not None:
            raise blocked
        note = parse_note(note_file.read_bytes(), path)
        commit_files(
            worktree,
            [path],
            f"lore: {note.title}\n\nProposes {path}.",
            identity=_identity(root, note.author),
        )
    base_ref = f"refs/remotes/{REMOTE}/{base_branch}"
    if not git.ref_exists(root, base_ref):
        base_ref = base_branch
    review = curate(worktree, base=base_ref, head="HEAD")
    blocked = _blocked(review.findings, force, str(note_file))
    if blocked is not None:
        raise blocked
    raw = note_file.read_bytes()
    note = parse_note(raw, path)
    return _publish(
        root,
        note,
        raw.decode("utf-8"),
        review.previews.get(path, ""),
        review.findings,
        worktree=worktree,
        base_branch=base_branch,
        agent=agent,
        forced=force and bool([f for f in review.findings if f.is_error]),
        timeout=timeout,
        notices=[],
    )


# ---- a change to several files (the gardener's cleanup) ----


@dataclass
class ChangeSet:
    """Edits to several vault files, proposed together as one pull request.

    `moves` renames files (old path -> new path, with `git mv`, so history follows);
    `writes` then sets the contents of files (paths as they are after the moves).
    """

    name: str  # the branch is `lore/<name>`
    title: str
    body: str
    message: str  # the commit message
    moves: dict[str, str] = field(default_factory=dict)
    writes: dict[str, bytes] = field(default_factory=dict)
    labels: tuple[str, ...] = ("lore",)
    # What to run to finish it after a failed push; `resume_change` does the work.
    resume_command: str | None = None


def start_change(root: Path, *, timeout: float = NETWORK_TIMEOUT) -> tuple[str, str]:
    """Fetch the remote (when there is one); (base branch, base ref) a change starts from."""
    root = root.resolve()
    _check_vault(root)
    remote = REMOTE if git.remote_url(root, REMOTE) else None
    if remote is not None:
        # Offline, the last fetched state of the default branch serves.
        with contextlib.suppress(RemoteError):
            fetch_remote(root, remote, timeout=timeout, gh=gh.gh_executable())
    return base_of(root, remote)


def free_change_name(root: Path, name: str) -> str:
    """`name`, or `name-2`, `name-3`… when a branch or worktree already has it."""
    taken = {ref.rsplit("/", 1)[-1] for ref in git.list_refs(root, f"refs/heads/{BRANCH_PREFIX}")}
    taken |= {
        ref.rsplit("/", 1)[-1]
        for ref in git.list_refs(root, f"refs/remotes/{REMOTE}/{BRANCH_PREFIX}")
    }
    folder = proposals_dir(root)
    if folder.is_dir():
        taken |= {entry.name for entry in folder.iterdir() if entry.is_dir()}
    candidate, number = name, 1
    while candidate in taken:
        number += 1
        candidate = f"{name}-{number}"
    return candidate


def propose_change(
    root: Path,
    change: ChangeSet,
    *,
    base_branch: str,
    base_ref: str,
    timeout: float = NETWORK_TIMEOUT,
) -> Outcome:
    """Commit `change` on `lore/<name>` in a worktree of its own, push it, open the PR.

    The user's checkout is never touched. When the push or the pull request fails, the
    branch and its worktree stay and `ProposalError` names `resume_change` (via the
    command given in the change's metadata).
    """
    root = root.resolve()
    branch = BRANCH_PREFIX + change.name
    worktree = proposals_dir(root) / change.name
    add_worktree(root, worktree, branch, base_ref)
    _write_meta(
        root,
        change.name,
        {
            "id": change.name,
            "branch": branch,
            "base_branch": base_branch,
            "kind": "change",
            "title": change.title,
            "body": change.body,
            "labels": list(change.labels),
            "resume": change.resume_command or f"lore garden --resume {change.name}",
            "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        },
    )
    try:
        for old, new in change.moves.items():
            (worktree / new).parent.mkdir(parents=True, exist_ok=True)
            git.run_git(["mv", "--", old, new], worktree)  # staged as a rename
        for path, data in change.writes.items():
            write_atomic(worktree / path, data)
        # The worktree is fresh, so its index holds this change and nothing else.
        git.run_git(["add", "--", *sorted(change.writes)], worktree)
        git.run_git(["commit", "--quiet", "--no-verify", "-m", change.message], worktree)
    except (GitError, OSError):
        _cleanup(root, change.name, branch, worktree)
        raise
    return _publish_change(root, change.name, worktree=worktree, timeout=timeout)


def resume_change(root: Path, name: str, *, timeout: float = NETWORK_TIMEOUT) -> Outcome:
    """Push a committed change that stopped and open its pull request."""
    root = root.resolve()
    _check_vault(root)
    branch = BRANCH_PREFIX + name
    if not _read_meta(root, name) or not git.ref_exists(root, f"refs/heads/{branch}"):
        raise UsageError(
            f"There is no unfinished change {name} in {root}.",
            fix="`lore proposals` lists the proposals and their state.",
        )
    return _publish_change(root, name, worktree=worktrees(root).get(branch), timeout=timeout)


def _publish_change(root: Path, name: str, *, worktree: Path | None, timeout: float) -> Outcome:
    meta = _read_meta(root, name)
    branch = BRANCH_PREFIX + name
    base_branch = str(meta.get("base_branch") or "main")
    resume_hint = str(meta.get("resume") or f"lore garden --resume {name}")
    url = git.remote_url(root, REMOTE)
    if url is None:
        if worktree is not None:
            remove_worktree(root, worktree)
        _meta_path(root, name).unlink(missing_ok=True)
        return Outcome(
            name,
            branch,
            "committed",
            next_steps=[
                f"This vault has no remote: the change is committed on the branch {branch}.",
                f"Review it, then merge it: git -C {root} merge {branch}",
            ],
        )
    try:
        push_branch(root, branch, REMOTE, timeout=timeout, gh=gh.gh_executable())
    except RemoteError as exc:
        raise ProposalError(
            f"The change is committed on the branch {branch}, but the push to {REMOTE} failed: "
            f"{exc.detail or exc.kind}.",
            fix=f"Nothing is lost (the branch {branch} holds it). Then run `{resume_hint}`.",
        ) from None
    github = github_repo(url)
    if github is None:
        _finish(root, name, branch, worktree)
        return Outcome(
            name,
            branch,
            "pushed",
            next_steps=[f"Open a merge request from {branch} into {base_branch} on {url}."],
        )
    try:
        pr_url = gh.pr_create(
            github.gh_repo,
            base=base_branch,
            head=branch,
            title=str(meta.get("title") or branch),
            body=str(meta.get("body") or ""),
            labels=[str(label) for label in meta.get("labels") or []],
        )
    except GhError as exc:
        raise ProposalError(
            f"The branch {branch} is pushed, but the pull request could not be opened: "
            f"{exc.message}",
            fix=f"{exc.fix or ''} Then run `{resume_hint}`.".strip(),
        ) from None
    _finish(root, name, branch, worktree)
    return Outcome(name, branch, "opened", pr_url=pr_url)
