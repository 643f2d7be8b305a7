"""The curator on real decisions: public ADR repositories, each ADR proposed in turn.

    python eval/run_real_adr_eval.py --mirrors DIR                  # tune and held-out
    python eval/run_real_adr_eval.py --mirrors DIR --split tune --show
    python eval/run_real_adr_eval.py --mirrors DIR --record after   # into results.json
    python eval/run_real_adr_eval.py --mirrors DIR --split held-out-5  # the unseen batch
    python eval/run_real_adr_eval.py --mirrors DIR --list-recorded    # labels' source
    python eval/run_real_adr_eval.py --mirrors DIR --check-labels     # labels hold?

Without --split it runs the first two halves (tune, held-out); the later batches
(held-out-2, held-out-3, held-out-4, held-out-5) run only when asked for by name, so no
ordinary run shows one before its first run.
--list-recorded and --check-labels read the snapshots but never run the curator.

DIR holds one bare snapshot per repository of eval/curator/real/manifest.toml, as
`DIR/<owner>+<name>/repo` (the layout the snapshot fetcher leaves). Nothing of those
repositories is committed to lore: the ADRs are read from the snapshots with `git show`
at the manifest's commit, converted to notes in a temporary vault, and only figures are
kept.

For each repository, the ADRs are ordered by their number. Each one is proposed, as
`lore remember` proposes a draft (`curate(Drafts(…, at=…))`), against a vault of the
ADRs before it, without any `supersedes`; the vault's own notes carry the full
supersessions the authors recorded (eval/curator/real/pairs.toml), so a replaced ADR is
out of recall for the ADRs after its successor. What the curator says about each
proposal is compared with the labels:

- a recorded supersession is *flagged* when a judgement warning on the new ADR
  (`duplicate/*`, `contradiction/*`, `lifecycle/may-supersede`) names the old one;
- a judgement warning on an ADR that replaces nothing (no recorded supersession and no
  `related` label) is a *false alarm*;
- *in top 3*: the old ADR is among the three notes `lore review` lists as most alike.

An ADR becomes a note by a small converter written for this eval (`lore import adr`
may replace it): the title without its number (nor a dash after it, an `{#anchor}`,
or an OUTDATED-style mark in capitals added later); `## What` from the Decision section
(or the first section that is not context or status); `## Why` from the Context
section; no Status section, metadata table or "superseded by" line (those record what
happened later); links to other ADRs of the folder become `[[id]]` links. ADRs whose
status says rejected or declined are left out: they are not decisions a team holds.
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))
sys.path.insert(0, str(HERE))

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

from lore.curator.run import curate  # noqa: E402
from lore.curator.target import Drafts  # noqa: E402
from real_adr_labels import (  # noqa: E402
    check_repository,
    print_check,
    print_recorded,
    unknown_repositories,
)

REAL = HERE / "curator" / "real"
MANIFEST = REAL / "manifest.toml"
PAIRS = REAL / "pairs.toml"
RESULTS = REAL / "results.json"
SPLIT_SALT = "lore-real-adr-split:"
TODAY = "2026-12-01"
JUDGEMENT = ("duplicate/", "contradiction/", "lifecycle/may-supersede")
LINT = ("convention/what-not-standalone", "convention/body-too-long", "injection/link-domain")
TARGETS = {"recall": 0.7, "false_alarms": 0.02}
_ID = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*--[a-z0-9]+(?:-[a-z0-9]+)*--\d{4}-\d{2}-\d{2}")
GIT_ENV = {
    "GIT_AUTHOR_NAME": "eval",
    "GIT_AUTHOR_EMAIL": "eval@example.invalid",
    "GIT_COMMITTER_NAME": "eval",
    "GIT_COMMITTER_EMAIL": "eval@example.invalid",
    "GIT_AUTHOR_DATE": "2026-12-01T00:00:00Z",
    "GIT_COMMITTER_DATE": "2026-12-01T00:00:00Z",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_SYSTEM": os.devnull,
}


# ---- the manifest and the labels ----


# The repositories split by the salted hash, before anything was tuned. Both halves have
# since been read while tuning; the ten repositories added after that are "held-out-2",
# the eleven after those "held-out-3" and the eight after those "held-out-4" (each batch
# run once at first sight, then read), and every repository added after those is in
# "held-out-5", by construction: nothing of it was read before its first run.
HASH_SPLIT = frozenset(
    {
        "npryce/adr-tools",
        "arachne-framework/architecture",
        "alphagov/govuk-aws",
        "alphagov/govuk-infrastructure",
        "cisagov/manage.get.gov",
        "GSA-TTS/FAC",
        "ministryofjustice/cloud-platform",
        "nats-io/nats-architecture-and-design",
        "home-assistant/architecture",
        "tendermint/tendermint",
        "alphagov/paas-team-manual",
        "zooniverse/front-end-monorepo",
        "ministryofjustice/modernisation-platform",
        "adr/madr",
        "alphagov/forms",
    }
)
HELD_OUT_2 = frozenset(
    {
        "nationalarchives/tdr-dev-documentation",
        "input-output-hk/hydra",
        "celestiaorg/celestia-app",
        "Enterprise-CMCS/managed-care-review",
        "UKGovernmentBEIS/beis-report-official-development-assistance",
        "HHS/simpler-grants-gov",
        "guardian/dotcom-rendering",
        "ministryofjustice/opg-use-an-lpa",
        "ministryofjustice/hmpps-integration-api",
        "wikimedia/mediawiki-extensions-Wikibase",
    }
)
HELD_OUT_3 = frozenset(
    {
        "konflux-ci/architecture",
        "kumahq/kuma",
        "gardenlinux/gardenlinux",
        "DFE-Digital/dfe-complete-conversions-transfers-and-changes",
        "digitalservicebund/ris-backend-service",
        "DFE-Digital/buy-for-your-school",
        "alphagov/govuk-design-system-architecture",
        "JabRef/jabref",
        "wmde/wbaas-deploy",
        "univention/decision-records",
        "cosmos/interchain-security",
    }
)
HELD_OUT_4 = frozenset(
    {
        "microsoft/semantic-kernel",
        "microsoft/agent-framework",
        "nationalarchives/ds-find-caselaw-docs",
        "HHS/OPRE-OPS",
        "DEFRA/epr-re-ex-service",
        "alphagov/search-api",
        "alphagov/email-alert-api",
        "alphagov/content-publisher",
    }
)
SPLITS = ("tune", "held-out", "held-out-2", "held-out-3", "held-out-4", "held-out-5")
DEFAULT_SPLITS = ("tune", "held-out")


def split_of(repository: str) -> str:
    """The fixed split: for the first repositories, held-out when the first byte of the
    salted SHA-256 is odd, else tune; the next ten are held-out-2, the eleven after them
    held-out-3, the eight after those held-out-4; every repository added after those is
    held-out-5."""
    if repository in HELD_OUT_2:
        return "held-out-2"
    if repository in HELD_OUT_3:
        return "held-out-3"
    if repository in HELD_OUT_4:
        return "held-out-4"
    if repository not in HASH_SPLIT:
        return "held-out-5"
    digest = hashlib.sha256((SPLIT_SALT + repository).encode()).digest()
    return "held-out" if digest[0] % 2 else "tune"


def load_manifest() -> list[dict[str, Any]]:
    repositories = list(tomllib.loads(MANIFEST.read_text(encoding="utf-8"))["repository"])
    for repository in repositories:
        if repository["split"] != split_of(repository["name"]):
            raise SystemExit(
                f"manifest: {repository['name']} is in split {repository['split']!r}, but its "
                f"fixed split is {split_of(repository['name'])!r} (see split_of)"
            )
    return repositories


def load_labels() -> dict[str, list[dict[str, Any]]]:
    data = tomllib.loads(PAIRS.read_text(encoding="utf-8"))
    kinds = ("supersession", "related", "hard_negative", "dismissed")
    return {kind: list(data.get(kind, [])) for kind in kinds}


# ---- reading an ADR ----


@dataclass
class Adr:
    file: str
    number: int
    title: str
    status: str
    date: str
    sections: list[tuple[str, str]]  # (heading, text), in order
    preamble: str

    @property
    def rejected(self) -> bool:
        return bool(re.search(r"\breject|\bdeclin", self.status, re.IGNORECASE))


_FRONTMATTER = re.compile(r"\A---\n(.*?)\n---\n", re.DOTALL)
_HEADING = re.compile(r"^(#{1,6})[ \t]+(.*?)[ \t#]*$", re.MULTILINE)
_NUMBERING = re.compile(
    r"^(?:architecture decision record\s*[:\-–—]\s*)?"
    r"(?:(?:ADR|AD)[-_ ]?\d+[a-z]?\s*[:.\-–—]?\s*|\d+[a-z]?\.?\s+|n\.\s*)?",
    re.IGNORECASE,
)
_DATE = re.compile(r"\b(20\d\d|19\d\d)[-/](\d\d)[-/](\d\d)\b")
_LATER_STATUS = re.compile(
    r"\b(?:supersede[ds]|supercede[ds]|superceeded|deprecated|amended|replaced)\b[^.\n]{0,30}?"
    r"\b(?:by|in favou?r of)\b",
    re.IGNORECASE,
)
_META_LINE = re.compile(
    r"^\s*(?:[*_]*(?:status|date|deciders|author|authors|technical story|replaces|supersedes|"
    r"amends|introduced|tags)[*_]*\s*:|\|)",
    re.IGNORECASE,
)
_DECISION = re.compile(
    r"^(?:the\s+)?(?:decisions?(?!\s+(?:drivers|makers?|criteria))|decision outcome|resolution|"
    r"outcome|proposal|proposed solution|solution|design)\b",
    re.IGNORECASE,
)
_CONTEXT = re.compile(
    r"^(?:context|problem|motivation|background|summary|overview|introduction|abstract|why)\b",
    re.IGNORECASE,
)
_NOT_WHAT = re.compile(
    r"^(?:status|changelog|change log|authors?|metadata|references?|consequences|decision drivers|"
    r"considered options|pros and cons|links|more information|revision|history|table of)\b",
    re.IGNORECASE,
)


_BLOCK_SCALAR = ("|", ">", "|-", ">-", "|+", ">+")
_LATER_MARK = re.compile(r"^(?:OUTDATED|SUPERSEDED|DEPRECATED)\b[\s:–—-]*")


def _clean_title(title: str) -> str:
    """The title without its number, the dash after the number, or a mark the authors put
    in front of it later ("OUTDATED", in capitals: it records what happened later), or a
    `{#anchor}` after it."""
    title = re.sub(r"\s*\{#[\w-]+\}\s*$", "", re.sub(r"^\d+\)\s+", "", title.strip()))
    title = _NUMBERING.sub("", title).strip().lstrip("-–—: ").strip()
    return _LATER_MARK.sub("", title).strip()


def number_of(file: str) -> int:
    found = re.search(r"\d+", file)
    return int(found.group()) if found else 10**6


def _real_date(year: str, month: str, day: str) -> bool:
    try:
        datetime.date(int(year), int(month), int(day))
    except ValueError:
        return False
    return True


def _words(title: str) -> list[str]:
    """A title's words, lower-cased, without its number: what two spellings share."""
    return re.findall(r"\w+", _clean_title(title).lower())


