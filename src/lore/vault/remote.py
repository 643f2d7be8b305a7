"""git over the network: remote URLs, credentials, and clone and fetch that never prompt or hang.

Clone and fetch run plain git in a session of their own with no terminal and stdin
closed, so neither git nor ssh can ask for a password (`GIT_TERMINAL_PROMPT=0` covers
https; an askpass helper the user set still answers); a remote that does not answer
within the timeout is killed with its whole process group (ssh and `git-remote-https`
included). They stay plain git: they have nothing to parse, and `lore sync` — started
by the hooks in the background — uses fetch without paying for GitPython's import. A
push goes through GitPython (`lore.vault.repository.push_branch`), whose `PushInfo`
flags tell a refused ref from a failure. When the GitHub CLI is installed, its
credentials are offered to git for GitHub hosts (`gh auth git-credential`), after any
helper the user configured. Failures are classified: `RemoteError.kind` is
"unreachable", "timeout", "rejected" (the remote refused a push), "auth" or "failed".
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
from pathlib import Path

from lore.errors import GitError
from lore.record import Record
from lore.vault.git import git_env, last_message, remote_url

NETWORK_TIMEOUT = 60.0
_SCP_URL = re.compile(r"^(?:[^@/]+@)?(?P<host>[^:/]+):(?P<path>[^/].*)$")
_URL = re.compile(
    r"^(?P<scheme>[a-z][a-z0-9+.-]*)://(?:[^@/]+@)?(?P<host>[^/:]+)(?::\d+)?/(?P<path>.*)$"
)
_OWNER_REPO = re.compile(
    r"^(?P<owner>[A-Za-z0-9](?:[A-Za-z0-9-]{0,38}))/(?P<repo>[A-Za-z0-9._-]{1,100})$"
)


class RemoteError(GitError):
    """A clone, fetch or push failed; `kind` says why, `detail` is git's own last line."""

    def __init__(self, message: str, *, kind: str, detail: str = "", fix: str | None = None):
        super().__init__(message, fix=fix)
        self.kind = kind
        self.detail = detail


class GitHubRepo(Record):
    """A repository on a GitHub host, as the GitHub CLI names it."""

    __slots__ = ("host", "name", "owner")

    def __init__(self, host: str, owner: str, name: str) -> None:
        self.host = host
        self.owner = owner
        self.name = name

    @property
    def full_name(self) -> str:
        return f"{self.owner}/{self.name}"

    @property
    def gh_repo(self) -> str:
        """The value for `gh --repo`: OWNER/NAME on github.com, HOST/OWNER/NAME elsewhere."""
        return self.full_name if self.host == "github.com" else f"{self.host}/{self.full_name}"

    @property
    def web_url(self) -> str:
        return f"https://{self.host}/{self.full_name}"


def github_hosts() -> set[str]:
    hosts = {"github.com"}
    extra = os.environ.get("GH_HOST")
    if extra:
        hosts.add(extra.lower())
    return hosts


def url_host_and_path(url: str) -> tuple[str, str] | None:
    """(host, path) of a remote URL in https, ssh or scp form; None for local paths."""
    text = url.strip()
    match = _URL.match(text)
    if match:
        if match["scheme"] == "file":
            return None
        return match["host"].lower(), match["path"]
    if "://" in text or text.startswith(("/", ".", "~")) or re.match(r"^[A-Za-z]:[\\/]", text):
        return None
    match = _SCP_URL.match(text)
    if match:
        return match["host"].lower(), match["path"]
    return None


def github_repo(url: str | None) -> GitHubRepo | None:
    """The GitHub repository a remote URL points to, or None when it is not on GitHub."""
    if not url:
        return None
    found = url_host_and_path(url)
    if found is None:
        return None
    host, path = found
    if host not in github_hosts() and not host.endswith(".ghe.com"):
        return None
    parts = [p for p in path.strip("/").split("/") if p]
    if len(parts) != 2:
        return None
    name = parts[1][:-4] if parts[1].endswith(".git") else parts[1]
    if not _OWNER_REPO.match(f"{parts[0]}/{name}"):
        return None
    return GitHubRepo(host, parts[0], name)


