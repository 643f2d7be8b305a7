"""Drift: notes whose files changed in the code after the note was written (`lore drift`).

A note names the files it is about (`files_touched`, relative to the root of each
repository in `repo`). `find_drift` reads one `git log --name-status -M` of the code
repository and, for every active note of that repository, follows each of its files
through the commits made after the note's `date` (the committer's calendar day, so a
change on the day the note was written counts as known to it). A file ends up
"modified", "renamed" (to `new_path`; renames are followed, so a later change to the
new path counts too) or "deleted". A folder (an entry that ends with `/`, or that is a
folder in the checkout) drifts when anything under it changes, and is "deleted" once it
is gone. `--since REV` looks only at `REV..HEAD`, which is what the workflow passes on
each push.

`propose_drift` marks the drifted notes for review in one pull request, through the
same proposal path as `lore remember` (`propose_change`). The mark needs no new
field, so the curator and every older lore accept it: `confidence` is lowered one
level (high -> medium -> low; a low note stays low and is only listed in the pull
request), and a renamed file is corrected in `files_touched`. Nothing else in the
note changes — not its `date`, which still says when the knowledge was last
verified. A reviewer who re-checks a note raises its confidence and its date again.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from lore.curator.report.formats import md_escape
from lore.errors import UsageError
from lore.index.read import read_index
from lore.note.model import CONFIDENCE_LEVELS
from lore.note.parse import parse_note
from lore.note.render import render_note
from lore.team.proposals.branches import Outcome
from lore.team.proposals.changes import ChangeSet, free_change_name, propose_change, start_change
from lore.team.proposals.pr_body import LORE_LABEL
from lore.vault import git
from lore.vault.history import LoggedCommit, log_changes
from lore.versioned import versioned


@dataclass(frozen=True)
class Commit:
    sha: str
    date: str  # committer date, ISO 8601
    subject: str

    def to_json(self) -> dict[str, str]:
        return {"sha": self.sha, "date": self.date, "subject": self.subject}


@dataclass
class FileDrift:
    """One file of a note: what became of it, and the commits that did it."""

    path: str  # as the note names it
    status: str  # "modified", "renamed" or "deleted"
    new_path: str | None = None  # where a renamed file is now
    commits: list[Commit] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "status": self.status,
            "new_path": self.new_path,
            "commits": [commit.sha for commit in self.commits],
        }


@dataclass
class NoteDrift:
    id: str
    path: str
    title: str
    date: str
    confidence: str
    files: list[FileDrift]

    @property
    def commits(self) -> list[Commit]:
        """Every commit involved, oldest first, once."""
        seen: dict[str, Commit] = {}
        for item in self.files:
            for commit in item.commits:
                seen.setdefault(commit.sha, commit)
        return sorted(seen.values(), key=lambda commit: commit.date)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "path": self.path,
            "title": self.title,
            "date": self.date,
            "confidence": self.confidence,
            "files": [item.to_json() for item in self.files],
            "commits": [
                {
                    **commit.to_json(),
                    "files": [f.path for f in self.files if commit in f.commits],
                }
                for commit in self.commits
            ],
        }


@dataclass
class DriftReport:
    repo: str
    code_repo: Path
    head: str
    since: str | None
    notes: list[NoteDrift]
    checked: int  # active notes of this repository that name files
    about: int = 0  # active notes of this repository, with files_touched or without

    def to_json(self) -> dict[str, Any]:
        return versioned(
            {
                "repo": self.repo,
                "head": self.head,
                "since": self.since,
                "about": self.about,
                "checked": self.checked,
                "notes": [note.to_json() for note in self.notes],
            }
        )


@dataclass(frozen=True)
class _Candidate:
    id: str
    path: str
    title: str
    date: str
    confidence: str
    files: tuple[str, ...]


def _candidates(vault: Path, repo: str) -> tuple[list[_Candidate], int]:
    """Active notes whose `repo` lists this repository and that name files; and how many
    active notes list it at all."""
    rows = read_index(
        vault,
        lambda conn, _: conn.execute(
            "SELECT id, path, title, date, confidence, repo, files_touched FROM notes "
            "WHERE active = 1 ORDER BY id"
        ).fetchall(),
    )
    found: list[_Candidate] = []
    about = 0
    for note_id, path, title, day, confidence, repos, files in rows:
        names = {str(name).lower() for name in json.loads(repos or "[]")}
        touched = tuple(p for p in (files or "").split("\n") if p)
        about += repo.lower() in names
        if repo.lower() in names and touched:
            found.append(_Candidate(note_id, path, title, day, confidence, touched))
    return found, about


def _follow(path: str, commits: Sequence[LoggedCommit]) -> FileDrift | None:
    """What the commits (oldest first) did to one file, following it through renames."""
    current = path
    renamed = deleted = False
    touched: list[Commit] = []
    for logged in commits:
        hit = False
        for change in logged.changes:
            if change.status in ("R", "C") and change.old_path == current and not deleted:
                if change.status == "R":
                    current, renamed, hit = change.path, True, True
            elif change.path == current:
                deleted, hit = change.status == "D", True  # an A after a D brings it back
        if hit:
            touched.append(Commit(logged.sha, logged.date, logged.subject))
    if not touched:
        return None
    if deleted:
        return FileDrift(path, "deleted", None, touched)
    if renamed:
        return FileDrift(path, "renamed", current, touched)
    return FileDrift(path, "modified", None, touched)


def _follow_folder(
    folder: str, commits: Sequence[LoggedCommit], code_repo: Path
) -> FileDrift | None:
    """What the commits did under a folder: "modified", or "deleted" once it is gone."""
    prefix = folder.rstrip("/") + "/"
    touched = [
        Commit(logged.sha, logged.date, logged.subject)
        for logged in commits
        if any(
            change.path.startswith(prefix) or (change.old_path or "").startswith(prefix)
            for change in logged.changes
        )
    ]
    if not touched:
        return None
    status = "modified" if (code_repo / prefix).is_dir() else "deleted"
    return FileDrift(folder, status, None, touched)


def _is_folder(entry: str, code_repo: Path) -> bool:
    """A `files_touched` entry that names a folder: it ends with `/`, or is one in the checkout."""
    return entry.endswith("/") or (code_repo / entry).is_dir()


def find_drift(
    vault: Path,
    code_repo: Path,
    *,
    since: str | None = None,
    repo: str | None = None,
    progress: Callable[[int, int, str], None] | None = None,
) -> DriftReport:
    """The active notes of `code_repo` whose files changed after the note's date.

    `progress(done, total, label)` hears how far it is: reading the history (total 0),
    then following each note's files.
    """
    code_repo = code_repo.resolve()
    if not git.is_git_work_tree(code_repo):
        raise UsageError(
            f"{code_repo} is not the top folder of a git repository.",
            fix="Pass --code-repo the root of the code repository's checkout.",
        )
    head = git.head_commit(code_repo)
    if head is None:
        raise UsageError(f"The code repository {code_repo} has no commits yet.")
    name = repo or git.current_repo_name(code_repo)
    if not name:
        raise UsageError(f"Could not tell the name of {code_repo}.", fix="Pass --repo NAME.")
    revisions = [head]
    if since:
        base = git.resolve_commit(code_repo, since)
        if base is None:
            raise UsageError(
                f"--since {since} names no commit in {code_repo}.",
                fix="Pass a commit, branch or tag of the code repository (fetch it first).",
            )
        revisions = [f"{base}..{head}"]
    candidates, about = _candidates(vault, name)
    notes: list[NoteDrift] = []
    if candidates:
        earliest = min(candidate.date for candidate in candidates)
        try:  # a coarse bound for git (a day early); the exact test is per note below
            bound = (date.fromisoformat(earliest) - timedelta(days=1)).isoformat()
        except ValueError:
            bound = None
        if progress is not None:
            progress(0, 0, "Reading the code's history")
        logged = log_changes(
            code_repo, revisions, since=f"{bound}T00:00:00+00:00" if bound else None
        )
        for number, candidate in enumerate(candidates):
            if progress is not None:
                progress(number, len(candidates), "Following the notes' files")
            after = [commit for commit in logged if commit.date[:10] > candidate.date]
            files = [
                found
                for path in candidate.files
                if (
                    found := _follow_folder(path, after, code_repo)
                    if _is_folder(path, code_repo)
                    else _follow(path, after)
                )
            ]
            if files:
                notes.append(
                    NoteDrift(
                        candidate.id,
                        candidate.path,
                        candidate.title,
                        candidate.date,
                        candidate.confidence,
                        files,
                    )
                )
    return DriftReport(name, code_repo, head, since, notes, len(candidates), about)


# ---- marking the drifted notes for review ----


def lowered(confidence: str) -> str:
    """One confidence level down; `low` stays `low`."""
    if confidence not in CONFIDENCE_LEVELS:
        return confidence
    index = CONFIDENCE_LEVELS.index(confidence)
    return CONFIDENCE_LEVELS[min(index + 1, len(CONFIDENCE_LEVELS) - 1)]


def marked_text(raw: bytes, path: str, drift: NoteDrift) -> bytes:
    """The note with its confidence lowered and renamed files corrected."""
    note = parse_note(raw, path)
    moves = {item.path: item.new_path for item in drift.files if item.new_path}
    files = tuple(dict.fromkeys(moves.get(name, name) or name for name in note.files_touched))
    updated = replace(note, confidence=lowered(note.confidence), files_touched=files)
    if updated == note:
        return raw
    return render_note(updated).encode("utf-8")


def _body(report: DriftReport, edited: set[str]) -> str:
    lines = [
        f"`lore drift` found {len(report.notes)} note(s) about `{md_escape(report.repo, 100)}` "
        f"whose files changed after the note was written (code at `{report.head[:12]}`).",
        "",
        "Each edited note has its `confidence` lowered one level, and files that were renamed "
        "are corrected in `files_touched`; nothing else changes. Merge to flag them for "
        "readers, then re-check each note against the code: fix it, or raise its confidence "
        "and `date` again — or supersede it.",
        "",
    ]
    for note in report.notes:
        state = "" if note.path in edited else " (already low: listed only)"
        lines.append(f"### `{note.id}`{state}")
        lines.append("")
        for item in note.files:
            where = f" → `{md_escape(item.new_path, 200)}`" if item.new_path else ""
            shas = ", ".join(commit.sha[:12] for commit in item.commits)
            lines.append(f"- `{md_escape(item.path, 200)}` {item.status}{where} ({shas})")
        lines.append("")
    return "\n".join(lines)


def propose_drift(vault: Path, report: DriftReport, *, timeout: float = 60.0) -> Outcome | None:
    """One pull request that marks every drifted note for review; None when none changes.

    The edits are made to the notes as they are on the vault's default branch (fetched
    first), not to the user's checkout, and go through the proposals' change path.
    """
    if not report.notes:
        return None
    vault = vault.resolve()
    base_branch, base_ref = start_change(vault, timeout=timeout)
    writes: dict[str, bytes] = {}
    for note in report.notes:
        raw = git.read_file_at(vault, base_ref, note.path)
        if raw is None:  # gone on the default branch since the index was built
            continue
        new = marked_text(raw, note.path, note)
        if new != raw:
            writes[note.path] = new
    if not writes:
        return None
    name = free_change_name(vault, f"drift-{_slug(report.repo)}-{report.head[:8]}")
    change = ChangeSet(
        name=name,
        title=f"lore drift: {len(report.notes)} note(s) about {report.repo} need review"[:250],
        body=_body(report, set(writes)),
        message=f"lore drift: mark notes about {report.repo} for review\n\n"
        + "\n".join(f"- {path}" for path in sorted(writes)),
        writes=writes,
        labels=(LORE_LABEL,),
        resume_command=f"lore drift --resume {name}",
    )
    return propose_change(
        vault, change, base_branch=base_branch, base_ref=base_ref, timeout=timeout
    )


def _slug(name: str) -> str:
    slug = "".join(c if c.isalnum() else "-" for c in name.lower()).strip("-")
    return "-".join(part for part in slug.split("-") if part)[:40] or "repo"
