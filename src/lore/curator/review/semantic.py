"""The optional semantic review: a model judges the candidate pairs the rules left alone.

Off by default. It runs after every rule, when the vault's `[curator.semantic]` (read
at the base in a pull request) enables it, the curator checks a pull request or
explicit paths (never `--all`), and the key is there: the environment variable the
settings name must hold one, except for an llm model that declares it needs none.

For each note the change adds or edits, its best `max_related` candidates
(`lore.curator.context.candidates`, the same notes the duplicate and contradiction rules
judge: active notes at the base and notes earlier in the change) are the pairs. A
pair the deterministic judgement already reports (`judgement.verdict.judge`) is left
out; each other pair is one model call (`lore.curator.review.pairs`), taken round
robin by rank so every note gets its best candidates judged first, at most
`max_calls` per run. The model answers duplicate, contradiction or neither, naming
one clause of each note; a duplicate or a contradiction becomes a
`convention/semantic-duplicate` or `convention/semantic-contradiction` finding that
quotes both clauses and is ALWAYS a warning: the model can never approve, merge or
turn an error into a pass.

Failures are warnings too, never a crash: `convention/semantic-unavailable` once per
note whose pairs were not all judged (a bad answer skips that pair; a timeout or a
provider error stops the calls for the run), and once for the run when the model
cannot be used at all (the llm extra missing, an unknown model).
`convention/semantic-call-limit` says the run reached `max_calls`. The API key
appears in no output.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import partial

from lore.curator.context.candidates import Corpus, candidates, corpus_of
from lore.curator.context.model import CuratorContext, is_note_path
from lore.curator.context.settings import LLM, SemanticSettings
from lore.curator.finding import WARNING, Finding
from lore.curator.judgement.verdict import judge
from lore.curator.review.pairs import (
    ANSWER_SCHEMA,
    CONTRADICTION,
    DUPLICATE,
    MAX_REASON,
    SYSTEM_PROMPT,
    Answer,
    SchemaError,
    Side,
    build_prompt,
    parse_answer,
    side_of,
)
from lore.curator.review.provider import (
    HttpClient,
    ModelClient,
    ProviderError,
    ProviderUnavailable,
    within,
)
from lore.curator.rules.text import quote
from lore.sanitize import sanitize_text

UNAVAILABLE = "convention/semantic-unavailable"
DUPLICATE_RULE = "convention/semantic-duplicate"
CONTRADICTION_RULE = "convention/semantic-contradiction"
CALL_LIMIT = "convention/semantic-call-limit"
RULES = {
    DUPLICATE_RULE: "the model judged the note the same lesson as a candidate note the "
    "rules did not flag (advisory)",
    CONTRADICTION_RULE: "the model judged the note to contradict a candidate note the "
    "rules did not flag (advisory)",
    UNAVAILABLE: "the semantic review was enabled but could not run or gave an invalid answer",
    CALL_LIMIT: "the semantic review reached max_calls, so some pairs were not judged",
}
_KEY_HIDDEN = "[API key hidden]"


@dataclass(frozen=True)
class Pair:
    note: int  # corpus index of the note under review
    other: int  # corpus index of its candidate


@dataclass
class _NoteOutcome:
    """What became of one note's pairs."""

    display: str
    pairs: int = 0
    failed: int = 0
    why: str = ""  # the first failure
    findings: list[Finding] = field(default_factory=list)

    def fail(self, why: str) -> None:
        self.failed += 1
        self.why = self.why or why


def _count(number: int, thing: str) -> str:
    return f"{number} {thing}{'' if number == 1 else 's'}"


def _hide(text: str, key: str) -> str:
    return text.replace(key, _KEY_HIDDEN) if key else text


def unavailable(path: str, what: str) -> Finding:
    return Finding(
        UNAVAILABLE,
        WARNING,
        path,
        None,
        f"{what}; the other checks are unaffected",
        "Read the note yourself for what the model would have checked; "
        "see docs/curator.md#semantic-review-optional.",
    )


def pairs_to_judge(context: CuratorContext, limit: int) -> tuple[Corpus, list[Pair]]:
    """The candidate pairs the rules did not already report, round robin by rank."""
    corpus = corpus_of(context)
    inactive = context.statuses_before
    threshold = context.settings.near_duplicate_threshold

    def eligible(other: int) -> bool:
        entry = corpus.entries[other]
        return bool(entry.view.body.strip()) and (entry.reviewed or entry.view.id not in inactive)

    ranked: list[list[Pair]] = []
    for index in corpus.reviewed():
        entry = corpus.entries[index]
        if not is_note_path(entry.view.path) or not entry.view.body.strip():
            continue
        pairs = []
        for other in candidates(corpus, index, eligible, limit) if limit else []:
            verdict = judge(
                entry.profile,
                partial(corpus.claims, index),
                corpus.entries[other].profile,
                partial(corpus.claims, other),
                corpus.idf,
                threshold,
            )
            if not verdict.near_duplicate and verdict.conflict is None:
                pairs.append(Pair(index, other))
        ranked.append(pairs)
    width = max((len(pairs) for pairs in ranked), default=0)
    return corpus, [pairs[rank] for rank in range(width) for pairs in ranked if rank < len(pairs)]


def open_client(settings: SemanticSettings, key: str) -> ModelClient | None:
    """The configured model; None when it needs a key and none is set."""
    if settings.provider == LLM:
        from lore.curator.review.provider_llm import open_llm

        return open_llm(settings.model, key)
    if not key:
        return None
    return HttpClient(
        settings.provider, settings.model, settings.endpoint, settings.timeout_seconds, key
    )