def parse_adr(file: str, text: str) -> Adr:
    text = text.replace("\r\n", "\n")
    meta: dict[str, str] = {}
    matter = _FRONTMATTER.match(text)
    if matter:
        lines = matter[1].splitlines()
        for index, line in enumerate(lines):
            key, _, value = line.partition(":")
            value = value.strip()
            if value in _BLOCK_SCALAR:  # `title: |` and the indented lines after it
                block = []
                for more in lines[index + 1 :]:
                    if more.strip() and not more[:1].isspace():
                        break
                    block.append(more.strip())
                value = " ".join(" ".join(block).split())
            meta[key.strip().lower()] = value.strip("'\"")
        text = text[matter.end() :]
    headings = list(_HEADING.finditer(text))
    title_match = next((h for h in headings if len(h[1]) == 1), None)
    if meta.get("title") and title_match and _words(title_match[2]) != _words(meta["title"]):
        title_match = None  # the front matter's title names it; a first `#` is a section
    title = title_match[2] if title_match else meta.get("title", "") or Path(file).stem
    start = title_match.end() if title_match else 0
    cuts = [h for h in headings if h.start() >= start and h is not title_match and len(h[1]) <= 2]
    preamble = text[start : cuts[0].start()] if cuts else text[start:]
    sections = []
    for index, heading in enumerate(cuts):
        end = cuts[index + 1].start() if index + 1 < len(cuts) else len(text)
        sections.append((heading[2].strip(), text[heading.end() : end]))
    status = meta.get("status", "")
    for heading, body in sections:
        if heading.lower().startswith("status"):
            status = status or " ".join(body.split())[:200]
    found = re.search(r"^\|?\s*status\s*[:|]\s*([^|\n]+)", preamble, re.IGNORECASE | re.MULTILINE)
    if found and not status:
        status = found[1].strip()
    head = "\n".join([meta.get("date", ""), preamble, *(b for h, b in sections[:2])])[:3000]
    date = next((d for d in _DATE.finditer(head) if _real_date(*d.groups())), None)
    return Adr(
        file=file,
        number=number_of(file),
        title=_clean_title(title) or Path(file).stem,
        status=status,
        date=f"{date[1]}-{date[2]}-{date[3]}" if date else "",
        sections=sections,
        preamble=preamble,
    )


