"""Several phrasings of one question in one recall (`--or`, MCP `also`), fused by rank.

An agent that names the subject in the words the team's note would use, and then tries
other vocabulary, finds more of the notes it is after in its first ten, though not at
the top: on lore's real-recall eval (522 real ADRs imported by `lore import adr`, 585
prompts; queries written blind by three models from the `lore-recall` skill; run
`agent-queries-blind-2026-12-04` in eval/real_recall/results.json, eval/README.md),
the writer's phrasings fused put the answer in the first ten for 80.2 % of prompts,
against 77.1 % for its one query and 77.6 % for the prompt sentence itself, but their
MRR@10 (0.561) is below the sentence's (0.592), and issue 30's target (+0.08) is not
met.

Each phrasing is ranked exactly as a query of its own (boosts, filters, aliases, active
notes only), to `depth(limit)` hits, and the rankings are fused by reciprocal rank
(Cormack, Clarke and Büttcher, SIGIR 2009): a note's fused score is the sum, over the
phrasings that found it, of 1 / (`RRF_K` + its rank), divided by what first place under
every phrasing would give, so 1.0 is the best a note can score. Ranks, not BM25
scores, are added because the phrasings' scores are not on one scale: a phrasing of rare
words scores every note it finds higher than one of common words.

Each fused hit keeps the BM25, boosts, terms and snippet of the phrasing that ranked
it highest (`Hit.phrasing`) and its rank under each phrasing (`Hit.ranks`), which
`--explain` shows.
"""

from __future__ import annotations

from lore.recall.model import Hit, RecallRequest, RecallResult
from lore.recall.query import QueryPlan, Term

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Hashable, Sequence
    from typing import TypeVar

    K = TypeVar("K", bound=Hashable)

RRF_K = 60  # the constant of the paper, and Elasticsearch's and OpenSearch's default
MAX_PHRASINGS = 4  # the query and up to three others
DEPTH = 20  # each phrasing's ranking is read at least this deep


def depth(limit: int) -> int:
    """How many hits of each phrasing are fused for `limit` results: a note just past
    the limit under one phrasing can still rise by being found by another."""
    return max(limit, DEPTH)


def fuse(
    rankings: Sequence[Sequence[Hit]], limit: int, key: Callable[[Hit], K]
) -> list[tuple[K, Hit]]:
    """The best `limit` hits of the rankings by reciprocal rank, each with its `ranks`
    (copies: the rankings are left as they were), and the key that named its note.

    `key(hit)` says which hits are the same note (the note id; with several vaults, the
    vault's name too).
    """
    count = len(rankings)
    best = count / (RRF_K + 1)
    ranks: dict[K, list[int | None]] = {}
    shown: dict[K, tuple[int, int, Hit]] = {}  # the highest rank's (rank, phrasing, hit)
    for phrasing, ranking in enumerate(rankings):
        for position, hit in enumerate(ranking):
            name = key(hit)
            found = ranks.setdefault(name, [None] * count)
            if found[phrasing] is None:
                found[phrasing] = position + 1
            if name not in shown or position + 1 < shown[name][0]:
                shown[name] = (position + 1, phrasing, hit)
    fused: list[tuple[float, int, str, K, Hit]] = []
    for name, (first, phrasing, ranked) in shown.items():
        hit = ranked.copy()  # the rankings keep their own scores
        hit.phrasing = phrasing
        hit.ranks = tuple(ranks[name])
        hit.score = sum(1.0 / (RRF_K + rank) for rank in hit.ranks if rank is not None) / best
        fused.append((-hit.score, first, hit.id, name, hit))
    fused.sort(key=lambda item: item[:3])
    return [(name, hit) for *_, name, hit in fused[:limit]]


def merged_plan(plans: Sequence[QueryPlan]) -> QueryPlan:
    """One plan with the terms of every phrasing, each once (what was searched for)."""
    terms: dict[str, Term] = {}
    for plan in plans:
        for term in plan.terms:
            terms.setdefault(term.fts(), term)
    return QueryPlan(plans[0].text, list(terms.values()))


def recall_fused(
    request: RecallRequest,
    recall_one: Callable[[RecallRequest], RecallResult],
    finish: Callable[[list[Hit]], None] | None = None,
    *,
    whole_rankings: bool = False,
) -> RecallResult:
    """Recall each phrasing of `request` with `recall_one`, then fuse their rankings.

    `recall_one` answers a request of one phrasing (the index's or the scan's recall,
    on the connection or files already open); the result is the first one's, with the
    fused hits, every phrasing's ranking and plan, and the notices of all. `finish`
    completes hits that `recall_one` left bare (snippets: made only for what is shown):
    the fused hits, or every hit of every ranking with `whole_rankings`.
    """
    deep = depth(request.limit)
    results = [
        recall_one(request.one_phrasing(index, deep)) for index in range(len(request.phrasings))
    ]
    result = results[0]
    result.rankings = [one.hits for one in results]
    result.plans = [one.plan for one in results]
    result.phrasings = [one.query for one in results]
    result.plan = merged_plan(result.plans)
    if finish is not None and whole_rankings:
        for index, ranking in enumerate(result.rankings):
            for hit in ranking:
                hit.phrasing = index
            finish(ranking)
    result.hits = [hit for _, hit in fuse(result.rankings, request.limit, lambda hit: hit.id)]
    if finish is not None and not whole_rankings:
        finish(result.hits)
    for one in results[1:]:
        result.notices += [text for text in one.notices if text not in result.notices]
    return result
