"""`contradiction/`: a note that disagrees with an active note on the same subject.

Deterministic and deliberately narrow, so that a warning is worth reading:

1. Same subject: the two notes share a `files_touched` path, or two tags, or a tag
   and a repository.
2. Same claim: a sentence of each (the title counts as one) has at least three
   content words and the two share at least 75 % of them (Jaccard), once
   negations, modal verbs, numbers and units are set aside and antonyms are folded
   (`disabled` = not `enabled`, `avoid` = not `use`).
3. Opposite claim: one sentence is negated and the other is not (always/never,
   must/must not, enabled/disabled), or they give different numbers in the same
   unit (5 s against 10 s).

The warning names both notes and suggests `supersedes`. Notes that already
supersede one another are not compared.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass

from lore.curator.context import CuratorContext, NoteView, view_of_note
from lore.curator.finding import WARNING, Finding
from lore.curator.text import quote
from lore.sanitize.markdown import code_ranges

NAME = "contradiction"
RULES = {
    "contradiction/opposite-claim": "a sentence says the opposite of one in an active note on "
    "the same subject (warning)",
    "contradiction/different-number": "a sentence gives a different number than an active note "
    "on the same subject (warning)",
}

MIN_CONTENT_WORDS = 3
MIN_OVERLAP = 0.75
MAX_CANDIDATES = 300
MAX_PER_NOTE = 5

_NEGATIONS = frozenset(
    {
        "not",
        "no",
        "never",
        "cannot",
        "nor",
        "without",
        "don't",
        "doesn't",
        "didn't",
        "isn't",
        "aren't",
        "wasn't",
        "weren't",
        "won't",
        "can't",
        "mustn't",
        "shouldn't",
        "shan't",
        "needn't",
        "dont",
        "doesnt",
        "isnt",
        "cant",
        "wont",
    }
)
_ANTONYMS = {
    "disable": "enable",
    "disabled": "enabled",
    "disables": "enables",
    "off": "on",
    "false": "true",
    "forbidden": "allowed",
    "disallowed": "allowed",
    "unsafe": "safe",
    "avoid": "use",
    "avoids": "uses",
    "unsupported": "supported",
    "insecure": "secure",
    "deny": "allow",
    "denies": "allows",
    "reject": "accept",
    "rejects": "accepts",
    "optional": "required",
    "async": "sync",
    "asynchronous": "synchronous",
}
_MODALS = frozenset(
    {
        "always",
        "must",
        "should",
        "shall",
        "do",
        "does",
        "did",
        "will",
        "would",
        "can",
        "could",
        "may",
        "might",
        "need",
        "needs",
        "ought",
    }
)
_STOP = frozenset(
    re.findall(
        r"\S+",
        """
    a an the and or but if then than so of to in on at by for with from into onto over under
    is are was were be been being it its this that these those there here as we our you your
    they their them he she his her i me my which who whom what when where why how all any
    each every some such only also just very more most less least""",
    )
)
_UNITS = {
    "ms": "ms",
    "millisecond": "ms",
    "milliseconds": "ms",
    "s": "s",
    "sec": "s",
    "secs": "s",
    "second": "s",
    "seconds": "s",
    "m": "min",
    "min": "min",
    "mins": "min",
    "minute": "min",
    "minutes": "min",
    "h": "h",
    "hr": "h",
    "hrs": "h",
    "hour": "h",
    "hours": "h",
    "d": "d",
    "day": "d",
    "days": "d",
    "week": "w",
    "weeks": "w",
    "month": "mo",
    "months": "mo",
    "%": "%",
    "percent": "%",
    "kb": "kb",
    "mb": "mb",
    "gb": "gb",
    "tb": "tb",
    "k": "k",
    "x": "x",
    "times": "x",
    "retries": "retries",
    "attempts": "retries",
    "workers": "workers",
    "replicas": "replicas",
    "connections": "connections",
    "threads": "threads",
    "processes": "processes",
    "requests": "requests",
    "rps": "rps",
}
_NOISE = re.compile(
    r"\[\[[^\]]*\]\]|https?://\S+|\b\d{4}-\d{2}-\d{2}\b|\b[0-9a-f]{7,40}\b|\bv?\d+\.\d+\.\d+\S*"
)
_TOKEN = re.compile(
    r"(?P<num>\d+(?:\.\d+)?)(?P<unit>%|[a-z]+)?|(?P<word>[a-z_][a-z0-9_]*(?:['’][a-z]+)?)"
)
_SPLIT = re.compile(r"(?<=[.!?;])\s+|\n\s*\n|\n(?=\s*(?:[-*+]|\d+[.)])\s)|\n(?=#)")


@dataclass(frozen=True)
class Claim:
    text: str  # the sentence as written (for the message)
    words: frozenset[str]
    negated: bool
    numbers: frozenset[tuple[str, str]]  # (unit, value)


def _stem(word: str) -> str:
    """Fold plural and third-person endings: `calls`, `queries` -> `call`, `query`."""
    if len(word) <= 3 or "_" in word:
        return word
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith(("sses", "xes", "zes", "ches", "shes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def _claim(sentence: str) -> Claim | None:
    lowered = _NOISE.sub(" ", sentence.lower().replace("’", "'"))
    words: set[str] = set()
    numbers: set[tuple[str, str]] = set()
    negations = 0
    tokens = list(_TOKEN.finditer(lowered))
    skip_next = False
    for index, token in enumerate(tokens):
        if skip_next:
            skip_next = False
            continue
        if token["num"] is not None:
            unit = _UNITS.get(token["unit"] or "", "")
            if not token["unit"] and index + 1 < len(tokens):
                following = tokens[index + 1]["word"]
                if following in _UNITS and tokens[index + 1].start() - token.end() <= 1:
                    unit, skip_next = _UNITS[following], True
            numbers.add(
                (
                    unit,
                    token["num"].rstrip("0").rstrip(".") if "." in token["num"] else token["num"],
                )
            )
            continue
        word = token["word"]
        if word in _NEGATIONS or word.endswith("n't"):
            negations += 1
            continue
        if word in _ANTONYMS:
            negations += 1
            word = _ANTONYMS[word]
        if word in _MODALS or word in _STOP or len(word) < 2:
            continue
        words.add(_stem(word))
    if len(words) < MIN_CONTENT_WORDS:
        return None
    return Claim(
        " ".join(sentence.split()), frozenset(words), negations % 2 == 1, frozenset(numbers)
    )


def claims(view: NoteView) -> list[Claim]:
    """The title and the body's sentences, without code blocks, headings or Related."""
    body = view.body
    fences = [
        (s, e)
        for s, e in code_ranges(body)
        if body.startswith(("```", "~~~"), s) or body[s:e].lstrip(" ").startswith(("```", "~~~"))
    ]
    for start, end in reversed(fences):
        body = body[:start] + "\n\n" + body[end:]
    related = re.search(r"^##\s+related\b.*?(?=^##\s|\Z)", body, re.IGNORECASE | re.M | re.S)
    if related:
        body = body[: related.start()] + body[related.end() :]
    body = re.sub(r"^#{1,6}\s.*$", "\n", body, flags=re.MULTILINE)
    body = body.replace("`", "").replace("**", "").replace("__", "")
    found = [_claim(view.title)] if view.title else []
    found += [_claim(piece) for piece in _SPLIT.split(body) if piece.strip()]
    return [claim for claim in found if claim is not None]


