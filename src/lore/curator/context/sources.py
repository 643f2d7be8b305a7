"""Build a `CuratorContext` for a target (`lore.curator.target`): a range, paths or drafts.

- Range (`--base/--head`): the files that differ between the merge base and the
  head are under review; the vault they join is the base commit's tree. Settings
  come from the base (a pull request cannot loosen its own review); the taxonomy
  comes from the head (a tag may be added in the same pull request). Every blob
  a commit of the range introduced is kept for the secret scan. Every path the range
  touches (deleted ones too) and any `.lore` at the top of the head's tree are
  recorded for the `policy/` rules, so a change without notes is reviewed as well.
- Paths: the given files (or drafts handed over in memory by `lore remember`)
  against the working tree, or, with `at`, drafts against a commit's tree (what
  `lore remember` proposes to: no checkout is read). A named policy file
  (`_conventions.md`, …) is checked as prose, not as a note.
- All: every file in `notes/` of the working tree, each against all the others, and
  the policy prose (`POLICY_TEXTS`).

Settings (`settings_on_checkout`): on a checkout — paths and all — they come from
`lore.toml` at the reviewed branch's tip, never from the file on disk, which a checked-out
pull request writes (`lore.vault.lore_toml`); when the two differ the context carries
the one line that says so, and the model review is not run. Only a vault without git
reads the file on disk, and then none of the settings that send data or serve notes.
Every mode puts the user config's `[curator.semantic]` on top (`user_model_section`).

Only the files under review are read here. The notes already in the vault are
described by `context.base` (a commit or the working tree, and the paths the change
hides) and read by `read_base` when parsing every file is wanted (`read_vault`), or
through the index by `lore.curator.context.vault_index`.
"""

from __future__ import annotations

import os
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import replace
from pathlib import Path

from lore.curator.context.model import (
    ARCHIVE_DIR,
    POLICY_TEXTS,
    SUBMODULE_MODE,
    SYMLINK_MODE,
    CheckedFile,
    CuratorContext,
    HistoryBlob,
    ParsedNotes,
    UnreadNotes,
    VaultBase,
    is_archive_path,
    is_note_path,
)
from lore.curator.context.settings import (
    CuratorSettings,
    load_curator_settings,
    user_model_section,
)
from lore.curator.finding import WARNING
from lore.curator.target import Drafts, Paths, Range
from lore.errors import UsageError
from lore.note.model import Note
from lore.note.parse import inspect_note, note_id_from_path
from lore.paths import NOTES_DIR, OLD_STATE_DIR
from lore.sanitize import sanitize_text
from lore.taxonomy import TAXONOMY_FILE, parse_taxonomy
from lore.vault import git
from lore.vault.resolved import Vault
from lore.vault.settings import CHECKOUT, REVIEWED, SETTINGS_FILE

MAX_SCAN_BYTES = 1024 * 1024  # larger files are not scanned for secrets line by line


def _decode(raw: bytes | None) -> str | None:
    if raw is None:
        return None
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        return None


def _parse_existing(files: Mapping[str, bytes]) -> dict[str, Note]:
    notes: dict[str, Note] = {}
    for path, raw in files.items():
        report = inspect_note(raw, path)
        if report.note is not None:
            notes[report.note.id] = report.note
    return notes


def read_base(root: Path, base: VaultBase) -> ParsedNotes:
    """Parse every note of the vault a change joins (the paths it hides left out)."""
    wanted = {path: sha for path, sha in base.notes.items() if path not in base.hidden}
    if base.commit is None:
        files = {p: raw for p, raw in _working_notes(root).items() if p in wanted}
    else:
        objects = git.read_objects(root, wanted.values())
        files = {p: objects[sha][1] for p, sha in wanted.items() if sha in objects}
    return ParsedNotes(_parse_existing(files))


