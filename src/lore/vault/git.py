"""Plain `git` through subprocess: the plumbing recall, the hooks, the index and the curator use.

This is the hot path: recall and the hooks run as fresh processes, and importing
GitPython alone costs more than a whole recall (docs/performance.md). So HEAD, refs and the
remote's URL are read straight from the `.git` files (no process at all), and what
needs git runs as one plain process (1-2 ms): `rev-parse`, `ls-tree`, `diff --raw`,
one `cat-file --batch` for many objects. The curator reads a pull request's range and
`lore sync` the state of a checkout the same way. The team operations that write —
commits, worktrees, pushes — go through GitPython in `lore.vault.repository`, which
this module never imports.

`git_env` is the one place that decides git's environment, for this module, the
network commands and GitPython alike.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from pathlib import Path

from lore.errors import GitError
from lore.gitfiles import SHA as _SHA
from lore.gitfiles import RefFiles, can_read, common_dir, read_ref
from lore.gitfiles import find_git_dir as find_git_dir  # noqa: PLC0414 - re-exported (mypy)

TYPE_CHECKING = False
if TYPE_CHECKING:
    import subprocess

GIT_TIMEOUT = 60.0


# Inherited variables that point git at another repository: set by a git hook or an
# alias lore runs under, they would make lore read or write that repository instead.
# Everything else the user or CI set on purpose reaches git: identity (GIT_AUTHOR_*,
# GIT_COMMITTER_*), SSH and askpass, GIT_CONFIG_*, proxies and certificates.
REDIRECTING = (
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_COMMON_DIR",
    "GIT_PREFIX",
    "GIT_NAMESPACE",
    "GIT_QUARANTINE_PATH",
)


def git_env() -> dict[str, str]:
    """The environment of every git lore runs: the user's own, less `REDIRECTING`.

    git never prompts (`GIT_TERMINAL_PROMPT=0`; askpass helpers still answer) and takes
    no optional locks, so a background `lore sync` never gets in the user's way.
    """
    env = {key: value for key, value in os.environ.items() if key not in REDIRECTING}
    env["GIT_TERMINAL_PROMPT"] = "0"
    env["GIT_OPTIONAL_LOCKS"] = "0"
    env.setdefault("LC_ALL", "C")
    return env


def last_message(stderr: str) -> str:
    """git's own explanation: its last `fatal:`/`error:` line, else its last line."""
    lines = [
        line.strip()
        for line in stderr.splitlines()
        if line.strip() and not line.lstrip().startswith("hint:")
    ]
    for line in reversed(lines):
        if line.startswith(("fatal:", "error:", "! [")):
            return line.removeprefix("fatal: ").removeprefix("error: ")
    return lines[-1] if lines else "no message"


def run_git(
    args: Sequence[str],
    cwd: Path,
    *,
    input_bytes: bytes | None = None,
    check: bool = True,
    timeout: float = GIT_TIMEOUT,
) -> subprocess.CompletedProcess[bytes]:
    import subprocess

    try:
        result = subprocess.run(
            ["git", *args],
            cwd=cwd,
            input=input_bytes,
            capture_output=True,
            env=git_env(),
            timeout=timeout,
            check=False,
        )
    except FileNotFoundError:
        raise GitError("git is not installed or not on PATH.", fix="Install git.") from None
    except subprocess.TimeoutExpired:
        raise GitError(f"`git {' '.join(args[:2])}` did not finish in {timeout:.0f} s.") from None
    if check and result.returncode != 0:
        said = last_message(result.stderr.decode("utf-8", "replace"))
        raise GitError(f"`git {' '.join(args[:2])}` failed in {cwd}: {said}")
    return result


def is_git_work_tree(root: Path) -> bool:
    found = find_git_dir(root)
    return found is not None and found[0] == root.resolve()


def head_commit(root: Path, found: tuple[Path, Path] | None = None) -> str | None:
    """The commit HEAD points at, or None when there is none yet (or no repository).

    `found` is `find_git_dir(root)` when the caller already has it.
    """
    found = found or find_git_dir(root)
    if found is None:
        return None
    _, git_dir = found
    try:
        head = (git_dir / "HEAD").read_text(encoding="utf-8").strip()
    except OSError:
        head = ""
    if _SHA.match(head):
        return head
    if head.startswith("ref:"):
        value = read_ref(git_dir, head[4:].strip())
        if value:
            return value
    result = run_git(["rev-parse", "--verify", "-q", "HEAD"], root, check=False)
    text = result.stdout.decode().strip()
    return text if result.returncode == 0 and _SHA.match(text) else None


