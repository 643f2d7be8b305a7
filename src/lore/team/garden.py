"""The gardener (`lore garden`): audit the whole vault and propose one cleanup pull request.

It reads the vault as it is on the remote's default branch (git objects, never the
user's checkout) and plans:

- notes past `expires`, notes superseded longer than `archive_superseded_after_days`
  and notes whose `depends_on` is not active: moved to `archive/<id>.md` with
  `git mv`. An archived note keeps its id and its history (`git log --follow`), drops
  out of the index (only `notes/` is indexed) and links to it stay resolvable;
- `[[links]]` to an id that no longer exists: rewritten when git's rename history
  names exactly one note that now holds it, else reported;
- taxonomy tags and repos no remaining note uses: their line removed from
  `_taxonomy.md` (when `remove_unused_taxonomy` is on), except the template's entries
  and entries added recently (`lore.team.garden_taxonomy`), so a young vault keeps
  its vocabulary;
- low-confidence notes older than `low_confidence_max_age_days`: listed for a
  person in the pull request, never changed.

`propose_garden` commits the plan on `lore/garden-<date>` in a worktree and opens the
pull request through the same path as `lore remember`. Nothing is deleted or
rewritten without that reviewed pull request.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from lore import clock
from lore.curator.report.formats import md_escape
from lore.curator.rules.link import WIKILINK
from lore.errors import LoreError
from lore.note.ids import is_valid_id
from lore.note.model import Note
from lore.note.parse import note_id_from_path, parse_note
from lore.note.status import Links, compute_status
from lore.paths import NOTES_DIR
from lore.taxonomy import TAXONOMY_FILE, parse_taxonomy
from lore.team.garden_taxonomy import spared_entries
from lore.team.proposals.branches import BRANCH_PREFIX, REMOTE, Outcome
from lore.team.proposals.changes import ChangeSet, free_change_name, propose_change, start_change
from lore.text.markdown import CodeMap
from lore.vault import git
from lore.vault.history import log_changes
from lore.vault.remote import NETWORK_TIMEOUT
from lore.vault.settings import REVIEWED, SETTINGS_FILE, parse_settings, section_values
from lore.versioned import versioned

ARCHIVE_DIR = "archive"
# What each finding kind does to the vault.
ARCHIVE_KINDS = ("expired", "superseded", "depends-on-inactive")
KINDS = (*ARCHIVE_KINDS, "link-fixed", "link-broken", "unused-taxonomy", "low-confidence")


@dataclass
class GardenItem:
    kind: str  # one of KINDS
    path: str  # the file concerned (before any move)
    message: str
    action: str  # "archive", "edit", "report"
    target: str | None = None  # the new path, or the link's new id

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "path": self.path,
            "action": self.action,
            "target": self.target,
            "message": self.message,
        }


@dataclass
class GardenPlan:
    commit: str  # the commit audited
    base_branch: str
    today: str
    items: list[GardenItem] = field(default_factory=list)
    moves: dict[str, str] = field(default_factory=dict)
    writes: dict[str, bytes] = field(default_factory=dict)

    @property
    def has_changes(self) -> bool:
        return bool(self.moves or self.writes)

    def to_json(self) -> dict[str, Any]:
        return {
            "commit": self.commit,
            "base_branch": self.base_branch,
            "today": self.today,
            "items": [item.to_json() for item in self.items],
        }


def _days_ago(today: str, days: int) -> str:
    return (date.fromisoformat(today) - timedelta(days=days)).isoformat()


def _read_tree(root: Path, commit: str, folder: str) -> dict[str, bytes]:
    shas = {
        path: sha
        for path, sha in git.list_tree(root, commit, folder).items()
        if path.count("/") == 1 and path.endswith(".md")
    }
    objects = git.read_objects(root, shas.values())
    return {path: objects[sha][1] for path, sha in shas.items() if sha in objects}


def _renames(root: Path, commit: str) -> dict[str, set[str]]:
    """Old note id -> the ids git's history says it was renamed to."""
    renamed: dict[str, set[str]] = {}
    for logged in log_changes(root, [commit], paths=[NOTES_DIR], only="R"):
        for change in logged.changes:
            if change.status == "R" and change.old_path is not None:
                old, new = note_id_from_path(change.old_path), note_id_from_path(change.path)
                renamed.setdefault(old, set()).add(new)
    return renamed


def _resolve_rename(old: str, renamed: dict[str, set[str]], present: set[str]) -> str | None:
    """The one present id `old` became through renames, or None when not exactly one."""
    found: set[str] = set()
    frontier, seen = [old], {old}
    while frontier:
        current = frontier.pop()
        for new in renamed.get(current, ()):
            if new in seen:
                continue
            seen.add(new)
            if new in present:
                found.add(new)
            else:
                frontier.append(new)
    return found.pop() if len(found) == 1 else None


def _split(text: str) -> tuple[str, str] | None:
    lines = text.split("\n")
    if not lines or lines[0].strip() != "---":
        return None
    for index in range(1, len(lines)):
        if lines[index].strip() == "---":
            return "\n".join(lines[: index + 1]) + "\n", "\n".join(lines[index + 1 :])
    return None


