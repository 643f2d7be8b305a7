"""Proposing drafts: several drafts of the inbox as one pull request (`lore drafts propose`).

`prepare` takes the named drafts and the inbox's lock, fetches the remote and readies
each note for the vault as it is now: an id that a note merged since the draft was
saved (or an open proposal) already uses gets `-2`, `-3`…; a missing `author` is
filled in from `gh api user`. Then the curator checks them all together against the
fetched default branch, so a draft that repeats another draft of the batch is flagged
as well. The caller shows the findings and asks; `submit` then refuses a batch with a
secret anywhere (whatever the flags) or with curator errors (unless `force`), and
otherwise commits the notes as one change set (`lore.team.proposals.changes`) on `lore/<name>`
in a worktree of its own and publishes it like every proposal: one pull request.

Once that commit exists the drafts leave the inbox, since the branch holds them; when
the push or the pull request fails, the message says how to finish
(`lore drafts propose --resume NAME`). A batch that was refused, or whose commit
failed, leaves every draft where it was. `release` lets go of the lock.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lore import clock
from lore.curator.finding import Finding
from lore.curator.report.formats import code_fence, md_escape
from lore.curator.run import curate
from lore.curator.target import Drafts
from lore.errors import ProposalError, UsageError
from lore.files import FileLock
from lore.note.ids import ID_PATTERN
from lore.note.model import Note
from lore.note.parse import inspect_note
from lore.paths import NOTES_DIR
from lore.team.drafts.inbox import (
    INBOX,
    Draft,
    draft_ids,
    inbox_dir,
    inbox_lock,
    pick,
    read_draft,
    remove_files,
)
from lore.team.proposals.branches import BRANCH_PREFIX, Outcome, taken_names
from lore.team.proposals.changes import ChangeSet, free_change_name, propose_change, start_change
from lore.team.proposals.pr_body import LORE_LABEL, pr_body, pr_labels, pr_title
from lore.vault import git
from lore.vault.remote import NETWORK_TIMEOUT, github_repo
from lore.vault.resolved import Vault
from lore.versioned import versioned

MAX_BODY_CHARS = 60_000  # GitHub refuses a pull request body over 65,536 characters
_NAME_LIMIT = 100  # a change's name (lore.team.proposals.changes)


@dataclass
class Ready:
    """One draft readied for the vault: its note id now, and its text with the author."""

    draft: Draft
    note_id: str
    text: str
    note: Note | None
    findings: list[Finding] = field(default_factory=list)
    preview: str = ""  # what an agent will see of it, from the curator

    @property
    def path(self) -> str:
        return f"{NOTES_DIR}/{self.note_id}.md"


@dataclass
class Batch:
    """The drafts of one proposal, checked together, holding the inbox's lock."""

    root: Path
    items: list[Ready]
    base_branch: str
    base_ref: str
    lock: FileLock
    notices: list[str] = field(default_factory=list)

    @property
    def findings(self) -> list[Finding]:
        return [finding for item in self.items for finding in item.findings]

    @property
    def secrets(self) -> list[Finding]:
        return [f for f in self.findings if f.family == "secret" and f.is_error]

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.is_error]

    def release(self) -> None:
        self.lock.release()

    def to_json(self) -> dict[str, Any]:
        """`lore drafts propose --dry-run --json`: each note as it would be proposed."""
        return versioned(
            {
                "status": "checked",
                "notes": [
                    {
                        "draft": item.draft.id,
                        "id": item.note_id,
                        "path": item.path,
                        "findings": [finding.to_json() for finding in item.findings],
                    }
                    for item in self.items
                ],
                "notices": self.notices,
            }
        )


def proposed_json(outcome: Outcome, batch: Batch) -> dict[str, Any]:
    """`lore drafts propose --json`: where the pull request went, and which drafts it took."""
    return versioned(
        {
            **outcome.to_json(),
            "path": None,
            "notes": [{"draft": item.draft.id, "id": item.note_id} for item in batch.items],
            "findings": [finding.to_json() for finding in batch.findings],
        }
    )


