"""Git worktrees for proposals: a branch checked out beside the user's own checkout.

`lore remember` writes and commits a note in a worktree of its own, so the user's
checkout of the vault (its files, index and HEAD) is never touched. Worktrees live
under `<vault>/.lore/proposals/<id>/`, which the vault ignores.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from lore.errors import GitError
from lore.paths import INDEX_DIR
from lore.vault.git import run_git

PROPOSALS_DIR = "proposals"


def proposals_dir(root: Path) -> Path:
    return root / INDEX_DIR / PROPOSALS_DIR


def _prepare(root: Path, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    ignore = root / INDEX_DIR / ".gitignore"
    if not ignore.exists():  # the same file the index writes: `.lore/` is never committed
        ignore.write_text("# lore's local index and caches; derived, never committed\n*\n")


def add_worktree(root: Path, path: Path, branch: str, base: str) -> None:
    """Create branch `branch` at `base` and check it out in a new worktree at `path`."""
    _prepare(root, path)
    run_git(["worktree", "add", "--quiet", "--no-track", "-b", branch, str(path), base], root)


def checkout_worktree(root: Path, path: Path, branch: str) -> None:
    """Check an existing branch out in a new worktree at `path`."""
    _prepare(root, path)
    run_git(["worktree", "add", "--quiet", str(path), branch], root)


def worktrees(root: Path) -> dict[str, Path]:
    """Branch name -> worktree folder, for every worktree that has a branch checked out."""
    result = run_git(["worktree", "list", "--porcelain", "-z"], root, check=False)
    found: dict[str, Path] = {}
    path: Path | None = None
    for field in result.stdout.decode("utf-8", "surrogateescape").split("\0"):
        if field.startswith("worktree "):
            path = Path(field[len("worktree ") :])
        elif field.startswith("branch refs/heads/") and path is not None:
            found[field[len("branch refs/heads/") :]] = path
    return found


def remove_worktree(root: Path, path: Path) -> None:
    """Remove a worktree lore made (its branch stays); a folder left behind is deleted."""
    run_git(["worktree", "remove", "--force", str(path)], root, check=False)
    if path.exists():
        shutil.rmtree(path, ignore_errors=True)
    run_git(["worktree", "prune"], root, check=False)


def delete_branch(root: Path, branch: str) -> None:
    run_git(["branch", "-D", "--quiet", branch], root, check=False)


def commit_files(
    worktree: Path, paths: list[str], message: str, *, identity: tuple[str, str] | None = None
) -> str:
    """Stage `paths` and commit them; returns the new commit."""
    run_git(["add", "--", *paths], worktree)
    ident: list[str] = []
    if identity is not None:
        ident = ["-c", f"user.name={identity[0]}", "-c", f"user.email={identity[1]}"]
    try:
        run_git([*ident, "commit", "--quiet", "--no-verify", "-m", message, "--", *paths], worktree)
    except GitError as exc:
        text = str(exc).lower()
        if "auto-detect" in text or "empty ident" in text or "who you are" in text:
            raise GitError(
                "git does not know who you are, so the proposal could not be committed.",
                fix='Run `git config --global user.name "Your Name"` and '
                "`git config --global user.email you@example.com`.",
            ) from None
        raise
    return run_git(["rev-parse", "HEAD"], worktree).stdout.decode().strip()


def has_changes(worktree: Path, path: str) -> bool:
    """True when `path` differs from the worktree's HEAD (or is not tracked yet)."""
    result = run_git(["status", "--porcelain", "--", path], worktree)
    return bool(result.stdout.strip())
