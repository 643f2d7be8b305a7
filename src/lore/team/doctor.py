"""`lore doctor`: every resolved path, the tools lore relies on, and what to fix.

Each check is a line with a verdict (ok, a problem with its fix, or plain
information). Only the GitHub CLI's sign-in check uses the network, and it can be
skipped. Run inside a vault (or with --vault), it also checks the gh-lore commit the
vault's workflows run: a reference left unresolved would block every pull request. For
the vault in use it says which branch and commit agents are served, and warns when the
checkout is on another branch or the reviewed branch tracks `.lore/`.
"""

from __future__ import annotations

import contextlib
import os
import platform
import re
import sqlite3
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lore import __version__
from lore.config import load_config
from lore.errors import LoreError, StateUnwritable
from lore.index.health import disk_full, inspect_index
from lore.index.schema import fts5_available
from lore.paths import config_path, index_path, log_dir, lore_home, state_dir
from lore.team.curator_pin import pin_lines, vault_workflows
from lore.team.vault_state import VaultState, vault_states
from lore.vault import gh, git
from lore.vault.local_state import check_state_dir
from lore.vault.remote import github_repo
from lore.vaults import one_vault
from lore.versioned import versioned


@dataclass
class Check:
    name: str
    value: str
    ok: bool | None = True  # None: information only
    fix: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "value": self.value, "ok": self.ok, "fix": self.fix}


@dataclass
class DoctorReport:
    version: str
    paths: dict[str, str | None] = field(default_factory=dict)
    checks: list[Check] = field(default_factory=list)
    vaults: list[VaultState] = field(default_factory=list)

    @property
    def problems(self) -> list[str]:
        found = [
            f"{c.name}: {c.value}. {c.fix or ''}".strip() for c in self.checks if c.ok is False
        ]
        checked = self.paths.get("vault")  # its served-branch checks are above
        found += [
            f"vault {v.name}: {v.problem}."
            for v in self.vaults
            if v.problem and not (checked and Path(v.path) == Path(checked) and v.exists)
        ]
        return found

    def to_json(self) -> dict[str, Any]:
        return versioned(
            {
                "lore": self.version,
                "paths": self.paths,
                "checks": [check.to_json() for check in self.checks],
                "vaults": [state.to_json() for state in self.vaults],
                "problems": self.problems,
            }
        )


def _git_version() -> str | None:
    try:
        result = git.run_git(["--version"], Path.cwd(), check=False)
    except LoreError:
        return None
    text = result.stdout.decode("utf-8", "replace").strip()
    return text.removeprefix("git version ") or None


INDEX_FIX = (
    "Run `lore index --rebuild` (any command that meets the damage also rebuilds it); "
    "the index is a cache of the committed notes, so no note is lost."
)


def index_check(root: Path) -> Check:
    """The vault's index as it is: SQLite's and FTS5's full checks; nothing is changed."""
    path = index_path(root)
    try:
        check_state_dir(root)
    except StateUnwritable as exc:  # the sentence every command says
        return Check("index", exc.message, False, exc.fix)
    health = inspect_index(path)
    if health.damaged:
        return Check("index", f"damaged: {'; '.join(health.problems[:3])}", False, INDEX_FIX)
    unwritable = _unwritable(path.parent)
    if unwritable or health.state == "unreadable":
        return Check(
            "index",
            f"cannot be written: {unwritable or '; '.join(health.problems[:1])}",
            False,
            "Free some disk space or make the folder writable; until then lore reads the "
            "committed notes from the files, more slowly.",
        )
    if health.state == "missing":
        return Check("index", "not built yet (the next recall builds it)", None)
    if health.state == "old":
        return Check("index", "from an older lore (the next recall rebuilds it)", None)
    return Check("index", f"sound ({health.notes} notes)", True)


