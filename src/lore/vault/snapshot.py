"""What the index serves: the reviewed branch's notes, or a vault's files without git.

The reviewed branch is the branch the team merges into (`lore.vault.git.reviewed_branch`:
the remote's default branch as fetched, or the one `[vault] reviewed_branch` names),
whatever the work tree has checked out: a reviewer's `git checkout some-pr-branch`
changes nothing an agent is told, and neither does a commit on the local `main` that
was never pushed. `current_version` reads it from the ref files (no process): it is on
every recall and hook.

The setting is read from `lore.toml` at the tip of the remote's default branch — a
reviewed file — by the index build (`take_snapshot(root, settle=True)`), which keeps
it, and that tip, in `served.json` in the vault's state folder. While that tip is the
same, recall reads the setting from there; when it moves, the index is not fresh and
the next build reads the setting again.

A snapshot lists the note files with a signature each (the git blob sha, or
`mtime_ns:size` for a vault that is not a git repository) so the index can tell
which notes changed without reading them.
"""

from __future__ import annotations

import os
from pathlib import Path

from lore.paths import NOTES_DIR, state_dir
from lore.record import Record
from lore.vault import git

VAULT_FILES = ("_taxonomy.md", "lore.toml")
SERVED_FILE = "served.json"
UNSETTLED = "unsettled:"  # a version no index has: the setting must be read again


class Snapshot(Record):
    __slots__ = ("branch", "files", "kind", "version")

    def __init__(
        self,
        kind: str,
        version: str,
        *,
        files: dict[str, str] | None = None,
        branch: git.ReviewedBranch | None = None,
    ) -> None:
        self.kind = kind  # "git" or "files"
        self.version = version  # the commit, or a digest of the file signatures
        self.files = files  # path -> signature; listed lazily for git
        self.branch = branch  # the reviewed branch this commit is the tip of (git only)

    @property
    def commit(self) -> str | None:
        return self.version if self.kind == "git" else None


def is_note_path(path: str) -> bool:
    """`notes/<name>.md`, directly inside notes/ (sub-folders are not notes)."""
    prefix = NOTES_DIR + "/"
    return path.startswith(prefix) and path.endswith(".md") and "/" not in path[len(prefix) :]


def served_branch(
    root: Path, found: tuple[Path, Path] | None = None, state: Path | None = None
) -> git.ReviewedBranch | None:
    """The reviewed branch and its tip, read from the files; None when not a git work tree.

    Its `commit` starts with `UNSETTLED` when the remote's default branch has moved
    since `[vault] reviewed_branch` was last read from it (the next build reads it).
    `found`: the caller has found that `root` is the top of this work tree already;
    `state`: and its state folder (`lore.vault.resolved.Vault`).
    """
    if found is None:
        resolved = root.resolve()
        found = git.find_git_dir(resolved, resolved=True)
        if found is None or found[0] != resolved:
            return None
    configured, policy = _served_setting(root, found, state)
    branch = git.reviewed_branch(root, configured, found)
    if branch is not None and configured:
        default = git.reviewed_branch(root, "", found)
        if default is None or default.commit != policy:
            branch.commit = UNSETTLED + branch.commit
    return branch


def current_version(
    root: Path, found: tuple[Path, Path] | None = None, state: Path | None = None
) -> tuple[str, str] | None:
    """("git", the reviewed branch's tip) read cheaply; ("git", "") before the first
    commit; None without git. `found`, `state`: as in `served_branch`."""
    branch = served_branch(root, found, state)
    return None if branch is None else ("git", branch.commit)


def take_snapshot(root: Path, *, settle: bool = False) -> Snapshot:
    """What the index serves now. `settle`: read `[vault] reviewed_branch` from the remote
    default branch's `lore.toml` first and keep it (the index build does; it costs a git
    process)."""
    if settle:
        _settle_setting(root)
    branch = served_branch(root)
    if branch is not None:
        return Snapshot("git", branch.commit, branch=branch)
    files = scan_files(root)
    return Snapshot("files", files_digest(files), files=files)


def _served_setting(
    root: Path, found: tuple[Path, Path] | None = None, state: Path | None = None
) -> tuple[str, str]:
    """(configured branch, the default-branch commit it was read from), or ("", "")."""
    try:
        text = ((state or state_dir(root, found)) / SERVED_FILE).read_text(encoding="utf-8")
    except OSError:
        return "", ""  # the common case: no branch is configured
    try:
        import json

        data = json.loads(text)
    except (OSError, ValueError):
        return "", ""
    if not isinstance(data, dict):
        return "", ""
    configured, policy = data.get("reviewed_branch"), data.get("read_at")
    if isinstance(configured, str) and isinstance(policy, str) and git.is_branch_name(configured):
        return configured, policy
    return "", ""