def settings_on_checkout(vault: Vault) -> tuple[CuratorSettings, str]:
    """The settings of a command on a checkout: `lore.toml` at the reviewed branch's tip
    with the user's config on top, and the one-line notice when the file on disk differs
    ("" when it does not). A vault without git has only the file on disk (`CHECKOUT`)."""
    from lore.vault import lore_toml

    user = user_model_section()
    reviewed = vault.reviewed_settings
    if reviewed is None:
        text = lore_toml.checkout_text(vault.root)
        return load_curator_settings(text, source=CHECKOUT, user=user), ""
    settings = load_curator_settings(reviewed.text, source=REVIEWED, user=user)
    return settings, lore_toml.differs_notice(reviewed) if reviewed.differs else ""


def _read_tree_file(root: Path, name: str) -> bytes | None:
    try:
        return (root / name).read_bytes()
    except OSError:
        return None


def _working_note_files(root: Path) -> list[str]:
    """notes/*.md of the working tree (regular files only), by name."""
    try:
        entries = sorted(os.scandir(root / NOTES_DIR), key=lambda e: e.name)
    except OSError:
        return []
    return [
        f"{NOTES_DIR}/{entry.name}"
        for entry in entries
        if entry.name.endswith(".md") and entry.is_file(follow_symlinks=False)
    ]


def _working_notes(root: Path) -> dict[str, bytes]:
    """notes/*.md of the working tree (regular files only), read."""
    files: dict[str, bytes] = {}
    for path in _working_note_files(root):
        try:
            with open(root / path, "rb") as handle:  # noqa: PTH123 - one open, no stat
                files[path] = handle.read()
        except OSError:
            continue
    return files


def _relative(root: Path, path: Path) -> str | None:
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return None


def _expand(root: Path, arguments: Iterable[str]) -> list[tuple[str, Path]]:
    """(display, file) for each argument; folders give their markdown files."""
    found: list[tuple[str, Path]] = []
    for argument in arguments:
        path = Path(argument)
        if not path.is_absolute() and not path.exists() and (root / path).exists():
            path = root / path
        if path.is_dir():
            for child in sorted(path.rglob("*.md")):
                if child.is_file() or child.is_symlink():
                    found.append((str(child), child))
            continue
        if not path.exists() and not path.is_symlink():
            raise UsageError(
                f"{argument}: no such file.",
                fix="Name note files, a folder of notes, or use --all or --base/--head.",
            )
        found.append((argument, path))
    return found


def _make_file(
    path: str, display: str, raw: bytes, mode: str, *, force_note: bool = False
) -> CheckedFile:
    """A note when it is markdown under notes/ (or named explicitly), else a plain file.
    The vault's policy prose (`POLICY_TEXTS`) is never a note, even when named."""
    if mode in (SYMLINK_MODE, SUBMODULE_MODE) or path in POLICY_TEXTS:
        return CheckedFile(path, display, raw, mode)
    if force_note or (path.startswith(NOTES_DIR + "/") and path.endswith(".md")):
        return CheckedFile.note(path, display, raw, mode)
    return CheckedFile(path, display, raw, mode)


