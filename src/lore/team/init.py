"""`lore init`: a new vault from the seed, as a git repository — optionally on GitHub.

The vault is the seed every vault starts from (`vault-template/` plus `_taxonomy.md`
and `_conventions.md`, through `lore.vault.seed`), committed, registered in the user
config and indexed. With a GitHub repository name it also creates the repository
with `gh repo create`, adds the `lore` and `agent-authored` labels, pushes `main`,
and prints — or with `protect`, applies through `gh api` — the branch protection a
vault needs. The curator, gardener and site workflows are pinned to the gh-lore commit
`--curator` names or the one this lore was installed from (`lore.team.curator_pin`);
otherwise the result names the lines to edit, and `protect` is refused, since a
required check that can never start would block every pull request. A vault on GitHub
gets the model review through GitHub Models, on (`lore.team.model_review_seed`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lore import HOME_REPOSITORY
from lore.errors import GhError, GitError, UsageError
from lore.index.build import IndexUnavailable, open_index
from lore.team import model_review_seed
from lore.team.curator_pin import (
    PIN_WORKFLOWS,
    CuratorPin,
    Detection,
    apply_pin,
    edit_instructions,
    pin_lines,
    resolve_pin,
)
from lore.team.proposals.pr_body import LABELS
from lore.team.registry import name_from, register
from lore.vault import gh, git
from lore.vault.remote import RemoteError, github_clone_url, parse_owner_repo
from lore.vault.repository import add_remote, init_and_commit, push_branch, track_remote_branch
from lore.vault.seed import seed_files, write_files
from lore.versioned import versioned

CODEOWNERS = ".github/CODEOWNERS"
CHECK_NAME = "curate"  # the curator workflow's job, as GitHub names the check
# The expected source of that check: the GitHub Actions app. Any job of any workflow can
# be named `curate`, so the source cannot tell the trusted one from a pull request's own;
# what it rules out is a commit status of that name set through the API
# (https://docs.github.com/en/rest/branches/branch-protection#update-status-check-protection).
GITHUB_ACTIONS_APP_ID = 15368
DESCRIPTION = "Our team's reviewed memory for AI coding agents (managed with lore)"


@dataclass
class InitResult:
    path: Path
    name: str
    commit: str
    default: bool
    github: str | None = None  # the repository's web address
    pinned: CuratorPin | None = None
    pin_source: str = ""  # where the pin came from: --curator, the gh extension, ...
    to_edit: list[str] = field(default_factory=list)  # files the team must still edit
    settings: list[str] = field(default_factory=list)  # recommended branch protection
    protected: bool = False
    model_review: bool = False  # [curator.semantic] on, through GitHub Models
    notices: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return versioned(
            {
                "path": str(self.path),
                "name": self.name,
                "commit": self.commit,
                "default": self.default,
                "github": self.github,
                "curator": self.pinned.uses if self.pinned else None,
                "curator_source": self.pin_source or None,
                "edit": self.to_edit,
                "branch_protection": self.settings,
                "protected": self.protected,
                "model_review": self.model_review,
                "notices": self.notices,
            }
        )


def vault_files(
    pin: CuratorPin | None, reviewers: str | None, *, model_review: bool = False
) -> tuple[dict[str, bytes], list[str]]:
    """The seed with the curator pinned, the reviewers filled in and (`model_review`) the
    model review on; and what is left to edit."""
    files = seed_files()
    if model_review and "lore.toml" in files:
        text = model_review_seed.with_model_review(files["lore.toml"].decode("utf-8"))
        files["lore.toml"] = text.encode("utf-8")
    workflows = {path: files[path].decode("utf-8") for path in PIN_WORKFLOWS if path in files}
    if pin is not None:
        for path, text in workflows.items():
            workflows[path] = apply_pin(text, pin)
            files[path] = workflows[path].encode("utf-8")
    to_edit = edit_instructions(pin_lines(workflows))
    owners = files[CODEOWNERS].decode("utf-8")
    if reviewers:
        handles = " ".join(
            handle if handle.startswith("@") else f"@{handle}" for handle in reviewers.split()
        )
        files[CODEOWNERS] = owners.replace("@OWNER/TEAM", handles).encode("utf-8")
    elif "@OWNER/TEAM" in owners:
        to_edit.append(
            f"{CODEOWNERS}: replace @OWNER/TEAM with the team or people who review notes, "
            "and on the policy lines with who may change how the vault is reviewed "
            "(or pass --reviewers)."
        )
    to_edit.append("_taxonomy.md: list your repositories under `## Repos` and adjust the tags.")
    return files, to_edit


def _refuse_protection(detection: Detection) -> UsageError:
    """--protect with no curator commit: the required check could never start."""
    _, to_edit = vault_files(None, None)
    lines = [line.split(": ", 1)[0] for line in to_edit if line.startswith(".github/workflows/")]
    lines = list(dict.fromkeys(lines))
    why = "; ".join(detection.reasons) or "no commit was given"
    return UsageError(
        f"--protect would require the '{CHECK_NAME}' check on main, but lore cannot tell "
        f"which gh-lore commit the vault's workflows should run ({why}), so that check "
        "could never start and every pull request would stay blocked.",
        fix=f"Pass --curator {HOME_REPOSITORY}@COMMIT (the gh-lore repository and full commit "
        "to run, e.g. acme/gh-lore@<40-character commit>) or run it as `gh lore init`; or leave "
        f"out --protect, edit {' and '.join(lines)}, then protect main.",
    )


def protection_payload() -> dict[str, Any]:
    return {
        "required_status_checks": {
            "strict": False,
            "checks": [{"context": CHECK_NAME, "app_id": GITHUB_ACTIONS_APP_ID}],
        },
        "enforce_admins": False,
        "required_pull_request_reviews": {
            "dismiss_stale_reviews": True,
            "require_code_owner_reviews": True,
            "require_last_push_approval": True,
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
        "require approval of the most recent reviewable push,",
        f"require the status check '{CHECK_NAME}' (the lore curator) from GitHub Actions,",
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
    detection = resolve_pin(curator)
    pin = detection.pin
    if protect and pin is None:
        raise _refuse_protection(detection)
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
    files, to_edit = vault_files(pin, reviewers, model_review=owner_repo is not None)
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
    result.model_review = owner_repo is not None
    result.pin_source = detection.source
    if pin is None:
        result.notices.append(
            "lore cannot tell which gh-lore commit the vault's workflows should run ("
            + "; ".join(detection.reasons)
            + "), so they still name OWNER/gh-lore@000…0: edit the lines listed below."
        )
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
