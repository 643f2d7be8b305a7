"""The labels of the real-decision eval: where they come from, and whether they hold.

Two jobs, neither of which runs the curator (eval/run_real_adr_eval.py calls both):

- `recorded_pairs` reads the *status lines* of a repository's ADRs — the front matter,
  the lines between the title and the first section, a Status section, and headings —
  and returns every supersession the authors wrote there ("Superseded by [ADR 12](…)",
  "Supersedes 8", `superseded-by:`, "Amended by", "Parts of this ADR were superseded
  by", "replaces … in 005"), resolved to file names of the folder. It never looks past
  those lines, so a batch labelled from its output stays unread: a label is checked by
  its status line and the two titles only.
- `label_problems` checks labels against the snapshots: every labelled file exists at
  the manifest's commit and is not skipped by the manifest, an old ADR numbered after
  its new one is refused (the eval proposes by number), and, for a batch labelled from
  `recorded_pairs`, every pair it prints is either labelled or dismissed with a reason.
  Whether `lore import adr` keeps both ADRs is the run's to say: a labelled pair the
  import leaves out is counted, with the import's reason, not judged.

The batches labelled from `recorded_pairs` alone are the manifest's `recorded_only`
(`[batches]`): nobody here read their ADRs before labelling them.

Pure functions over (file name, text) lists: the snapshot reading stays in the script.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from real_adr_manifest import adr_number as adr_order_number

# ---- the status lines of an ADR ----

TOP_LINES = 12  # lines after the title, before any section, that can hold a status note
_FRONTMATTER = re.compile(r"\A---\n(.*?)\n---\n", re.DOTALL)
_HEADING = re.compile(r"^(#{1,6})[ \t]+(.*?)[ \t#]*$")


def status_lines(text: str) -> list[tuple[str, str]]:
    """(place, line) for every line where an ADR's authors record its status.

    Places: "front matter", "status" (a Status section or a `Status:` line), "metadata
    table" (a row of a table before the first section), "heading", "note at the top"
    (any other line between the title and the first section)."""
    text = text.replace("\r\n", "\n")
    found: list[tuple[str, str]] = []
    matter = _FRONTMATTER.match(text)
    if matter:
        found += [("front matter", line) for line in matter[1].splitlines() if line.strip()]
        text = text[matter.end() :]
    seen_title = False
    section: str | None = None  # None: before the first section after the title
    top = 0  # lines read before the first section: a note there is short
    for line in text.split("\n"):
        heading = _HEADING.match(line)
        if heading:
            level, words = len(heading[1]), heading[2]
            if level == 1 and not seen_title:
                seen_title = True
                continue
            found.append(("heading", words))
            if level <= 2 or section is None:
                section = "status" if re.match(r"\W*status\b", words, re.I) else "other"
            continue
        if not line.strip() or section == "other":
            continue
        if section == "status" or re.match(r"\W*status\W", line, re.I):
            found.append(("status", line))
            continue
        top += 1
        if top > TOP_LINES:
            continue
        if line.lstrip().startswith("|"):
            found.append(("metadata table", line))
        else:
            found.append(("note at the top", line))
    return found


# ---- what a status line says replaces what ----

_FORWARD = re.compile(  # this ADR was replaced by a later one
    r"(?P<verb>supersed(?:ed)?|superced(?:ed)?|superceeded|replaced|amended|deprecated)"
    r"(?P<gap>[^.\n|]{0,30}?)(?<![a-z])(?P<by>by|in favou?r of)(?![a-z])",
    re.IGNORECASE,
)
_BACKWARD = re.compile(  # this ADR replaces an earlier one
    r"(?<![a-z])(?P<verb>(?:partial(?:ly)?\s+)?(?:supersedes|supercedes|superceeds|superseding|"
    r"supersede\s+of|replaces|amends))(?![a-z])",
    re.IGNORECASE,
)
_THIS = re.compile(r"\s*this\b", re.IGNORECASE)  # "[ADR-7], which supersedes this decision"
_BARE_STATUS = re.compile(
    r"\b(?:superseded|superceded|superceeded|deprecated|outdated|obsolete)\b", re.IGNORECASE
)
_PARTIAL = re.compile(r"\bpart(?:ial|ially|ly|s)?\b|\bin part\b|\bsome aspects\b|amend", re.I)
_LINK = re.compile(r"\[([^\]\n]*)\]\(([^)\s]*)\)")
_FILE = re.compile(r"[\w.+-]+\.md\b")
_ADR_NUMBER = re.compile(r"\b(?:ADR|AD|RFC)[-_ #]*0*(\d+)\b", re.IGNORECASE)
_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")
_LEADING_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}[-_]?")


def _words(file: str) -> str:
    """A file name's words without its number, date, suffix or punctuation."""
    stem = _LEADING_DATE.sub("", file.lower()).removesuffix(".md").removesuffix(".html")
    return re.sub(r"[^a-z0-9]", "", re.sub(r"^(?:adr)?[-_]?\d+[-_.]", "", stem))


