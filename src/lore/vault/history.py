"""A repository's history with its file changes, renames detected: `lore drift` and the gardener.

One `git log -z --name-status -M` over the range, parsed here. This is the one part of
the team operations that stays plain git rather than GitPython: GitPython's
`Repo.iter_commits` gives the commits, but each commit's files (with renames) need a
`Commit.diff` of its own, which is one `git diff-tree` process per commit. Measured on
a repository of 300 commits (2 cores, git 2.39): 761 ms that way, 18 ms for the one
`git log`, which finds the same renames.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from lore.vault.git import run_git


@dataclass(frozen=True)
class FileChange:
    """One file a commit changed: `status` is A, M, T, D or R (R and C carry `old_path`)."""

    status: str
    path: str
    old_path: str | None = None


@dataclass(frozen=True)
class LoggedCommit:
    """A commit from `log_changes`: sha, committer date (ISO 8601), subject and files."""

    sha: str
    date: str
    subject: str
    changes: list[FileChange] = field(default_factory=list)


def log_changes(
    root: Path,
    revisions: Sequence[str],
    *,
    since: str | None = None,
    paths: Sequence[str] = (),
    only: str | None = None,
    landed: bool = False,
) -> list[LoggedCommit]:
    """Commits of `revisions` (oldest first) with the files each changed, renames detected.

    Without `paths` the log covers the whole tree, so a rename shows up as one R entry
    whatever the new path is; with `paths`, only changes (and renames) inside them are
    listed. Merge commits list no files (the commits they bring in do). `since` (an ISO
    date) skips commits committed before it; `only` keeps changes of those kinds (`R`:
    renames; git's `--diff-filter`). `landed`: the branch's own history only
    (`--first-parent`), each merge listing what it brought (`-m`), so a change is dated
    when it landed on the branch. Revisions are commits or ranges lore resolved itself,
    never user text that could read as an option.
    """
    args = ["log", "-z", "--reverse", "-M", "--name-status", "--format=%x1e%H%x1f%cI%x1f%s"]
    if landed:
        args += ["--first-parent", "-m"]
    if since:
        args.append(f"--since={since}")
    if only:
        args.append(f"--diff-filter={only}")
    result = run_git([*args, *revisions, "--", *paths], root)
    commits: list[LoggedCommit] = []
    for chunk in result.stdout.split(b"\x1e"):
        if not chunk.strip():
            continue
        header, _, rest = chunk.partition(b"\0")
        parts = header.decode("utf-8", "replace").split("\x1f", 2)
        if len(parts) != 3:
            continue
        commits.append(LoggedCommit(parts[0], parts[1], parts[2], _changes(rest)))
    return commits


def _changes(raw: bytes) -> list[FileChange]:
    fields = [field.lstrip(b"\n") for field in raw.split(b"\0")]
    changes: list[FileChange] = []
    index = 0
    while index < len(fields):
        status = fields[index].decode("ascii", "replace")
        index += 1
        if not status:
            continue
        if status[:1] in ("R", "C") and index + 1 < len(fields):
            old = fields[index].decode("utf-8", "surrogateescape")
            new = fields[index + 1].decode("utf-8", "surrogateescape")
            changes.append(FileChange(status[:1], new, old))
            index += 2
        elif index < len(fields):
            path = fields[index].decode("utf-8", "surrogateescape")
            changes.append(FileChange(status[:1], path))
            index += 1
    return changes