# ---- an ADR as a note ----


def _prose(text: str, link_ids: dict[str, str]) -> str:
    """An ADR section as note prose: no metadata lines or later status notes, sub-headings
    as plain lines, links to sibling ADRs as [[id]] links."""

    def link(match: re.Match[str]) -> str:
        label, target = match[1], match[2]
        name = target.split("#", 1)[0].rstrip("/").rsplit("/", 1)[-1]
        for suffix in (".html.md", ".md", ".html"):
            name = name.removesuffix(suffix)
        other = link_ids.get(name)
        return f"{label} ([[{other}]])" if other else match[0]

    lines = []
    for raw in text.split("\n"):
        if _META_LINE.match(raw) or _LATER_STATUS.search(raw):
            continue
        heading = re.match(r"^#{3,6}[ \t]+(.*?)[ \t#]*$", raw)
        line = heading[1].strip() if heading else raw
        if heading and not line.endswith((".", ":", "?", "!")):
            line += "."
        lines.append(line)
    prose = "\n".join(lines)
    prose = re.sub(r"(?<!!)\[([^\]\n]+)\]\(([^)\s]+)\)", link, prose)
    return re.sub(r"\n{3,}", "\n\n", prose).strip()


def _pick(adr: Adr) -> tuple[str, str]:
    """(What, Why) of an ADR."""
    usable = [(h, b) for h, b in adr.sections if not h.lower().startswith("status")]
    what = next((b for h, b in usable if _DECISION.match(h)), None)
    if what is None:
        what = next(
            (b for h, b in usable if not _CONTEXT.match(h) and not _NOT_WHAT.match(h)), None
        )
    why = next((b for h, b in usable if _CONTEXT.match(h)), "")
    if what is None:
        what, why = (why, "") if why else (adr.preamble, "")
    return what, "\n\n".join(part for part in (adr.preamble, why) if part.strip())