def adr_number(file: str) -> int | None:
    """The number an ADR's file name gives it (a leading date is not its number)."""
    found = re.search(r"\d+", _LEADING_DATE.sub("", file))
    return int(found.group()) if found else None


@dataclass(frozen=True)
class Recorded:
    """One supersession an ADR's status line states: `new` replaces `old`."""

    new: str
    old: str
    kind: str  # "full" or "partial"
    said_in: str  # "old" or "new": whose status line says it
    place: str
    phrase: str  # the verb, e.g. "superseded by"
    line: str  # the status line itself: printed for the check, never stored

    @property
    def recorded(self) -> str:
        return f"{self.place} of {self.said_in}: {self.phrase}"


def _resolve(
    fragment: str, files: Mapping[str, str], numbers: Mapping[int, list[str]], this: str
) -> list[str]:
    """The ADR files a fragment of a status line of `this` ADR names, in order."""
    named: list[str] = []

    def by_number(number: int) -> None:
        candidates = numbers.get(number, [])
        if len(candidates) == 1:
            named.append(candidates[0])

    rest = fragment
    for text, target in _LINK.findall(fragment):
        rest = rest.replace(f"[{text}]({target})", " ")
        base = target.split("#", 1)[0].rstrip("/").rsplit("/", 1)[-1]
        name = next(
            (n for n in (base, f"{base}.md", base.removesuffix(".html")) if n in files), None
        )
        if not name and base:  # a link to a renamed file: the same words, spelt otherwise
            alike = [n for n in files if _words(n) == _words(base) and n != this]
            name = alike[0] if len(alike) == 1 else None
        if name:
            named.append(name)
            continue
        number = _ADR_NUMBER.search(text) or re.match(r"\s*0*(\d+)\b", text)
        number = number or re.search(r"(?:^|/)0*(\d+)$", base) or re.match(r"0*(\d+)[-_]", base)
        if number:
            by_number(int(number[1]))
    for name in _FILE.findall(rest):
        if name in files:
            named.append(name)
            rest = rest.replace(name, " ")
    for number in _ADR_NUMBER.findall(rest):
        by_number(int(number))
    if not named:
        bare = re.findall(r"(?<![\w#.])0*(\d{1,4})(?![\w.]|\.\d)", _DATE.sub(" ", rest))
        for number in bare:
            by_number(int(number))
    return list(dict.fromkeys(named))


