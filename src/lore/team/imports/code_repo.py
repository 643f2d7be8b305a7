"""The code repository a source file lives in: its name, its GitHub URL, what git recorded.

An imported note points back at its source: `source:` is the file's URL on GitHub at
the commit that last changed it (`…/blob/<commit>/<path>`), so the full text is one
click away, when the repository's `origin` is on GitHub and the file has no
uncommitted changes. The date git first recorded a file is the fallback for a source
that carries no date of its own. Both come from one `git log` over the folders being
imported (newest first: the first commit that names a path last changed it, the last
one added it), and one `git status` says which files differ from their commit.

`repo_name` is the repository's name as recall knows it (`lore.vault.git.current_repo_name`:
its origin's name, else its folder's), unless `--repo` names it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

from lore.errors import GitError
from lore.vault import git
from lore.vault.remote import GitHubRepo, github_repo


@dataclass
class CodeRepo:
    root: Path
    name: str
    github: GitHubRepo | None
    last_commit: dict[str, str] = field(default_factory=dict)  # path -> commit
    first_date: dict[str, str] = field(default_factory=dict)  # path -> ISO date it was added
    last_date: dict[str, str] = field(default_factory=dict)  # path -> ISO date it last changed
    changed: set[str] = field(default_factory=set)  # paths that differ from HEAD (or untracked)
    loaded: set[str] = field(default_factory=set)  # pathspecs already read

    def relative(self, path: Path) -> str:
        return path.resolve().relative_to(self.root).as_posix()

    def load(self, folders: list[Path]) -> None:
        """Read git's record of every file under `folders` (paths inside this repository)."""
        specs = sorted({self.relative(folder) or "." for folder in folders} - self.loaded)
        if not specs:
            return
        self.loaded |= set(specs)
        try:
            log = git.run_git(
                [
                    "log",
                    "--format=%x01%H%x02%as",
                    "-z",
                    "--name-only",
                    "--no-renames",
                    "--",
                    *specs,
                ],
                self.root,
            ).stdout.decode("utf-8", "surrogateescape")
            status = git.run_git(
                ["status", "--porcelain", "-z", "--untracked-files=all", "--", *specs], self.root
            ).stdout.decode("utf-8", "surrogateescape")
        except GitError:
            return  # no commits yet, or git refuses: no URL and no git date, said per file
        for record in log.split("\x01"):
            if not record:
                continue
            header, _, names = record.partition("\x00")
            commit, _, day = header.partition("\x02")
            for raw in names.split("\x00"):
                name = raw.strip("\n")
                if not name:
                    continue
                self.last_commit.setdefault(name, commit)
                self.last_date.setdefault(name, day)
                self.first_date[name] = day  # the oldest commit naming it comes last
        entries = status.split("\x00")
        for entry in entries:
            if len(entry) > 3:
                self.changed.add(entry[3:])

    def source_url(self, path: str) -> str | None:
        """The file on GitHub at the commit that last changed it, if that commit holds it."""
        commit = self.last_commit.get(path)
        if self.github is None or commit is None or path in self.changed:
            return None
        return f"{self.github.web_url}/blob/{commit}/{quote(path)}"

    def match_key(self, path: str) -> str:
        """What names this file across runs: the GitHub repository (or folder) and the path."""
        where = self.github.full_name.lower() if self.github else self.name
        return f"{where}:{path}"


def repo_of(path: Path, name: str | None, cache: dict[Path, CodeRepo]) -> CodeRepo | None:
    """The repository holding `path` (None outside git), named `name` when one is given."""
    found = git.find_git_dir(path if path.is_dir() else path.parent)
    if found is None:
        return None
    root = found[0].resolve()
    if root not in cache:
        url = git.remote_url(root)
        cache[root] = CodeRepo(
            root=root,
            name=name or git.current_repo_name(root) or root.name.lower(),
            github=github_repo(url),
        )
    return cache[root]


def match_key_of_url(url: str) -> str | None:
    """`https://github.com/Acme/api/blob/<sha>/docs/adr/1.md#L3` -> `acme/api:docs/adr/1.md`."""
    from urllib.parse import unquote, urlsplit

    parts = urlsplit(url)
    if parts.scheme not in ("http", "https"):
        return None
    segments = parts.path.strip("/").split("/")
    if len(segments) < 5 or segments[2] != "blob":
        return None
    owner, name = segments[0], segments[1]
    return f"{owner.lower()}/{name.lower()}:{unquote('/'.join(segments[4:]))}"