def _with_author(text: str, author: str) -> str:
    """The note file with `author:` added before the end of its frontmatter."""
    lines = text.split("\n")
    for index in range(1, len(lines)):
        if lines[index].strip() == "---":
            return "\n".join([*lines[:index], f"author: {author}", *lines[index:]])
    return text


def _taken(vault: Vault, base_ref: str) -> set[str]:
    """Note ids a proposal cannot use: the vault's at the base and HEAD, and open branches."""
    root = vault.root
    ids = taken_names(vault)
    for commit in {git.resolve_commit(root, ref) for ref in (base_ref, "HEAD")} - {None}:
        assert commit is not None
        paths = git.list_tree(root, commit, NOTES_DIR)
        ids |= {path.rsplit("/", 1)[-1].removesuffix(".md") for path in paths}
    return ids


def _free_id(note_id: str, taken: set[str]) -> str:
    if note_id not in taken:
        return note_id
    match = ID_PATTERN.match(note_id)
    if match is None:  # pragma: no cover - draft ids are note ids
        raise UsageError(f"The draft {note_id} has no usable note id.")
    for number in range(2, 1000):
        candidate = f"{match['scope']}--{match['topic']}-{number}--{match['date']}"
        if candidate not in taken:
            return candidate
    raise UsageError(f"Too many notes are named like {note_id}.", fix="Edit the draft's title.")


def prepare(root: Path, wanted: list[str], *, timeout: float = NETWORK_TIMEOUT) -> Batch:
    """Take the named drafts (and the inbox's lock), ready them and check them together."""
    vault = Vault.of(root)
    root = vault.root
    if not wanted:
        raise UsageError("Name the drafts to propose.", fix="`lore drafts` lists them.")
    folder = inbox_dir(root)
    lock = inbox_lock(folder)
    try:
        ids = draft_ids(folder)
        chosen = list(dict.fromkeys(pick(ids, name, INBOX) for name in wanted))
        drafts = [draft for name in chosen if (draft := read_draft(folder, name))]
        base_branch, base_ref = start_change(vault, timeout=timeout)
        taken = _taken(vault, base_ref)
        author: str | None = None
        items: list[Ready] = []
        for draft in drafts:
            note_id = _free_id(draft.id, taken)
            taken.add(note_id)
            text = draft.text
            note = inspect_note(text.encode("utf-8"), f"{NOTES_DIR}/{note_id}.md").note
            if note is not None and not note.author:
                if author is None:
                    from lore.team.proposals.note import find_author

                    url = git.remote_url(root, "origin", vault.found)
                    author = find_author(root, github_repo(url)) or ""
                if author:
                    text = _with_author(text, author)
            items.append(Ready(draft, note_id, text, note))
        result = curate(vault, Drafts({i.path: i.text.encode("utf-8") for i in items}, at=base_ref))
        for item in items:
            item.preview = result.previews.get(item.path, "")
        for finding in result.findings:
            for item in items:
                if finding.path in (item.path, ""):
                    item.findings.append(finding)
        notices = [
            f"The draft {i.draft.id} is proposed as {i.note_id}: its id is taken now."
            for i in items
            if i.note_id != i.draft.id
        ]
        return Batch(root, items, base_branch, base_ref, lock, notices + result.notices)
    except BaseException:
        lock.release()
        raise


def _blocked(batch: Batch, force: bool) -> ProposalError | None:
    if batch.secrets:
        first = batch.secrets[0]
        line = f" on line {first.line}" if first.line else ""
        return ProposalError(
            f"{first.path} contains what looks like a secret ({first.rule}{line}): nothing "
            "was committed or pushed, and every draft stays in the inbox.",
            fix="Remove it with `lore drafts edit`, then propose again. The secret scan "
            "cannot be overridden.",
        )
    if batch.errors and not force:
        return ProposalError(
            f"The curator found {len(batch.errors)} error(s) in these drafts, so nothing was "
            "proposed; every draft stays in the inbox.",
            fix="Fix them with `lore drafts edit ID` and propose again; or add --force to "
            "propose anyway (the pull request's curator check will fail the same way).",
        )
    return None