def review(context: CuratorContext, environ: Mapping[str, str] | None = None) -> list[Finding]:
    """Advisory findings for the notes the change adds or edits (nothing when not enabled)."""
    settings: SemanticSettings = context.settings.semantic
    if not settings.enabled or context.mode not in ("range", "paths"):
        return []
    env = os.environ if environ is None else environ
    key = env.get(settings.api_key_env, "").strip()
    if settings.provider != LLM and not key:
        return []  # a fork's pull request, or a machine without the key: nothing is sent
    first = next((c.display for c in context.notes if is_note_path(c.path)), None)
    if first is None:
        return []
    try:
        corpus, pairs = pairs_to_judge(context, settings.max_related)
        if not pairs:
            return []
        client = open_client(settings, key)
        if client is None:
            return []
        return _judge_pairs(context, settings, client, key, corpus, pairs)
    except ProviderUnavailable as exc:
        why = _hide(str(exc), key)
    except Exception as exc:  # noqa: BLE001 - advisory: never crash, never pass silently
        why = f"it stopped with {type(exc).__name__}"
    return [unavailable(first, f"the semantic review did not run: {why}")]


def _judge_pairs(  # noqa: PLR0917 - one private call site
    context: CuratorContext,
    settings: SemanticSettings,
    client: ModelClient,
    key: str,
    corpus: Corpus,
    pairs: list[Pair],
) -> list[Finding]:
    outcomes: dict[int, _NoteOutcome] = {}
    sides: dict[int, Side] = {}
    secrets = set(context.redactions)
    calls = 0
    stopped = ""  # why the calls stopped for the rest of the run
    left: list[Pair] = []  # pairs beyond max_calls
    for pair in pairs:
        outcome = outcomes.setdefault(pair.note, _NoteOutcome(corpus.entries[pair.note].display))
        outcome.pairs += 1
        if stopped:
            outcome.fail(f"the calls stopped after an earlier failure ({stopped})")
            continue
        if calls >= settings.max_calls:
            left.append(pair)
            continue
        for index in (pair.note, pair.other):
            if index not in sides:
                sides[index] = side_of(corpus.entries[index].view, secrets)
        mine, theirs = sides[pair.note], sides[pair.other]
        calls += 1
        ask = partial(client.answer, SYSTEM_PROMPT, build_prompt(mine, theirs), ANSWER_SCHEMA)
        try:
            answer = parse_answer(within(settings.timeout_seconds, ask), mine, theirs)
        except SchemaError as exc:  # this pair only
            outcome.fail(str(exc))
            continue
        except ProviderError as exc:  # the provider is down or too slow: stop calling it
            stopped = _hide(str(exc), key)
            outcome.fail(stopped)
            continue
        except Exception as exc:  # noqa: BLE001 - advisory: never crash, never pass silently
            stopped = f"it stopped with {type(exc).__name__}"
            outcome.fail(stopped)
            continue
        if answer.verdict in (DUPLICATE, CONTRADICTION):
            outcome.findings.append(_finding(answer, pair, corpus, settings.model, key))
    findings: list[Finding] = []
    for outcome in outcomes.values():
        findings += outcome.findings
        if outcome.failed:
            findings.append(
                unavailable(
                    outcome.display,
                    f"the semantic review did not judge {outcome.failed} of this note's "
                    f"{_count(outcome.pairs, 'candidate pair')}: {outcome.why}",
                )
            )
    if left:
        findings.append(_call_limit(left, corpus, settings.max_calls))
    return findings


def _line_of(corpus: Corpus, index: int, clause: str) -> int | None:
    """The line of the note's file where a quoted clause starts, when it is found there."""
    view = corpus.entries[index].view
    head = clause.rstrip("…")[:60]
    offset = view.body.find(head) if head else -1
    return view.body_line_at(offset) if offset >= 0 else None


def _finding(answer: Answer, pair: Pair, corpus: Corpus, model: str, key: str) -> Finding:
    entry, other = corpus.entries[pair.note], corpus.entries[pair.other].view.id
    reason = _hide(quote(sanitize_text(" ".join(answer.reason.split())), MAX_REASON), key)
    said = f'"{quote(answer.proposed, 160)}" against "{quote(answer.existing, 160)}"'
    because = f": {reason}" if reason else ""
    by = f"semantic review (advisory, model {quote(sanitize_text(model), 60)})"
    if answer.verdict == DUPLICATE:
        return Finding(
            DUPLICATE_RULE,
            WARNING,
            entry.display,
            _line_of(corpus, pair.note, answer.proposed),
            f"{by}: this note holds the same lesson as {other}, {said}{because}",
            f"If this replaces it, add `supersedes: [{other}]`; if it adds to it, link "
            f"[[{other}]] and keep only what is new.",
        )
    return Finding(
        CONTRADICTION_RULE,
        WARNING,
        entry.display,
        _line_of(corpus, pair.note, answer.proposed),
        f"{by}: this note contradicts {other}, {said}{because}",
        f"If this note is right, add `supersedes: [{other}]`; if not, fix one of them.",
    )


def _call_limit(left: list[Pair], corpus: Corpus, limit: int) -> Finding:
    notes = sorted({corpus.entries[pair.note].display for pair in left})
    return Finding(
        CALL_LIMIT,
        WARNING,
        notes[0],
        None,
        f"the semantic review stopped at max_calls = {limit} model calls: "
        f"{_count(len(left), 'more candidate pair')} of {_count(len(notes), 'note')} "
        "were not judged by the model",
        "Review those notes' likely duplicates yourself, or raise max_calls in "
        "[curator.semantic] of lore.toml.",
    )
