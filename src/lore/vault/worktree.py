"""Git worktrees for proposals: a branch checked out beside the user's own checkout.

`lore remember`, the gardener and drift write and commit in a worktree of their own, so
the user's checkout of the vault (its files, index and HEAD) is never touched.
Each function takes the vault's `Vault` (`lore.vault.resolved`), or its folder.
Worktrees live in the vault's state folder, `<git common dir>/lore/proposals/<name>/`
(`lore.paths.state_dir`), where no commit can reach them; ones an older lore made
under `<vault>/.lore/proposals/` are moved there once (`lore.vault.local_state`).
GitPython has no worktree API, so `git worktree` runs through its command interface
(`lore.vault.repository`: lore's environment, `GitError` on failure).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from lore.vault.local_state import PROPOSALS, ensure_state_dir, move_old_state
from lore.vault.repository import git_errors, open_repository
from lore.vault.resolved import Vault

PROPOSALS_DIR = PROPOSALS


def proposals_dir(where: Vault | Path) -> Path:
    """Where proposal worktrees and their records live (older ones moved there first)."""
    vault = Vault.of(where)
    move_old_state(vault.root, vault.state_dir)
    return vault.state_dir / PROPOSALS_DIR


def _prepare(vault: Vault, path: Path) -> None:
    ensure_state_dir(vault.root, vault.state_dir)
    path.parent.mkdir(parents=True, exist_ok=True)


def add_worktree(
    where: Vault | Path, path: Path, branch: str, base: str, *, only: list[str] | None = None
) -> None:
    """Create branch `branch` at `base` and check it out in a new worktree at `path`.

    `only`: check out just these files (a sparse checkout; see `_check_out_only`).
    """
    vault = Vault.of(where)
    root = vault.root
    _prepare(vault, path)
    sparse = ["--no-checkout"] if only is not None else []
    with open_repository(root) as repo, git_errors(root, "git worktree add"):
        repo.git.worktree(
            "add", "--quiet", *sparse, "--no-track", "-b", branch, "--", str(path), base
        )
    if only is not None:
        _check_out_only(root, path, only)


def checkout_worktree(
    where: Vault | Path, path: Path, branch: str, *, only: list[str] | None = None
) -> None:
    """Check an existing branch out in a new worktree at `path` (`only`: as `add_worktree`)."""
    vault = Vault.of(where)
    root = vault.root
    _prepare(vault, path)
    sparse = ["--no-checkout"] if only is not None else []
    with open_repository(root) as repo, git_errors(root, "git worktree add"):
        repo.git.worktree("add", "--quiet", *sparse, "--", str(path), branch)
    if only is not None:
        _check_out_only(root, path, only)


def _escaped(name: str) -> str:
    """A path as a sparse-checkout pattern that matches it alone (gitignore syntax)."""
    return "".join(f"\\{char}" if char in "*?[]\\!# " else char for char in name)


def _check_out_only(root: Path, path: Path, files: list[str]) -> None:
    """Fill the worktree's index from its HEAD but write only `files` to disk.

    The other files are marked skip-worktree, so git sees them as unchanged: a commit
    of `files` keeps the rest of the tree as it is. The patterns live in the worktree's
    own git folder (`info/sparse-checkout`) and sparse checkout is switched on for this
    one command, so the repository's configuration is not touched. A proposal of one
    note then costs the same on a vault of 100 notes or 100,000.
    """
    with open_repository(path) as worktree, git_errors(root, "git read-tree"):
        git_dir = Path(worktree.git.rev_parse("--absolute-git-dir"))
        (git_dir / "info").mkdir(parents=True, exist_ok=True)
        patterns = "".join(f"/{_escaped(name)}\n" for name in files)
        (git_dir / "info" / "sparse-checkout").write_text(patterns, encoding="utf-8")
        worktree.git(c=["core.sparseCheckout=true", "core.sparseCheckoutCone=false"]).read_tree(
            "-mu", "HEAD"
        )


def check_out_also(root: Path, path: Path, name: str) -> None:
    """Bring one more file of HEAD into a worktree made with `only` (a note's proposal
    that adds a line to `_taxonomy.md`): its skip-worktree mark goes and it is written,
    so that it can be changed and committed like the note."""
    with open_repository(path) as worktree, git_errors(root, "git update-index"):
        worktree.git.update_index("--no-skip-worktree", "--", name)
        worktree.git.checkout("HEAD", "--", name)


def worktrees(where: Vault | Path) -> dict[str, Path]:
    """Branch name -> worktree folder, for every worktree that has a branch checked out."""
    root = Vault.of(where).root
    with open_repository(root) as repo, git_errors(root, "git worktree list"):
        listing = repo.git.worktree("list", "--porcelain", "-z", strip_newline_in_stdout=False)
    found: dict[str, Path] = {}
    path: Path | None = None
    for field in listing.split("\0"):
        if field.startswith("worktree "):
            path = Path(field[len("worktree ") :])
        elif field.startswith("branch refs/heads/") and path is not None:
            found[field[len("branch refs/heads/") :]] = path
    return found


def remove_worktree(where: Vault | Path, path: Path) -> None:
    """Remove a worktree lore made (its branch stays); a folder left behind is deleted."""
    with open_repository(Vault.of(where).root) as repo:
        repo.git.worktree("remove", "--force", "--", str(path), with_exceptions=False)
        if path.exists():
            shutil.rmtree(path, ignore_errors=True)
        repo.git.worktree("prune", with_exceptions=False)