def note_id(scope: str, adr: Adr) -> str:
    stem = adr.file
    for suffix in (".html.md", ".md"):
        stem = stem.removesuffix(suffix)
    topic = "-".join(re.findall(r"[a-z0-9]+", stem.lower()))[:70].strip("-")
    return f"{scope}--{topic}--{adr.date}"


def note_text(adr: Adr, scope: str, link_ids: dict[str, str], supersedes: list[str]) -> str:
    what, why = _pick(adr)
    lines = [
        "---",
        f"title: {json.dumps(adr.title[:120])}",
        "type: decision",
        "tags: [source/adr]",
        "confidence: medium",
        f"date: {adr.date}",
        f"repo: {scope}",
    ]
    if supersedes:
        lines.append(f"supersedes: [{', '.join(supersedes)}]")
    body = f"## What\n{_prose(what, link_ids)}\n"
    why_text = _prose(why, link_ids)
    if why_text:
        body += f"\n## Why\n{why_text}\n"
    return "\n".join([*lines, "---", body])


def taxonomy(*scopes: str) -> str:
    """The vault's taxonomy: one `decision` type, a repo per scope, the `source/adr` tag."""
    repos = "".join(
        f"- `{scope}` — The repository the decisions were taken for.\n" for scope in scopes
    )
    return (
        "# Taxonomy\n\n## Types\n- `decision` — A choice the team made, and why.\n\n"
        f"## Repos\n{repos}\n"
        "## source\n- `source/adr` — Imported from an architecture decision record.\n"
    )


# ---- a repository's ADRs as a vault ----


def _git(cwd: Path, *args: str, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        ["git", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, **GIT_ENV, **(env or {})},
    )
    return done.stdout