# ---- the reviewed branch: what lore serves, whatever the work tree has checked out ----

REMOTE = "origin"
FALLBACK_BRANCHES = ("main", "master")
_BRANCH_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._/-")


def is_branch_name(name: str) -> bool:
    """A name lore accepts for the reviewed branch (`main`, `release/2026`): letters,
    digits, `.`, `_`, `-` and `/`; no option, no `..` or `//`, nothing git would refuse.
    (No regular expression: compiling one costs the recall path a fraction of a ms.)"""
    return (
        0 < len(name) <= 200
        and set(name) <= _BRANCH_CHARS
        and not name.startswith(("-", "/", "."))
        and not name.endswith(("/", ".", ".lock"))
        and ".." not in name
        and "//" not in name
        and "/." not in name
    )


class ReviewedBranch:
    """The branch lore serves and the commit at its tip. A plain class: this is read on
    every recall and hook, which do not import dataclasses.

    `source` says where it was found: "remote" (`refs/remotes/origin/<branch>`, the
    branch as the team's remote has it), "local" (`refs/heads/<branch>`, for a vault
    with no remote-tracking branch of that name) or "head" (neither: the checkout).
    """

    __slots__ = ("branch", "commit", "ref", "source")

    def __init__(self, branch: str, ref: str, commit: str, source: str) -> None:
        self.branch = branch
        self.ref = ref
        self.commit = commit  # "" before the first commit
        self.source = source

    @property
    def label(self) -> str:
        """How people name it: `origin/main`, `main`, or `HEAD`."""
        if self.source == "remote":
            return f"{REMOTE}/{self.branch}"
        return self.branch if self.source == "local" else "HEAD"

    def __repr__(self) -> str:
        return f"ReviewedBranch({self.label!r}, {self.commit[:12]!r})"


def reviewed_branch(
    root: Path, configured: str = "", found: tuple[Path, Path] | None = None
) -> ReviewedBranch | None:
    """The branch the team merges into and its tip, read from the ref files (no process).

    The first that exists: `origin/<configured>`, the remote's default branch
    (`refs/remotes/origin/HEAD`), `origin/main`, `origin/master`; then, for a vault
    whose remote has none of those (or that has no remote), the local branch of the
    same names; then HEAD. None without git. Only a repository whose refs are not
    plain files (`reftable`) costs a git process.
    """
    found = found or find_git_dir(root)
    if found is None:
        return None
    git_dir = found[1]
    names = [configured] if configured and is_branch_name(configured) else []
    if not can_read(git_dir):
        names += [remote_default_branch(root) or "", *FALLBACK_BRANCHES]
        return _reviewed_by_git(root, [name for name in dict.fromkeys(names) if name])
    refs = RefFiles(git_dir)
    target = refs.symbolic(f"refs/remotes/{REMOTE}/HEAD") or ""
    prefix = f"refs/remotes/{REMOTE}/"
    if target.startswith(prefix) and is_branch_name(target[len(prefix) :]):
        names.append(target[len(prefix) :])
    names = [name for name in dict.fromkeys([*names, *FALLBACK_BRANCHES]) if name]
    for name in names:
        sha = refs.read(prefix + name)
        if sha:
            return ReviewedBranch(name, prefix + name, sha, "remote")
    for name in names:
        sha = refs.read(f"refs/heads/{name}")
        if sha:
            return ReviewedBranch(name, f"refs/heads/{name}", sha, "local")
    head = refs.symbolic("HEAD") or ""
    branch = head.removeprefix("refs/heads/") if head.startswith("refs/heads/") else ""
    return ReviewedBranch(branch, "HEAD", head_commit(root, found) or "", "head")


def _reviewed_by_git(root: Path, names: list[str]) -> ReviewedBranch:
    for source, prefix in (("remote", f"refs/remotes/{REMOTE}/"), ("local", "refs/heads/")):
        for name in names:
            sha = resolve_commit(root, prefix + name)
            if sha:
                return ReviewedBranch(name, prefix + name, sha, source)
    return ReviewedBranch(current_branch(root) or "", "HEAD", head_commit(root) or "", "head")


