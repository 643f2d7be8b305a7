"""Each ADR of a repository proposed as a pull request against the ADRs written before it.

The vault (`real_adr_import.make_vault`) starts with the taxonomy and a `lore.toml` that
points the model review at the eval's stand-in (`model_stand_in`). The ADRs come in the
eval's order (`real_adr_manifest.proposal_order`); for each one:

1. its note, as `lore import adr` made it but without `supersedes` or `## Related`, is
   committed on top of the vault, and `lore curate` checks that commit against the one
   before, as the curator workflow checks a pull request
   (`curate(vault, Range(base, head), semantic=True)`: the rules, then the model review);
2. what the curator said about the note is kept (`Proposal`): the judgement warnings
   and the notes they name, the three notes `lore review` lists as most alike, the notes
   the model was shown (from the request the stand-in received) and the lint;
3. the note is then settled in the vault with the full supersessions its authors
   recorded (pairs.toml), so a replaced ADR is out of recall for the ADRs after it.

Every date is the data's: a commit is dated, and the curator's "today" is, the latest
date among the ADRs in the vault and the one proposed — never the day the eval runs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lore.curator.run import curate
from lore.curator.target import Range
from model_stand_in import StandIn, shown_ids
from real_adr_import import ImportedRepository, git

JUDGEMENT = ("duplicate/", "contradiction/", "lifecycle/may-supersede")
MODEL = ("convention/semantic-",)
LINT = ("convention/what-not-standalone", "convention/body-too-long", "injection/link-domain")
_ID = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*--[a-z0-9]+(?:-[a-z0-9]+)*--\d{4}-\d{2}-\d{2}")


@dataclass
class Proposal:
    repo: str
    split: str
    file: str
    id: str
    judgement: list[dict[str, Any]] = field(default_factory=list)  # rule, names, by
    similar: list[str] = field(default_factory=list)  # `lore review`'s three most alike
    shown: list[str] = field(default_factory=list)  # the notes the model was asked about
    prompt: str = ""  # the id of the request the model review sent ("" for none)
    review: str = ""  # what the model review did ("ran", "skipped", ...)
    lint: list[str] = field(default_factory=list)
    said: list[str] = field(default_factory=list)  # the findings' words: shown, never stored


def _commit(vault: Path, message: str, day: str) -> str:
    stamp = f"{day}T12:00:00Z"
    git(vault, "add", "-A")
    git(
        vault,
        "commit",
        "-q",
        "--allow-empty",
        "-m",
        message,
        env={"GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp},
    )
    return git(vault, "rev-parse", "HEAD").strip()


def propose_all(
    imported: ImportedRepository,
    labels: dict[str, list[dict[str, Any]]],
    vault: Path,
    stand_in: StandIn,
) -> tuple[list[Proposal], list[str]]:
    """Each ADR proposed in turn; and the ids of the requests the model review sent."""
    repository = imported.repository
    by_file = imported.by_file()
    full = {
        (pair["new"], pair["old"])
        for pair in labels["supersession"]
        if pair["repo"] == repository["name"] and pair["kind"] == "full"
    }
    known = {adr.id for adr in imported.adrs}
    proposals: list[Proposal] = []
    prompts: list[str] = []
    today = ""
    in_vault: set[str] = set()
    for adr in imported.adrs:
        today = max(today, adr.date)
        path = vault / "notes" / f"{adr.id}.md"
        base = git(vault, "rev-parse", "HEAD").strip()
        path.write_text(adr.text(), encoding="utf-8")
        head = _commit(vault, f"propose {adr.id}", today)
        since = len(stand_in.calls)
        result = curate(vault, Range(base, head), today=today, semantic=True, similar=3)
        calls = stand_in.take(since)
        proposal = Proposal(repository["name"], repository["split"], adr.file, adr.id)
        display = f"notes/{adr.id}.md"
        for finding in result.findings:
            if finding.path != display:
                continue
            if finding.rule.startswith(JUDGEMENT + MODEL):
                text = f"{finding.message} {finding.suggestion or ''}"
                names = sorted({m for m in _ID.findall(text) if m in known and m != adr.id})
                by = "model" if finding.rule.startswith(MODEL) else "rules"
                proposal.judgement.append({"rule": finding.rule, "names": names, "by": by})
                proposal.said.append(f"{finding.rule}: {finding.sentences()}")
            elif finding.rule in LINT:
                proposal.lint.append(finding.rule)
        proposal.similar = [note.id for note in result.similar.get(display, [])]
        if result.model_review is not None:
            proposal.review = result.model_review.state
        for call in calls:
            proposed, shown = shown_ids(call.messages)
            if proposed == adr.id:
                proposal.shown = shown
                proposal.prompt = call.id
                prompts.append(call.id)
        proposals.append(proposal)
        replaced = tuple(
            by_file[old].id
            for new, old in sorted(full)
            if new == adr.file and old in by_file and by_file[old].id in in_vault
        )
        path.write_text(adr.text(replaced), encoding="utf-8")
        _commit(vault, f"settle {adr.id}", today)
        in_vault.add(adr.id)
    return proposals, prompts
