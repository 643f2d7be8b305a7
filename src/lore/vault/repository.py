"""A repository through GitPython, for the team operations: commits, branches and pushes.

`lore remember`, the gardener, drift and `lore init` write to a vault; they open it with
`open_repository` and go through GitPython, whose `GitCommandError` becomes lore's
`GitError` (or `RemoteError` for a push) with one sentence of git's own. A push reports
each ref with `PushInfo` flags, so a rejection is told apart from a network failure
without reading git's messages. Recall and the hooks never get here
(`lore.vault.git` is their plumbing; tests/test_architecture.py checks the import).

Environment. GitPython starts every git process from `os.environ` — it can add to it,
never take away — and reads GIT_DIR, GIT_WORK_TREE, GIT_COMMON_DIR and
GIT_OBJECT_DIRECTORY itself when it opens a repository. So before it does, lore removes
the variables `git_env` leaves out (`REDIRECTING`) from its own process environment
(nothing else in lore reads them), and every git process then gets exactly `git_env()`:
the user's identity, SSH, askpass and GIT_CONFIG_* reach git; another repository's
GIT_DIR does not.

Processes. Each git runs in a session of its own with stdin closed, so neither git nor
ssh can prompt; a push that gets no answer within its timeout is killed with its whole
session (ssh and the remote helpers too); local commands get `GIT_TIMEOUT`.

Where plain git stays, and why:
- a commit is `git add` and `git commit` run through GitPython, not GitPython's own
  index (`Repo.index.add/commit`): that one reads and writes index versions 2 and 3
  only (`feature.manyFiles` turns on version 4), never signs (`commit.gpgSign`), and
  makes up `user@hostname` where git refuses and says that it does not know who you are;
- worktrees have no API in GitPython: `git worktree` through its command interface
  (`lore.vault.worktree`);
- config values are read with `git config` (`lore.vault.git.config_value`): GitPython's
  config reader ignores GIT_CONFIG_COUNT/KEY/VALUE and GIT_CONFIG_GLOBAL;
- fetch and clone (`lore.vault.remote`) have nothing to parse and serve `lore sync`,
  which the hooks start in the background: plain git there, without GitPython's import;
- the history for drift and the gardener: one `git log` (`lore.vault.history`, measured).
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from git import Git, Repo
from git.exc import GitCommandError, GitCommandNotFound, InvalidGitRepositoryError, NoSuchPathError
from git.remote import PushInfo, RemoteProgress

from lore.errors import GitError
from lore.sanitize import sanitize_field
from lore.vault.git import GIT_TIMEOUT, REDIRECTING, git_env, last_message, remote_url
from lore.vault.remote import NETWORK_TIMEOUT, RemoteError, classify_failure, credential_config

# GitPython logs a warning for every push with an error line; lore reports it instead.
logging.getLogger("git").addHandler(logging.NullHandler())

_IDENTITY_UNKNOWN = ("auto-detect", "empty ident", "who you are")
_INDEX_LOCK = re.compile(r"Unable to create '(.+?index\.lock)': File exists")


class GitTimeout(GitError):
    """A local git command was killed at `GIT_TIMEOUT` (a signing program waiting, say)."""


def _forget_redirecting_variables() -> None:
    for name in REDIRECTING:
        os.environ.pop(name, None)


class _GitProcess(Git.AutoInterrupt):
    """A git process GitPython runs in the background (a push, a log, `cat-file`).

    When GitPython gives up on one before waiting for it (a timeout, an abandoned
    iterator), its whole session goes: git, ssh and the remote helpers it started.
    """

    __slots__ = ("waited",)

    def __init__(self, proc: Any, args: Any) -> None:
        super().__init__(proc, args)
        self.waited = False

    def wait(self, stderr: str | bytes | None = b"") -> int:
        self.waited = True
        return int(super().wait(stderr))

    def _terminate(self) -> None:
        proc = self.proc
        if proc is not None and not self.waited and proc.returncode is None:
            with contextlib.suppress(OSError):  # the session is git's own (start_new_session)
                os.killpg(proc.pid, signal.SIGKILL)
        super()._terminate()


class _Git(Git):
    """GitPython's command runner with lore's environment, sessions and timeouts."""

    AutoInterrupt = _GitProcess

    def __init__(self, working_dir: Any = None) -> None:
        _forget_redirecting_variables()
        super().__init__(working_dir)
        self.update_environment(**git_env())

    def execute(self, command: Any, *args: Any, **kwargs: Any) -> Any:
        kwargs.setdefault("start_new_session", True)  # no terminal: ssh cannot prompt
        if not kwargs.get("as_process"):
            kwargs.setdefault("kill_after_timeout", GIT_TIMEOUT)
        return super().execute(command, *args, **kwargs)


class _Repository(Repo):
    GitCommandWrapperType = _Git

    def __init__(self, path: Path, **options: Any) -> None:
        _forget_redirecting_variables()
        super().__init__(path, expand_vars=False, **options)


def open_repository(root: Path) -> Repo:
    """The repository whose work tree is `root` (a vault, or one of its worktrees)."""
    try:
        return _Repository(root)
    except (InvalidGitRepositoryError, NoSuchPathError):
        raise GitError(f"{root} is not a git repository.") from None
    except GitCommandNotFound:
        raise GitError("git is not installed or not on PATH.", fix="Install git.") from None


def _timed_out(exc: GitCommandError) -> bool:
    """GitPython killed the process at its timeout (its own words, for either kind of call)."""
    text = str(exc.stderr or "")
    return "kill_after_timeout" in text or "did not complete in" in text


def git_said(exc: GitCommandError) -> str:
    """git's own last line of explanation, without GitPython's wrapping."""
    text = str(exc.stderr or "")
    prefix = "\n  stderr: '"
    if text.startswith(prefix) and text.endswith("'"):
        text = text[len(prefix) : -1]
    return last_message(text)


@contextlib.contextmanager
def git_errors(root: Path, what: str) -> Iterator[None]:
    """Turn GitPython's errors into one sentence: "`what` failed in ROOT: git's reason"."""
    try:
        yield
    except GitCommandNotFound:
        raise GitError("git is not installed or not on PATH.", fix="Install git.") from None
    except GitCommandError as exc:
        said = git_said(exc)
        if any(marker in said.lower() for marker in _IDENTITY_UNKNOWN):
            raise GitError(
                f"git does not know who you are, so `{what}` could not run in {root}.",
                fix='Run `git config --global user.name "Your Name"` and '
                "`git config --global user.email you@example.com` (or set GIT_AUTHOR_NAME, "
                "GIT_AUTHOR_EMAIL, GIT_COMMITTER_NAME and GIT_COMMITTER_EMAIL).",
            ) from None
        if _timed_out(exc):
            raise GitTimeout(
                f"`{what}` failed in {root}: it did not finish in {GIT_TIMEOUT:.0f} s."
            ) from None
        lock = _INDEX_LOCK.search(said)
        if lock:
            raise GitError(
                f"git's index in {root} is locked by {lock[1]}, left by a git command "
                "that was stopped in the middle (or is still running).",
                fix=f"If no git command is running there, delete {lock[1]}; then run the "
                "command again.",
            ) from None
        raise GitError(f"`{what}` failed in {root}: {said}") from None


