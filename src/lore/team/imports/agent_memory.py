"""An agent's private memory as candidate notes: one fact a draft, what is personal left out.

The three stores (`claude_memory`, `gemini_memory`, `codex_memory`) each turn their
files into `Fact`s — the fact in the store's own words, where it is, what the store says
about it (a type, a one-line description, a reason and how to apply it, a date, the
repository it belongs to). This module decides, the same way for all three, what
becomes of each fact:

- a fact the store marks as about the person (Claude Code's `user` type, Codex's user
  profile), or whose words are (`memory_rules`), is left out with the reason;
- a fact about how the agent talks or works (`agent_rules`, as for AGENTS.md) is left
  out with the reason;
- a fact this vault already took in (`memory_ledger`) is skipped, naming the draft it
  became, however its file changed around it;
- every other fact becomes a draft: the title is the store's one-line description, else
  the fact's first sentence; `## What` the fact, `## Why` and `## How` what the store
  gives as its reason and how to apply it; the type `gotcha` for a warning, `convention`
  for a rule ("always", "never", an imperative), else `reference`; `confidence: medium`
  (an agent's observation, not yet reviewed); the date the store gives, else the file's.

The batch then goes through the curator like every import, and `lore import` saves what
is left to the drafts inbox, never to a pull request: a person proposes each draft with
`lore drafts propose`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from lore import clock
from lore.team.imports.markdown import cut_sentences, cut_title, inline_plain, sentences
from lore.team.imports.memory_ledger import fact_key
from lore.team.imports.memory_rules import PERSON_REASON, judge_fact
from lore.team.imports.model import Draft, ReadOptions, Skip
from lore.team.imports.personal import personal_scope

_GOTCHA = re.compile(
    r"\b(?:gotcha|pitfall|careful|beware|caveat|watch out|known issue|workaround|surprising|"
    r"otherwise|will (?:fail|break)|fails?|breaks|doesn'?t work|does not work|flaky|lies|"
    r"misleading|silently|trap|hangs?|times? out)\b"
)
_RULE = re.compile(
    r"^(?:always|never|do not|don'?t|must|use|run|prefer|avoid|keep|put|add|write|call|"
    r"make sure|ensure|before|after|when)\b|\b(?:must|should|always|never)\b"
)


@dataclass
class Fact:
    """One fact of a store, in its own words, with what the store says about it."""

    text: str  # the fact (markdown); its first sentence should stand alone
    source: str  # where it is, as shown: `feedback_testing.md`, `GEMINI.md:14`
    title: str = ""  # the store's one-line summary of it, if it keeps one
    why: str = ""
    how: str = ""
    kind: str = ""  # the store's own type, if any (Claude Code: feedback, project, …)
    date: str = ""  # ISO date the store gives; else `file_date`
    file_date: str = ""  # the file's modification day
    repo: str = ""  # the repository the store ties it to
    personal: str = ""  # the store itself says it is about the person: the reason
    notes: list[str] = field(default_factory=list)  # what of the store was not kept


def drafts_from_facts(
    kind: str, facts: list[Fact], options: ReadOptions, known: dict[str, dict[str, str]]
) -> tuple[list[Draft], list[Skip]]:
    """The drafts the facts make, and the facts left out with the reason."""
    drafts: list[Draft] = []
    skipped: list[Skip] = []
    seen: set[str] = set()
    for fact in facts:
        text = inline_plain(fact.text.strip())
        if not text:
            skipped.append(Skip(fact.source, "an empty memory"))
            continue
        key = fact_key(kind, text)
        reason = fact.personal or judge_fact(text)
        if reason:
            skipped.append(Skip(fact.source, reason))
            continue
        if key in seen:
            skipped.append(Skip(fact.source, "the same fact as one above"))
            continue
        seen.add(key)
        before = known.get(key)
        if before is not None:
            day = before.get("day", "")
            draft = before.get("draft", "")
            skipped.append(
                Skip(
                    fact.source,
                    f"already imported{f' on {day}' if day else ''}"
                    f"{f' as the draft {draft}' if draft else ''}: not offered again",
                )
            )
            continue
        drafts.append(_draft(kind, fact, text, key, options))
    return drafts, skipped


def _draft(kind: str, fact: Fact, text: str, key: str, options: ReadOptions) -> Draft:
    first = sentences(text.split("\n", 1)[0]) or [text]
    title_source = inline_plain(fact.title, emphasis=False) or first[0]
    title = cut_title(title_source, options.max_title)
    what = " ".join(cut_sentences(sentences(text.replace("\n", " ")), options.max_words))
    notes = list(fact.notes)
    day = fact.date
    if not day:
        day = min(fact.file_date, clock.today().isoformat())  # a clock behind the file's
        notes.append("no date in the memory: dated from its file's modification time")
    repo = options.repo or fact.repo
    tags = options.tagger.suggest(title, " ".join([text, fact.why, fact.how]), options.tags)
    return Draft(
        key=f"{kind}:{fact.source}",
        source=fact.source,
        title=title,
        type=_type_of(text, fact.kind, options),
        what=what,
        why=_capitalized(inline_plain(fact.why)),
        how=_capitalized(inline_plain(fact.how)),
        date=day,
        confidence="medium",
        tags=tags,
        repo=[repo] if repo else [],
        scope=repo or personal_scope(options, tags),
        match_key=key,
        unmapped=notes,
    )


def _capitalized(text: str) -> str:
    return text[:1].upper() + text[1:]


def _type_of(text: str, store_kind: str, options: ReadOptions) -> str:
    plain = text.lower()
    if store_kind == "reference":  # the store says it points at where things are
        wanted = "reference"
    elif _GOTCHA.search(plain):
        wanted = "gotcha"
    elif store_kind == "feedback" or _RULE.search(plain):
        wanted = "convention"
    else:
        wanted = "reference"
    if options.types and wanted not in options.types:
        return "reference" if "reference" in options.types else sorted(options.types)[0]
    return wanted


__all__ = ["PERSON_REASON", "Fact", "drafts_from_facts"]
