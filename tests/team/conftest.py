"""Fixtures for the team loop: real git, a local bare repository as the remote, a fake `gh`.

GitHub itself cannot be reached from a test, so two things stand in for it:

- the remote: `https://github.com/acme/team-vault.git` is rewritten by git's own
  `url.<base>.insteadOf` (in the test's `~/.gitconfig`) to a local bare repository,
  so lore sees a GitHub URL and git really clones, fetches and pushes;
- the API: a fake `gh` on PATH — the one stand-in — records its arguments (and stdin)
  as JSON lines and prints what the real one would (a PR URL, a login).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from lore.vault.seed import seed_files, write_files
from tests.support import git

GITHUB_URL = "https://github.com/acme/team-vault.git"
PR_URL = "https://github.com/acme/team-vault/pull/7"
TODAY = "2026-11-02"

FAKE_GH = """\
#!{python}
# A stand-in for the GitHub CLI: GitHub's API cannot be reached from a test.
import json, os, sys
args = sys.argv[1:]
stdin = sys.stdin.read() if "--input" in args else None
with open(os.environ["FAKE_GH_LOG"], "a", encoding="utf-8") as log:
    log.write(json.dumps({{"args": args, "stdin": stdin}}) + "\\n")
mode = os.environ.get("FAKE_GH_MODE", "")
if args[:1] == ["--version"]:
    print("gh version 2.99.0 (fake)")
    sys.exit(0)
if mode == "unauthenticated":
    sys.stderr.write("To get started with GitHub CLI, please run:  gh auth login\\n")
    sys.exit(4)
if args[:2] == ["auth", "status"]:
    print("github.com\\n  Logged in to github.com account octocat (keyring)")
elif args[:1] == ["api"] and "user" in args:
    print("octocat")
elif args[:2] == ["pr", "create"]:
    if mode == "pr-fails":
        sys.stderr.write("GraphQL: Something went wrong (createPullRequest)\\n")
        sys.exit(1)
    if mode == "no-labels" and "--label" in args:
        sys.stderr.write("could not add label: 'lore' not found\\n")
        sys.exit(1)
    print("{pr_url}")
elif args[:2] == ["pr", "list"]:
    print(os.environ.get("FAKE_GH_PR_LIST", "[]"))
elif args[:2] == ["pr", "view"]:
    if "FAKE_GH_PR_VIEW" not in os.environ:
        sys.stderr.write("GraphQL: Could not resolve to a PullRequest with the number of " + args[2] + ".\\n")
        sys.exit(1)
    print(os.environ["FAKE_GH_PR_VIEW"])
elif args[:2] == ["repo", "create"]:
    if mode == "repo-fails":
        sys.stderr.write("GraphQL: Name already exists on this account (createRepository)\\n")
        sys.exit(1)
    print("https://github.com/" + args[2])
elif args[:1] == ["api"]:
    print("{{}}")
