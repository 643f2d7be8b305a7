"""The optional semantic review: a model judges the candidates the rules left alone.

Off by default. It runs after every rule, when `[curator.semantic]` enables it — the
vault's, read at the base of a pull request or at the reviewed branch's tip on a
checkout, or the user's own config (`lore.curator.context.settings`) — and the curator
checks a pull request or explicit paths (never `--all`, never a draft). It is skipped,
and says why, when a vault file chose the endpoint a key would go to (`refused`) or when
the checkout's `lore.toml` is not the reviewed one.

For each note the change adds or edits, the model is asked about the notes it points at
— a replacement cue's `[[link]]` or record number ("supersedes ADR 15"), the same title,
a shared file; a note already replaced is followed to the one that replaced it — and its
best `max_related` candidates by whole-note likeness (`lore.curator.rules.pairs`,
`Pairs.asked_about`: the notes the rules judge, active at the base or earlier in the
change), whether or not a rule reported the pair, within the request's budget
(`lore.curator.review.pairs`).
**One call judges one note against all of its candidates** (`lore.curator.review.pairs`),
at most `max_calls` calls a run, so a pull request stays inside GitHub Models' free
rate limits (`lore.curator.review.github_models`). The model answers the reviewer's
question for each candidate — duplicate, replaces (wholly or in part), contradicts or
neither — naming one clause of each note (`lore.curator.review.pairs`). Each answer is
`Advice` (`lore.curator.review.merge`): joined to the rule's finding on the same pair,
or, where no rule spoke, a `convention/semantic-duplicate`, `-replacement` or
`-contradiction` finding of its own that quotes both clauses, with the exact
`supersedes:` line for a replacement and a `## Related` link with what still holds for a
partial one. It is ALWAYS a warning: the model can never approve, merge, pass a note or
turn an error into a pass.

The key: the environment variable `api_key_env` names (`GITHUB_TOKEN` for the github
provider); for the github provider at GitHub's own endpoint, else the token `gh auth
token` gives (`lore.vault.gh`), so a reviewer's `lore curate` and `lore review` see what
CI sees. A `gh` token is never sent anywhere but GitHub's endpoint.

Everything else is the run's `ModelReview` (`lore.curator.review.outcome`), one line in
the comment, the job summary and the terminal: what was judged, and when the review was
skipped or cut short, why (no token, 403, 429, a timeout, a broken answer, the cap).
Never a finding, never a failed check, never a crash. The key appears in no output.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import partial

from lore.curator.context.candidates import Corpus
from lore.curator.context.model import CuratorContext, is_note_path
from lore.curator.context.settings import GITHUB, LLM, SemanticSettings
from lore.curator.finding import WARNING, Finding
from lore.curator.review.github_models import is_github_host
from lore.curator.review.merge import Advice
from lore.curator.review.outcome import PARTIAL, RAN, SKIPPED, ModelReview
from lore.curator.review.pairs import (
    ANSWER_SCHEMA,
    CONTRADICTS,
    DUPLICATE,
    MAX_REASON,
    MAX_STILL_HOLDS,
    NEITHER,
    REPLACES,
    REPLACES_IN_PART,
    SYSTEM_PROMPT,
    Answer,
    SchemaError,
    Side,
    build_batch,
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
from lore.curator.rules.pairs import pairs_of
from lore.curator.rules.text import quote
from lore.sanitize import sanitize_text

DUPLICATE_RULE = "convention/semantic-duplicate"
REPLACEMENT_RULE = "convention/semantic-replacement"
CONTRADICTION_RULE = "convention/semantic-contradiction"
RULES = {
    DUPLICATE_RULE: "the model judged the note the same lesson as a close note the rules "
    "did not flag (advisory)",
    REPLACEMENT_RULE: "the model judged that the note replaces a close note, wholly or in "
    "part, where the rules did not flag it (advisory)",
    CONTRADICTION_RULE: "the model judged the note to contradict a close note the rules "
    "did not flag (advisory)",
}
_RULE_OF = {
    DUPLICATE: DUPLICATE_RULE,
    REPLACES: REPLACEMENT_RULE,
    REPLACES_IN_PART: REPLACEMENT_RULE,
    CONTRADICTS: CONTRADICTION_RULE,
}
_KEY_HIDDEN = "[API key hidden]"


@dataclass(frozen=True)
class NoteToJudge:
    note: int  # corpus index of the note under review
    others: tuple[int, ...]  # the notes to ask about it against, most certain first


@dataclass
class _Run:
    """What became of one run's calls."""

    total: int
    calls: int = 0
    judged: int = 0
    candidates: int = 0
    verdicts: int = 0
    stopped: str = ""  # why the calls stopped for the rest of the run
    capped: int = 0
    broken: str = ""  # the first answer that broke the schema
    left_out: str = ""  # the first note whose candidates did not all fit
    not_judged: list[str] = field(default_factory=list)
    advice: list[Advice] = field(default_factory=list)


