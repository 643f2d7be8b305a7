"""Proposals: a note becomes a branch, a commit, a push and a pull request (`lore remember`).

`start_proposal` fills in the author and a unique id, creates the branch
`lore/<id>` from the remote's default branch in a worktree of its own in the
vault's state folder (`<git dir>/lore/proposals/<id>/`; the user's checkout is never
touched; only the note's own file is checked out there), and runs the curator's rules on the draft
against that commit — the same registry CI runs, reading the vault through the index.
A dry run stops there and creates no branch or worktree at all. The caller shows the
result and asks; then `submit` writes and commits the note, pushes the branch and
opens the pull request with `gh`, or `discard` removes the worktree and branch.

Nothing the user wrote is lost: when a commit, a push or the pull request fails,
the worktree, the branch and the note stay, and `ProposalError` says how to finish
with `resume` (`lore remember --resume <id>`). A note with a secret is never
committed or pushed, whatever the flags.

The branch, its metadata and publishing (push, pull request, and what to say when
either fails) are `lore.team.proposals.branches`, which the gardener's and drift's change sets
(`lore.team.proposals.changes`) share.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lore.curator.finding import Finding
from lore.curator.run import curate
from lore.curator.target import Drafts, Range
from lore.errors import GitError, LoreError, ProposalError, UsageError
from lore.files import FileLock, LockTimeout, write_atomic
from lore.note.ids import is_valid_id
from lore.note.model import Note, is_author, is_github_handle
from lore.note.parse import parse_note
from lore.note.render import render_note
from lore.taxonomy import TAXONOMY_FILE
from lore.team.drafts.draft import NoteInput, build_note, with_unique_id
from lore.team.proposals.branches import (
    BRANCH_PREFIX,
    REMOTE,
    Outcome,
    PullRequest,
    base_of,
    check_vault,
    cleanup,
    publish_branch,
    read_meta,
    taken_names,
    write_meta,
)
from lore.team.proposals.pr_body import pr_body, pr_labels, pr_title
from lore.vault import gh, git
from lore.vault.local_state import ensure_state_dir
from lore.vault.remote import NETWORK_TIMEOUT, GitHubRepo, RemoteError, github_repo
from lore.vault.remote import fetch as fetch_remote
from lore.vault.repository import commit_paths, has_changes
from lore.vault.resolved import Vault
from lore.vault.worktree import (
    add_worktree,
    check_out_also,
    checkout_worktree,
    proposals_dir,
    remove_worktree,
    worktrees,
)
from lore.versioned import versioned

LOCK_FILE = "remember.lock"
LOCK_TIMEOUT = 120.0


@dataclass
class Proposal:
    """A drafted note on its own branch and worktree, checked but not yet committed."""

    vault: Vault
    note: Note
    text: str
    branch: str
    worktree: Path | None  # None for a dry run: nothing was created
    base_branch: str
    base_ref: str
    remote: str | None
    github: GitHubRepo | None
    findings: list[Finding]
    preview: str
    agent: str | None = None
    notices: list[str] = field(default_factory=list)
    taxonomy: bytes | None = None  # `_taxonomy.md` proposed with the note (`unlisted`)

    @property
    def root(self) -> Path:
        return self.vault.root

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
        from lore.sanitize.secret_scan import redact, scan_secrets

        return redact(self.text, {match.value for match in scan_secrets(self.text)})

    def draft_json(self) -> dict[str, Any]:
        """`lore remember --dry-run --json`: the note as it would be proposed, and findings."""
        return versioned(
            {
                "status": "draft",
                "id": self.note.id,
                "path": self.note.path,
                "text": self.display_text,
                "preview": self.preview,
                "findings": [finding.to_json() for finding in self.findings],
                "notices": self.notices,
            }
        )


def outcome_json(outcome: Outcome, findings: list[Finding]) -> dict[str, Any]:
    """A proposal made (CLI `--json` and the MCP `remember` tool): where it went, findings."""
    return versioned({**outcome.to_json(), "findings": [finding.to_json() for finding in findings]})


def failure_json(error: LoreError, proposal: Proposal | None, status: str) -> dict[str, Any]:
    """A proposal not made: `blocked` (nothing committed) or `failed` (kept; `fix` says how)."""
    data: dict[str, Any] = {"status": status, "error": error.message, "fix": error.fix}
    if proposal is not None:
        data["id"] = proposal.note.id
        data["findings"] = [finding.to_json() for finding in proposal.findings]
    return versioned(data)


# ---- who and where ----


def find_handle(root: Path, github: GitHubRepo | None) -> str | None:
    """The author's GitHub handle: `gh api user`, else git's `github.user`, else a
    `user.name` that is a handle (one like "Ada Lovelace" is not)."""
    if github is not None:
        login = gh.current_login(github.host)
        if login:
            return login
    for key in ("github.user", "user.name"):
        value = git.config_value(root, key)
        if value and is_github_handle(value):
            return value
    return None


def find_author(root: Path, github: GitHubRepo | None) -> str | None:
    """Who wrote the note: the GitHub handle (`find_handle`), else the git identity's name
    ("Ada Lovelace"), so that a note says who wrote it; `author_notice` says where a
    handle would come from."""
    handle = find_handle(root, github)
    if handle:
        return handle
    name = " ".join((git.config_value(root, "user.name") or "").split())
    return name if name and is_author(name) else None


def author_notice(author: str | None) -> str | None:
    """What to tell the user when the note's author is not a GitHub handle."""
    where = (
        "a handle comes from `gh auth login` (the signed-in account) or "
        "`git config --global github.user HANDLE`"
    )
    if author is None:
        return (
            f"No author is recorded: git has no user.name and no GitHub handle is known; {where}."
        )
    if is_github_handle(author):
        return None
    return (
        f"The author is recorded as your git name, '{author}', since no GitHub handle is "
        f"known; {where}."
    )