def context_for_paths(
    vault: Vault, target: Paths | Drafts, *, today: str, read_vault: bool = True
) -> CuratorContext:
    """Check files (or in-memory drafts keyed by vault path) against the working tree, or
    drafts against the tree of commit `at`."""
    root = vault.root
    paths = target.paths if isinstance(target, Paths) else ()
    drafts = target.files if isinstance(target, Drafts) else {}
    if isinstance(target, Drafts) and target.at is not None:
        return _context_for_drafts_at(vault, target.at, drafts, today=today, read_vault=read_vault)
    settings, notice = settings_on_checkout(vault)
    taxonomy_text = _decode(_read_tree_file(root, TAXONOMY_FILE))
    vault_files = dict.fromkeys(_working_note_files(root), "")
    checked: list[CheckedFile] = []
    for display, file in _expand(root, paths):
        relative = _relative(root, file)
        logical = relative if relative is not None else f"{NOTES_DIR}/{file.name}"
        mode = SYMLINK_MODE if file.is_symlink() else "100644"
        try:
            raw = b"" if mode == SYMLINK_MODE else file.read_bytes()
        except OSError as exc:
            raise UsageError(f"{display}: cannot be read ({exc.strerror}).") from None
        checked.append(_make_file(logical, display, raw, mode, force_note=True))
    for path, raw in drafts.items():
        checked.append(_make_file(path, path, raw, "100644", force_note=True))
    base = VaultBase(None, vault_files, frozenset(f.path for f in checked))
    note_paths = sorted(set(vault_files) | {f.path for f in checked if is_note_path(f.path)})
    return CuratorContext(
        root=root,
        settings=settings,
        taxonomy=parse_taxonomy(taxonomy_text) if taxonomy_text is not None else None,
        files=checked,
        existing=read_base(root, base) if read_vault else ParsedNotes(),
        vault_ids=_ids(note_paths) | _working_archive_ids(root),
        vault_paths=note_paths,
        today=today,
        mode="paths",
        vault=vault,
        settings_problems=list(settings.problems),
        base=base,
        settings_notice=notice,
    )


def _context_for_drafts_at(
    vault: Vault, ref: str, drafts: Mapping[str, bytes], *, today: str, read_vault: bool
) -> CuratorContext:
    """Drafts against the tree of a commit, as if checked out there (paths mode)."""
    root = vault.root
    commit = _commit(root, ref, "at")
    tree = _notes_in(root, commit)
    archived = {
        note_id_from_path(p) for p in git.list_tree(root, commit, ARCHIVE_DIR) if is_archive_path(p)
    }
    names = [f"{commit}:{SETTINGS_FILE}", f"{commit}:{TAXONOMY_FILE}"]
    objects = git.read_objects(root, names)
    settings_blob, taxonomy_blob = (objects.get(name, ("", None))[1] for name in names)
    settings = load_curator_settings(
        _decode(settings_blob), source=REVIEWED, user=user_model_section()
    )
    taxonomy_text = _decode(taxonomy_blob)
    checked = [_make_file(p, p, raw, "100644", force_note=True) for p, raw in drafts.items()]
    base = VaultBase(commit, tree, frozenset(f.path for f in checked))
    note_paths = sorted(set(tree) | {f.path for f in checked if is_note_path(f.path)})
    return CuratorContext(
        root=root,
        settings=settings,
        taxonomy=parse_taxonomy(taxonomy_text) if taxonomy_text is not None else None,
        files=checked,
        existing=read_base(root, base) if read_vault else ParsedNotes(),
        vault_ids=_ids(note_paths) | archived,
        vault_paths=note_paths,
        today=today,
        mode="paths",
        vault=vault,
        settings_problems=list(settings.problems),
        base=base,
    )


def _ids(note_paths: Iterable[str]) -> set[str]:
    """The ids of note paths (`notes/<id>.md`), without a call per path: vaults are large."""
    return {path.rsplit("/", 1)[-1][:-3] for path in note_paths}


def _notes_in(root: Path, commit: str) -> dict[str, str]:
    """notes/*.md at a commit (`list_tree` lists the folder's own files only)."""
    return {p: s for p, s in git.list_tree(root, commit, NOTES_DIR).items() if p.endswith(".md")}


def _working_archive_ids(root: Path) -> set[str]:
    """Ids of the notes in archive/ of the working tree: links to them still resolve."""
    try:
        names = [entry.name for entry in (root / ARCHIVE_DIR).iterdir()]
    except OSError:
        return set()
    return {note_id_from_path(name) for name in names if is_archive_path(f"{ARCHIVE_DIR}/{name}")}