def recorded_pairs(adrs: Iterable[tuple[str, str]]) -> tuple[list[Recorded], list[str]]:
    """The supersessions the status lines of a folder's ADRs record, and the status lines
    that say "superseded" (or the like) without naming an ADR of the folder."""
    files = dict(adrs)
    numbers: dict[int, list[str]] = {}
    for name in files:
        number = adr_number(name)
        if number is not None:
            numbers.setdefault(number, []).append(name)
    pairs: list[Recorded] = []
    unresolved: list[str] = []
    for name, text in files.items():
        lines = status_lines(text)
        for index, (place, line) in enumerate(lines):
            marks = sorted(
                [(m.start(), m.end(), "old", m) for m in _FORWARD.finditer(line)]
                + [(m.start(), m.end(), "new", m) for m in _BACKWARD.finditer(line)],
                key=lambda mark: mark[0],
            )
            bare = _BARE_STATUS.search(line)
            if not marks and bare:  # "Status: superseded - … in [ADR 9] we changed …"
                others = [
                    o for o in _resolve(line[bare.end() :], files, numbers, name) if o != name
                ]
                if not others:
                    unresolved.append(f"{name}: {place}: {line.strip()[:160]}")
                kind = "partial" if _PARTIAL.search(line) else "full"
                phrase = f"{bare[0].lower()}, naming"
                for other in others:
                    pairs.append(Recorded(other, name, kind, "old", place, phrase, line.strip()))
            for position, (start, end, verb_says, match) in enumerate(marks):
                stop = marks[position + 1][0] if position + 1 < len(marks) else len(line)
                fragment = line[end:stop]
                verb = " ".join(match["verb"].lower().split())
                phrase = f"{verb} {match['by'].lower()}" if verb_says == "old" else verb
                turned = verb_says == "new" and _THIS.match(fragment) is not None
                said_in = "old" if turned else verb_says
                if turned:  # the ADR named before the verb replaces this one
                    phrase = f"{verb} this"
                    fragment = line[marks[position - 1][1] if position else 0 : start]
                others = _resolve(fragment, files, numbers, name)
                if not others and not turned and position + 1 == len(marks):
                    following = lines[index + 1][1] if index + 1 < len(lines) else ""
                    if not (_FORWARD.search(following) or _BACKWARD.search(following)):
                        others = _resolve(following, files, numbers, name)
                others = [other for other in others if other != name]
                if not others:
                    if not re.search(r"\bN/?A\b|^[\s|:*_-]*$", fragment, re.I):
                        unresolved.append(f"{name}: {place}: {line.strip()[:160]}")
                    continue
                kind = "partial" if _PARTIAL.search(line) else "full"
                for other in others:
                    new, old = (name, other) if said_in == "new" else (other, name)
                    pairs.append(Recorded(new, old, kind, said_in, place, phrase, line.strip()))
    return pairs, unresolved


def merged(pairs: Iterable[Recorded]) -> dict[tuple[str, str], list[Recorded]]:
    """The recorded pairs by (new, old): one supersession may be stated by both ADRs."""
    by_pair: dict[tuple[str, str], list[Recorded]] = {}
    for pair in pairs:
        by_pair.setdefault((pair.new, pair.old), []).append(pair)
    return by_pair


# ---- checking the labels ----


def label_problems(
    repository: Mapping[str, Any],
    files: list[str],
    labels: Mapping[str, list[dict[str, Any]]],
    recorded: Mapping[tuple[str, str], object] | None,
) -> list[str]:
    """What is wrong with one repository's labels, as sentences.

    `files`: every file in the manifest's folders at its commit; `recorded`: the pairs
    `recorded_pairs` finds, when the repository's labels must come from them (a batch
    the manifest lists as `recorded_only`), else None."""
    name, problems = repository["name"], []
    skip = set(repository.get("skip", []))
    folders = [repository["folder"], *repository.get("folders", [])]
    where = f"{' + '.join(f or '(root)' for f in folders)} at {repository['commit'][:12]}"
    labelled: set[tuple[str, str]] = set()
    covered: set[tuple[str, str]] = set()  # labelled or dismissed
    for kind in ("supersession", "related", "hard_negative", "dismissed"):
        for label in labels.get(kind, []):
            if label.get("repo") != name:
                continue
            new, old = label.get("new", ""), label.get("old", "")
            said = f"pairs.toml [[{kind}]] {new} <- {old}"
            if recorded is not None and kind in ("related", "hard_negative"):
                problems.append(
                    f"{said}: the {repository['split']} batch takes recorded supersessions only"
                )
            if kind == "supersession" and label.get("kind") not in ("full", "partial"):
                problems.append(f'{said}: kind must be "full" or "partial"')
            if new == old:
                problems.append(f"{said}: an ADR cannot replace itself")
            for file in (new, old):
                if "/" in file:
                    problems.append(f"{said}: {file} must be a file name of the folder, no path")
                elif file not in files:
                    problems.append(f"{said}: {file} is not in {where}")
                elif file in skip:
                    problems.append(f"{said}: {file} is skipped by the manifest")
            covered.add((new, old))
            if kind == "dismissed":
                if not label.get("why"):
                    problems.append(f"{said}: a dismissed pair needs a `why`")
                if recorded is not None and (new, old) not in recorded:
                    problems.append(f"{said}: not a pair the status lines record; drop it")
                continue
            numbers = (adr_order_number(new), adr_order_number(old))
            if None not in numbers and numbers[1] > numbers[0]:  # type: ignore[operator]
                problems.append(
                    f"{said}: {old} is numbered after {new}, and the eval proposes them by number"
                )
            if (new, old) in labelled:
                problems.append(f"{said}: labelled twice")
            labelled.add((new, old))
            if recorded is not None and kind == "supersession" and (new, old) not in recorded:
                problems.append(f"{said}: no status line records it (run --list-recorded)")
    if recorded is not None:
        for new, old in sorted(set(recorded) - covered):
            problems.append(
                f"{name}: the status lines record {new} <- {old}, which pairs.toml neither "
                "labels nor dismisses"
            )
    return problems