def plan_garden(
    root: Path,
    commit: str,
    *,
    base_branch: str = "main",
    today: str | None = None,
) -> GardenPlan:
    """What the gardener would change in the vault at `commit` (reads git objects only)."""
    day = today or clock.today().isoformat()
    plan = GardenPlan(commit=commit, base_branch=base_branch, today=day)
    raw_settings = git.read_file_at(root, commit, SETTINGS_FILE)
    settings = section_values(
        parse_settings(
            raw_settings.decode("utf-8", "replace") if raw_settings else None, source=REVIEWED
        ),
        "garden",
    )
    notes: dict[str, Note] = {}
    texts: dict[str, str] = {}
    for path, raw in sorted(_read_tree(root, commit, NOTES_DIR).items()):
        try:
            note = parse_note(raw, path)
        except LoreError:
            continue  # the curator reports broken notes; the gardener leaves them alone
        notes[note.id] = note
        texts[note.id] = raw.decode("utf-8", "replace")
    archived_ids = {note_id_from_path(p) for p in _read_tree(root, commit, ARCHIVE_DIR)}

    # 1. Inactive notes go to archive/.
    statuses = compute_status(
        [Links(n.id, n.supersedes, n.depends_on, n.expires) for n in notes.values()], day
    )
    superseded_before = _days_ago(day, settings["archive_superseded_after_days"])
    for note_id, status in sorted(statuses.items()):
        note = notes[note_id]
        if status.expired:
            kind = "expired"
        elif status.superseded_by:
            by = notes.get(status.superseded_by)
            if by is None or by.date > superseded_before:
                continue  # superseded recently: it stays until the configured time has passed
            kind = "superseded"
        elif status.reason and status.reason.startswith("depends on"):
            kind = "depends-on-inactive"
        else:
            continue
        target = f"{ARCHIVE_DIR}/{note_id}.md"
        if note_id in archived_ids:
            plan.items.append(
                GardenItem(kind, note.path, f"{status.reason}; {target} already exists", "report")
            )
            continue
        plan.moves[note.path] = target
        plan.items.append(GardenItem(kind, note.path, str(status.reason), "archive", target))

    staying = {nid: n for nid, n in notes.items() if n.path not in plan.moves}
    known = set(notes) | archived_ids

    # 2. Broken [[links]] in the notes that stay.
    renamed = _renames(root, commit)
    for note_id, note in sorted(staying.items()):
        parts = _split(texts[note_id])
        if parts is None:
            continue
        head, body = parts
        code = CodeMap(body)
        pieces: list[str] = []
        last = 0
        for match in WIKILINK.finditer(body):
            if match.start() in code:
                continue
            inner = match[1]
            target = inner.split("|", 1)[0].split("#", 1)[0].strip()
            if not is_valid_id(target) or target in known:
                continue
            new = _resolve_rename(target, renamed, set(staying))
            if new is None:
                plan.items.append(
                    GardenItem(
                        "link-broken",
                        note.path,
                        f"[[{target}]] names no note, and git's history does not say which "
                        "one it became; fix or remove the link",
                        "report",
                    )
                )
                continue
            start = match.start(1) + inner.index(target)
            pieces += [body[last:start], new]
            last = start + len(target)
            plan.items.append(
                GardenItem(
                    "link-fixed",
                    note.path,
                    f"[[{target}]] was renamed to [[{new}]]",
                    "edit",
                    new,
                )
            )
        if pieces:
            pieces.append(body[last:])
            plan.writes[note.path] = (head + "".join(pieces)).encode("utf-8")

    # 3. Taxonomy entries no remaining note uses.
    raw_taxonomy = git.read_file_at(root, commit, TAXONOMY_FILE)
    if raw_taxonomy is not None and settings["remove_unused_taxonomy"]:
        text = raw_taxonomy.decode("utf-8", "replace")
        taxonomy = parse_taxonomy(text)
        used_tags = {tag for n in staying.values() for tag in n.tags}
        used_repos = {repo for n in staying.values() for repo in n.repo}
        unused = [e for e in taxonomy.tags.values() if e.name not in used_tags]
        unused += [e for e in taxonomy.repos.values() if e.name not in used_repos]
        spared = spared_entries(root, commit, {e.name for e in unused}, settings, day)
        unused = [e for e in unused if e.name not in spared]
        lines = text.split("\n")
        drop: set[int] = set()
        for entry in sorted(unused, key=lambda e: e.line):
            index = entry.line - 1
            if 0 <= index < len(lines) and f"`{entry.name}`" in lines[index]:
                drop.add(index)
                what = "tag" if entry.section not in ("Types", "Repos") else "repo"
                plan.items.append(
                    GardenItem(
                        "unused-taxonomy",
                        TAXONOMY_FILE,
                        f"the {what} `{entry.name}` (line {entry.line}) is used by no note",
                        "edit",
                        entry.name,
                    )
                )
        if drop:
            kept = [line for index, line in enumerate(lines) if index not in drop]
            plan.writes[TAXONOMY_FILE] = "\n".join(kept).encode("utf-8")

    # 4. Low-confidence notes past their age: for a person to decide.
    old_before = _days_ago(day, settings["low_confidence_max_age_days"])
    for _note_id, note in sorted(staying.items()):
        if note.confidence == "low" and note.date < old_before and note.id not in statuses:
            plan.items.append(
                GardenItem(
                    "low-confidence",
                    note.path,
                    f"low confidence since {note.date}: verify it (raise its confidence and "
                    "date) or propose removing it",
                    "report",
                )
            )
    return plan