def _count(number: int, thing: str) -> str:
    return f"{number} {thing}{'' if number == 1 else 's'}"


def _hide(text: str, key: str) -> str:
    return text.replace(key, _KEY_HIDDEN) if key else text


def notes_to_judge(context: CuratorContext, limit: int) -> tuple[Corpus, list[NoteToJudge]]:
    """Each note under review with the notes to ask about it against (`Pairs.asked_about`)."""
    pairs = pairs_of(context)
    corpus = pairs.corpus
    inactive = context.statuses_before

    def eligible(other: int) -> bool:
        entry = corpus.entries[other]
        return bool(entry.view.body.strip()) and (entry.reviewed or entry.view.id not in inactive)

    def successor(note_id: str) -> str | None:
        status = inactive.get(note_id)
        return status.superseded_by if status is not None else None

    work: list[NoteToJudge] = []
    for index in corpus.reviewed():
        entry = corpus.entries[index]
        if not is_note_path(entry.view.path) or not entry.view.body.strip():
            continue
        others = pairs.asked_about(index, eligible, successor, limit)
        if others:
            work.append(NoteToJudge(index, tuple(others)))
    return corpus, work


def credential(settings: SemanticSettings, environ: Mapping[str, str]) -> str:
    """The key to send: the variable `api_key_env` names; for the github provider at
    GitHub's own endpoint, else `gh auth token`. Empty when there is none."""
    key = environ.get(settings.api_key_env, "").strip()
    if key or settings.provider != GITHUB or not is_github_host(settings.endpoint):
        return key
    from lore.vault.gh import auth_token  # runs `gh`: only when the review needs a token

    return auth_token() or ""


def _not_to_be_sent(context: CuratorContext, settings: SemanticSettings) -> str:
    """Why no call may be made at all: the checkout's lore.toml is not the reviewed one,
    or a vault file chose the endpoint the key would go to ("" when a call may be made)."""
    if context.settings_notice:
        return "lore.toml here is not the reviewed branch's, so no model is called"
    return settings.refused


def _no_key(settings: SemanticSettings) -> str:
    variable = f"${settings.api_key_env}"
    if settings.provider != GITHUB:
        return f"no key: {variable} is not set"
    if not is_github_host(settings.endpoint):
        return f"no token: {variable} is not set"
    return (
        f"no token: {variable} is not set and `gh auth token` has none (run `gh auth login`; "
        f"in GitHub Actions the step passes GITHUB_TOKEN: ${{{{ github.token }}}} and the "
        "job grants `permissions: models: read`)"
    )


def open_client(settings: SemanticSettings, key: str) -> ModelClient | None:
    """The configured model; None when it needs a key and none is set."""
    if settings.provider == LLM:
        from lore.curator.review.provider_llm import open_llm

        return open_llm(settings.model, key)
    if not key:
        return None
    return HttpClient(
        settings.provider,
        settings.model,
        settings.endpoint,
        settings.timeout_seconds,
        key,
        settings.org,
    )


