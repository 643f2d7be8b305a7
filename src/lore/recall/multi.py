"""Recall across several vaults: a team vault and an org-wide one, searched together.

`lore.vaults.search_vaults` says which vaults to search (one named vault, or every
registered one, the default first); each is searched through its own index, and
the hits are merged by score and labelled with their vault.

Scores from different vaults are comparable because every vault scores with the
same statistics: BM25's idf of each phrase comes from all the searched vaults
together — their notes added up, and the notes of each that contain the phrase
added up — as if they were one vault (Elasticsearch's `dfs_query_then_fetch` does
the same for shards). Without it, a 3-note team vault weighs its words by an idf of
at most 0.74 and a 500-note org vault by up to 5.8, and the team's best answer sinks
below every passing mention in the org vault. Fused ranks (reciprocal rank fusion)
would not help: over vaults with no note in common they only alternate the vaults,
whatever the quality of each one's matches. Each vault keeps its own column weights,
boosts and length normalisation (a note against its own vault's average length).

It costs one count per phrase and vault before the search, and FTS5's scores are
corrected phrase by phrase (`ranker`), so a search of several vaults is slower than
one of a single vault.
"""

from __future__ import annotations

from pathlib import Path

from lore.errors import VaultError
from lore.recall import engine
from lore.recall.model import Hit, MultiResult, RecallRequest, RecallResult, SearchedVault
from lore.recall.query import Term
from lore.recall.rank import Statistics
from lore.vaults import VaultRef

TYPE_CHECKING = False
if TYPE_CHECKING:
    from lore.recall.filters import Filters


def recall_many(
    vaults: list[VaultRef], request: RecallRequest, check: Filters | None = None
) -> MultiResult:
    """Recall from these vaults; with `check`, unknown filter names raise `UsageError`
    first (a name any of the vaults knows is accepted; `lore.recall.filters`)."""
    notices: list[str] = []
    several = len(vaults) > 1
    found: list[tuple[str, Path]] = []
    for ref in vaults:
        name, root = ref.name, ref.root
        if not root.is_dir():
            if not several:
                raise VaultError(
                    f"The vault folder {root} (the vault '{name}' in the user config) does "
                    "not exist.",
                    fix="Connect it again with `lore connect`, or check the path with "
                    "`lore vaults`.",
                )
            notices.append(
                f"The vault '{name}' ({root}) does not exist and was not searched; connect it "
                "again or remove it with `lore vaults --remove`."
            )
            continue
        found.append((name, root.resolve()))
    if not found:
        raise VaultError(
            "None of the registered vaults exists on disk.",
            fix="`lore vaults` lists them; `lore connect` clones one again.",
        )
    statistics = None
    if len(found) == 1:
        name, root = found[0]
        results = [(name, root, engine.recall(root, request, check))]
    else:
        results, statistics = _recall_together(found, request, check)
    for name, _, result in results:
        notices += [f"[{name}] {text}" if several else text for text in result.notices]
    if len(results) > 1 and request.also:
        merged = _fused_across(results, request.limit)
    else:
        merged = _by_score([(name, result.hits) for name, _, result in results])
    merged = merged[: request.limit]
    first = results[0][2]
    used = "fts5" if all(r.engine == "fts5" for _, _, r in results) else "scan"
    return MultiResult(
        query=first.query,
        engine=used,
        hits=[hit for hit, _ in merged],
        labels=[name for _, name in merged],
        plan=first.plan,
        repo=first.repo,
        vaults=[
            SearchedVault(name, root, r.vault_version or None, r.vault_branch)
            for name, root, r in results
        ],
        notices=notices,
        statistics=statistics,
        phrasings=first.phrasings,
        plans=first.plans,
    )


def _by_score(found: list[tuple[str, list[Hit]]]) -> list[tuple[Hit, str]]:
    """The vaults' hits in one list by score (comparable: see the docstring)."""
    merged = [(hit, name, order) for order, (name, hits) in enumerate(found) for hit in hits]
    merged.sort(key=lambda item: (-item[0].score, item[2]))
    return [(hit, name) for hit, name, _ in merged]


def _fused_across(
    results: list[tuple[str, Path, RecallResult]], limit: int
) -> list[tuple[Hit, str]]:
    """Several phrasings over several vaults: each phrasing's hits of all the vaults by
    score, as for one phrasing, then the phrasings fused by rank (`fusion`)."""
    from lore.recall.fusion import fuse

    count = len(results[0][2].rankings)
    rankings = [
        _by_score([(name, result.rankings[index]) for name, _, result in results])
        for index in range(count)
    ]
    label = {id(hit): name for ranking in rankings for hit, name in ranking}
    fused = fuse(
        [[hit for hit, _ in ranking] for ranking in rankings],
        limit,
        key=lambda hit: (label[id(hit)], hit.id),
    )
    return [(hit, name) for (name, _), hit in fused]


def _recall_together(
    found: list[tuple[str, Path]], request: RecallRequest, check: Filters | None
) -> tuple[list[tuple[str, Path, RecallResult]], Statistics]:
    """Each vault's recall, scored with the statistics of all of them (see the docstring).

    Each vault's query may hold phrases of its own (its taxonomy's aliases); every
    vault counts every phrase, so each phrase's idf is that of the whole collection.
    """
    searchers = [(name, root, engine.Searcher(root)) for name, root in found]
    if check is not None and not check.empty:
        from lore.recall.filters import Vocabulary, check_filters

        check_filters(Vocabulary.union([s.vocabulary() for _, _, s in searchers]), check)
    terms: dict[str, Term] = {}
    for _, _, searcher in searchers:
        for text in request.phrasings:
            for term in searcher.terms(text):
                terms.setdefault(term.fts(), term)
    shared = Statistics.combined(
        [searcher.statistics(list(terms.values())) for _, _, searcher in searchers]
    )
    results = [(name, root, searcher.recall(request, shared)) for name, root, searcher in searchers]
    return results, shared