def default_repo(data: NoteInput, vault: Vault, cwd: Path) -> str | None:
    """Fill in `repo` from the code repository the user stands in, detected as recall
    detects it (`current_repo_name`), when the note names none and the vault's taxonomy
    lists that repository; returns what to tell the user, or None."""
    if data.repo:
        return None
    found = git.find_git_dir(cwd)  # the code repository's, not the vault's
    if found is None or found[0].resolve() == vault.root:
        return None  # not in a repository, or in the vault itself
    name = git.current_repo_name(cwd)
    taxonomy = vault.taxonomy  # as the reviewed branch has it
    if not name or taxonomy is None:
        return None
    repos = taxonomy.repos
    listed = {repo.lower(): repo for repo in repos}
    if name.lower() not in listed:
        return (
            f"You are in the repository '{name}', which _taxonomy.md does not list under "
            "## Repos, so the note is org-wide; list it there, or pass --repo."
        )
    data.repo = [listed[name.lower()]]
    return f"repo: {data.repo[0]} (the repository you are in; --repo NAME says otherwise)."


def _identity(root: Path, author: str | None) -> tuple[str, str] | None:
    """A commit identity when git's config has none: the GitHub handle and its no-reply address."""
    if git.config_value(root, "user.email") or not author or " " in author:
        return None
    return author, f"{author}@users.noreply.github.com"


def _taken_ids(vault: Vault, base_ref: str) -> set[str]:
    root = vault.root
    ids = taken_names(vault)
    commits = {git.resolve_commit(root, ref) for ref in (base_ref, "HEAD")}
    for commit in commits - {None}:
        assert commit is not None
        ids |= {
            path.rsplit("/", 1)[-1].removesuffix(".md")
            for path in git.list_tree(root, commit, "notes")
        }
    return ids


# ---- the steps of `lore remember` ----


