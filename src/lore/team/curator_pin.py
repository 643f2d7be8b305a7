"""Which gh-lore commit a vault's workflows run: the curator pin, found, written and checked.

A vault's curator, gardener and site workflows call lore's GitHub Action as
`uses: OWNER/gh-lore@<40-character commit> # v<version>`; the action installs exactly
that commit. The template ships the reference unresolved (`OWNER/…` and an all-zero
commit), and `lore init` fills it in from how this lore was installed, first that
applies:

1. the gh extension's clone (`gh lore` exports LORE_GH_EXTENSION_DIR): its `origin`
   remote and HEAD;
2. PEP 610's `direct_url.json` of the installed distribution: the commit of
   `pip install git+https://github.com/OWNER/gh-lore@<commit>`, or, for an install
   from a folder, that folder's git;
3. the git clone lore's own source files sit in.

A clone's HEAD counts only when a branch of `origin` or a tag holds it, so the commit
exists on GitHub. Otherwise the reference stays unresolved and every message names the
exact lines to edit; `lore doctor` flags an unresolved one in a vault.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlparse

from lore import __version__
from lore.errors import LoreError, UsageError
from lore.vault import git
from lore.vault.remote import github_repo

# The workflows of the vault template that run the lore action (the same commit in each).
PIN_WORKFLOWS = (
    ".github/workflows/lore-curator.yml",
    ".github/workflows/lore-garden.yml",
    ".github/workflows/lore-site.yml",
)
WORKFLOW_DIR = ".github/workflows"
PLACEHOLDER_OWNER = "OWNER"
UNSET_COMMIT = "0" * 40
EXAMPLE = "acme/gh-lore@<the full 40-character commit>"
# Where this lore came from: the distribution whose PEP 610 record is read, and the
# folder of lore's own source files (a clone, when lore runs from one).
DISTRIBUTION = "gh-lore"
SOURCE_TREE = Path(__file__).resolve().parents[3]
_COMMIT = re.compile(r"^[0-9a-f]{40}$")
# A step that calls a GitHub repository's action: `uses: OWNER/NAME@REF  # comment`.
_USES = re.compile(
    r"^(?P<lead>\s*(?:-\s+)?uses:\s+)(?P<repo>[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+)"
    r"@(?P<ref>[^\s#]+)(?P<rest>.*)$"
)


@dataclass(frozen=True)
class CuratorPin:
    """The gh-lore commit a vault's workflows run: OWNER/REPO@COMMIT # vX."""

    repo: str
    commit: str
    version: str = __version__

    @classmethod
    def parse(cls, text: str) -> CuratorPin:
        match = re.match(r"^([A-Za-z0-9-]+/gh-lore)@([0-9a-f]{40})$", text.strip())
        if not match or match[1].split("/")[0] == PLACEHOLDER_OWNER or match[2] == UNSET_COMMIT:
            raise UsageError(
                f"'{text}' does not name a commit of gh-lore.",
                fix="Write OWNER/gh-lore@COMMIT with the account that hosts your gh-lore and "
                f"the full commit, e.g. {EXAMPLE}.",
            )
        return cls(match[1], match[2])

    @property
    def uses(self) -> str:
        return f"{self.repo}@{self.commit} # v{self.version}"


@dataclass
class Detection:
    """The pin found from how lore was installed, or why none was found."""

    pin: CuratorPin | None = None
    source: str = ""  # where the pin came from
    reasons: list[str] = field(default_factory=list)  # why each source did not give one


@dataclass(frozen=True)
class PinLine:
    """One `uses:` line of a vault workflow that runs the lore action (or is left to fill)."""

    path: str  # relative to the vault
    line: int  # 1-based
    repo: str
    ref: str

    @property
    def unresolved(self) -> bool:
        return self.repo.split("/")[0] == PLACEHOLDER_OWNER or self.ref == UNSET_COMMIT

    @property
    def pinned(self) -> bool:
        return bool(_COMMIT.match(self.ref)) and not self.unresolved

    @property
    def where(self) -> str:
        return f"{self.path}:{self.line}"


def _is_lore_action(repo: str, ref: str) -> bool:
    owner, _, name = repo.partition("/")
    return name == "gh-lore" or owner == PLACEHOLDER_OWNER or ref == UNSET_COMMIT


def pin_lines(files: dict[str, str]) -> list[PinLine]:
    """Every `uses:` line in `files` (path -> text) that runs, or should run, lore's action."""
    found: list[PinLine] = []
    for path, text in sorted(files.items()):
        for number, line in enumerate(text.splitlines(), start=1):
            match = _USES.match(line)
            if match and _is_lore_action(match["repo"], match["ref"]):
                found.append(PinLine(path, number, match["repo"], match["ref"]))
    return found


