"""The vault's state folder, and what an older lore left in `<vault>/.lore/`.

lore keeps its machine-local files where `lore.paths.state_dir` says (under the clone's
git directory). Older lore kept them in the work tree, in `.lore/`, which a commit can
carry: `git add -f` puts a forged index there, or a symbolic link that sends lore's
writes outside the vault. So `.lore/` is now inert — never opened, written or deleted
when git tracks anything in it, when it is a link, or when it is not a folder — and
from a `.lore/` folder lore made itself, `move_old_state` moves what is worth keeping,
once:

- proposal records (`proposals/<id>.json`) move to the state folder, and proposal
  worktrees are moved there with `git worktree move`, so `lore remember --resume`
  and `lore proposals` go on as before (a worktree git cannot move stays where it is,
  registered; resume finds it by its branch);
- the last sync's record (`sync.json`) moves;
- the old index (`index.db`, its WAL and shared-memory files, a damaged copy kept
  aside) is deleted: it is a cache, rebuilt in the new place. Only regular files are
  deleted, never a link.

A marker in the state folder records that the move was done (or that `.lore/` is
inert), so later commands cost one `lstat`. `tracked_old_state` tells `lore sync` and
`lore doctor` what a commit tracks under `.lore/`, with the fix.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
from pathlib import Path

from lore.errors import StateUnwritable
from lore.paths import INDEX_FILE, OLD_STATE_DIR, state_dir
from lore.vault import git

MOVED_MARKER = "old-state-moved"
PROPOSALS = "proposals"
MOVED_FILES = ("sync.json",)
OLD_INDEX_FILES = tuple(
    f"{INDEX_FILE}{aside}{suffix}"
    for aside in ("", ".aside")
    for suffix in ("", "-wal", "-shm", "-journal")
)


def ensure_state_dir(root: Path, folder: Path | None = None) -> Path:
    """The vault's state folder, made if missing, with what an older lore left in
    `.lore/` moved into it first; `StateUnwritable` if it cannot be made. `folder`: the
    state folder, when the caller has it (`lore.vault.resolved.Vault.state_dir`)."""
    folder = check_state_dir(root, folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StateUnwritable(folder, exc.strerror or str(exc)) from None
    move_old_state(root, folder)
    return folder


def check_state_dir(root: Path, folder: Path | None = None) -> Path:
    """The vault's state folder, if nothing stands where it goes: `StateUnwritable` (the
    sentence every command says) when a file or a link is there instead."""
    folder = folder or state_dir(root)
    problem = state_dir_problem(folder)
    if problem:
        raise StateUnwritable(folder, problem)
    return folder


def state_dir_problem(folder: Path) -> str | None:
    """ "it is a file, not a folder" (or a link) when the state folder cannot be one."""
    try:
        if folder.is_symlink():
            return "it is a symbolic link, which lore never follows"
        if folder.exists() and not folder.is_dir():
            return "it is a file, not a folder"
    except OSError:
        return None  # cannot look: making it will say why
    return None


def move_old_state(root: Path, folder: Path | None = None) -> None:
    """Move what an older lore kept in `<root>/.lore/` (see the module docstring), once.
    `folder`: as in `ensure_state_dir`.

    Never raises for a file it cannot move: what stays behind keeps working from where
    it is, or is rebuilt.
    """
    old = root / OLD_STATE_DIR
    try:
        info = os.lstat(old)
    except OSError:
        return  # nothing there: nothing to move (and nothing to remember)
    folder = folder or state_dir(root)
    marker = folder / MOVED_MARKER
    if marker.exists():
        return
    if stat.S_ISDIR(info.st_mode) and not _tracked_in_checkout(root):
        _move_proposals(root, old / PROPOSALS, folder / PROPOSALS)
        for name in MOVED_FILES:
            _move_file(old / name, folder / name)
        for name in OLD_INDEX_FILES:
            _delete_regular_file(old / name)
    with contextlib.suppress(OSError):
        folder.mkdir(parents=True, exist_ok=True)
        marker.write_text(
            "lore moved what an older lore kept in .lore/ (or found it inert); see "
            "lore.vault.local_state.\n",
            encoding="utf-8",
        )


def _tracked_in_checkout(root: Path) -> bool:
    """Whether git tracks anything under `.lore/` in this checkout (then it is inert)."""
    if not git.is_git_work_tree(root):
        return False
    result = git.run_git(["ls-files", "-z", "--", OLD_STATE_DIR], root, check=False)
    return result.returncode != 0 or bool(result.stdout.strip(b"\0"))


def _is_real_folder(path: Path) -> bool:
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


def _is_regular_file(path: Path) -> bool:
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


def _move_file(source: Path, target: Path) -> None:
    if not _is_regular_file(source) or target.exists() or target.is_symlink():
        return
    with contextlib.suppress(OSError, shutil.Error):
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(str(source), str(target))


def _delete_regular_file(path: Path) -> None:
    if _is_regular_file(path):
        with contextlib.suppress(OSError):
            path.unlink()


def _move_proposals(root: Path, old: Path, new: Path) -> None:
    """Each proposal's record and worktree, from `.lore/proposals/` to the state folder."""
    if not _is_real_folder(old):
        return
    try:
        entries = sorted(os.scandir(old), key=lambda entry: entry.name)
    except OSError:
        return
    registered = _registered_worktrees(root)
    for entry in entries:
        source = Path(entry.path)
        if entry.name.endswith(".json"):
            _move_file(source, new / entry.name)
        elif _is_real_folder(source) and source.resolve() in registered:
            target = new / entry.name
            if target.exists() or target.is_symlink():
                continue
            with contextlib.suppress(OSError):
                new.mkdir(parents=True, exist_ok=True)
            git.run_git(["worktree", "move", "--", str(source), str(target)], root, check=False)


def _registered_worktrees(root: Path) -> set[Path]:
    if not git.is_git_work_tree(root):
        return set()
    result = git.run_git(["worktree", "list", "--porcelain", "-z"], root, check=False)
    found: set[Path] = set()
    for field in result.stdout.decode("utf-8", "surrogateescape").split("\0"):
        if field.startswith("worktree "):
            found.add(Path(field[len("worktree ") :]).resolve())
    return found


# ---- a `.lore/` that a commit carries ----


def tracked_old_state(root: Path, commit: str) -> list[str]:
    """The paths under `.lore` (the folder, or a file or link of that name) that `commit`
    tracks; [] when none, or when git cannot say."""
    if not commit:
        return []
    result = git.run_git(
        ["ls-tree", "-r", "-z", "--name-only", commit, "--", OLD_STATE_DIR], root, check=False
    )
    if result.returncode != 0:
        return []
    names = result.stdout.decode("utf-8", "replace").split("\0")
    return [name for name in names if name == OLD_STATE_DIR or name.startswith(OLD_STATE_DIR + "/")]


def untrack_advice(root: Path, branch: str) -> str:
    """How to stop a branch tracking `.lore` (reviewed like any change: a pull request)."""
    base = branch.split("/", 1)[1] if branch.startswith(f"{git.REMOTE}/") else branch
    return (
        f"Remove it from {branch} with a reviewed change, in {root}: `git switch -c "
        f"untrack-lore {branch} && git rm -r --cached .lore && git commit -m 'Stop "
        f"tracking .lore/' && git push -u {git.REMOTE} untrack-lore`, then open a pull "
        f"request into {base} (the vault's .gitignore keeps .lore/ out from then on)."
    )