def review(
    context: CuratorContext, environ: Mapping[str, str] | None = None
) -> tuple[list[Advice], ModelReview | None]:
    """The model's verdicts on the notes the change adds or edits (to merge with the
    rules' findings: `lore.curator.review.merge`), and what the review did (`None` when
    it is not enabled for this run or the change holds no note)."""
    settings: SemanticSettings = context.settings.semantic
    if not settings.enabled or context.mode not in ("range", "paths"):
        return [], None
    if not any(is_note_path(checked.path) for checked in context.notes):
        return [], None
    env = os.environ if environ is None else environ

    def skipped(why: str) -> tuple[list[Advice], ModelReview]:
        return [], ModelReview(SKIPPED, settings.provider, settings.model, why)

    key = ""
    try:
        why = _not_to_be_sent(context, settings)
        if not why:  # no key is read for a call that may not be made
            key = credential(settings, env)
            if settings.provider != LLM and not key:
                why = _no_key(settings)  # a fork's pull request, a signed-out machine
        if why:
            return skipped(why)
        corpus, work = notes_to_judge(context, settings.max_related)
        if not work:
            detail = "nothing to ask: no note of the vault is close to these notes"
            return [], ModelReview(RAN, settings.provider, settings.model, detail)
        client = open_client(settings, key)
        if client is None:
            return skipped(_no_key(settings))
        return _judge_notes(context, settings, client, key, corpus, work)
    except ProviderUnavailable as exc:
        return skipped(_hide(str(exc), key))
    except Exception as exc:  # noqa: BLE001 - advisory: never crash, never pass silently
        return skipped(f"it stopped with {type(exc).__name__}")


def _judge_notes(  # positional arguments: one private call site
    context: CuratorContext,
    settings: SemanticSettings,
    client: ModelClient,
    key: str,
    corpus: Corpus,
    work: list[NoteToJudge],
) -> tuple[list[Advice], ModelReview]:
    run = _Run(total=len(work))
    sides: dict[int, Side] = {}
    secrets = set(context.redactions)

    def side(index: int) -> Side:
        if index not in sides:
            sides[index] = side_of(corpus.entries[index].view, secrets)
        return sides[index]

    for item in work:
        display = corpus.entries[item.note].display
        if run.stopped or run.calls >= settings.max_calls:
            run.capped += not run.stopped  # the cap, not an earlier failure, left it out
            run.not_judged.append(display)
            continue
        batch = build_batch(side(item.note), [side(other) for other in item.others])
        if not batch.candidates:
            run.not_judged.append(display)
            run.left_out = run.left_out or f"{display} is too long for one request"
            continue
        run.calls += 1
        ask = partial(client.answer, SYSTEM_PROMPT, batch.prompt, ANSWER_SCHEMA)
        try:
            answers = parse_answer(within(settings.timeout_seconds, ask), batch)
        except SchemaError as exc:  # this note only
            run.not_judged.append(display)
            run.broken = run.broken or f"the model's answer for {display} broke the schema ({exc})"
            continue
        except ProviderError as exc:  # refused, rate-limited or too slow: stop calling it
            run.stopped = _hide(str(exc), key)
            run.not_judged.append(display)
            continue
        except Exception as exc:  # noqa: BLE001 - advisory: never crash, never pass silently
            run.stopped = f"it stopped with {type(exc).__name__}"
            run.not_judged.append(display)
            continue
        run.judged += 1
        run.candidates += len(batch.candidates)
        if batch.left_out and not run.left_out:
            run.left_out = (
                f"{_count(len(batch.left_out), 'candidate')} of {display} did not fit in one "
                "request"
            )
        for answer in answers:
            other = item.others[answer.candidate]
            run.advice.append(_advice(answer, item.note, other, corpus, settings.model, key))
        run.verdicts = sum(1 for piece in run.advice if piece.verdict != NEITHER)
    return run.advice, _outcome(run, settings)