def adr_folders(repository: Mapping[str, Any]) -> list[str]:
    """The repository's ADR folders: `folder`, then any `folders` read with it as one set
    (a repository that moves its superseded ADRs to a subfolder, say)."""
    return [repository["folder"], *repository.get("folders", [])]


def folder_paths(mirrors: Path, repository: dict[str, Any]) -> dict[str, str] | str:
    """Every file name in the repository's ADR folders at its commit, with its path, or
    why not. An ADR is known by its file name alone, so a name two folders share is
    refused."""
    git_dir = mirrors / repository["name"].replace("/", "+") / "repo"
    if not git_dir.is_dir():
        return f"no snapshot at {git_dir}"
    commit = repository["commit"]
    base = ["git", f"--git-dir={git_dir}"]
    if subprocess.run([*base, "cat-file", "-e", f"{commit}^{{commit}}"], check=False).returncode:
        return f"commit {commit} is not in {git_dir}"
    paths: dict[str, str] = {}
    for folder in adr_folders(repository):
        spec = f"{commit}:{folder}" if folder else f"{commit}:"
        listed = subprocess.run(
            [*base, "ls-tree", "-z", "--name-only", spec],
            capture_output=True,
            text=True,
            check=False,
        )
        if listed.returncode:
            return f"no folder {folder!r} at {commit} in {git_dir}"
        for name in (name for name in listed.stdout.split("\0") if name):
            path = f"{folder}/{name}" if folder else name
            if name in paths and name.endswith(".md"):
                return (
                    f"{paths[name]} and {path} share a file name at {commit}: list one of "
                    "the two folders only, or skip the file in the manifest"
                )
            paths.setdefault(name, path)
    return paths


def folder_files(mirrors: Path, repository: dict[str, Any]) -> list[str] | str:
    """Every file name in the repository's ADR folders at its commit, or why not."""
    paths = folder_paths(mirrors, repository)
    return paths if isinstance(paths, str) else list(paths)


def read_texts(mirrors: Path, repository: dict[str, Any]) -> list[tuple[str, str]] | str:
    """(file name, text) of the repository's ADRs in their order, or why they cannot be read."""
    paths = folder_paths(mirrors, repository)
    if isinstance(paths, str):
        return paths
    git_dir = mirrors / repository["name"].replace("/", "+") / "repo"
    commit = repository["commit"]
    skip = set(repository.get("skip", []))
    files = sorted((n for n in paths if n.endswith(".md") and n not in skip), key=_order)
    return [(name, _show(git_dir, f"{commit}:{paths[name]}")) for name in files]


def _show(git_dir: Path, spec: str) -> str:
    return subprocess.run(
        ["git", f"--git-dir={git_dir}", "show", spec], capture_output=True, text=True, check=True
    ).stdout


def read_repository(
    mirrors: Path, repository: dict[str, Any], texts: list[tuple[str, str]] | str | None = None
) -> list[Adr] | str:
    """The repository's ADRs in their order (from `texts` when read already), or why they
    cannot be read."""
    texts = read_texts(mirrors, repository) if texts is None else texts
    if isinstance(texts, str):
        return texts
    git_dir = mirrors / repository["name"].replace("/", "+") / "repo"
    commit = repository["commit"]
    paths = folder_paths(mirrors, repository)
    if isinstance(paths, str):
        return paths
    base = ["git", f"--git-dir={git_dir}"]
    adrs = []
    for name, text in texts:
        path = paths[name]
        adr = parse_adr(name, text)
        if not adr.date:
            added = subprocess.run(
                [*base, "log", "--format=%as", "--diff-filter=A", commit, "--", path],
                capture_output=True,
                text=True,
                check=True,
            ).stdout.split()
            adr.date = added[-1] if added else "2000-01-01"
        adrs.append(adr)
    return adrs


def _order(name: str) -> tuple[int, str]:
    return number_of(name), name


@dataclass
class Proposal:
    repo: str
    split: str
    file: str
    id: str
    judgement: list[dict[str, Any]] = field(default_factory=list)  # rule, names
    similar: list[str] = field(default_factory=list)
    lint: list[str] = field(default_factory=list)
    said: list[str] = field(default_factory=list)  # the findings' words: shown, never stored


