"""A vault resolved once and passed down: `Vault`.

What every layer used to re-derive from a bare `Path` — is this folder the top of a git
work tree, where is its git directory, where is lore's state folder for it, which
branch is reviewed and what do its `lore.toml` and `_taxonomy.md` say — is found here
the first time it is asked for and kept for the rest of the command. A command makes
one (`Vault.of`: from the `VaultRef` that `lore.vaults` chose, or a folder), and the
layers below take it instead of a path: proposals, their branches and worktrees, the
curator and the index it reads.

What lore itself moves during a command — the refs, after a fetch or a commit — is
read again after `refs_moved()`; the git directory and the state folder never move.

A plain class with lazy attributes: the index layer, which the recall path shares,
reads `found` and `state_dir` from it without importing anything heavier.
"""

from __future__ import annotations

from pathlib import Path

from lore.gitfiles import common_dir, find_git_dir
from lore.paths import INDEX_FILE, state_dir
from lore.vault import lore_toml
from lore.vault.git import read_file_at
from lore.vault.snapshot import UNSETTLED, served_branch

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from lore.taxonomy import Taxonomy
    from lore.vault.git import ReviewedBranch
    from lore.vault.lore_toml import ReviewedSettings
    from lore.vaults import VaultRef

_UNREAD: Any = object()  # an attribute not looked up yet (None is a valid answer)


class Vault:
    """One vault, its parts found once: `root`, `name`, `found` (work tree, git dir),
    `git_dir`, `common_dir`, `state_dir`, `index_path`, `reviewed` (the branch lore
    serves and its tip), and as that branch has them its settings (`reviewed_settings`:
    `lore.toml`, which the curator reads through `settings_on_checkout`) and
    `taxonomy`."""

    __slots__ = ("_found", "_reviewed", "_settings", "_state", "_taxonomy", "name", "root")

    def __init__(self, root: Path, name: str | None = None) -> None:
        self.root = root.resolve()
        self.name = name or self.root.name
        self._found: Any = _UNREAD
        self._state: Path | None = None
        self._reviewed: Any = _UNREAD
        self._settings: Any = _UNREAD
        self._taxonomy: Any = _UNREAD

    @classmethod
    def of(cls, where: Vault | VaultRef | Path) -> Vault:
        """The `Vault` of a `VaultRef` or a folder (a `Vault` is returned as it is)."""
        if isinstance(where, Vault):
            return where
        if isinstance(where, Path):
            return cls(where)
        return cls(where.root, where.name)

    def __repr__(self) -> str:
        return f"Vault({str(self.root)!r})"

    # ---- where things are: found once, never moving ----

    @property
    def found(self) -> tuple[Path, Path] | None:
        """(work tree, git dir) when the vault is the top of a git work tree, else None."""
        if self._found is _UNREAD:
            found = find_git_dir(self.root, resolved=True)
            self._found = found if found is not None and found[0] == self.root else None
        return self._found  # type: ignore[no-any-return]

    @property
    def is_git(self) -> bool:
        return self.found is not None

    @property
    def git_dir(self) -> Path | None:
        found = self.found
        return found[1] if found is not None else None

    @property
    def common_dir(self) -> Path | None:
        """The directory every worktree of the repository shares."""
        git_dir = self.git_dir
        return common_dir(git_dir) if git_dir is not None else None

    @property
    def state_dir(self) -> Path:
        """lore's machine-local folder for this vault (`lore.paths.state_dir`)."""
        if self._state is None:
            self._state = state_dir(self.root, self.found, searched=True)
        return self._state

    @property
    def index_path(self) -> Path:
        return self.state_dir / INDEX_FILE

    # ---- what the reviewed branch says: read once, again after lore moves a ref ----

    def refs_moved(self) -> None:
        """A fetch or a commit moved the refs: read the reviewed branch (and what it
        holds) again when next asked."""
        self._reviewed = self._settings = self._taxonomy = _UNREAD

    @property
    def reviewed(self) -> ReviewedBranch | None:
        """The branch lore serves and its tip (`lore.vault.snapshot.served_branch`);
        None without git."""
        if self._reviewed is _UNREAD:
            found = self.found
            self._reviewed = served_branch(self.root, found, self.state_dir) if found else None
        return self._reviewed  # type: ignore[no-any-return]

    @property
    def reviewed_settings(self) -> ReviewedSettings | None:
        """`lore.toml` at the reviewed branch's tip, and whether the file on disk differs
        (`lore.vault.lore_toml`); None without git or before the first commit."""
        if self._settings is _UNREAD:
            branch = self.reviewed
            self._settings = lore_toml.reviewed(self.root, branch) if branch else None
        return self._settings  # type: ignore[no-any-return]

    @property
    def taxonomy(self) -> Taxonomy | None:
        """`_taxonomy.md` as the reviewed branch has it, parsed (the file on disk only
        for a vault without git); None when there is none."""
        if self._taxonomy is _UNREAD:
            from lore.taxonomy import TAXONOMY_FILE, parse_taxonomy  # dataclasses: not on recall

            branch = self.reviewed
            if branch is None:
                raw = _file_bytes(self.root / TAXONOMY_FILE)
            else:
                commit = branch.commit.removeprefix(UNSETTLED)
                raw = read_file_at(self.root, commit, TAXONOMY_FILE) if commit else None
            text = raw.decode("utf-8-sig", "replace") if raw is not None else None
            self._taxonomy = parse_taxonomy(text) if text is not None else None
        return self._taxonomy  # type: ignore[no-any-return]


def _file_bytes(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None
