"""A repository's git directory and refs, read from the files git writes (no process).

Which work tree a folder belongs to (`.git` as a folder, or a `gitdir:` file in a
linked worktree or submodule), the common directory all its worktrees share
(`commondir`), and the commit a ref names (a loose ref file, else `packed-refs`).
These sit at the bottom floor because `lore.paths` decides from them where a vault's
machine-local state lives; `lore.vault.git` builds HEAD and the reviewed branch on them.

A ref the files cannot answer for (a `reftable` repository) is None with `can_read`
False, and callers ask git itself.
"""

from __future__ import annotations

import re
from pathlib import Path

SHA = re.compile(r"^[0-9a-f]{40}(?:[0-9a-f]{24})?$")


def find_git_dir(start: Path, *, resolved: bool = False) -> tuple[Path, Path] | None:
    """(work tree root, git dir) of the repository containing `start`, from the files.

    `resolved`: `start` is already absolute with no link in it (saves a `resolve`, which
    costs a system call per path component, on the recall path).
    """
    current = start if resolved else start.resolve()
    for folder in (current, *current.parents):
        dotgit = folder / ".git"
        if dotgit.is_dir():
            return folder, dotgit
        if dotgit.is_file():
            try:
                text = dotgit.read_text(encoding="utf-8").strip()
            except OSError:
                return None
            if text.startswith("gitdir:"):
                gitdir = Path(text[len("gitdir:") :].strip())
                if not gitdir.is_absolute():
                    gitdir = (folder / gitdir).resolve()
                return folder, gitdir
    return None


def common_dir(git_dir: Path) -> Path:
    """The directory every worktree of the repository shares (`git rev-parse --git-common-dir`)."""
    commondir = git_dir / "commondir"
    if commondir.is_file():
        try:
            value = Path(commondir.read_text(encoding="utf-8").strip())
        except OSError:
            return git_dir
        return value if value.is_absolute() else (git_dir / value).resolve()
    return git_dir


def can_read(git_dir: Path) -> bool:
    """Whether refs are plain files here (False for the `reftable` format)."""
    return not (common_dir(git_dir) / "reftable").exists()


class RefFiles:
    """The refs of one repository, read from its files; `packed-refs` is read at most once.

    For a caller that looks up several refs in a row (the reviewed branch tries a few
    names): the common directory is found once, and a ref that has no file of its own is
    looked up in the one copy of `packed-refs`. A plain class: this is on the recall path.
    """

    __slots__ = ("_packed", "common", "git_dir")

    def __init__(self, git_dir: Path) -> None:
        self.git_dir = git_dir
        self.common = common_dir(git_dir)
        self._packed: str | None = None

    def _bases(self) -> tuple[Path, ...]:
        return (self.git_dir,) if self.common == self.git_dir else (self.git_dir, self.common)

    def read(self, ref: str) -> str | None:
        """The commit `ref` (`refs/heads/main`) names, from its file or `packed-refs`."""
        for base in self._bases():
            try:
                value = (base / ref).read_text(encoding="ascii").strip()
            except (OSError, UnicodeDecodeError):
                continue
            if SHA.match(value):
                return value
        return self._packed_value(ref)

    def symbolic(self, ref: str) -> str | None:
        """What a symbolic ref (`HEAD`, `refs/remotes/origin/HEAD`) points at, or None."""
        for base in self._bases():
            try:
                text = (base / ref).read_text(encoding="utf-8").strip()
            except (OSError, UnicodeDecodeError):
                continue
            return text[4:].strip() if text.startswith("ref:") else None
        return None

    def _packed_value(self, ref: str) -> str | None:
        if self._packed is None:
            try:
                self._packed = (self.common / "packed-refs").read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                self._packed = ""
            if self._packed and not self._packed.endswith("\n"):
                self._packed += "\n"
        packed = self._packed
        # One search rather than a split: packed-refs holds every fetched branch, and a
        # vault that has seen thousands of proposals has thousands of lines.
        at = packed.find(f" {ref}\n")
        while at != -1:
            start = packed.rfind("\n", 0, at) + 1
            value = packed[start:at]
            if SHA.match(value):
                return value
            at = packed.find(f" {ref}\n", at + 1)
        return None


def read_ref(git_dir: Path, ref: str) -> str | None:
    """The commit `ref` names, from its file or `packed-refs` (`RefFiles` for several)."""
    return RefFiles(git_dir).read(ref)


def symbolic_target(git_dir: Path, ref: str) -> str | None:
    """What a symbolic ref points at, or None (`RefFiles.symbolic`)."""
    return RefFiles(git_dir).symbolic(ref)