def propose_all(
    repository: dict[str, Any], adrs: list[Adr], labels: dict[str, list[dict[str, Any]]]
) -> list[Proposal]:
    """Each ADR (not rejected) proposed against a vault of the ones before it."""
    scope = repository["scope"]
    kept = [adr for adr in adrs if not adr.rejected]
    ids = {adr.file: note_id(scope, adr) for adr in kept}
    link_ids = {}
    for adr in kept:
        stem = adr.file
        for suffix in (".html.md", ".md"):
            stem = stem.removesuffix(suffix)
        link_ids[stem] = ids[adr.file]
    full = {
        (pair["new"], pair["old"])
        for pair in labels["supersession"]
        if pair["repo"] == repository["name"] and pair["kind"] == "full"
    }
    proposals = []
    with tempfile.TemporaryDirectory(prefix="lore-real-adr-") as folder:
        root = Path(folder)
        _git(root, "init", "-q", "-b", "main")
        (root / "notes").mkdir()
        (root / "_taxonomy.md").write_text(taxonomy(scope), encoding="utf-8")
        (root / "notes" / ".gitkeep").write_text("", encoding="utf-8")
        _git(root, "add", "-A")
        _git(root, "commit", "-q", "-m", "vault")
        for adr in kept:
            nid = ids[adr.file]
            head = _git(root, "rev-parse", "HEAD").strip()
            draft = note_text(adr, scope, link_ids, [])
            result = curate(
                root, Drafts({f"notes/{nid}.md": draft.encode()}, at=head), today=TODAY, similar=3
            )
            proposal = Proposal(repository["name"], repository["split"], adr.file, nid)
            known = set(ids.values()) - {nid}
            for finding in result.findings:
                if finding.rule.startswith(JUDGEMENT):
                    text = f"{finding.message} {finding.suggestion or ''}"
                    names = sorted({m for m in _ID.findall(text) if m in known})
                    proposal.judgement.append({"rule": finding.rule, "names": names})
                    proposal.said.append(f"{finding.rule}: {finding.sentences()}")
                elif finding.rule in LINT:
                    proposal.lint.append(finding.rule)
            proposal.similar = [note.id for note in result.similar.get(f"notes/{nid}.md", [])]
            proposals.append(proposal)
            supersedes = [ids[old] for new, old in full if new == adr.file and old in ids]
            (root / "notes" / f"{nid}.md").write_text(
                note_text(adr, scope, link_ids, supersedes), encoding="utf-8"
            )
            _git(root, "add", "-A")
            _git(root, "commit", "-q", "-m", nid)
    return proposals


# ---- scoring ----