def apply_pin(text: str, pin: CuratorPin) -> str:
    """`text` with each unresolved lore action reference replaced by `pin`."""
    lines = text.split("\n")
    for index, line in enumerate(lines):
        match = _USES.match(line)
        if match and PinLine("", 0, match["repo"], match["ref"]).unresolved:
            lines[index] = f"{match['lead']}{pin.uses}"
    return "\n".join(lines)


def edit_instructions(lines: list[PinLine]) -> list[str]:
    """One sentence per unresolved line: the file and line to edit, and what to write."""
    return [
        f"{line.where}: replace {line.repo}@{line.ref} with the gh-lore repository and "
        f"commit the vault should run (e.g. {EXAMPLE}), the same in each workflow."
        for line in lines
        if line.unresolved
    ]


def vault_workflows(root: Path) -> dict[str, str]:
    """The vault's workflow files (relative path -> text), as they are in the folder."""
    folder = root / WORKFLOW_DIR
    if not folder.is_dir():
        return {}
    files: dict[str, str] = {}
    for path in sorted([*folder.glob("*.yml"), *folder.glob("*.yaml")]):
        try:
            files[path.relative_to(root).as_posix()] = path.read_text("utf-8", "replace")
        except OSError:
            continue
    return files


# ---- where this lore came from ----


def _on_origin(root: Path, commit: str) -> bool:
    refs = ["refs/remotes/origin", "refs/tags"]
    args = ["for-each-ref", "--contains", commit, "--format=%(refname)", *refs]
    result = git.run_git(args, root, check=False)
    return result.returncode == 0 and bool(result.stdout.strip())


def _from_clone(root: Path, what: str, reasons: list[str]) -> CuratorPin | None:
    if not git.is_git_work_tree(root):
        reasons.append(f"{what} ({root}) is not a git clone")
        return None
    url = git.remote_url(root, "origin")
    repo = github_repo(url)
    if repo is None:
        reasons.append(f"the origin of {what} ({url or 'none'}) is not a GitHub repository")
        return None
    commit = git.head_commit(root)
    if commit is None:
        reasons.append(f"{what} has no commit checked out")
        return None
    if not _on_origin(root, commit):
        reasons.append(
            f"the commit {commit[:12]} of {what} is on no branch of origin and no tag, so "
            "GitHub may not have it (push it first)"
        )
        return None
    return CuratorPin(repo.full_name, commit)


def _direct_url() -> dict[str, object] | None:
    """The installed distribution's PEP 610 record, when pip wrote one."""
    from importlib import metadata

    try:
        text = metadata.distribution(DISTRIBUTION).read_text("direct_url.json")
    except metadata.PackageNotFoundError:
        return None
    if not text:
        return None
    try:
        data = json.loads(text)
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def _from_direct_url(data: dict[str, object], reasons: list[str]) -> CuratorPin | None:
    url = str(data.get("url") or "")
    vcs = data.get("vcs_info")
    if isinstance(vcs, dict):
        repo = github_repo(url)
        commit = str(vcs.get("commit_id") or "")
        if vcs.get("vcs") == "git" and repo is not None and _COMMIT.match(commit):
            return CuratorPin(repo.full_name, commit)
        reasons.append(f"lore was installed from {url}, which is not a commit on GitHub")
        return None
    if url.startswith("file://"):
        folder = Path(unquote(urlparse(url).path))
        return _from_clone(folder, "the folder lore was installed from", reasons)
    reasons.append(f"lore was installed from {url or 'an unknown place'}")
    return None


def detect_curator_pin() -> Detection:
    """The gh-lore commit this lore runs, from how it was installed (see the module doc)."""
    found = Detection()
    folder = os.environ.get("LORE_GH_EXTENSION_DIR")
    if folder:
        found.pin = _from_clone(Path(folder), "the gh extension's clone", found.reasons)
        if found.pin:
            found.source = "the gh extension"
            return found
    direct = _direct_url()
    if direct is not None:
        found.pin = _from_direct_url(direct, found.reasons)
        if found.pin:
            found.source = "pip's record of the install (direct_url.json)"
    elif (SOURCE_TREE / "pyproject.toml").is_file() and (SOURCE_TREE / ".git").exists():
        found.pin = _from_clone(SOURCE_TREE, "the clone lore runs from", found.reasons)
        if found.pin:
            found.source = "the clone lore runs from"
    if found.pin:
        return found
    if not found.reasons:
        found.reasons.append("lore was installed from a package, which names no commit")
    return found


def resolve_pin(curator: str | None) -> Detection:
    """`--curator` when given (checked), else the pin detected from the install."""
    if curator:
        return Detection(CuratorPin.parse(curator), "--curator")
    try:
        return detect_curator_pin()
    except LoreError as exc:  # git missing or broken: the pin stays unresolved
        return Detection(reasons=[exc.message])