def parse_owner_repo(text: str) -> tuple[str, str] | None:
    """`acme/team-vault` -> ("acme", "team-vault"); None when it is not that shape."""
    match = _OWNER_REPO.match(text.strip())
    return (match["owner"], match["repo"]) if match else None


def github_clone_url(owner: str, name: str, host: str = "github.com") -> str:
    return f"https://{host}/{owner}/{name}.git"


def credential_config(url: str | None, gh_executable: str | None) -> list[str]:
    """`-c` options that let git use the GitHub CLI's credentials for a GitHub https URL."""
    if not url or not gh_executable:
        return []
    found = url_host_and_path(url)
    if found is None or not url.startswith("https://"):
        return []
    host = found[0]
    if host not in github_hosts() and not host.endswith(".ghe.com"):
        return []
    quoted = "'" + gh_executable.replace("'", "'\\''") + "'"
    return ["-c", f"credential.https://{host}.helper=!{quoted} auth git-credential"]


def run_network_git(
    args: list[str],
    cwd: Path,
    *,
    timeout: float = NETWORK_TIMEOUT,
    config: list[str] | None = None,
    what: str = "",
) -> subprocess.CompletedProcess[bytes]:
    """Run a git command that talks to a remote; raise `RemoteError` when it fails."""
    command = ["git", *(config or []), *args]
    try:
        process = subprocess.Popen(
            command,
            cwd=cwd,
            env=git_env(),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,  # no terminal: ssh cannot prompt either
        )
    except FileNotFoundError:
        raise GitError("git is not installed or not on PATH.", fix="Install git.") from None
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill_group(process)
        process.communicate()
        raise RemoteError(
            f"{what or 'git ' + args[0]} got no answer within {timeout:.0f} s.",
            kind="timeout",
        ) from None
    result = subprocess.CompletedProcess(command, process.returncode, stdout, stderr)
    if process.returncode != 0:
        detail = last_message(stderr.decode("utf-8", "replace"))
        kind = classify_failure(stderr.decode("utf-8", "replace"))
        raise RemoteError(f"{what or 'git ' + args[0]} failed: {detail}", kind=kind, detail=detail)
    return result


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (OSError, AttributeError):  # pragma: no cover - Windows, or already gone
        process.kill()


def classify_failure(stderr: str) -> str:
    """Why a clone, fetch or push failed as a whole: "auth", "unreachable" or "failed".

    A push the remote refused ref by ref is "rejected"; its `PushInfo` flags say so.
    """
    text = stderr.lower()
    if (
        "authentication failed" in text
        or "terminal prompts disabled" in text
        or "could not read username" in text
        or "permission denied (publickey" in text
        or "403" in text
    ):
        return "auth"
    if (
        "could not resolve host" in text
        or "unable to access" in text
        or "could not read from remote repository" in text
        or "does not appear to be a git repository" in text
        or "connection refused" in text
        or "connection timed out" in text
        or "network is unreachable" in text
        or "repository not found" in text
    ):
        return "unreachable"
    return "failed"


def fetch(
    root: Path,
    remote: str = "origin",
    *,
    timeout: float = NETWORK_TIMEOUT,
    gh: str | None = None,
    url: str | None = None,
) -> None:
    """`git fetch` from `remote` with lore's credentials (`url`: the remote's, when the
    caller has read it already)."""
    config = credential_config(url or remote_url(root, remote), gh)
    run_network_git(
        ["fetch", "--quiet", "--prune", "--no-recurse-submodules", remote],
        root,
        timeout=timeout,
        config=config,
        what=f"Fetching from {remote}",
    )


def clone(url: str, dest: Path, *, timeout: float = 300.0, gh: str | None = None) -> None:
    """Clone `url` into `dest` (which must not exist yet)."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    run_network_git(
        ["clone", "--quiet", "--no-recurse-submodules", "--", url, str(dest)],
        dest.parent,
        timeout=timeout,
        config=credential_config(url, gh),
        what=f"Cloning {url}",
    )