def _outcome(run: _Run, settings: SemanticSettings) -> ModelReview:
    """The run as one `ModelReview`: its state and the sentence that says it."""
    issues = [
        issue
        for issue in (
            f"the calls stopped: {run.stopped}" if run.stopped else "",
            f"it stops at max_calls = {settings.max_calls} calls a run (raise it under "
            "[curator.semantic] to judge more)"
            if run.capped
            else "",
            run.broken,
            run.left_out,
        )
        if issue
    ]
    if run.judged == 0:
        state = SKIPPED
        detail = run.stopped or "; ".join(issues) or "no note was judged"
    else:
        found = (
            f"{_count(run.verdicts, 'verdict')} shown as warnings"
            if run.verdicts
            else "no duplicate, replacement or contradiction found"
        )
        detail = (
            f"judged {_count(run.judged, 'note')} against "
            f"{_count(run.candidates, 'candidate')} in {_count(run.calls, 'call')}; {found}"
        )
        state = PARTIAL if issues else RAN
        if run.judged < run.total:
            detail = f"{detail}, {run.total - run.judged} of {run.total} notes not judged"
        if issues:
            detail = f"{detail}; {'; '.join(issues)}"
    return ModelReview(
        state,
        settings.provider,
        settings.model,
        detail,
        calls=run.calls,
        judged=run.judged,
        notes=run.total,
        verdicts=run.verdicts,
        not_judged=tuple(run.not_judged),
    )


def _line_of(corpus: Corpus, index: int, clause: str) -> int | None:
    """The line of the note's file where a quoted clause starts, when it is found there."""
    view = corpus.entries[index].view
    head = clause.rstrip("…")[:60]
    offset = view.body.find(head) if head else -1
    return view.body_line_at(offset) if offset >= 0 else None


def _advice(  # positional arguments: one private call site
    answer: Answer, note: int, other_index: int, corpus: Corpus, model: str, key: str
) -> Advice:
    """The model's verdict on one pair: a sentence to join a rule's finding, and the
    finding it makes alone."""
    entry, theirs = corpus.entries[note], corpus.entries[other_index].view
    other = theirs.id
    reason = _hide(quote(sanitize_text(" ".join(answer.reason.split())), MAX_REASON), key)
    because = f": {reason}" if reason else ""
    by = f"the model review (advisory, model {quote(sanitize_text(model), 60)})"
    if answer.verdict == NEITHER:
        sentence = f"{by} found no duplicate, replacement or contradiction{because}"
        return Advice(entry.display, other, NEITHER, sentence, None, None)
    said = f'"{quote(answer.proposed, 160)}" against "{quote(answer.existing, 160)}"'
    judged = {
        DUPLICATE: f"holds the same lesson as {other}",
        REPLACES: f"replaces {other}",
        REPLACES_IN_PART: f"replaces part of {other}",
        CONTRADICTS: f"contradicts {other}",
    }[answer.verdict]
    suggestion: str | None = None
    if answer.verdict == REPLACES:
        ids = [*entry.view.supersedes, other]
        suggestion = (
            f"If it replaces it, add `supersedes: [{', '.join(dict.fromkeys(ids))}]` to the "
            "frontmatter."
        )
    elif answer.verdict == REPLACES_IN_PART:
        holds = _hide(
            quote(sanitize_text(" ".join(answer.still_holds.split())), MAX_STILL_HOLDS), key
        )
        still = (
            f' and say what of it still holds (the model: "{holds}")'
            if holds
            else (" and say what of it still holds")
        )
        suggestion = f"If it replaces part of it, link [[{other}]] under `## Related`{still}."
    sentence = f"{by} judges that this note {judged}, {said}{because}"
    fallback = {
        DUPLICATE: f"If this replaces it, add `supersedes: [{other}]`; if it adds to it, link "
        f"[[{other}]] and keep only what is new.",
        CONTRADICTS: f"If this note is right, add `supersedes: [{other}]`; if not, fix one of "
        "them.",
    }
    finding = Finding(
        _RULE_OF[answer.verdict],
        WARNING,
        entry.display,
        _line_of(corpus, note, answer.proposed),
        f"semantic review (advisory, model {quote(sanitize_text(model), 60)}): this note "
        f"{judged}, {said}{because}",
        suggestion or fallback[answer.verdict],
        about=other,
    )
    return Advice(entry.display, other, answer.verdict, sentence, suggestion, finding)