# ---- commits ----


def init_and_commit(root: Path, message: str, *, author: tuple[str, str] | None = None) -> str:
    """`git init` a folder (branch main) and commit everything in it; returns the commit.

    The commit is the user's (their identity from git's config or the environment),
    unless `author` names another one for both author and committer.
    """
    with git_errors(root, "git init"):
        repo = _Repository.init(root, expand_vars=False, initial_branch="main", quiet=True)
    with repo, git_errors(root, "git commit"):
        repo.git.add("--all")
        forced: dict[str, str] = {}
        if author is not None:
            name, email = author
            forced = {
                "GIT_AUTHOR_NAME": name,
                "GIT_AUTHOR_EMAIL": email,
                "GIT_COMMITTER_NAME": name,
                "GIT_COMMITTER_EMAIL": email,
            }
        with repo.git.custom_environment(**forced):
            repo.git.commit("--quiet", "--no-gpg-sign", "--no-verify", "--message", message)
        return str(repo.head.commit.hexsha)


def commit_paths(
    worktree: Path,
    paths: list[str],
    message: str,
    *,
    fallback_identity: tuple[str, str] | None = None,
    with_staged: bool = False,
) -> str:
    """Stage `paths` and commit them; returns the new commit.

    With `with_staged`, whatever else is staged goes into the commit too (the renames
    of `move_paths`). `fallback_identity` (name, email) serves when git's config has
    none; an identity from the environment (GIT_AUTHOR_*, GIT_COMMITTER_*) still wins
    over it, as it does in git.
    """
    with open_repository(worktree) as repo:
        try:
            with git_errors(worktree, "git commit"):
                if paths:
                    repo.git.add("--", *paths)
                if fallback_identity is not None:
                    name, email = fallback_identity
                    repo.git(c=[f"user.name={name}", f"user.email={email}"])
                only = [] if with_staged else ["--", *paths]
                repo.git.commit("--quiet", "--no-verify", "--message", message, *only)
                return str(repo.head.commit.hexsha)
        except GitTimeout:
            # The git lore killed held the index of lore's own worktree, which nothing
            # else uses: its lock would block the next try (`--resume`) for no reason.
            Path(repo.git_dir, "index.lock").unlink(missing_ok=True)
            raise