def served_checks(root: Path) -> list[Check]:
    """What agents are served from this vault, and what about the checkout needs fixing.

    The reviewed branch and its commit (information; from the ref files, as recall reads
    them), a problem when the checkout is on another branch, and a problem when the
    reviewed branch tracks `.lore` (an older lore's folder, inert now).
    """
    from lore.vault.local_state import tracked_old_state, untrack_advice
    from lore.vault.snapshot import UNSETTLED, served_branch

    served = served_branch(root)
    if served is None:
        return [Check("served", "the note files (the vault is not a git work tree)", None)]
    commit = served.commit.removeprefix(UNSETTLED)
    how = {
        "remote": "the remote's copy of the reviewed branch, as last fetched",
        "local": f"no {git.REMOTE} copy of it: the local branch",
        "head": "no main, master or configured branch: the checkout's HEAD",
    }[served.source]
    checks = [Check("served", f"{served.label} at {commit[:12] or 'no commit'} ({how})", None)]
    tracked = tracked_old_state(root, commit)
    if tracked:
        listed = ", ".join(tracked[:3]) + (
            f" and {len(tracked) - 3} more" if len(tracked) > 3 else ""
        )
        checks.append(
            Check(
                "old state",
                f"the reviewed branch {served.label} tracks .lore/ ({listed}); lore never "
                "opens or writes it",
                False,
                untrack_advice(root, served.label),
            )
        )
    current = git.current_branch(root)
    if served.source != "head" and current != served.branch:
        where = f"on {current}" if current else "on no branch (HEAD is detached)"
        checks.append(
            Check(
                "checkout",
                f"{where}, not {served.branch}: agents are served {served.label} all the same",
                False,
                f"When you are done there: `git -C {root} switch {served.branch}`.",
            )
        )
    return checks


def _unwritable(folder: Path) -> str:
    """Why lore could not write its index folder, or "" (a missing folder is created)."""
    if not folder.exists():
        return ""
    if not folder.is_dir():
        return f"{folder} is not a folder"
    if not os.access(folder, os.W_OK):
        return f"{folder} is read-only"
    return f"the disk holding {folder} is full" if disk_full(folder) else ""


def curator_pin_check(root: Path) -> Check:
    """Whether the vault's workflows run lore's action from one real gh-lore commit."""
    lines = pin_lines(vault_workflows(root))
    if not lines:
        return Check(
            "curator pin", f"no workflow in {root}/.github/workflows runs lore's action", None
        )
    unresolved = [line for line in lines if line.unresolved]
    if unresolved:
        return Check(
            "curator pin",
            "unresolved: "
            + ", ".join(f"{line.where} runs {line.repo}@{line.ref}" for line in unresolved),
            False,
            "No such commit exists, so the curator check never starts and a protected main "
            "blocks every pull request; write the gh-lore repository and full commit there "
            "(e.g. acme/gh-lore@<40-character commit>, the same in each file).",
        )
    floating = [line for line in lines if not line.pinned]
    if floating:
        return Check(
            "curator pin",
            "not a commit: "
            + ", ".join(f"{line.where} runs {line.repo}@{line.ref}" for line in floating),
            False,
            "A branch or tag can move under the vault; pin the full 40-character commit.",
        )
    commits = sorted({f"{line.repo}@{line.ref[:12]}" for line in lines})
    if len(commits) > 1:
        return Check(
            "curator pin",
            "different commits: "
            + ", ".join(f"{line.where} runs {line.repo}@{line.ref[:12]}" for line in lines),
            False,
            "Run one gh-lore commit in every workflow, so the gardener writes what the "
            "curator accepts.",
        )
    return Check("curator pin", f"{commits[0]} ({', '.join(line.where for line in lines)})")


_PULL_REQUEST = re.compile(r"^\s*(?:-\s*)?pull_request\s*:?\s*(?:#.*)?$", re.MULTILINE)
_WORKFLOW_RUN = re.compile(r"^\s*workflow_run\s*:", re.MULTILINE)
_REVIEWS_A_PULL_REQUEST = re.compile(r"lore curate\b[^\n]*--base")


def curator_trigger_check(root: Path) -> Check | None:
    """Whether the vault still runs the curator a pull request can edit (before the trusted
    curator): `lore curate` on `pull_request`, or the `workflow_run` comment workflow."""
    old = [
        path
        for path, text in vault_workflows(root).items()
        if (_REVIEWS_A_PULL_REQUEST.search(text) and _PULL_REQUEST.search(text))
        or ("lore curator" in text and _WORKFLOW_RUN.search(text))
    ]
    if not old:
        return None
    return Check(
        "curator trigger",
        f"{', '.join(old)} still run(s) the curator on pull_request or its comment on "
        "workflow_run, so a pull request can edit its own check",
        False,
        "Replace lore-curator.yml with the template's (it runs on pull_request_target, "
        "from the base branch) and delete lore-comment.yml: docs/curator.md, "
        '"Upgrading an existing vault".',
    )


