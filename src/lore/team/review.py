"""Review for people (`lore review`): memory pull requests, judged quickly.

`list_memory_prs` lists the open pull requests labelled `lore` with the curator
check's state. `review_branch` (a local branch) and `review_pr` (a pull request
number; its branch is fetched from the vault's own remote) run the curator on the
change exactly as CI does (`curate(root, Range(base, head))`) and gather, for each note the
change adds or edits: the file as merged, what an agent will see of it (the
sanitised preview), and the most similar active notes already in the vault — the
candidates the curator's replacement, duplicate and contradiction rules judge, with the
same judgement on each pair (`lore.curator.similar`): a likely replacement,
duplicate or contradiction is marked, with the sentence or clauses behind it, and notes
alike in nothing but common words are left out. When nothing is flagged the list asks
"does this replace one of these?" (`ReviewedNote.asks_replacement`). The optional model
review runs as in CI (with `gh auth token` for the github provider), so its verdicts
and its status line are the ones the pull request shows. `act` approves, requests
changes or merges through `gh`. Nothing here writes to the vault.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from lore.curator.finding import Finding
from lore.curator.review.outcome import ModelReview
from lore.curator.run import curate
from lore.curator.similar import SHOWN, SimilarNote, asks_replacement
from lore.curator.target import Range
from lore.errors import UsageError
from lore.sanitize.secret_scan import mask_secrets
from lore.team.proposals.branches import REMOTE, base_of
from lore.team.proposals.listing import curator_status
from lore.team.proposals.pr_body import LORE_LABEL
from lore.vault import gh, git
from lore.vault.remote import NETWORK_TIMEOUT, GitHubRepo, RemoteError, github_repo
from lore.vault.remote import fetch as fetch_remote
from lore.vault.resolved import Vault
from lore.versioned import versioned

SIMILAR = SHOWN


@dataclass
class MemoryPr:
    number: int
    title: str
    url: str
    branch: str
    author: str | None
    curator: str

    def to_json(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "title": self.title,
            "url": self.url,
            "branch": self.branch,
            "author": self.author,
            "curator": self.curator,
        }


@dataclass
class ReviewedNote:
    path: str
    text: str  # the file as it will be merged
    preview: str  # what an agent will see
    similar: list[SimilarNote] = field(default_factory=list)
    # no replacement or duplicate was flagged: "does this replace one of these?"
    asks_replacement: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "text": self.text,
            "preview": self.preview,
            "similar": [note.to_json() for note in self.similar],
            "asks_replacement": self.asks_replacement,
        }


@dataclass
class Review:
    target: str  # "#12" or the branch name
    base: str
    head: str
    findings: list[Finding]
    notes: list[ReviewedNote]
    number: int | None = None
    url: str | None = None
    title: str = ""
    model_review: ModelReview | None = None  # what the optional model review did
    checked: int = 0  # the files the curator reviewed

    @property
    def errors(self) -> int:
        return sum(1 for finding in self.findings if finding.is_error)

    @property
    def warnings(self) -> int:
        return len(self.findings) - self.errors

    def to_json(self) -> dict[str, Any]:
        """`lore review --json` for one pull request or branch."""
        return versioned(
            {
                "target": self.target,
                "number": self.number,
                "url": self.url,
                "title": self.title,
                "base": self.base,
                "head": self.head,
                "findings": [finding.to_json() for finding in self.findings],
                "notes": [note.to_json() for note in self.notes],
                "model_review": self.model_review.to_json() if self.model_review else None,
            }
        )


def memory_prs_json(rows: list[MemoryPr]) -> dict[str, Any]:
    """`lore review --json` without a target: the open memory pull requests."""
    return versioned({"pull_requests": [row.to_json() for row in rows]})


def _github(root: Path) -> GitHubRepo:
    github = github_repo(git.remote_url(root, REMOTE))
    if github is None:
        raise UsageError(
            f"The vault {root} has no GitHub remote, so it has no pull requests.",
            fix="Review a local branch instead: `lore review BRANCH`.",
        )
    return github


def list_memory_prs(root: Path) -> list[MemoryPr]:
    """Open pull requests labelled `lore`, with the curator check's state."""
    github = _github(root.resolve())
    rows = []
    for pull in gh.pr_list(github.gh_repo, label=LORE_LABEL):
        author = pull.get("author") or {}
        rows.append(
            MemoryPr(
                number=int(pull.get("number") or 0),
                title=str(pull.get("title") or ""),
                url=str(pull.get("url") or ""),
                branch=str(pull.get("headRefName") or ""),
                author=str(author.get("login") or "") or None,
                curator=curator_status(pull.get("statusCheckRollup")),
            )
        )
    return rows