def _conflict(one: Claim, other: Claim) -> str | None:
    shared = len(one.words & other.words)
    if shared < MIN_CONTENT_WORDS:
        return None
    if shared / len(one.words | other.words) < MIN_OVERLAP:
        return None
    if one.negated != other.negated:
        return "contradiction/opposite-claim"
    if one.numbers and other.numbers and one.numbers != other.numbers:
        units = {unit for unit, _ in one.numbers} & {unit for unit, _ in other.numbers}
        for unit in units:
            if {v for u, v in one.numbers if u == unit} != {
                v for u, v in other.numbers if u == unit
            }:
                return "contradiction/different-number"
    return None


class _Pool:
    """The active notes a new note is compared with, indexed by tag, file and repository."""

    def __init__(self) -> None:
        self.views: list[NoteView] = []
        self.by_tag: dict[str, list[int]] = defaultdict(list)
        self.by_file: dict[str, list[int]] = defaultdict(list)
        self.by_repo: dict[str, list[int]] = defaultdict(list)

    def add(self, view: NoteView) -> None:
        index = len(self.views)
        self.views.append(view)
        for tag in set(view.tags):
            self.by_tag[tag].append(index)
        for path in set(view.files_touched):
            self.by_file[path].append(index)
        for repo in set(view.repo):
            self.by_repo[repo].append(index)

    def same_subject(self, view: NoteView) -> list[NoteView]:
        """Notes sharing a file, two tags, or a tag and a repository; closest first."""
        tags: dict[int, int] = defaultdict(int)
        for tag in set(view.tags):
            for index in self.by_tag.get(tag, ()):
                tags[index] += 1
        files = {i for path in set(view.files_touched) for i in self.by_file.get(path, ())}
        repos = {i for repo in set(view.repo) for i in self.by_repo.get(repo, ())}
        chosen = files | {i for i, shared in tags.items() if shared >= 2 or i in repos}
        ranked = sorted(
            chosen, key=lambda i: (-(2 * (i in files) + tags.get(i, 0)), self.views[i].id)
        )
        return [self.views[i] for i in ranked[:MAX_CANDIDATES]]