def commit_exists(root: Path, sha: str) -> bool:
    result = run_git(["cat-file", "-e", f"{sha}^{{commit}}"], root, check=False)
    return result.returncode == 0


def is_ancestor(root: Path, older: str, newer: str) -> bool:
    result = run_git(["merge-base", "--is-ancestor", older, newer], root, check=False)
    return result.returncode == 0


def list_tree(root: Path, commit: str, folder: str) -> dict[str, str]:
    """Regular files directly inside `folder` at `commit`: path -> blob sha."""
    result = run_git(["ls-tree", "-z", commit, "--", f"{folder.rstrip('/')}/"], root)
    files: dict[str, str] = {}
    for record in result.stdout.split(b"\0"):
        if not record:
            continue
        meta, _, name = record.partition(b"\t")
        mode, kind, sha = meta.decode().split()
        if kind == "blob" and mode in ("100644", "100755"):
            files[name.decode("utf-8", "surrogateescape")] = sha
    return files


def root_entries(root: Path, commit: str) -> list[tuple[str, str, str]]:
    """(mode, kind, name) of every entry at the top of `commit`'s tree (files, folders,
    links, submodules), names as git stores them."""
    result = run_git(["ls-tree", "-z", commit], root)
    entries: list[tuple[str, str, str]] = []
    for record in result.stdout.split(b"\0"):
        if not record:
            continue
        meta, _, name = record.partition(b"\t")
        mode, kind, _sha = meta.decode().split()
        entries.append((mode, kind, name.decode("utf-8", "surrogateescape")))
    return entries


def diff_blobs(root: Path, old: str, new: str, folder: str) -> dict[str, str | None]:
    """Files under `folder` that differ between two commits: path -> new blob sha (None if gone)."""
    result = run_git(
        [
            "diff",
            "--raw",
            "--no-renames",
            "--no-abbrev",
            "-z",
            old,
            new,
            "--",
            f"{folder.rstrip('/')}/",
        ],
        root,
    )
    fields = result.stdout.split(b"\0")
    changes: dict[str, str | None] = {}
    for index in range(0, len(fields) - 1, 2):
        meta = fields[index].decode()
        if not meta.startswith(":"):
            continue
        _, new_mode, _, new_sha, status = meta[1:].split()
        path = fields[index + 1].decode("utf-8", "surrogateescape")
        regular = new_mode in ("100644", "100755")
        changes[path] = new_sha if status[0] != "D" and regular else None
    return changes


def read_objects(root: Path, names: Iterable[str]) -> dict[str, tuple[str, bytes]]:
    """Many objects in one `git cat-file --batch` process: name -> (blob sha, contents).

    A name is a sha or `<commit>:<path>`; names git cannot find are left out.
    """
    wanted = [name for name in dict.fromkeys(names) if "\n" not in name]
    if not wanted:
        return {}
    request = ("\n".join(wanted) + "\n").encode("utf-8", "surrogateescape")
    result = run_git(["cat-file", "--batch"], root, input_bytes=request)
    data = result.stdout
    objects: dict[str, tuple[str, bytes]] = {}
    position = 0
    for name in wanted:
        end = data.index(b"\n", position)
        header = data[position:end].decode("utf-8", "replace").split()
        position = end + 1
        if len(header) < 3 or header[-1] == "missing" or not header[2].isdigit():
            continue
        size = int(header[2])
        if header[1] == "blob":
            objects[name] = (header[0], data[position : position + size])
        position += size + 1
    return objects


def read_file_at(root: Path, commit: str, path: str) -> bytes | None:
    result = run_git(["cat-file", "blob", f"{commit}:{path}"], root, check=False)
    return result.stdout if result.returncode == 0 else None


def remote_url(
    root: Path, remote: str = "origin", found: tuple[Path, Path] | None = None
) -> str | None:
    """The URL of a remote, read from the repository's config file (`found`: as in
    `head_commit`)."""
    found = found or find_git_dir(root)
    if found is None:
        return None
    config = common_dir(found[1]) / "config"
    try:
        text = config.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    in_section = False
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("["):
            in_section = stripped.replace(" ", "").lower() == f'[remote"{remote}"]'.lower()
            continue
        if in_section and "=" in stripped:
            key, _, value = stripped.partition("=")
            if key.strip().lower() == "url":
                return value.strip().strip('"')
    return None