def review_range(root: Path, base: str, head: str, *, target: str, semantic: bool = True) -> Review:
    """Curator findings and, per changed note, its text, preview and similar notes;
    `semantic=False` leaves out the optional model review."""
    root = root.resolve()
    result = curate(root, Range(base, head), similar=SIMILAR, semantic=semantic)
    changed = [path for path in result.checked if path in result.previews]
    notes = []
    for path in changed:
        raw = git.read_file_at(root, head, path) or b""
        text = mask_secrets(raw.decode("utf-8", "replace"))  # as every view shows a note
        similar = [_masked(note) for note in result.similar.get(path, [])]
        asks = asks_replacement(result.findings, path)
        notes.append(ReviewedNote(path, text, result.previews[path], similar, asks))
    return Review(
        target=target,
        base=base,
        head=head,
        findings=result.findings,
        notes=notes,
        model_review=result.model_review,
        checked=len(result.checked),
    )


def _masked(note: SimilarNote) -> SimilarNote:
    return replace(
        note,
        title=mask_secrets(note.title),
        summary=mask_secrets(note.summary),
        mine=mask_secrets(note.mine),
        theirs=mask_secrets(note.theirs),
    )


def review_branch(root: Path, branch: str, *, semantic: bool = True) -> Review:
    """Review a local branch against the remote's default branch (or the current one)."""
    root = root.resolve()
    pushed = f"refs/remotes/{REMOTE}/{branch}"
    if git.resolve_commit(root, branch) is None and git.ref_exists(root, pushed):
        branch = pushed  # `lore remember` pushed `lore/<id>` and kept no local branch
    if git.resolve_commit(root, branch) is None:
        raise UsageError(
            f"'{branch}' is neither a pull request number nor a branch of {root}.",
            fix="`lore review` lists the open memory pull requests.",
        )
    vault = Vault.of(root)
    remote = REMOTE if git.remote_url(root, REMOTE, vault.found) else None
    base_ref = base_of(vault, remote)[1]
    target = branch.removeprefix("refs/remotes/")
    return review_range(root, base_ref, branch, target=target, semantic=semantic)


def review_pr(
    root: Path, number: int, *, timeout: float = NETWORK_TIMEOUT, semantic: bool = True
) -> Review:
    """Fetch the vault's remote and review pull request `number` (a branch of the vault)."""
    root = root.resolve()
    github = _github(root)
    pull = gh.pr_view(github.gh_repo, number)
    head_branch = str(pull.get("headRefName") or "")
    base_branch = str(pull.get("baseRefName") or "main")
    try:
        fetch_remote(root, REMOTE, timeout=timeout, gh=gh.gh_executable())
    except RemoteError as exc:
        raise UsageError(
            f"Could not fetch {REMOTE} to review #{number}: {exc.detail or exc.kind}."
        ) from None
    head = f"refs/remotes/{REMOTE}/{head_branch}"
    if not head_branch or not git.ref_exists(root, head):
        raise UsageError(
            f"Pull request #{number} comes from a branch that is not in {REMOTE} "
            f"({head_branch or 'unknown'}), e.g. a fork.",
            fix="Check its branch out locally and run `lore review BRANCH`.",
        )
    base_ref = f"refs/remotes/{REMOTE}/{base_branch}"
    review = review_range(root, base_ref, head, target=f"#{number}", semantic=semantic)
    review.number = number
    review.url = str(pull.get("url") or "") or None
    review.title = str(pull.get("title") or "")
    return review


def act(root: Path, number: int, action: str, body: str = "") -> None:
    """`approve`, `request-changes` (with a message) or `merge` pull request `number`."""
    github = _github(root.resolve())
    if action == "merge":
        gh.pr_merge(github.gh_repo, number)
    elif action in gh.REVIEW_ACTIONS:
        if action == "request-changes" and not body.strip():
            raise UsageError("Requesting changes needs a message saying what to change.")
        gh.pr_review(github.gh_repo, number, action, body)
    else:
        raise UsageError(f"Unknown review action '{action}'.")
