"""What a proposed note names that `_taxonomy.md` does not list yet, added in the same PR.

A note about a repository or with a tag the vault's vocabulary lacks is refused by the
curator (`taxonomy/unknown-repo`, `taxonomy/unknown-tag`). The fix is one line in
`_taxonomy.md`, and the place for it is the note's own pull request, where the reviewer
sees both: `lore import` adds the repositories its notes name that way
(`lore.team.imports.batch`), and `lore remember` offers the same (asked on a terminal,
`--add-to-taxonomy` otherwise). The lines are written by `lore.taxonomy.with_repos` and
`with_tags`, into the taxonomy as the proposal's base has it; the findings they answer
are dropped, since the pull request's curator reads the taxonomy from its head.

Offered are names that can be listed as they are: a tag whose name is listed under
another dimension (`taxonomy/wrong-dimension`) is a mistake to fix in the note instead.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from lore.curator.finding import Finding
from lore.taxonomy import TAXONOMY_FILE, is_entry_name, parse_taxonomy, with_repos, with_tags
from lore.team.proposals.note import Proposal
from lore.vault import git

REPO_RULE = "taxonomy/unknown-repo"
TAG_RULE = "taxonomy/unknown-tag"
BY = "lore remember"


@dataclass
class Unlisted:
    repos: list[str] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)

    @property
    def names(self) -> list[str]:
        return [*self.repos, *self.tags]

    def __bool__(self) -> bool:
        return bool(self.repos or self.tags)

    def describe(self) -> str:
        """ "the repository 'payments-api' and the tags 'tool/alembic', 'tool/flyway'"."""
        parts = []
        for one, many, names in (
            ("repository", "repositories", self.repos),
            ("tag", "tags", self.tags),
        ):
            if names:
                quoted = ", ".join(f"'{name}'" for name in names)
                parts.append(f"the {one if len(names) == 1 else many} {quoted}")
        return " and ".join(parts)


def unlisted(proposal: Proposal) -> Unlisted:
    """The repositories and tags of the note that the base's `_taxonomy.md` lacks and
    that the curator refused for it."""
    text = _base_taxonomy(proposal)
    if text is None:
        return Unlisted()
    taxonomy = parse_taxonomy(text)
    refused = {f.rule for f in proposal.findings if f.path == proposal.note.path}
    known_repos = {name.lower() for name in taxonomy.repos}
    leaves = {name.partition("/")[2] for name in taxonomy.tags}
    found = Unlisted()
    if REPO_RULE in refused:
        found.repos = [
            repo
            for repo in proposal.note.repo
            if repo.lower() not in known_repos and is_entry_name(repo)
        ]
    if TAG_RULE in refused:
        found.tags = [
            tag
            for tag in proposal.note.tags
            if tag not in taxonomy.tags
            and "/" in tag
            and is_entry_name(tag)
            and tag.partition("/")[2] not in leaves  # listed elsewhere: a typo, not new
        ]
    return found


def add_to_taxonomy(proposal: Proposal, found: Unlisted) -> None:
    """Propose `_taxonomy.md` with `found` listed, with the note; their findings go."""
    text = _base_taxonomy(proposal)
    if text is None or not found:
        return
    text = with_tags(
        with_repos(text, found.repos, by=BY) if found.repos else text, found.tags, by=BY
    )
    proposal.taxonomy = text.encode("utf-8")
    proposal.findings = [f for f in proposal.findings if not _answered(f, found)]
    proposal.notices.append(
        f"Adds {found.describe()} to {TAXONOMY_FILE} in the same pull request; the "
        "reviewer sees both."
    )


def _answered(finding: Finding, found: Unlisted) -> bool:
    if finding.rule == REPO_RULE:
        return any(f"'{repo}'" in finding.message for repo in found.repos)
    if finding.rule == TAG_RULE:
        return any(f"'{tag}'" in finding.message for tag in found.tags)
    return False


def _base_taxonomy(proposal: Proposal) -> str | None:
    raw = git.read_file_at(proposal.root, proposal.base_ref, TAXONOMY_FILE)
    return None if raw is None else raw.decode("utf-8", "replace")