def repo_name_from_url(url: str) -> str | None:
    """`https://github.com/acme/payments-api.git` -> `payments-api` (also scp-style URLs)."""
    trimmed = url.strip().rstrip("/")
    if trimmed.endswith(".git"):
        trimmed = trimmed[:-4]
    name = re.split(r"[/:\\]", trimmed)[-1]
    return name.lower() or None


def current_repo_name(cwd: Path) -> str | None:
    """The repository the working directory belongs to: its origin's name, else its folder."""
    found = find_git_dir(cwd)
    if found is None:
        return None
    url = remote_url(found[0])
    if url:
        name = repo_name_from_url(url)
        if name:
            return name
    return found[0].name.lower()


# ---- the state of a working tree, for `lore sync` and `lore remember` ----


def git_dir_of(root: Path) -> Path | None:
    found = find_git_dir(root)
    return found[1] if found is not None else None


def current_branch(root: Path, found: tuple[Path, Path] | None = None) -> str | None:
    """The branch HEAD is on (`main`), or None when HEAD is detached or there is no git
    (`found`: as in `head_commit`)."""
    git_dir = found[1] if found is not None else git_dir_of(root)
    if git_dir is None:
        return None
    try:
        head = (git_dir / "HEAD").read_text(encoding="utf-8").strip()
    except OSError:
        return None
    prefix = "ref: refs/heads/"
    return head[len(prefix) :] if head.startswith(prefix) else None


_OPERATIONS = (
    ("rebase-merge", "a rebase", "git rebase --continue` or `git rebase --abort"),
    ("rebase-apply", "a rebase", "git rebase --continue` or `git rebase --abort"),
    ("MERGE_HEAD", "a merge", "git merge --continue` or `git merge --abort"),
    (
        "CHERRY_PICK_HEAD",
        "a cherry-pick",
        "git cherry-pick --continue` or `git cherry-pick --abort",
    ),
    ("REVERT_HEAD", "a revert", "git revert --continue` or `git revert --abort"),
    ("BISECT_LOG", "a bisect", "git bisect reset"),
)


def operation_in_progress(root: Path) -> tuple[str, str] | None:
    """(what, how to finish it) when a merge, rebase, cherry-pick, revert or bisect is open."""
    git_dir = git_dir_of(root)
    if git_dir is None:
        return None
    for marker, what, fix in _OPERATIONS:
        if (git_dir / marker).exists():
            return what, f"`{fix}`"
    return None


def upstream_of(root: Path, branch: str) -> str | None:
    """The remote-tracking branch `branch` follows (`origin/main`), or None."""
    result = run_git(
        ["for-each-ref", "--format=%(upstream:short)", f"refs/heads/{branch}"], root, check=False
    )
    text = result.stdout.decode("utf-8", "replace").strip()
    return text if result.returncode == 0 and text else None


def remote_default_branch(root: Path, remote: str = "origin") -> str | None:
    """The branch `<remote>/HEAD` points at (`main`), as recorded by clone or fetch."""
    result = run_git(["symbolic-ref", "-q", f"refs/remotes/{remote}/HEAD"], root, check=False)
    text = result.stdout.decode("utf-8", "replace").strip()
    prefix = f"refs/remotes/{remote}/"
    return text[len(prefix) :] if result.returncode == 0 and text.startswith(prefix) else None


def ahead_behind(root: Path, local: str, upstream: str) -> tuple[int, int]:
    """(commits only on `local`, commits only on `upstream`)."""
    result = run_git(["rev-list", "--left-right", "--count", f"{local}...{upstream}"], root)
    ahead, behind = result.stdout.decode().split()
    return int(ahead), int(behind)


def changed_tracked_files(root: Path) -> list[str]:
    """Tracked files with changes, staged or not (untracked files are not counted)."""
    result = run_git(["status", "--porcelain", "-z", "--untracked-files=no"], root)
    records = iter(result.stdout.split(b"\0"))
    paths: list[str] = []
    for record in records:
        if len(record) < 4:
            continue
        paths.append(record[3:].decode("utf-8", "replace"))
        if record[:1] in (b"R", b"C"):
            next(records, None)  # a rename or copy is followed by its source path
    return paths


def merge_ff_only(root: Path, ref: str) -> None:
    run_git(["merge", "--ff-only", "--quiet", "--no-edit", ref], root)