def diagnose(*, vault_flag: str | None = None, network: bool = True) -> DoctorReport:
    report = DoctorReport(version=__version__)
    checks = report.checks
    checks.append(Check("python", f"{platform.python_version()} ({sys.executable})", None))
    report.paths = {
        "config": str(config_path()),
        "lore_home": str(lore_home()),
        "logs": str(log_dir()),
        "gh_extension": os.environ.get("LORE_GH_EXTENSION_DIR"),
    }
    hosts = {"github.com"}
    try:
        config = load_config()
        exists = config.path.is_file()
        checks.append(
            Check(
                "config",
                f"{config.path} ({len(config.vaults)} vault(s))"
                if exists
                else f"{config.path} (not created yet)",
                True if exists else None,
            )
        )
        report.vaults = vault_states(config)
        for entry in config.vaults.values():
            repo = github_repo(entry.remote)
            if repo is not None:
                hosts.add(repo.host)
    except LoreError as exc:
        checks.append(Check("config", exc.message, False, exc.fix))
    try:
        location = one_vault(vault_flag, reviewing=True)
        report.paths["vault"] = str(location.root)
        report.paths["state"] = str(state_dir(location.root))
        report.paths["index"] = str(index_path(location.root))
        checks.append(Check("vault", f"{location.name} at {location.root} (from {location.how})"))
        checks.append(index_check(location.root))
        checks.extend(served_checks(location.root))
    except LoreError as exc:
        report.paths["vault"] = None
        checks.append(Check("vault", exc.message, False, exc.fix))
    with contextlib.suppress(LoreError):  # no vault at all: reported above
        # The vault doctor runs in, when it runs in one; else the vault above.
        here = one_vault(vault_flag, here=Path.cwd(), reviewing=True).root
        checks.append(curator_pin_check(here))
        trigger = curator_trigger_check(here)
        if trigger is not None:
            checks.append(trigger)

    version = _git_version()
    checks.append(
        Check("git", version, True)
        if version
        else Check("git", "not found", False, "Install git; lore keeps vaults as git repositories.")
    )
    name = git.config_value(None, "user.name") if version else None
    email = git.config_value(None, "user.email") if version else None
    checks.append(
        Check("git identity", f"{name} <{email}>", True)
        if name and email
        else Check(
            "git identity",
            "user.name or user.email is not set",
            None,
            "lore remember commits as your GitHub handle without it; to choose, run "
            '`git config --global user.name "…"` and `git config --global user.email …`.',
        )
    )
    gh_path = gh.gh_executable()
    gh_version = gh.gh_version() if gh_path else None
    if gh_path and gh_version:
        checks.append(Check("gh", f"{gh_version} ({gh_path})"))
        if network:
            for host in sorted(hosts):
                signed_in, detail = gh.auth_status(host)
                checks.append(
                    Check(
                        f"gh auth {host}",
                        detail or ("signed in" if signed_in else "not signed in"),
                        signed_in,
                        None if signed_in else gh.AUTH_FIX,
                    )
                )
        else:
            checks.append(Check("gh auth", "not checked (--offline)", None))
    else:
        checks.append(
            Check(
                "gh",
                "not found",
                False,
                "lore remember opens pull requests and lore init --github creates repositories "
                "with it: " + gh.INSTALL_FIX,
            )
        )
    fts5 = fts5_available()
    checks.append(Check("sqlite", sqlite3.sqlite_version))
    checks.append(
        Check("fts5", "available", True)
        if fts5
        else Check(
            "fts5",
            "not available in this Python's SQLite",
            False,
            "Recall falls back to scanning the files; use a Python whose SQLite has FTS5.",
        )
    )
    try:
        from lore.yamlio import WITH_LIBYAML
    except ImportError:  # pragma: no cover - PyYAML is a dependency
        WITH_LIBYAML = False  # noqa: N806
    checks.append(
        Check("libyaml", "yes", True)
        if WITH_LIBYAML
        else Check(
            "libyaml",
            "no (pure-Python YAML: index builds are about 4x slower)",
            None,
            "Install PyYAML with its C extension for faster index builds.",
        )
    )
    return report