def _body(batch: Batch, forced: bool) -> str:
    items = batch.items
    agent = next((str(i.draft.meta["agent"]) for i in items if i.draft.meta.get("agent")), None)
    single = items[0].note if len(items) == 1 else None
    if single is not None:
        item = items[0]
        return pr_body(single, item.text, item.preview, item.findings, agent=agent, forced=forced)
    lines = [
        f"Proposes {len(items)} notes from a drafts inbox (`lore drafts propose`), checked "
        "together with the curator's rules on the author's machine.",
        "",
        "| note | local check |",
        "| --- | --- |",
    ]
    for item in items:
        errors = sum(1 for f in item.findings if f.is_error)
        check = (
            "no problems"
            if not item.findings
            else (f"{errors} error(s), {len(item.findings) - errors} warning(s)")
        )
        lines.append(f"| `{item.path}` | {check} |")
    if forced and batch.errors:
        lines += ["", "Proposed despite the curator's errors (`--force`)."]
    for number, item in enumerate(items, 1):
        title = item.note.title if item.note is not None else item.draft.title
        lines += ["", f"### {number}. {md_escape(title, 200)}", ""]
        lines.append(code_fence(item.text, "markdown"))
        lines += [
            f"- {f.severity} `{f.rule}` (line {f.line or '-'}): {md_escape(f.message)}"
            for f in item.findings[:20]
        ]
    lines += [
        "",
        "The curator workflow checks this pull request again. Reviewers: is each note true, "
        "one idea, and would the next person find it? Merge to share them with every "
        "teammate's agents.",
    ]
    body = "\n".join(lines) + "\n"
    if len(body) > MAX_BODY_CHARS:
        body = body[:MAX_BODY_CHARS] + "\n\n…cut here: the notes are in the diff.\n"
    return body


def _name(batch: Batch) -> str:
    if len(batch.items) == 1 and len(batch.items[0].note_id) <= _NAME_LIMIT:
        return free_change_name(batch.root, batch.items[0].note_id)
    return free_change_name(batch.root, f"drafts-{clock.today().isoformat()}")


def submit(batch: Batch, *, force: bool = False, timeout: float = NETWORK_TIMEOUT) -> Outcome:
    """Commit the batch on one branch, push it and open one pull request (see the module)."""
    blocked = _blocked(batch, force)
    if blocked is not None:
        raise blocked
    items = batch.items
    name = _name(batch)
    agent = next((str(i.draft.meta["agent"]) for i in items if i.draft.meta.get("agent")), None)
    if len(items) == 1 and items[0].note is not None:
        title = pr_title(items[0].note)
        message = f"lore: {items[0].note.title}\n\nProposes {items[0].path}."
    else:
        title = f"lore: {len(items)} notes from the drafts inbox"
        message = f"{title}\n\n" + "".join(f"Proposes {item.path}.\n" for item in items)
    change = ChangeSet(
        name=name,
        title=title[:250],
        body=_body(batch, force and bool(batch.errors)),
        message=message,
        writes={item.path: item.text.encode("utf-8") for item in items},
        labels=tuple(pr_labels(agent)) if agent else (LORE_LABEL,),
        resume_command=f"lore drafts propose --resume {name}",
    )
    folder = inbox_dir(batch.root)
    try:
        outcome = propose_change(
            batch.root,
            change,
            base_branch=batch.base_branch,
            base_ref=batch.base_ref,
            timeout=timeout,
        )
    except ProposalError as exc:  # committed, not published: the branch holds the notes
        for item in items:
            remove_files(folder, item.draft.id)
        exc.message += f" The drafts left the inbox: the branch {BRANCH_PREFIX}{name} holds them."
        raise
    for item in items:
        remove_files(folder, item.draft.id)
    outcome.notices = batch.notices + outcome.notices
    return outcome