def change_json(outcome: Outcome) -> dict[str, Any]:
    """A change set proposed (or resumed): its name, branch, status and what is next."""
    return {
        "name": outcome.note_id,
        "branch": outcome.branch,
        "status": outcome.status,
        "pull_request": outcome.pr_url,
        "next": outcome.next_steps,
    }


def garden_json(plan: GardenPlan | None, outcome: Outcome | None) -> dict[str, Any]:
    """`lore garden --json`: the audit (absent for --resume) and the proposal, if one was made."""
    data = plan.to_json() if plan is not None else {}
    return versioned({**data, "proposal": change_json(outcome) if outcome else None})


def audit(root: Path, *, today: str | None = None, timeout: float = NETWORK_TIMEOUT) -> GardenPlan:
    """Fetch the remote and plan the cleanup of its default branch."""
    root = root.resolve()
    base_branch, base_ref = start_change(root, timeout=timeout)
    commit = git.resolve_commit(root, base_ref)
    if commit is None:  # pragma: no cover - start_change checked there are commits
        raise LoreError(f"{base_ref} is not a commit in {root}.")
    return plan_garden(root, commit, base_branch=base_branch, today=today)


def open_garden_branches(root: Path, base: str) -> list[str]:
    """The gardener's branches on the remote that are not merged into `base`."""
    pattern = f"refs/remotes/{REMOTE}/{BRANCH_PREFIX}garden-*"
    return sorted(
        ref.removeprefix(f"refs/remotes/{REMOTE}/")
        for ref, commit in git.list_refs(root, pattern).items()
        if not git.is_ancestor(root, commit, base)
    )


_HEADINGS = {
    "expired": "Expired notes (archived)",
    "superseded": "Superseded notes (archived)",
    "depends-on-inactive": "Notes whose `depends_on` is not active (archived)",
    "link-fixed": "Links fixed after a rename",
    "link-broken": "Broken links (for a person: no unambiguous target)",
    "unused-taxonomy": "Taxonomy entries no note uses (removed)",
    "low-confidence": "Old low-confidence notes (for a person: verify or remove)",
}


def pr_body(plan: GardenPlan) -> str:
    lines = [
        f"The gardener (`lore garden`) audited `{md_escape(plan.base_branch, 80)}` at "
        f"{plan.commit[:12]} on {plan.today}.",
        "",
        "Archived notes are moved to `archive/` with their id and history; they leave "
        "recall (they were inactive already) and links to them still name a real file. "
        "Nothing is deleted: revert a line of this pull request to keep it.",
    ]
    for kind in KINDS:
        items = [item for item in plan.items if item.kind == kind]
        if not items:
            continue
        lines += ["", f"### {_HEADINGS[kind]}", ""]
        lines += [
            f"- `{md_escape(item.path, 200)}` — {md_escape(item.message, 300)}" for item in items
        ]
    return "\n".join(lines) + "\n"


def propose_garden(
    root: Path, plan: GardenPlan, *, timeout: float = NETWORK_TIMEOUT
) -> Outcome | None:
    """Open the cleanup pull request for `plan`; None when there is nothing to change."""
    if not plan.has_changes:
        return None
    root = root.resolve()
    pending = open_garden_branches(root, plan.commit)
    if pending:
        branch = pending[0]
        return Outcome(
            branch.removeprefix(BRANCH_PREFIX),
            branch,
            "pending",
            next_steps=[
                f"The gardener's earlier cleanup ({branch}) is not merged yet, so no second "
                "pull request was opened.",
                "Merge or close its pull request and delete the branch; the next run "
                "proposes what is still left.",
            ],
        )
    name = free_change_name(root, f"garden-{plan.today}")
    counts = {kind: sum(1 for item in plan.items if item.kind == kind) for kind in KINDS}
    summary = ", ".join(f"{n} {kind}" for kind, n in counts.items() if n)
    change = ChangeSet(
        name=name,
        title=f"lore: gardener's cleanup ({plan.today})",
        body=pr_body(plan),
        message=f"lore garden: cleanup of {plan.today}\n\n{summary}.",
        moves=dict(plan.moves),
        writes=dict(plan.writes),
    )
    return propose_change(
        root, change, base_branch=plan.base_branch, base_ref=plan.commit, timeout=timeout
    )