def unknown_repositories(labels: Mapping[str, list[dict[str, Any]]], known: set[str]) -> list[str]:
    """A sentence for each label whose repository the manifest does not list."""
    return [
        f"pairs.toml [[{kind}]] {label.get('new')} <- {label.get('old')}: repository "
        f"{label.get('repo')!r} is not in the manifest"
        for kind, entries in labels.items()
        for label in entries
        if label.get("repo") not in known
    ]


def check_repository(
    repository: Mapping[str, Any],
    files: list[str],
    texts: list[tuple[str, str]],
    labels: Mapping[str, list[dict[str, Any]]],
    recorded_only: bool,
) -> tuple[list[str], dict[str, int]]:
    """One repository's label problems and counts; with `recorded_only`, its labels must
    be the pairs its status lines record."""
    recorded = merged(recorded_pairs(texts)[0]) if recorded_only else None
    mine = [p for p in labels.get("supersession", []) if p.get("repo") == repository["name"]]
    counts = {
        "adrs": len(texts),
        "supersessions": len(mine),
        "full": sum(1 for p in mine if p.get("kind") == "full"),
    }
    return label_problems(repository, files, labels, recorded), counts


# ---- what the two modes print ----


def print_recorded(name: str, texts: list[tuple[str, str]], titles: Mapping[str, str]) -> None:
    """The recorded pairs of one repository as pairs.toml entries, each after the two
    titles and the status lines that state it: what a label is checked by."""
    pairs, unresolved = recorded_pairs(texts)
    by_pair = merged(pairs)
    print(f"# ---- {name}: {len(texts)} ADRs, {len(by_pair)} recorded ----")
    for (new, old), said in by_pair.items():
        kind = "partial" if any(pair.kind == "partial" for pair in said) else "full"
        recorded = "; ".join(dict.fromkeys(pair.recorded for pair in said))
        print(f"#   new: {titles.get(new, '')[:100]}")
        print(f"#   old: {titles.get(old, '')[:100]}")
        for pair in said:
            print(f"#   {pair.said_in} says: {pair.line[:200]}")
        print(
            f'[[supersession]]\nrepo = "{name}"\nnew = "{new}"\nold = "{old}"\n'
            f'kind = "{kind}"\nrecorded = "{recorded}"\n'
        )
    for line in unresolved:
        print(f"#   names no ADR of the folder: {line}")


def print_check(result: Mapping[str, Any]) -> int:
    """The check's report; 1 when a label is wrong, else 0."""
    for name, why in result["missing"].items():
        print(f"skipped {name}: {why}")
    for name, counts in result["checked"].items():
        print(
            f"{name}: {counts['adrs']} ADR files, {counts['supersessions']} supersessions "
            f"labelled ({counts['full']} full)"
        )
    for problem in result["problems"]:
        print(f"problem: {problem}")
    if result["problems"]:
        print(f"{len(result['problems'])} problems with the labels (eval/curator/real/pairs.toml)")
        return 1
    print(f"the labels of {len(result['checked'])} repositories hold")
    return 0
