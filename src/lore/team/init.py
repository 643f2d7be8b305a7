"""`lore init`: a new vault from the seed, as a git repository — optionally on GitHub.

The vault is the seed every vault starts from (`vault-template/` plus `_taxonomy.md`
and `_conventions.md`, through `lore.vault.seed`), committed, registered in the user
config and indexed. With a GitHub repository name it also creates the repository
with `gh repo create`, adds the `lore` and `agent-authored` labels, pushes `main`,
and prints — or with `protect`, applies through `gh api` — the branch protection a
vault needs. The curator workflow is pinned to the gh-lore release that runs this
command when lore knows it (it runs as `gh lore`, or `curator` names it); otherwise
the result says what to edit.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lore import __version__
from lore.errors import GhError, GitError, UsageError
from lore.index.build import IndexUnavailable, open_index
from lore.team.pr_body import LABELS
from lore.team.registry import name_from, register
from lore.vault import gh, git
from lore.vault.remote import RemoteError, github_clone_url, github_repo, parse_owner_repo
from lore.vault.repository import add_remote, init_and_commit, push_branch, track_remote_branch
from lore.vault.seed import seed_files, write_files

WORKFLOW = ".github/workflows/lore-curator.yml"
GARDEN_WORKFLOW = ".github/workflows/lore-garden.yml"
GARDEN_VERSION = re.compile(r'LORE_VERSION: "[^"]*"')
CODEOWNERS = ".github/CODEOWNERS"
PLACEHOLDER_USES = re.compile(
    r"OWNER/gh-lore/\.github/workflows/curator\.yml@0{40} # v[0-9A-Za-z.+-]+"
)
PLACEHOLDER_VERSION = re.compile(r'lore-version: "[^"]*"')
CHECK_NAME = "curate / curate"  # the reusable workflow's job, as GitHub names the check
DESCRIPTION = "Our team's reviewed memory for AI coding agents (managed with lore)"


@dataclass(frozen=True)
class CuratorPin:
    """Which gh-lore release the vault's curator workflow runs: OWNER/REPO@COMMIT # vX."""

    repo: str
    commit: str
    version: str = __version__

    @classmethod
    def parse(cls, text: str) -> CuratorPin:
        match = re.match(r"^([A-Za-z0-9-]+/[A-Za-z0-9._-]+)@([0-9a-f]{40})$", text.strip())
        if not match:
            raise UsageError(
                f"'{text}' does not name a release of gh-lore.",
                fix="Write OWNER/gh-lore@COMMIT with the release's full 40-character commit.",
            )
        return cls(match[1], match[2])


@dataclass
class InitResult:
    path: Path
    name: str
    commit: str
    default: bool
    github: str | None = None  # the repository's web address
    pinned: CuratorPin | None = None
    to_edit: list[str] = field(default_factory=list)  # files the team must still edit
    settings: list[str] = field(default_factory=list)  # recommended branch protection
    protected: bool = False
    notices: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "path": str(self.path),
            "name": self.name,
            "commit": self.commit,
            "default": self.default,
            "github": self.github,
            "curator": (
                f"{self.pinned.repo}@{self.pinned.commit} # v{self.pinned.version}"
                if self.pinned
                else None
            ),
            "edit": self.to_edit,
            "branch_protection": self.settings,
            "protected": self.protected,
            "notices": self.notices,
        }


def detect_curator_pin() -> CuratorPin | None:
    """The gh-lore release lore runs from, when it runs as a gh extension (`gh lore`).

    The extension is a clone of OWNER/gh-lore; the commit is the release tag of this
    version when the clone has it, else the clone's HEAD.
    """
    folder = os.environ.get("LORE_GH_EXTENSION_DIR")
    if not folder or not Path(folder).is_dir():
        return None
    root = Path(folder)
    repo = github_repo(git.remote_url(root, "origin"))
    if repo is None:
        return None
    commit = git.resolve_commit(root, f"v{__version__}") or git.head_commit(root)
    return CuratorPin(repo.full_name, commit) if commit else None


def vault_files(
    pin: CuratorPin | None, reviewers: str | None
) -> tuple[dict[str, bytes], list[str]]:
    """The seed with the curator pinned and the reviewers filled in; and what is left to edit."""
    files = seed_files()
    to_edit: list[str] = []
    workflow = files[WORKFLOW].decode("utf-8")
    if pin is not None:
        uses = f"{pin.repo}/.github/workflows/curator.yml@{pin.commit} # v{pin.version}"
        workflow = PLACEHOLDER_USES.sub(uses, workflow)
        workflow = PLACEHOLDER_VERSION.sub(f'lore-version: "{pin.version}"', workflow)
        files[WORKFLOW] = workflow.encode("utf-8")
    elif PLACEHOLDER_USES.search(workflow):
        to_edit.append(
            f"{WORKFLOW}: replace OWNER and the commit 000…0 with the gh-lore release you use "
            "(OWNER/gh-lore@<full commit> # v<version>), or run `lore init` as `gh lore init`."
        )
    if GARDEN_WORKFLOW in files:  # the gardener runs the same release as this lore
        garden = files[GARDEN_WORKFLOW].decode("utf-8")
        version = pin.version if pin is not None else __version__
        garden = GARDEN_VERSION.sub(f'LORE_VERSION: "{version}"', garden)
        files[GARDEN_WORKFLOW] = garden.encode("utf-8")
    owners = files[CODEOWNERS].decode("utf-8")
    if reviewers:
        handles = " ".join(
            handle if handle.startswith("@") else f"@{handle}" for handle in reviewers.split()
        )
        files[CODEOWNERS] = owners.replace("* @OWNER/TEAM", f"* {handles}").encode("utf-8")
    elif "@OWNER/TEAM" in owners:
        to_edit.append(
            f"{CODEOWNERS}: replace @OWNER/TEAM with the team or people who review notes "
            "(or pass --reviewers)."
        )
    to_edit.append("_taxonomy.md: list your repositories under `## Repos` and adjust the tags.")
    return files, to_edit