"""


class FakeGh:
    def __init__(self, bin_dir: Path, log: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        self.bin_dir = bin_dir
        self.log = log
        self._monkeypatch = monkeypatch

    def calls(self) -> list[list[str]]:
        if not self.log.exists():
            return []
        return [json.loads(line)["args"] for line in self.log.read_text().splitlines()]

    def stdin_of(self, prefix: list[str]) -> Any:
        for line in self.log.read_text().splitlines():
            entry = json.loads(line)
            if entry["args"][: len(prefix)] == prefix:
                return json.loads(entry["stdin"])
        raise AssertionError(f"gh {prefix} was not called")

    def calls_to(self, *prefix: str) -> list[list[str]]:
        return [call for call in self.calls() if call[: len(prefix)] == list(prefix)]

    def mode(self, value: str) -> None:
        self._monkeypatch.setenv("FAKE_GH_MODE", value)

    def clear(self) -> None:
        self.log.unlink(missing_ok=True)


@pytest.fixture(autouse=True)
def team_env(isolated_home: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """A git identity, `main` as the default branch, a pinned date, no `gh` from outside."""
    (isolated_home / ".gitconfig").write_text(
        "[user]\n\tname = Test User\n\temail = test@example.invalid\n"
        "[init]\n\tdefaultBranch = main\n[commit]\n\tgpgsign = false\n"
        "[advice]\n\tdetachedHead = false\n",
        encoding="utf-8",
    )
    monkeypatch.setenv("LORE_TODAY", TODAY)
    monkeypatch.delenv("GH_PATH", raising=False)
    monkeypatch.delenv("GH_HOST", raising=False)
    monkeypatch.delenv("LORE_GH_EXTENSION_DIR", raising=False)
    # PATH without any real gh: only git, python and the basic tools stay reachable.
    tools = tmp_path / "tools"
    tools.mkdir()
    for name in ("git", "sh", "cat", "dirname", "cksum", "rm", "mv", "env", "sleep"):
        found = _which(name)
        if found:
            (tools / name).symlink_to(found)
    (tools / "python3").symlink_to(sys.executable)
    monkeypatch.setenv("PATH", str(tools))
    return isolated_home


def _which(name: str) -> str | None:
    for folder in ("/usr/local/bin", "/usr/bin", "/bin"):
        candidate = Path(folder) / name
        if candidate.exists():
            return str(candidate)
    return None


@pytest.fixture
def fake_gh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> FakeGh:
    bin_dir = tmp_path / "fake-gh"
    bin_dir.mkdir()
    script = bin_dir / "gh"
    script.write_text(FAKE_GH.format(python=sys.executable, pr_url=PR_URL), encoding="utf-8")
    script.chmod(0o755)
    log = tmp_path / "gh-calls.jsonl"
    monkeypatch.setenv("FAKE_GH_LOG", str(log))
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.delenv("FAKE_GH_MODE", raising=False)
    return FakeGh(bin_dir, log, monkeypatch)


def map_github_url(home: Path, url: str, target: Path) -> None:
    """Make git fetch and push `url` from the local bare repository `target`."""
    with (home / ".gitconfig").open("a", encoding="utf-8") as config:
        config.write(f'[url "{target}"]\n\tinsteadOf = {url}\n')


class Remote:
    """A bare repository holding a vault, reachable as https://github.com/acme/team-vault.git."""

    def __init__(self, bare: Path, scratch: Path) -> None:
        self.bare = bare
        self.scratch = scratch

    def work(self) -> Path:
        """A fresh clone of the remote, for playing a teammate or a GitHub merge."""
        work = self.scratch / f"work{len(list(self.scratch.glob('work*')))}"
        git(self.scratch, "clone", "-q", str(self.bare), work.name)
        return work

    def merge(self, branch: str) -> str:
        """Merge a proposal's branch into main, as the merge button on GitHub would."""
        work = self.work()
        git(work, "merge", "-q", "--no-ff", "-m", f"Merge {branch}", f"origin/{branch}")
        git(work, "push", "-q", "origin", "main")
        return git(work, "rev-parse", "HEAD")

    def commit_note(self, note_id: str, text: str, message: str = "add a note") -> str:
        work = self.work()
        (work / "notes" / f"{note_id}.md").write_text(text, encoding="utf-8")
        git(work, "add", "-A")
        git(work, "commit", "-q", "-m", message)
        git(work, "push", "-q", "origin", "main")
        return git(work, "rev-parse", "HEAD")

    def branches(self) -> list[str]:
        return git(self.bare, "for-each-ref", "--format=%(refname:short)", "refs/heads").split()


@pytest.fixture
def remote(tmp_path: Path, team_env: Path) -> Remote:
    """A vault (the seed, repos payments-api and web-app) pushed to a bare repository."""
    scratch = tmp_path / "remote-scratch"
    scratch.mkdir()
    seed = scratch / "seed"
    seed.mkdir()
    write_files(seed, seed_files())
    taxonomy = seed / "_taxonomy.md"
    taxonomy.write_text(
        taxonomy.read_text(encoding="utf-8").replace(
            "- `example-service` — Replace with your repositories.",
            "- `payments-api` — The billing API.\n- `web-app` — The web application.",
        ),
        encoding="utf-8",
    )
    git(seed, "init", "-q", "-b", "main")
    git(seed, "add", "-A")
    git(seed, "commit", "-q", "-m", "vault")
    bare = tmp_path / "team-vault.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(bare))
    git(seed, "push", "-q", str(bare), "main")
    map_github_url(team_env, GITHUB_URL, bare)
    return Remote(bare, scratch)


@pytest.fixture
def clone_of(tmp_path: Path) -> Callable[..., Path]:
    """A user's checkout of the vault, cloned from its GitHub URL (mapped to the bare repo)."""

    def make(name: str = "checkout", url: str = GITHUB_URL) -> Path:
        git(tmp_path, "clone", "-q", url, name)
        return tmp_path / name

    return make


def snapshot(root: Path) -> dict[str, str]:
    """What the user sees of a checkout: HEAD, branch, status and every tracked file's hash."""
    return {
        "head": git(root, "rev-parse", "HEAD"),
        "branch": git(root, "branch", "--show-current"),
        "status": git(root, "status", "--porcelain", "--untracked-files=all"),
        "files": git(root, "ls-files", "-s"),
        "diff": git(root, "diff", "HEAD"),
    }
