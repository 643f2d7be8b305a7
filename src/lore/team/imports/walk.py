"""The one way an import reaches files: a walk that follows no link, and a read that cannot.

Every import reads a folder someone else may have written (a cloned repository, a
shared drive, a teammate's export), so a link in it must never carry lore out of that
folder: `plan.md -> ~/private/plan.md` or `docs/adr -> ../../private` would turn the
target's text into a proposal that everyone with read access to the vault sees.

- `real_start` is the folder (or file) the user named, as a real path. A start that is
  itself a link leaving the repository it sits in is refused (`UsageError`); outside
  any repository the path is the user's own and is taken as it resolves.
- `walk` lists the regular files under a start without following any link: a linked
  file or folder is reported in `skipped` with the reason (where it points, and that it
  is not followed), as are FIFOs, devices, folders it cannot open and folders nested
  deeper than `MAX_DEPTH`. It never descends into a link, so every listed file's path
  has no link below the start.
- `look` says the same about one path a reader found some other way (`git ls-files`, an
  `@AGENTS.md` pointer): a regular file, a link (and whether its target stays inside
  the boundary), or why it is neither.
- `read_text` opens each component below the boundary with `O_NOFOLLOW` from the
  folder before it (`openat`), so a link swapped in after the walk is refused by the
  kernel rather than followed; it reads regular files only (no FIFO that blocks, no
  device), at most `MAX_BYTES`.

The standard library's `os.walk` is not used: it recurses (a hostile tree 1,000
folders deep raises `RecursionError` on CPython 3.11) and its `onerror` loses the
folder's name; `os.fwalk` yields links to folders among the folders. The walk is a
stack over `os.scandir`, a few lines.
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from lore.errors import UsageError
from lore.gitfiles import find_git_dir

MAX_DEPTH = 40  # folders below the start
MAX_BYTES = 4_000_000  # a file larger than this is no note's source
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_NOCTTY = getattr(os, "O_NOCTTY", 0)
_AT_SUPPORTED = os.open in os.supports_dir_fd and bool(_NOFOLLOW)


@dataclass(frozen=True)
class Entry:
    """A regular file below `root` (a real folder), named by its path relative to it."""

    root: Path
    relative: str  # posix, as the file system spells it (undecodable bytes escaped)

    @property
    def path(self) -> Path:
        return self.root / self.relative if self.relative else self.root

    @property
    def shown(self) -> str:
        """The relative path as text a person (and JSON) can take."""
        return shown(self.relative)


@dataclass(frozen=True)
class Link:
    """A link below the boundary: where it points, if that stays inside the boundary."""

    entry: Entry  # the link itself
    target: Entry | None  # the regular file it leads to, inside the boundary; else None
    reason: str  # why it is not read as itself (and whether its target is)


@dataclass
class Walk:
    """The regular files under a start and what was passed over, with the reason."""

    root: Path  # the real folder walked
    files: list[Entry] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (shown path, reason)
    links: list[Link] = field(default_factory=list)  # also in `skipped`


class Unreadable(Exception):
    """A file `read_text` will not or cannot read; the message is the reason."""


def shown(relative: str) -> str:
    return os.fsencode(relative).decode("utf-8", "replace") if relative else "."


def real_start(given: Path) -> Path:
    """The real path of a start the user gave; refused when it is a link out of its repository.

    The repository is the one the path sits in as written (its nearest folder, by the
    names given, with a `.git`); outside a repository, the path is taken as it resolves.
    """
    absolute = Path(os.path.abspath(given))  # noqa: PTH100 - lexical: a link must stay a link
    real = absolute.resolve()
    repo = next(
        (folder for folder in (absolute, *absolute.parents) if os.path.lexists(folder / ".git")),
        None,
    )
    if repo is None or repo == absolute:
        return real
    repo_real = repo.resolve()
    if not _inside(real, repo_real):
        kind = "folder" if real.is_dir() else "file"
        raise UsageError(
            f"{given} is a link to {real}, a {kind} outside the repository {repo}: lore "
            "does not follow a link out of the repository it is in.",
            fix=f"If you mean to import {real}, give that path itself.",
        )
    return real


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def walk(
    start: Path,
    *,
    boundary: Path | None = None,
    skip_folder: frozenset[str] = frozenset(),
    hidden: bool = False,
) -> Walk:
    """The regular files under `start` (a real path), links and oddities skipped with reasons.

    `boundary` (a real folder holding `start`; default `start`) is where a link may lead
    and still be reported as a link to a file of the import. Folders named in
    `skip_folder`, and hidden ones (a leading dot) unless `hidden`, are not entered; hidden
    files are left out too.
    A `start` that is a file gives that file alone.
    """
    bound = boundary or (start if start.is_dir() else start.parent)
    if not start.is_dir():
        found = Walk(start.parent)
        item = look(start.parent, start.name, boundary=bound)
        if isinstance(item, Entry):
            found.files.append(item)
        elif isinstance(item, Link):
            found.links.append(item)
            found.skipped.append((item.entry.shown, item.reason))
        else:
            found.skipped.append((shown(start.name), item))
        return found
    found = Walk(start)
    stack: list[tuple[str, int]] = [("", 0)]
    while stack:
        folder, depth = stack.pop()
        try:
            with os.scandir(start / folder if folder else start) as listing:
                entries = sorted(listing, key=lambda e: e.name, reverse=True)
        except OSError as exc:
            found.skipped.append((shown(folder), f"a folder lore cannot open ({_why(exc)})"))
            continue
        children: list[tuple[str, int]] = []
        for entry in reversed(entries):  # by name
            relative = f"{folder}/{entry.name}" if folder else entry.name
            try:
                is_link = entry.is_symlink()
                is_dir = not is_link and entry.is_dir(follow_symlinks=False)
                is_file = not is_link and entry.is_file(follow_symlinks=False)
            except OSError as exc:
                found.skipped.append((shown(relative), f"cannot be read ({_why(exc)})"))
                continue
            if is_dir:
                if entry.name in skip_folder or (entry.name.startswith(".") and not hidden):
                    continue
                if depth + 1 > MAX_DEPTH:
                    found.skipped.append(
                        (shown(relative), f"more than {MAX_DEPTH} folders deep: not read")
                    )
                    continue
                children.append((relative, depth + 1))
            elif is_link:
                if entry.name.startswith(".") and not hidden:
                    continue
                link = _link(start, relative, bound)
                found.links.append(link)
                found.skipped.append((shown(relative), link.reason))
            elif is_file:
                if not (entry.name.startswith(".") and not hidden):
                    found.files.append(Entry(start, relative))
            elif not (entry.name.startswith(".") and not hidden):
                found.skipped.append((shown(relative), "not a regular file (a pipe or a device)"))
        stack.extend(reversed(children))
    return found


MARKDOWN = (".md", ".markdown")


def markdown_files(
    start: Path, *, skip_folder: frozenset[str] = frozenset()
) -> tuple[list[Entry], list[tuple[str, str]]]:
    """The markdown files under `start`, and what was passed over that could have been one
    (a link, a pipe or an unreadable folder named `*.md`, or with no suffix), with the reason.
    """
    found = walk(start, skip_folder=skip_folder)
    files = [entry for entry in found.files if entry.relative.lower().endswith(MARKDOWN)]
    passed = [
        (where, reason)
        for where, reason in found.skipped
        if where.lower().endswith(MARKDOWN) or "." not in where.rpartition("/")[2]
    ]
    return files, passed


def look(root: Path, relative: str, *, boundary: Path | None = None) -> Entry | Link | str:
    """What `root/relative` is, without following a link: a file, a link, or why neither.

    Every folder on the way below `root` must be a real folder (a linked one is reported
    as the link it is).
    """
    bound = boundary or root
    parts = [p for p in relative.split("/") if p and p != "."]
    if ".." in parts:
        return "a path that leaves the folder: not followed"
    for depth in range(1, len(parts) + 1):
        partial = "/".join(parts[:depth])
        try:
            mode = os.lstat(root / partial).st_mode
        except OSError as exc:
            return f"cannot be read ({_why(exc)})"
        if stat.S_ISLNK(mode):
            return _link(root, partial, bound)
        if depth < len(parts) and not stat.S_ISDIR(mode):
            return "not a folder on the way to the file"
        if depth == len(parts) and not stat.S_ISREG(mode):
            return "a folder, not a file" if stat.S_ISDIR(mode) else "not a regular file"
    return Entry(root, "/".join(parts))


def _link(root: Path, relative: str, boundary: Path) -> Link:
    entry = Entry(root, relative)
    try:
        target = (root / relative).resolve(strict=True)
    except (OSError, RuntimeError):
        return Link(entry, None, "a link that leads nowhere (or to itself): not followed")
    kind = "folder" if target.is_dir() else "file"
    if not _inside(target, boundary):
        found = find_git_dir(boundary, resolved=True)
        where = (
            "the repository"
            if found is not None and not _inside(target, found[0])
            else "the folder given"
        )
        return Link(entry, None, f"a link to a {kind} outside {where}: not followed")
    if target == boundary:
        return Link(entry, None, "a link back to the folder given: not followed")
    inside = target.relative_to(boundary).as_posix()
    if kind == "folder":
        return Link(entry, None, f"a link to the folder {shown(inside)}: not followed")
    item = look(boundary, inside)
    if not isinstance(item, Entry):
        return Link(entry, None, f"a link to {shown(inside)}: not followed")
    return Link(entry, item, f"a link to {shown(inside)}: that file is read itself")


def read_text(entry: Entry) -> tuple[str, float]:
    """(the file's text as UTF-8, its modification time), opened without following a link.

    Raises `Unreadable` with the reason for a link, anything but a regular file, a file
    over `MAX_BYTES`, text that is not UTF-8, or an error of the file system.
    """
    data, mtime = _read_bytes(entry)
    try:
        return data.decode("utf-8-sig"), mtime
    except UnicodeDecodeError:
        raise Unreadable("not UTF-8 text") from None


def _read_bytes(entry: Entry) -> tuple[bytes, float]:
    parts = [p for p in entry.relative.split("/") if p and p != "."]
    if ".." in parts or not parts:
        raise Unreadable("a path that leaves the folder: not read")
    fds: list[int] = []
    try:
        if _AT_SUPPORTED:
            fds.append(os.open(entry.root, os.O_RDONLY | _DIRECTORY))
            for part in parts[:-1]:
                fds.append(os.open(part, os.O_RDONLY | _DIRECTORY | _NOFOLLOW, dir_fd=fds[-1]))
            flags = os.O_RDONLY | _NOFOLLOW | _NONBLOCK | _NOCTTY
            fd = os.open(parts[-1], flags, dir_fd=fds[-1])
        else:  # no openat here: check each component, then open (a narrow race remains)
            item = look(entry.root, entry.relative)
            if not isinstance(item, Entry):
                raise Unreadable(item.reason if isinstance(item, Link) else item)
            fd = os.open(entry.path, os.O_RDONLY | _NOFOLLOW | _NONBLOCK | _NOCTTY)
        fds.append(fd)
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise Unreadable("not a regular file (a pipe or a device)")
        if info.st_size > MAX_BYTES:
            raise Unreadable(f"larger than {MAX_BYTES // 1_000_000} MB: not a note's source")
        chunks: list[bytes] = []
        size = 0
        while chunk := os.read(fd, 1 << 16):
            chunks.append(chunk)
            size += len(chunk)
            if size > MAX_BYTES:
                raise Unreadable(f"larger than {MAX_BYTES // 1_000_000} MB: not a note's source")
        return b"".join(chunks), info.st_mtime
    except OSError as exc:
        if exc.errno in _LINK_ERRORS:
            raise Unreadable("a link (or a link on its way): not followed") from None
        raise Unreadable(f"cannot be read ({_why(exc)})") from None
    finally:
        for fd in reversed(fds):
            os.close(fd)


# O_NOFOLLOW on a link: ELOOP (Linux), EMLINK (FreeBSD); with O_DIRECTORY, ENOTDIR.
_LINK_ERRORS = frozenset(
    code for code in (getattr(errno, n, None) for n in ("ELOOP", "EMLINK", "ENOTDIR")) if code
)


def _why(exc: OSError) -> str:
    return exc.strerror or type(exc).__name__