def protection_payload() -> dict[str, Any]:
    return {
        "required_status_checks": {"strict": False, "contexts": [CHECK_NAME]},
        "enforce_admins": False,
        "required_pull_request_reviews": {
            "dismiss_stale_reviews": True,
            "require_code_owner_reviews": True,
            "required_approving_review_count": 1,
        },
        "restrictions": None,
        "allow_force_pushes": False,
        "allow_deletions": False,
    }


def recommended_settings(full_name: str) -> list[str]:
    return [
        f"Protect main in https://github.com/{full_name}/settings/branches:",
        "require a pull request with 1 approval and review from Code Owners,",
        "dismiss stale approvals when new commits are pushed,",
        f"require the status check '{CHECK_NAME}' (the lore curator),",
        "do not allow force pushes or deletions.",
    ]


def _destination(path: str | None, github: str | None) -> Path:
    if path:
        dest = Path(path).expanduser()
    elif github:
        dest = Path.cwd() / github.split("/", 1)[1]
    else:
        dest = Path.cwd()
    dest = dest.absolute()
    if dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
        raise UsageError(
            f"{dest} is not empty; lore creates a vault only in a new or empty folder.",
            fix="Name a new folder: `lore init PATH`.",
        )
    return dest


def init_vault(
    path: str | None,
    *,
    github: str | None = None,
    visibility: str = "private",
    protect: bool = False,
    name: str | None = None,
    reviewers: str | None = None,
    curator: str | None = None,
    make_default: bool = False,
    register_vault: bool = True,
) -> InitResult:
    owner_repo = parse_owner_repo(github) if github else None
    if github and owner_repo is None:
        raise UsageError(f"'{github}' is not OWNER/NAME.", fix="E.g. --github acme/team-memory.")
    if protect and not github:
        raise UsageError("--protect needs --github OWNER/NAME.")
    dest = _destination(path, github)
    vault_name = name_from(name or (owner_repo[1] if owner_repo else dest.name))
    if owner_repo is not None:
        signed_in, detail = gh.auth_status()
        if not signed_in:  # before anything is created: nothing to clean up
            raise GhError(
                f"--github needs the GitHub CLI, signed in: {detail}",
                kind="auth",
                fix=gh.AUTH_FIX if gh.gh_executable() else gh.INSTALL_FIX,
            )
    pin = CuratorPin.parse(curator) if curator else detect_curator_pin()
    files, to_edit = vault_files(pin, reviewers)
    dest.mkdir(parents=True, exist_ok=True)
    write_files(dest, files)
    try:
        commit = init_and_commit(dest, "Create the team vault (lore init)")
    except GitError as exc:
        raise GitError(
            f"The vault files are in {dest}, but git could not commit them: {exc.message}",
            fix='Set your identity (`git config --global user.name "…"` and user.email), then '
            f"run `git -C {dest} add -A && git -C {dest} commit -m 'Create the vault'`.",
        ) from None
    result = InitResult(dest, vault_name, commit, False, pinned=pin, to_edit=to_edit)
    if register_vault:
        _, result.default = register(vault_name, dest, remote=None, make_default=make_default)
    try:
        conn, _ = open_index(dest)
        conn.close()
    except IndexUnavailable as exc:
        result.notices.append(f"The index could not be built ({exc}); recall scans the files.")
    if owner_repo is not None:
        try:
            _publish_on_github(result, owner_repo, visibility, protect)
        except GhError as exc:
            full_name = "/".join(owner_repo)
            raise GhError(
                f"The vault is ready in {dest}, but GitHub refused to create {full_name}: "
                f"{exc.message}",
                kind=exc.kind,
                fix=f"{exc.fix or ''} Or create the repository yourself, then run "
                f"`git -C {dest} remote add origin {github_clone_url(*owner_repo)}` and "
                f"`git -C {dest} push -u origin main`.".strip(),
            ) from None
        if register_vault:
            register(vault_name, dest, remote=git.remote_url(dest, "origin"))
    return result


def _publish_on_github(
    result: InitResult, owner_repo: tuple[str, str], visibility: str, protect: bool
) -> None:
    full_name = "/".join(owner_repo)
    dest = result.path
    gh.repo_create(full_name, visibility=visibility, description=DESCRIPTION)
    url = github_clone_url(*owner_repo)
    result.github = f"https://github.com/{full_name}"
    add_remote(dest, "origin", url)
    for label, (color, description) in LABELS.items():
        try:
            gh.label_create(full_name, label, color=color, description=description)
        except GhError as exc:
            result.notices.append(f"The label '{label}' could not be created: {exc.message}")
    try:
        push_branch(dest, "main", "origin", gh=gh.gh_executable())
    except RemoteError as exc:
        result.notices.append(
            f"The repository exists but the first push failed ({exc.detail or exc.kind}). "
            f"Push it yourself: git -C {dest} push -u origin main"
        )
        result.settings = recommended_settings(full_name)
        return
    track_remote_branch(dest, "main", "origin")
    result.settings = recommended_settings(full_name)
    if protect:
        try:
            gh.api("PUT", f"repos/{full_name}/branches/main/protection", protection_payload())
            result.protected = True
        except GhError as exc:
            result.notices.append(
                f"Branch protection could not be applied ({exc.message}); set it by hand as "
                "listed (private repositories need a paid plan for it)."
            )