def _settle_setting(root: Path) -> None:
    """Read `[vault] reviewed_branch` at the remote default branch's tip and keep it."""
    found = git.find_git_dir(root)
    if found is None or found[0] != root.resolve():
        return
    default = git.reviewed_branch(root, "", found)
    configured = ""
    if default is not None and default.commit:
        configured = configured_branch(git.read_file_at(root, default.commit, "lore.toml"))
        if configured == default.branch:
            configured = ""
    path = state_dir(root) / SERVED_FILE
    read_at = default.commit if default is not None else ""
    kept = _served_setting(root)
    if kept == (configured, read_at) or (not configured and not path.exists()):
        return
    import contextlib

    with contextlib.suppress(OSError):  # unwritable: the default branch is served
        if not configured:
            path.unlink(missing_ok=True)
            return
        import json

        from lore.files import write_atomic

        path.parent.mkdir(parents=True, exist_ok=True)
        text = json.dumps({"reviewed_branch": configured, "read_at": read_at}) + "\n"
        write_atomic(path, text.encode("utf-8"))


def configured_branch(raw: bytes | None) -> str:
    """`[vault] reviewed_branch` of a `lore.toml`, when it is a usable branch name, else ""."""
    if not raw:
        return ""
    from lore.errors import LoreError
    from lore.vault.settings import REVIEWED, parse_settings, section_values

    try:
        settings = parse_settings(raw.decode("utf-8-sig"), source=REVIEWED)
    except (LoreError, UnicodeDecodeError):
        return ""
    value = str(section_values(settings, "vault")["reviewed_branch"]).strip()
    return value if git.is_branch_name(value) else ""


def scan_files(root: Path) -> dict[str, str]:
    folder = root / NOTES_DIR
    files: dict[str, str] = {}
    try:
        entries = list(os.scandir(folder))
    except FileNotFoundError:
        return files
    for entry in entries:
        if not entry.name.endswith(".md") or not entry.is_file(follow_symlinks=False):
            continue
        stat = entry.stat(follow_symlinks=False)
        files[f"{NOTES_DIR}/{entry.name}"] = f"{stat.st_mtime_ns}:{stat.st_size}"
    return files


def files_digest(files: dict[str, str]) -> str:
    import hashlib

    digest = hashlib.sha1(usedforsecurity=False)
    for path in sorted(files):
        digest.update(f"{path}\0{files[path]}\n".encode("utf-8", "surrogateescape"))
    return "files:" + digest.hexdigest()


def list_notes(root: Path, snapshot: Snapshot) -> dict[str, str]:
    """Every note path in the snapshot with its signature."""
    if snapshot.kind == "files":
        return dict(snapshot.files or {})
    if not snapshot.version:
        return {}
    return {
        path: sha
        for path, sha in git.list_tree(root, snapshot.version, NOTES_DIR).items()
        if is_note_path(path)
    }


def read_notes(
    root: Path, snapshot: Snapshot, wanted: dict[str, str]
) -> dict[str, tuple[str, bytes]]:
    """path -> (signature, raw bytes) for the notes asked for (path -> signature)."""
    if snapshot.kind == "git":
        blobs = git.read_objects(root, wanted.values())
        return {path: blobs[sha] for path, sha in wanted.items() if sha in blobs}
    result: dict[str, tuple[str, bytes]] = {}
    for path in wanted:
        file = root / path
        try:
            stat = file.stat()
            result[path] = (f"{stat.st_mtime_ns}:{stat.st_size}", file.read_bytes())
        except OSError:
            continue
    return result


def read_committed(root: Path, snapshot: Snapshot, path: str) -> bytes | None:
    """A file's bytes as the snapshot has it: at its commit, or on disk without git."""
    if snapshot.kind == "git":
        if not snapshot.version:
            return None
        return git.read_file_at(root, snapshot.version, path)
    try:
        return (root / path).read_bytes()
    except OSError:
        return None


def read_vault_file(root: Path, snapshot: Snapshot, name: str) -> str | None:
    """`_taxonomy.md` or `lore.toml` as the snapshot has it (None when absent or unreadable)."""
    raw = read_committed(root, snapshot, name)
    if raw is None:
        return None
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        return None


def changed_notes(root: Path, old: str, new: Snapshot) -> dict[str, str | None] | None:
    """Notes that differ between the indexed commit and `new`: path -> signature (None = gone).

    None when it cannot be known from git (no old commit, or history was rewritten).
    """
    if new.kind != "git" or not old or not new.version or not git.commit_exists(root, old):
        return None
    changes = git.diff_blobs(root, old, new.version, NOTES_DIR)
    return {path: sig for path, sig in changes.items() if is_note_path(path)}
