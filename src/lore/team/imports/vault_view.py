"""What the vault and its open proposals already hold, so an import proposes nothing twice.

The vault is read as it is on the branch a proposal starts from (after a fetch: the
remote's default branch), never the user's checkout. Open proposals are the `lore/`
branches, pushed or local, that are not merged into it; the notes each adds or changes
are read from git. For every one of those notes the view knows the source it came from
(`match_keys`: the file behind its `source:` URL, and that file plus the note's
one-line summary for sources that give several notes), its id, and where it is: "the
vault" or "the open proposal lore/…". Their texts go to the curator with the batch, so
its duplicate judgement sees them too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from lore.curator.context.settings import load_curator_settings
from lore.note.model import what_summary
from lore.paths import NOTES_DIR
from lore.taxonomy import TAXONOMY_FILE, Taxonomy, parse_taxonomy
from lore.team.imports.code_repo import match_key_of_url
from lore.team.proposals.branches import BRANCH_PREFIX, REMOTE, taken_names
from lore.text.words import tokens
from lore.vault import git
from lore.vault.resolved import Vault
from lore.vault.settings import SETTINGS_FILE

_SOURCE = re.compile(r"^source:[ \t]*[\"']?([^\"'\n]+?)[\"']?[ \t]*$", re.MULTILINE)
ARCHIVE_DIR = "archive"


def summary_key(text: str) -> str:
    """A one-line summary as a key: lower-case words only."""
    return " ".join(tokens(text))


def match_keys(raw: bytes) -> list[str]:
    """The keys a note's text answers to (see the module docstring)."""
    text = raw.decode("utf-8", "replace")
    end = text.find("\n---", 3)
    head = text[: end if end > 0 else 0]
    found = _SOURCE.search(head)
    if found is None:
        return []
    key = match_key_of_url(found[1].strip())
    if key is None:
        return []
    summary = what_summary(text[end + 4 :] if end > 0 else text) or ""
    return [key, f"{key}|{summary_key(summary)}"]


@dataclass
class VaultView:
    root: Path
    base_branch: str
    base_ref: str  # the commit proposals start from
    taxonomy_text: str | None
    taxonomy: Taxonomy | None
    max_body_words: int
    max_title_chars: int
    ids: set[str] = field(default_factory=set)  # every id or name a new note cannot take
    by_key: dict[str, tuple[str, str]] = field(default_factory=dict)  # key -> (id, where)
    open_notes: dict[str, bytes] = field(default_factory=dict)  # path -> text, open proposals
    places: dict[str, str] = field(default_factory=dict)  # note id -> where it is


def read_view(root: Path, base_branch: str, base_ref: str) -> VaultView:
    """The vault at `base_ref` and the open proposals against it."""
    commit = git.resolve_commit(root, base_ref) or base_ref
    names = [f"{commit}:{SETTINGS_FILE}", f"{commit}:{TAXONOMY_FILE}"]
    objects = git.read_objects(root, names)
    settings_raw, taxonomy_raw = (objects.get(name, ("", None))[1] for name in names)
    settings = load_curator_settings(
        settings_raw.decode("utf-8", "replace") if settings_raw else None
    )
    taxonomy_text = taxonomy_raw.decode("utf-8", "replace") if taxonomy_raw else None
    view = VaultView(
        root=root,
        base_branch=base_branch,
        base_ref=commit,
        taxonomy_text=taxonomy_text,
        taxonomy=parse_taxonomy(taxonomy_text) if taxonomy_text is not None else None,
        max_body_words=settings.max_body_words,
        max_title_chars=settings.max_title_chars,
    )
    tree = {p: s for p, s in git.list_tree(root, commit, NOTES_DIR).items() if p.endswith(".md")}
    archived = git.list_tree(root, commit, ARCHIVE_DIR)
    view.ids = {_id_of(path) for path in (*tree, *archived)} | taken_names(Vault.of(root))
    view.places = dict.fromkeys(map(_id_of, tree), "the vault")
    blobs = git.read_objects(root, tree.values())
    for path, sha in tree.items():
        if sha in blobs:
            for key in match_keys(blobs[sha][1]):
                view.by_key.setdefault(key, (_id_of(path), "the vault"))
    _read_open_proposals(view)
    return view


def _id_of(path: str) -> str:
    return path.rsplit("/", 1)[-1].removesuffix(".md")


def _read_open_proposals(view: VaultView) -> None:
    root, base = view.root, view.base_ref
    branches: dict[str, str] = {}
    for prefix in (f"refs/remotes/{REMOTE}/{BRANCH_PREFIX}", f"refs/heads/{BRANCH_PREFIX}"):
        for ref, commit in git.list_refs(root, prefix).items():
            name = BRANCH_PREFIX + ref.split(BRANCH_PREFIX, 1)[1]
            branches.setdefault(name, commit)  # the pushed branch first: what the PR shows
    wanted: dict[str, tuple[str, str]] = {}  # path -> (blob, branch)
    for branch, commit in sorted(branches.items()):
        if git.is_ancestor(root, commit, base):
            continue  # merged
        fork = git.merge_base(root, base, commit) or base
        for change in git.diff_tree(root, fork, commit):
            if change.status == "D" or not change.path.startswith(f"{NOTES_DIR}/"):
                continue
            if change.path.endswith(".md"):
                wanted.setdefault(change.path, (change.new_sha, branch))
    blobs = git.read_objects(root, [sha for sha, _ in wanted.values()])
    for path, (sha, branch) in wanted.items():
        if sha not in blobs:
            continue
        raw = blobs[sha][1]
        note_id = _id_of(path)
        view.ids.add(note_id)
        view.places.setdefault(note_id, f"the open proposal {branch}")
        view.open_notes[path] = raw
        for key in match_keys(raw):
            view.by_key.setdefault(key, (note_id, f"the open proposal {branch}"))