def config_value(root: Path | None, key: str) -> str | None:
    """A git config value as git sees it from `root` (the user's global config without)."""
    args = ["config", "--get", key] if root is not None else ["config", "--global", "--get", key]
    result = run_git(args, root or Path.cwd(), check=False)
    text = result.stdout.decode("utf-8", "replace").strip()
    return text if result.returncode == 0 and text else None


def ref_exists(root: Path, ref: str) -> bool:
    result = run_git(["show-ref", "--verify", "--quiet", ref], root, check=False)
    return result.returncode == 0


def list_refs(root: Path, prefix: str) -> dict[str, str]:
    """Refs under `prefix` (`refs/heads/lore/`): full name -> commit."""
    result = run_git(["for-each-ref", "--format=%(objectname) %(refname)", prefix], root)
    refs: dict[str, str] = {}
    for line in result.stdout.decode("utf-8", "replace").splitlines():
        sha, _, name = line.partition(" ")
        refs[name] = sha
    return refs


# ---- pull-request plumbing for the curator (`lore curate --base --head`) ----


def resolve_commit(root: Path, ref: str) -> str | None:
    """The commit a branch, tag or sha names, or None when there is none."""
    if not ref or ref.startswith("-") or "\n" in ref:
        return None
    result = run_git(["rev-parse", "--verify", "-q", f"{ref}^{{commit}}"], root, check=False)
    text = result.stdout.decode("utf-8", "replace").strip()
    return text if result.returncode == 0 and _SHA.match(text) else None


def merge_base(root: Path, one: str, other: str) -> str | None:
    result = run_git(["merge-base", one, other], root, check=False)
    text = result.stdout.decode().strip()
    return text if result.returncode == 0 and _SHA.match(text) else None


class TreeChange:
    """One path that differs between two commits, with its modes (120000 = symlink).

    `status` is A, M, D or T. A plain class: this module is on the hook path, which
    does not import dataclasses.
    """

    __slots__ = ("new_mode", "new_sha", "old_mode", "path", "status")

    def __init__(self, status: str, old_mode: str, new_mode: str, new_sha: str, path: str) -> None:
        self.status = status
        self.old_mode = old_mode
        self.new_mode = new_mode
        self.new_sha = new_sha
        self.path = path

    def __repr__(self) -> str:
        return f"TreeChange({self.status!r}, {self.new_mode!r}, {self.path!r})"


def diff_tree(root: Path, old: str, new: str) -> list[TreeChange]:
    """Every path that differs between two commits (`git diff --raw`, no rename detection)."""
    result = run_git(["diff", "--raw", "--no-renames", "--no-abbrev", "-z", old, new], root)
    fields = result.stdout.split(b"\0")
    changes: list[TreeChange] = []
    for index in range(0, len(fields) - 1, 2):
        meta = fields[index].decode("ascii", "replace").lstrip(":").split()
        if len(meta) < 5:
            continue
        path = fields[index + 1].decode("utf-8", "surrogateescape")
        changes.append(TreeChange(meta[4][:1], meta[0], meta[1], meta[3], path))
    return changes


def blobs_in_range(root: Path, base: str, head: str, max_bytes: int) -> dict[str, str]:
    """Blob sha -> a path it had, for every blob reachable from `head` but not `base`.

    That is every file version any commit of `base..head` introduced, including
    versions a later commit removed again; blobs over `max_bytes` are left out.
    """
    result = run_git(
        [
            "rev-list",
            "--objects",
            f"--filter=combine:object:type=blob+blob:limit={max_bytes}",
            "--filter-provided-objects",
            f"{base}..{head}",
        ],
        root,
    )
    blobs: dict[str, str] = {}
    for line in result.stdout.split(b"\n"):
        sha, _, path = line.partition(b" ")
        if path:
            blobs[sha.decode()] = path.decode("utf-8", "surrogateescape")
    return blobs


def commits_with_blob(root: Path, base: str, head: str, blob: str) -> list[str]:
    """Commits of `base..head` (oldest first) that added or removed a blob."""
    result = run_git(
        ["log", "--format=%H", "--reverse", f"--find-object={blob}", f"{base}..{head}"],
        root,
        check=False,
    )
    return result.stdout.decode().split() if result.returncode == 0 else []
