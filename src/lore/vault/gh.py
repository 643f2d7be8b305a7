"""The GitHub CLI (`gh`): the only module that runs it.

lore never talks to GitHub's API itself; it asks `gh`, which holds the user's
credentials. `gh` is found as `$GH_PATH` (set when lore runs as `gh lore`), else on
`PATH`. It runs with prompts, colour and the update notice turned off and stdin
closed (or fed what it needs); failures become `GhError` with `kind` "missing",
"auth" (not signed in: gh exits 4), "timeout" or "failed".
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from lore.errors import GhError

GH_TIMEOUT = 60.0
_URL_IN_TEXT = re.compile(r"https://\S+/pull/\d+")
INSTALL_FIX = "Install the GitHub CLI (https://cli.github.com) and run `gh auth login`."
AUTH_FIX = "Run `gh auth login` (or set GH_TOKEN)."


def gh_executable() -> str | None:
    """The `gh` to run: `$GH_PATH` when lore runs as a gh extension, else `gh` on PATH."""
    from_gh = os.environ.get("GH_PATH")
    if from_gh and Path(from_gh).is_file() and os.access(from_gh, os.X_OK):
        return from_gh
    return shutil.which("gh")


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        {
            "GH_PROMPT_DISABLED": "1",
            "GH_NO_UPDATE_NOTIFIER": "1",
            "GH_SPINNER_DISABLED": "1",
            "NO_COLOR": "1",
            "CLICOLOR": "0",
        }
    )
    return env


def run_gh(
    args: Sequence[str],
    *,
    input_text: str | None = None,
    timeout: float = GH_TIMEOUT,
    cwd: Path | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run `gh ARGS`; raise `GhError` unless it exits 0."""
    executable = gh_executable()
    if executable is None:
        raise GhError("The GitHub CLI (gh) is not installed.", kind="missing", fix=INSTALL_FIX)
    try:
        result = subprocess.run(
            [executable, *args],
            input=input_text,
            stdin=None if input_text is not None else subprocess.DEVNULL,
            capture_output=True,
            text=True,
            encoding="utf-8",
            errors="replace",
            env=_env(),
            cwd=cwd,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise GhError(
            f"`gh {' '.join(args[:2])}` got no answer within {timeout:.0f} s.", kind="timeout"
        ) from None
    except OSError as exc:
        raise GhError(f"The GitHub CLI could not be run: {exc}.", kind="missing") from None
    if result.returncode == 4 or "gh auth login" in result.stderr:
        raise GhError("The GitHub CLI is not signed in.", kind="auth", fix=AUTH_FIX)
    if result.returncode != 0:
        lines = [line.strip() for line in result.stderr.splitlines() if line.strip()]
        detail = lines[-1] if lines else f"exit code {result.returncode}"
        raise GhError(
            f"`gh {' '.join(args[:2])}` failed: {detail}", kind="failed", stderr=result.stderr
        )
    return result


def gh_version() -> str | None:
    """`2.103.3`, or None when gh is not installed or does not answer."""
    try:
        result = run_gh(["--version"], timeout=10)
    except GhError:
        return None
    match = re.search(r"gh version (\S+)", result.stdout)
    return match[1] if match else result.stdout.strip().splitlines()[0]


def auth_status(host: str = "github.com", timeout: float = 15.0) -> tuple[bool, str]:
    """(signed in, gh's own summary) for a host; never raises."""
    try:
        result = run_gh(["auth", "status", "--hostname", host], timeout=timeout)
    except GhError as exc:
        return False, exc.message
    text = (result.stdout + result.stderr).strip()
    return True, text.splitlines()[1].strip() if len(text.splitlines()) > 1 else text


def auth_token(host: str = "github.com", timeout: float = 10.0) -> str | None:
    """The token gh uses for `host` (`gh auth token`: `GH_TOKEN` when set, else the signed-in
    account's), or None when gh is missing, signed out or slow. Never logged or shown;
    the semantic review sends it to GitHub Models only."""
    try:
        result = run_gh(["auth", "token", "--hostname", host], timeout=timeout)
    except GhError:
        return None
    token = result.stdout.strip()
    return token if token and not any(char.isspace() for char in token) else None


def current_login(host: str = "github.com", timeout: float = 10.0) -> str | None:
    """The signed-in user's GitHub handle (`gh api user`), or None."""
    try:
        result = run_gh(["api", "--hostname", host, "user", "--jq", ".login"], timeout=timeout)
    except GhError:
        return None
    login = result.stdout.strip()
    return login if re.match(r"^[A-Za-z0-9-]{1,39}$", login) else None


def pr_create(
    repo: str,
    *,
    base: str,
    head: str,
    title: str,
    body: str,
    labels: Sequence[str] = (),
) -> str:
    """Open a pull request and return its URL.

    When the repository lacks one of the labels, the pull request is opened without
    labels rather than not at all. When one is already open for `head`, its URL is
    returned.
    """
    args = ["pr", "create", "--repo", repo, "--base", base, "--head", head]
    args += ["--title", title, "--body", body]
    label_args = [arg for label in labels for arg in ("--label", label)]
    try:
        result = run_gh([*args, *label_args])
    except GhError as exc:
        stderr = exc.stderr
        existing = _URL_IN_TEXT.search(stderr) if "already exists" in stderr else None
        if existing:
            return existing[0]
        if exc.kind == "failed" and label_args and "label" in stderr.lower():
            result = run_gh(args)
        else:
            raise
    match = _URL_IN_TEXT.search(result.stdout)
    return match[0] if match else result.stdout.strip().splitlines()[-1]


def pr_for_branch(repo: str, head: str) -> dict[str, Any] | None:
    """The open pull request whose head is `head`, or None."""
    result = run_gh(
        ["pr", "list", "--repo", repo, "--head", head, "--state", "open", "--json", "number,url"]
    )
    items = _json_list(result.stdout)
    return items[0] if items else None


PR_FIELDS = "number,title,url,headRefName,author,isDraft,createdAt,labels,statusCheckRollup"


def pr_list(repo: str, limit: int = 200, *, label: str | None = None) -> list[dict[str, Any]]:
    """Open pull requests of a repository with their checks (only those with `label`)."""
    args = ["pr", "list", "--repo", repo, "--state", "open", "--limit", str(limit)]
    if label is not None:
        args += ["--label", label]
    result = run_gh([*args, "--json", PR_FIELDS])
    return _json_list(result.stdout)


def pr_view(repo: str, number: int) -> dict[str, Any]:
    """One pull request: its branches, title, URL, author and checks."""
    result = run_gh(
        ["pr", "view", str(number), "--repo", repo, "--json", PR_FIELDS + ",baseRefName"]
    )
    try:
        data = json.loads(result.stdout or "null")
    except ValueError:
        data = None
    if not isinstance(data, dict):
        raise GhError(f"gh did not describe pull request #{number}.", kind="failed")
    return data


REVIEW_ACTIONS = {"approve": "--approve", "request-changes": "--request-changes"}


def pr_review(repo: str, number: int, action: str, body: str = "") -> None:
    """Approve a pull request or request changes on it (`action`: a key of REVIEW_ACTIONS)."""
    args = ["pr", "review", str(number), "--repo", repo, REVIEW_ACTIONS[action]]
    run_gh([*args, "--body", body] if body else args)


def pr_merge(repo: str, number: int) -> None:
    """Merge a pull request with a merge commit and delete its branch."""
    run_gh(["pr", "merge", str(number), "--repo", repo, "--merge", "--delete-branch"])


def repo_create(full_name: str, *, visibility: str, description: str) -> str:
    """Create an empty repository on GitHub; returns what gh printed (its URL)."""
    result = run_gh(["repo", "create", full_name, f"--{visibility}", "--description", description])
    return result.stdout.strip()


def label_create(repo: str, name: str, *, color: str, description: str) -> None:
    run_gh(
        [
            "label",
            "create",
            name,
            "--repo",
            repo,
            "--color",
            color,
            "--description",
            description,
            "--force",
        ]
    )


def api(method: str, endpoint: str, payload: dict[str, Any] | None = None) -> str:
    """Call the REST API through gh (`gh api --method M ENDPOINT --input -`)."""
    args = ["api", "--method", method, endpoint]
    if payload is not None:
        args += ["--input", "-"]
    result = run_gh(args, input_text=json.dumps(payload) if payload is not None else None)
    return result.stdout


def _json_list(text: str) -> list[dict[str, Any]]:
    try:
        data = json.loads(text or "[]")
    except ValueError:
        raise GhError("gh printed something that is not JSON.", kind="failed") from None
    return [item for item in data if isinstance(item, dict)] if isinstance(data, list) else []