def context_for_all(vault: Vault, *, today: str) -> CuratorContext:
    """Every file under notes/ of the working tree, each checked against the others.

    The note files are listed, not read (`context.unread`): the audit reads them in
    batches. The other files (links, files that are not markdown, the policy prose) are
    read here, into `context.files`."""
    root = vault.root
    settings, notice = settings_on_checkout(vault)
    taxonomy_text = _decode(_read_tree_file(root, TAXONOMY_FILE))
    checked: list[CheckedFile] = []
    unread = UnreadNotes(root, [], [])
    note_paths: list[str] = []
    folder = root / NOTES_DIR
    if folder.is_symlink():  # never read outside the vault: report the link itself
        checked.append(CheckedFile(NOTES_DIR, NOTES_DIR, b"", SYMLINK_MODE))
    elif folder.is_dir():
        for current, folders, names in os.walk(folder, followlinks=False):
            folders.sort()
            base = Path(current)
            for name in sorted(names):
                file = base / name
                relative = file.relative_to(root).as_posix()
                if relative == f"{NOTES_DIR}/.gitkeep":
                    continue
                mode = SYMLINK_MODE if file.is_symlink() else "100644"
                if mode != SYMLINK_MODE and _is_note_file(relative):
                    unread.files.append((relative, mode))
                    unread.order.append(relative)
                    if is_note_path(relative):
                        note_paths.append(relative)
                    continue
                try:
                    raw = b"" if mode == SYMLINK_MODE else file.read_bytes()
                except OSError:
                    continue
                checked.append(_make_file(relative, relative, raw, mode))
                unread.order.append(relative)
                if is_note_path(relative):
                    note_paths.append(relative)
            for name in folders:
                if (base / name).is_symlink():
                    relative = (base / name).relative_to(root).as_posix()
                    checked.append(CheckedFile(relative, relative, b"", SYMLINK_MODE))
                    unread.order.append(relative)
                    if is_note_path(relative):
                        note_paths.append(relative)
    note_paths.sort()
    policy = _working_policy_texts(root)
    checked += policy
    unread.order += [f.display for f in policy]
    return CuratorContext(
        root=root,
        settings=settings,
        taxonomy=parse_taxonomy(taxonomy_text) if taxonomy_text is not None else None,
        files=checked,
        existing=ParsedNotes(),
        vault_ids=_ids(note_paths) | _working_archive_ids(root),
        vault_paths=note_paths,
        today=today,
        mode="all",
        vault=vault,
        taxonomy_changed=True,
        settings_problems=list(settings.problems),
        unread=unread,
        settings_notice=notice,
    )


def _is_note_file(path: str) -> bool:
    """A file `_make_file` makes a note of (not a link, not the policy prose)."""
    return path not in POLICY_TEXTS and path.startswith(NOTES_DIR + "/") and path.endswith(".md")


def _working_policy_texts(root: Path) -> list[CheckedFile]:
    """The policy prose of the working tree (regular files only): audited with the notes."""
    found: list[CheckedFile] = []
    for name in POLICY_TEXTS:
        file = root / name
        if file.is_symlink() or not file.is_file():
            continue
        try:
            found.append(CheckedFile(name, name, file.read_bytes()))
        except OSError:
            continue
    return found


def _is_state_folder(name: str) -> bool:
    """A top-level name a checkout would write as `.lore`: any case, with trailing dots or
    spaces (Windows drops them) or characters some file systems ignore (HFS+)."""
    shown = sanitize_text(unicodedata.normalize("NFC", name)).casefold().rstrip(". ")
    return shown == OLD_STATE_DIR


def _commit(root: Path, ref: str, flag: str) -> str:
    sha = git.resolve_commit(root, ref)
    if sha is None:
        raise UsageError(
            f"{flag} {ref!r} is not a commit in {root}.",
            fix="Fetch it first (actions/checkout with fetch-depth: 0), or check the name.",
        )
    return sha