def score(
    proposals: list[Proposal], labels: dict[str, list[dict[str, Any]]], repositories: list[str]
) -> dict[str, Any]:
    by_file = {(p.repo, p.file): p for p in proposals}
    pairs = [pair for pair in labels["supersession"] if pair["repo"] in repositories]
    related = {(p["repo"], p["new"], p["old"]) for p in labels["related"]}
    replacing = {(p["repo"], p["new"]) for p in [*pairs, *labels["related"]]}
    id_of = {(p.repo, p.file): p.id for p in proposals}
    rows = []
    for pair in pairs:
        new = by_file.get((pair["repo"], pair["new"]))
        old_id = id_of.get((pair["repo"], pair["old"]))
        if new is None or old_id is None:
            rows.append({**pair, "missing": True})
            continue
        rules = sorted({f["rule"] for f in new.judgement if old_id in f["names"]})
        rows.append(
            {
                **pair,
                "flagged": bool(rules),
                "rules": rules,
                "in_top3": old_id in new.similar,
                "rank": new.similar.index(old_id) + 1 if old_id in new.similar else None,
            }
        )
    judged = [row for row in rows if not row.get("missing")]
    flagged_pairs = Counter()  # (repo, new, named old) -> kind
    for proposal in proposals:
        for named in {n for f in proposal.judgement for n in f["names"]} | (
            {""} if any(not f["names"] for f in proposal.judgement) else set()
        ):
            file_of = {v: k[1] for k, v in id_of.items() if k[0] == proposal.repo}
            old = file_of.get(named, "")
            if any(r["new"] == proposal.file and r["old"] == old for r in judged):
                flagged_pairs["correct"] += 1
            elif (proposal.repo, proposal.file, old) in related:
                flagged_pairs["arguable"] += 1
            else:
                flagged_pairs["wrong"] += 1
    nothing = [p for p in proposals if (p.repo, p.file) not in replacing]
    alarms = [p for p in nothing if p.judgement]
    alarm_rules = Counter(f["rule"] for p in alarms for f in p.judgement)
    negatives = []
    for pair in labels["hard_negative"]:
        if pair["repo"] not in repositories:
            continue
        new = by_file.get((pair["repo"], pair["new"]))
        old_id = id_of.get((pair["repo"], pair["old"]))
        if new is None or old_id is None:
            continue
        rules = sorted({f["rule"] for f in new.judgement if old_id in f["names"]})
        negatives.append({**pair, "flagged": bool(rules), "rules": rules})
    correct, wrong = flagged_pairs["correct"], flagged_pairs["wrong"]
    return {
        "repositories": len(repositories),
        "adrs_proposed": len(proposals),
        "supersessions": len(judged),
        "full": sum(1 for r in judged if r["kind"] == "full"),
        "flagged": sum(1 for r in judged if r["flagged"]),
        "flagged_full": sum(1 for r in judged if r["flagged"] and r["kind"] == "full"),
        "recall": _ratio(sum(1 for r in judged if r["flagged"]), len(judged)),
        "in_top3": sum(1 for r in judged if r["in_top3"]),
        "flagged_pairs": dict(flagged_pairs),
        "precision": _ratio(correct, correct + wrong),
        "replace_nothing": len(nothing),
        "false_alarm_notes": len(alarms),
        "false_alarm_rate": _ratio(len(alarms), len(nothing)),
        "false_alarms_by_rule": dict(sorted(alarm_rules.items())),
        "hard_negatives": len(negatives),
        "hard_negatives_flagged": sum(1 for n in negatives if n["flagged"]),
        "lint_notes": {rule: sum(1 for p in proposals if rule in p.lint) for rule in LINT},
        "pairs": rows,
        "negatives": negatives,
        "alarms": [{"repo": p.repo, "file": p.file, "findings": p.judgement} for p in alarms],
        "said": {f"{p.repo} {p.file}": p.said for p in proposals if p.said},
    }


def _ratio(part: int, whole: int) -> float | None:
    return round(part / whole, 3) if whole else None


# ---- the command ----


def evaluate(mirrors: Path, splits: Iterable[str], only: str | None = None) -> dict[str, Any]:
    labels = load_labels()
    found: dict[str, list[Proposal]] = {}
    missing: dict[str, str] = {}
    started = time.perf_counter()
    for repository in load_manifest():
        if repository["split"] not in splits or (only and repository["name"] != only):
            continue
        adrs = read_repository(mirrors, repository)
        if isinstance(adrs, str):
            missing[repository["name"]] = adrs
            continue
        found[repository["name"]] = propose_all(repository, adrs, labels)
    summary = {}
    for split in splits:
        names = [n for n, ps in found.items() if ps and ps[0].split == split]
        if names:
            summary[split] = score([p for n in names for p in found[n]], labels, names)
    return {
        "version": 1,
        "today": TODAY,
        "seconds": round(time.perf_counter() - started, 1),
        "missing": missing,
        "summary": summary,
        "targets": TARGETS,
    }