def check(context: CuratorContext) -> list[Finding]:
    checked = [c for c in context.notes if c.view is not None]
    if not checked:
        return []
    if context.audit:
        checked.sort(key=lambda c: (c.view.date or "", c.view.id) if c.view else ("", ""))
        statuses = context.statuses_after
    else:
        statuses = context.statuses_before
    pool = _Pool()
    for nid, note in sorted(context.existing.items()):
        if nid not in context.checked_ids and nid not in statuses:
            pool.add(view_of_note(note))
    cache: dict[str, list[Claim]] = {}
    findings: list[Finding] = []
    for item in checked:
        mine = item.view
        assert mine is not None
        findings += _compare(mine, item.display, pool, cache)
        if context.audit and mine.id in statuses:
            continue  # an inactive note contradicts nothing
        pool.add(mine)
    return findings


def _compare(
    view: NoteView, path: str, pool: _Pool, cache: dict[str, list[Claim]]
) -> list[Finding]:
    candidates = [
        other
        for other in pool.same_subject(view)
        if other.id != view.id
        and other.id not in view.supersedes
        and view.id not in other.supersedes
    ]
    if not candidates:
        return []
    mine = cache.get(view.id)
    if mine is None:
        mine = cache[view.id] = claims(view)
    if not mine:
        return []
    findings: list[Finding] = []
    for other in candidates:
        theirs = cache.get(other.id)
        if theirs is None:
            theirs = cache[other.id] = claims(other)
        found = next(
            ((rule, a, b) for a in mine for b in theirs if (rule := _conflict(a, b)) is not None),
            None,
        )
        if found is None:
            continue
        rule, a, b = found
        kind = (
            "says the opposite of"
            if rule == "contradiction/opposite-claim"
            else "gives a different number than"
        )
        findings.append(
            Finding(
                rule,
                WARNING,
                path,
                None,
                f"this note {kind} {other.id}, an active note on the same subject: "
                f'"{quote(a.text, 90)}" against "{quote(b.text, 90)}"',
                f"If this note is right, add `supersedes: [{other.id}]`; if not, fix one of them.",
            )
        )
        if len(findings) >= MAX_PER_NOTE:
            break
    return findings