def context_for_range(
    vault: Vault, target: Range, *, today: str, read_vault: bool = True
) -> CuratorContext:
    """The files a pull request changes, checked against the vault at its base."""
    root = vault.root
    base, head = target.base, target.head
    if git.find_git_dir(root) is None:  # any repository will do: the refs are what count
        raise UsageError(
            f"{root} is not a git repository, so --base/--head cannot be used.",
            fix="Name the note files instead, or use --all.",
        )
    base_sha = _commit(root, base, "--base")
    head_sha = _commit(root, head, "--head")
    fork = git.merge_base(root, base_sha, head_sha) or base_sha
    changes = git.diff_tree(root, fork, head_sha)
    base_tree = _notes_in(root, base_sha)
    base_archive = {p for p in git.list_tree(root, base_sha, ARCHIVE_DIR) if is_archive_path(p)}
    present = [c for c in changes if c.status != "D"]
    deleted_paths = {c.path for c in changes if c.status == "D"}
    changed_paths = {c.path for c in present}
    wanted = [c.new_sha for c in present if c.new_mode != SUBMODULE_MODE]
    names = list(wanted)
    for name in (SETTINGS_FILE, TAXONOMY_FILE):
        names += [f"{base_sha}:{name}", f"{head_sha}:{name}"]
    objects = git.read_objects(root, names)

    def blob(name: str) -> bytes | None:
        found = objects.get(name)
        return found[1] if found else None

    checked = [
        _make_file(c.path, c.path, blob(c.new_sha) or b"", c.new_mode)
        for c in sorted(present, key=lambda c: c.path)
    ]
    joined = VaultBase(base_sha, base_tree, frozenset(changed_paths | deleted_paths))
    base_settings = blob(f"{base_sha}:{SETTINGS_FILE}")
    head_settings = blob(f"{head_sha}:{SETTINGS_FILE}")
    settings = load_curator_settings(
        _decode(base_settings), source=REVIEWED, user=user_model_section()
    )
    settings_changed = SETTINGS_FILE in changed_paths and head_settings != base_settings
    problems = [replace(p, severity=WARNING) for p in settings.problems]
    if settings_changed:  # only its problems are reported; none of its values is used
        problems += load_curator_settings(_decode(head_settings), source=REVIEWED).problems
    taxonomy_text = _decode(blob(f"{head_sha}:{TAXONOMY_FILE}"))
    note_paths = sorted(
        (set(base_tree) - deleted_paths) | {c.path for c in present if is_note_path(c.path)}
    )
    archived = {
        note_id_from_path(p)
        for p in (base_archive - deleted_paths) | {c.path for c in present}
        if is_archive_path(p)
    }
    final_blobs = {c.new_sha for c in present}
    history_shas = {
        sha: path
        for sha, path in git.blobs_in_range(root, base_sha, head_sha, MAX_SCAN_BYTES).items()
        if sha not in final_blobs
    }
    history_objects = git.read_objects(root, history_shas)
    history = [
        HistoryBlob(history_shas[sha], sha, data)
        for sha, (_, data) in sorted(history_objects.items(), key=lambda kv: history_shas[kv[0]])
    ]
    return CuratorContext(
        root=root,
        settings=settings,
        taxonomy=parse_taxonomy(taxonomy_text) if taxonomy_text is not None else None,
        files=checked,
        existing=read_base(root, joined) if read_vault else ParsedNotes(),
        vault_ids=_ids(note_paths) | archived,
        vault_paths=note_paths,
        today=today,
        mode="range",
        vault=vault,
        taxonomy_changed=TAXONOMY_FILE in changed_paths,
        settings_changed=settings_changed,
        settings_problems=problems,
        # A note moved to archive/ shows as deleted from notes/: it is not gone.
        deleted={note_id_from_path(p) for p in deleted_paths if is_note_path(p)} - archived,
        history=history,
        changes=[(c.status, c.path) for c in sorted(changes, key=lambda c: c.path)],
        committed_state=[
            (mode, name)
            for mode, _, name in git.root_entries(root, head_sha)
            if _is_state_folder(name)
        ],
        commits=(base_sha, head_sha),
        base=joined,
        policy_approver=target.policy_approved_by,
    )