def _print(results: dict[str, Any], show: str | None) -> None:
    for name, why in results["missing"].items():
        print(f"skipped {name}: {why}")
    print(
        "| split | repositories | ADRs | supersessions (full) | flagged (full) | recall | "
        "in top 3 | precision | false alarms on ADRs that replace nothing |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for split, s in results["summary"].items():
        print(
            f"| {split} | {s['repositories']} | {s['adrs_proposed']} | {s['supersessions']} "
            f"({s['full']}) | {s['flagged']} ({s['flagged_full']}) | {s['recall']} | "
            f"{s['in_top3']} | {s['precision']} | {s['false_alarm_notes']} of "
            f"{s['replace_nothing']} ({s['false_alarm_rate']}) |"
        )
    for split, s in results["summary"].items():
        print(
            f"{split}: false alarms by rule {s['false_alarms_by_rule']}; hard negatives "
            f"flagged {s['hard_negatives_flagged']} of {s['hard_negatives']}; "
            f"lint {s['lint_notes']}"
        )
        if not show:
            continue
        for row in s["pairs"]:
            mark = "ok" if row.get("flagged") else "--"
            print(
                f"  {mark} {row['repo']} {row['new']} <- {row['old']} ({row['kind']}) "
                f"{row.get('rules')} top3 rank {row.get('rank')}"
            )
        for alarm in s["alarms"]:
            print(f"  !! {alarm['repo']} {alarm['file']}: {alarm['findings']}")
            if show == "words":
                for said in s["said"].get(f"{alarm['repo']} {alarm['file']}", []):
                    print(f"       {said[:400]}")


# ---- the labels, without the curator ----


def _chosen(splits: Iterable[str], only: str | None) -> list[dict[str, Any]]:
    return [
        repository
        for repository in load_manifest()
        if repository["split"] in splits and (not only or repository["name"] == only)
    ]


def list_recorded(mirrors: Path, splits: Iterable[str], only: str | None = None) -> int:
    """Print the supersessions the ADRs' status lines record, as pairs.toml entries to
    check (by the status line and the two titles) before they are labelled."""
    for repository in _chosen(splits, only):
        texts = read_texts(mirrors, repository)
        if isinstance(texts, str):
            print(f"skipped {repository['name']}: {texts}")
            continue
        titles = {adr.file: adr.title for adr in (parse_adr(n, t) for n, t in texts)}
        print_recorded(repository["name"], texts, titles)
    return 0


def check_labels(mirrors: Path, splits: Iterable[str], only: str | None = None) -> dict[str, Any]:
    """The labels of the chosen repositories against their snapshots (see label_problems)."""
    labels = load_labels()
    known = {repository["name"] for repository in load_manifest()}
    problems = unknown_repositories(labels, known)
    missing: dict[str, str] = {}
    checked: dict[str, dict[str, int]] = {}
    for repository in _chosen(splits, only):
        files = folder_files(mirrors, repository)
        texts = read_texts(mirrors, repository)
        adrs = read_repository(mirrors, repository, texts)
        if isinstance(files, str) or isinstance(texts, str) or isinstance(adrs, str):
            missing[repository["name"]] = next(
                x for x in (files, texts, adrs) if isinstance(x, str)
            )
            continue
        kept = [adr.file for adr in adrs if not adr.rejected]
        found, counts = check_repository(repository, files, texts, kept, labels)
        problems += found
        checked[repository["name"]] = counts
    return {"problems": problems, "missing": missing, "checked": checked}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="\n\n".join(__doc__.split("\n\n")[1:3]),
    )
    parser.add_argument("--mirrors", type=Path, required=True, help="folder of the snapshots")
    parser.add_argument(
        "--split",
        choices=SPLITS,
        help="one split only (default: tune and held-out; held-out-2, held-out-3, "
        "held-out-4 and held-out-5 run only by name)",
    )
    parser.add_argument("--repo", help="one repository only (owner/name)")
    parser.add_argument(
        "--show",
        nargs="?",
        const="pairs",
        choices=("pairs", "words"),
        help="every pair and false alarm ('words': with what the curator said)",
    )
    parser.add_argument("--record", metavar="NAME", help="store the figures in results.json")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument(
        "--list-recorded",
        action="store_true",
        help="print the supersessions the ADRs' status lines record (no curator; "
        "default: every split)",
    )
    mode.add_argument(
        "--check-labels",
        action="store_true",
        help="check pairs.toml against the snapshots (no curator; default: every split); "
        "exit 1 on a problem",
    )
    args = parser.parse_args()
    if not args.mirrors.is_dir():
        parser.exit(2, f"{args.mirrors} is not a folder of snapshots (see --help).\n")
    if args.list_recorded or args.check_labels:
        if args.record or args.show:
            parser.error("--record and --show go with a run of the curator, not with this mode")
        every = (args.split,) if args.split else SPLITS
        if args.list_recorded:
            sys.exit(list_recorded(args.mirrors, every, args.repo))
        sys.exit(print_check(check_labels(args.mirrors, every, args.repo)))
    splits = (args.split,) if args.split else DEFAULT_SPLITS
    results = evaluate(args.mirrors, splits, args.repo)
    _print(results, args.show)
    if args.record:
        stored = json.loads(RESULTS.read_text(encoding="utf-8")) if RESULTS.exists() else {}
        stored.setdefault("version", 1)
        for figures in results["summary"].values():
            figures.pop("said", None)  # it quotes the ADRs: never committed
        stored.setdefault("runs", {})[args.record] = results
        RESULTS.write_text(json.dumps(stored, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
