"""What the index serves: the vault's committed notes (HEAD), or its files without git.

A snapshot lists the note files with a signature each (the git blob sha, or
`mtime_ns:size` for a vault that is not a git repository) so the index can tell
which notes changed without reading them.
"""

from __future__ import annotations

import os
from pathlib import Path

from lore.paths import NOTES_DIR
from lore.record import Record
from lore.vault import git

VAULT_FILES = ("_taxonomy.md", "lore.toml")


class Snapshot(Record):
    __slots__ = ("files", "kind", "version")

    def __init__(self, kind: str, version: str, *, files: dict[str, str] | None = None) -> None:
        self.kind = kind  # "git" or "files"
        self.version = version  # the commit, or a digest of the file signatures
        self.files = files  # path -> signature; listed lazily for git

    @property
    def commit(self) -> str | None:
        return self.version if self.kind == "git" else None


def is_note_path(path: str) -> bool:
    """`notes/<name>.md`, directly inside notes/ (sub-folders are not notes)."""
    prefix = NOTES_DIR + "/"
    return path.startswith(prefix) and path.endswith(".md") and "/" not in path[len(prefix) :]


def current_version(root: Path) -> tuple[str, str] | None:
    """("git", HEAD) read cheaply; ("git", "") before the first commit; None without git."""
    found = git.find_git_dir(root)
    if found is None or found[0] != root.resolve():
        return None
    return "git", git.head_commit(root, found) or ""


def take_snapshot(root: Path) -> Snapshot:
    version = current_version(root)
    if version is not None:
        return Snapshot("git", version[1])
    files = scan_files(root)
    return Snapshot("files", files_digest(files), files=files)


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