def start_proposal(
    where: Vault | Path,
    data: NoteInput,
    *,
    timeout: float = NETWORK_TIMEOUT,
    author_lookup: Callable[[Path, GitHubRepo | None], str | None] = find_author,
    dry_run: bool = False,
    cwd: Path | None = None,
) -> Proposal:
    """Draft the note on a new branch and worktree and run the curator's rules on it.

    `dry_run`: check the draft only; no branch, worktree or metadata is created. `cwd`:
    where the user stands; a note with no `repo` is about the code repository there, as
    recall takes it (`default_repo`). `where`: the vault, resolved once here when given as
    a folder; every step below takes the same `Vault`.
    """
    vault = Vault.of(where)
    root = vault.root
    check_vault(vault)
    ensure_state_dir(root, vault.state_dir)  # its lock and worktree live there
    repo_notice = default_repo(data, vault, cwd) if cwd is not None else None
    url = git.remote_url(root, REMOTE, vault.found)
    remote = REMOTE if url else None
    github = github_repo(url)
    author = data.author or author_lookup(root, github)
    note = build_note(data, author=author)
    notices: list[str] = [repo_notice] if repo_notice else []
    if not data.author:
        said = author_notice(author)
        if said:
            notices.append(said)
    lock = FileLock(vault.state_dir / LOCK_FILE, timeout=LOCK_TIMEOUT)
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
                fetch_remote(root, remote, timeout=timeout, gh=gh.gh_executable(), url=url)
            except RemoteError as exc:
                notices.append(
                    f"Could not fetch {remote} ({exc.detail or exc.kind}); the proposal starts "
                    "from the last fetched state of its default branch."
                )
            vault.refs_moved()
        base_branch, base_ref = base_of(vault, remote)
        note = with_unique_id(note, _taken_ids(vault, base_ref).__contains__, keep=bool(data.id))
        branch = BRANCH_PREFIX + note.id
        worktree = None if dry_run else proposals_dir(vault) / note.id
        if worktree is not None:
            add_worktree(vault, worktree, branch, base_ref, only=[note.path])
            write_meta(
                vault,
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
        result = curate(vault, Drafts({note.path: text.encode("utf-8")}, at=base_ref))
    except BaseException:
        if worktree is not None:
            cleanup(vault, note.id, worktree)
        raise
    return Proposal(
        vault=vault,
        note=note,
        text=text,
        branch=branch,
        worktree=worktree,
        base_branch=base_branch,
        base_ref=base_ref,
        remote=remote,
        github=github,
        findings=with_suggested_tags(result.findings, note, vault, base_ref),
        preview=result.previews.get(note.path, ""),
        agent=data.agent or None,
        notices=notices + result.notices,
    )


def with_suggested_tags(
    findings: list[Finding], note: Note, vault: Vault, base_ref: str
) -> list[Finding]:
    """A note with no tags is refused (`frontmatter/missing-field`); its fix then names
    the tags `_taxonomy.md` suggests for the title and body — the same matcher as
    `lore import` (`lore.team.imports.tagging`), the taxonomy as the base has it."""
    if note.tags:
        return findings
    from lore.taxonomy import parse_taxonomy
    from lore.team.imports.tagging import Tagger

    raw = git.read_file_at(vault.root, base_ref, "_taxonomy.md")
    if raw is None:
        return findings
    suggested = Tagger(parse_taxonomy(raw.decode("utf-8", "replace"))).suggest(
        note.title, note.body
    )
    if not suggested:
        return findings
    fix = (
        f"_taxonomy.md suggests, from the title and body: {', '.join(suggested)} "
        f'(--tag {",".join(suggested)}, or "tags" in the JSON); keep the ones that fit.'
    )
    return [
        finding.with_text(finding.message, fix)
        if finding.rule == "frontmatter/missing-field" and "'tags'" in finding.message
        else finding
        for finding in findings
    ]


def discard(proposal: Proposal) -> None:
    """Remove a proposal that was never committed: its worktree, branch and metadata."""
    if proposal.worktree is not None:
        cleanup(proposal.vault, proposal.note.id, proposal.worktree)


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


def _commit_note(vault: Vault, worktree: Path, note: Note, *, taxonomy: bool = False) -> None:
    """Commit the note (`taxonomy`: with the `_taxonomy.md` that lists what it names)."""
    also = f"\n\nAdds to {TAXONOMY_FILE} what it names." if taxonomy else ""
    commit_paths(
        worktree,
        [note.path, *([TAXONOMY_FILE] if taxonomy else [])],
        f"lore: {note.title}\n\nProposes {note.path}.{also}",
        fallback_identity=_identity(vault.root, note.author),
    )
    vault.refs_moved()


def _publish_note(
    vault: Vault,
    note: Note,
    request: PullRequest,
    *,
    worktree: Path | None,
    base_branch: str,
    timeout: float,
    notices: list[str],
) -> Outcome:
    kept = (
        f"{worktree / note.path}"
        if worktree is not None
        else f"the branch {BRANCH_PREFIX}{note.id}"
    )
    return publish_branch(
        vault,
        note.id,
        request,
        worktree=worktree,
        base_branch=base_branch,
        what="note",
        kept=kept,
        resume=f"lore remember --resume {note.id}",
        timeout=timeout,
        notices=notices,
        pushed=worktree is None,  # without a worktree, the branch is on the remote already
    )


def _note_request(
    note: Note,
    text: str,
    preview: str,
    findings: list[Finding],
    *,
    agent: str | None,
    forced: bool,
) -> PullRequest:
    return PullRequest(
        title=pr_title(note),
        body=pr_body(note, text, preview, findings, agent=agent, forced=forced),
        labels=pr_labels(agent),
    )


def submit(proposal: Proposal, *, force: bool = False, timeout: float = NETWORK_TIMEOUT) -> Outcome:
    """Commit the note on its branch, push it and open the pull request."""
    blocked = _blocked(proposal.findings, force, None)
    if blocked is not None:
        discard(proposal)
        raise blocked
    if proposal.worktree is None:
        raise ProposalError(
            "A dry run's draft cannot be proposed.", fix="Run it without --dry-run."
        )
    note_file = proposal.worktree / proposal.note.path
    write_atomic(note_file, proposal.text.encode("utf-8"))
    if proposal.taxonomy is not None:
        check_out_also(proposal.root, proposal.worktree, TAXONOMY_FILE)
        write_atomic(proposal.worktree / TAXONOMY_FILE, proposal.taxonomy)
    try:
        _commit_note(
            proposal.vault,
            proposal.worktree,
            proposal.note,
            taxonomy=proposal.taxonomy is not None,
        )
    except GitError as exc:
        raise ProposalError(
            f"The note is written to {note_file} but could not be committed: {exc.message}",
            fix=f"{exc.fix or ''} Then run `lore remember --resume {proposal.note.id}`.".strip(),
        ) from None
    request = _note_request(
        proposal.note,
        proposal.text,
        proposal.preview,
        proposal.findings,
        agent=proposal.agent,
        forced=force and bool(proposal.errors),
    )
    if proposal.taxonomy is not None:
        request.body += f"\n\nIt adds what it names to `{TAXONOMY_FILE}`: review that line too.\n"
    return _publish_note(
        proposal.vault,
        proposal.note,
        request,
        worktree=proposal.worktree,
        base_branch=proposal.base_branch,
        timeout=timeout,
        notices=proposal.notices,
    )


def resume(
    where: Vault | Path, note_id: str, *, force: bool = False, timeout: float = NETWORK_TIMEOUT
) -> Outcome:
    """Finish a proposal that stopped: commit what is left, push, open the pull request."""
    vault = Vault.of(where)
    root = vault.root
    check_vault(vault)
    if not is_valid_id(note_id):
        raise UsageError(f"'{note_id}' is not a note id.", fix="`lore proposals` lists them.")
    ensure_state_dir(root, vault.state_dir)
    branch = BRANCH_PREFIX + note_id
    path = f"notes/{note_id}.md"
    meta = read_meta(vault, note_id)
    base_branch = str(meta.get("base_branch") or base_of(vault, REMOTE)[0])
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
        request = _note_request(note, raw.decode("utf-8"), "", [], agent=agent, forced=False)
        return _publish_note(
            vault,
            note,
            request,
            worktree=None,
            base_branch=base_branch,
            timeout=timeout,
            notices=[],
        )
    worktree = worktrees(vault).get(branch)
    if worktree is None or not worktree.is_dir():  # its folder is gone: the branch has it
        if worktree is not None:
            remove_worktree(vault, worktree)
        worktree = proposals_dir(vault) / note_id
        checkout_worktree(vault, worktree, branch, only=[path])
    note_file = worktree / path
    if not note_file.is_file():
        raise ProposalError(
            f"The branch {branch} has no {path}.",
            fix=f"Put the note back in {note_file}, then run `lore remember --resume {note_id}`.",
        )
    if (worktree / TAXONOMY_FILE).is_file() and has_changes(worktree, TAXONOMY_FILE):
        commit_paths(  # the note's taxonomy line first, so that the note is checked with it
            worktree,
            [TAXONOMY_FILE],
            f"lore: add to {TAXONOMY_FILE} what {path} names",
            fallback_identity=_identity(root, parse_note(note_file.read_bytes(), path).author),
        )
    if has_changes(worktree, path):
        checked = curate(vault, Drafts({path: note_file.read_bytes()}, at=branch))
        blocked = _blocked(checked.findings, force, str(note_file))
        if blocked is not None:
            raise blocked
        _commit_note(vault, worktree, parse_note(note_file.read_bytes(), path))
    base_ref = f"refs/remotes/{REMOTE}/{base_branch}"
    if not git.ref_exists(root, base_ref):
        base_ref = base_branch
    review = curate(vault, Range(base_ref, branch))
    blocked = _blocked(review.findings, force, str(note_file))
    if blocked is not None:
        raise blocked
    raw = note_file.read_bytes()
    note = parse_note(raw, path)
    request = _note_request(
        note,
        raw.decode("utf-8"),
        review.previews.get(path, ""),
        review.findings,
        agent=agent,
        forced=force and bool([f for f in review.findings if f.is_error]),
    )
    return _publish_note(
        vault,
        note,
        request,
        worktree=worktree,
        base_branch=base_branch,
        timeout=timeout,
        notices=[],
    )