def move_paths(worktree: Path, moves: dict[str, str]) -> None:
    """`git mv` each old path to its new one, so the commit records renames."""
    with open_repository(worktree) as repo, git_errors(worktree, "git mv"):
        for old, new in moves.items():
            (worktree / new).parent.mkdir(parents=True, exist_ok=True)
            repo.git.mv("--", old, new)


def has_changes(worktree: Path, path: str) -> bool:
    """True when `path` differs from the worktree's HEAD (or is not tracked yet)."""
    with open_repository(worktree) as repo, git_errors(worktree, "git status"):
        return bool(repo.is_dirty(index=True, working_tree=True, untracked_files=True, path=path))


# ---- branches and remotes ----


def delete_branch(root: Path, branch: str) -> None:
    """Delete a local branch lore made, whatever it holds (a no-op when it is gone)."""
    with open_repository(root) as repo, contextlib.suppress(GitCommandError):
        repo.delete_head(branch, force=True)


def add_remote(root: Path, name: str, url: str) -> None:
    with open_repository(root) as repo, git_errors(root, "git remote add"):
        repo.create_remote(name, url)


def track_remote_branch(root: Path, branch: str, remote: str = "origin") -> None:
    """After a first push: `branch` follows `remote/branch`, which is also the remote's HEAD."""
    with open_repository(root) as repo, git_errors(root, "git branch --set-upstream-to"):
        repo.heads[branch].set_tracking_branch(repo.remote(remote).refs[branch])
        with contextlib.suppress(GitCommandError):
            repo.git.remote("set-head", remote, branch)


def push_branch(
    root: Path,
    branch: str,
    remote: str = "origin",
    *,
    timeout: float = NETWORK_TIMEOUT,
    gh: str | None = None,
) -> None:
    """Push `branch` to a branch of the same name on `remote` (never forced).

    Raises `RemoteError`: kind "rejected" when the remote refused the ref (its
    `PushInfo` flags say so), else "auth", "unreachable", "timeout" or "failed".
    """
    what = f"Pushing {branch} to {remote}"
    progress = RemoteProgress()
    with open_repository(root) as repo:
        config = credential_config(remote_url(root, remote), gh)
        if config:
            repo.git.set_persistent_git_options(c=config[1])
        try:
            pushed = repo.remote(remote).push(
                f"refs/heads/{branch}:refs/heads/{branch}",
                progress=progress,
                kill_after_timeout=timeout,
                no_verify=True,
            )
        except ValueError:  # GitPython: no such remote
            raise RemoteError(
                f"{what} failed: there is no remote named {remote}.", kind="failed"
            ) from None
        except GitCommandNotFound:
            raise GitError("git is not installed or not on PATH.", fix="Install git.") from None
        except GitCommandError as exc:
            if _timed_out(exc):
                raise RemoteError(
                    f"{what} got no answer within {timeout:.0f} s.", kind="timeout"
                ) from None
            detail = git_said(exc)
            kind = classify_failure(str(exc.stderr))
            raise RemoteError(f"{what} failed: {detail}", kind=kind, detail=detail) from None
    refused = [info for info in pushed if info.flags & PushInfo.ERROR]
    if refused or not pushed:
        summary = refused[0].summary.strip() if refused else "the remote reported nothing"
        said = [  # the remote's own words are data: one clean line each
            sanitize_field(line.removeprefix("remote:"), 200).rstrip(".")
            for line in progress.other_lines
            if line.startswith("remote:") and line.removeprefix("remote:").strip()
        ]
        detail = f'{summary}; the remote said "{said[-1]}"' if said else summary
        raise RemoteError(
            f"{what} failed: {detail}",
            kind="rejected" if refused else "failed",
            detail=detail,
        )
