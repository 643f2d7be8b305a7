"""Skipping common phrases in recall's first stage never changes the answer.

`Ranker.rank` first scores only the notes that match a rarer phrase of the query and
checks a bound on what the skipped notes could have scored (see its docstring). These
tests ask the same questions with the skipping switched off (`COMMON_SHARE` above 1,
so no phrase counts as common) and require the same notes with the same scores, on a
vault whose word frequencies follow Zipf's law (a few words in most notes) and on the
judged eval vault, with the vault's own statistics and with those of several vaults
(every phrase reweighed); they also check that the shortcut and its fallbacks really
ran, and that the phrases in most notes were reweighed (`rank.idf`). A last test
cuts the first stage at a few rows and checks that the best notes by lore's BM25 are
still found.
"""

from __future__ import annotations

import importlib.util
import random
import sqlite3
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from lore.index.build import open_index
from lore.recall import ranker
from lore.recall.engine import query_terms, recall_in_index
from lore.recall.model import RecallRequest
from lore.recall.rank import Boosts, Statistics
from lore.recall.ranker import phrase_statistics
from tests.support import Vault, note_text

REPOS = ("payments-api", "web-app", "ledger")
EVAL = Path(__file__).resolve().parent.parent / "eval" / "run_eval.py"


def _vocabulary(rng: random.Random, size: int) -> list[str]:
    syllables = ["ka", "lo", "ren", "dex", "mi", "zen", "tor", "ba", "vis", "pro", "ql", "fy"]
    words: set[str] = set()
    while len(words) < size:
        words.add("".join(rng.choice(syllables) for _ in range(rng.randint(2, 4))))
    return sorted(words)


def _zipf_notes(count: int, seed: int = 5) -> dict[str, str]:
    """Notes whose words follow Zipf's law; every tenth note supersedes an earlier one."""
    rng = random.Random(seed)
    words = _vocabulary(rng, 400)
    weights = [1.0 / (rank + 1) for rank in range(len(words))]
    notes: dict[str, str] = {}
    ids: list[str] = []
    for number in range(count):
        title_words = rng.choices(words, weights, k=rng.randint(3, 6))
        body_words = rng.choices(words, weights, k=rng.randint(20, 90))
        note_id = (
            f"synth--{'-'.join(title_words[:2])}-{number}--2026-0{1 + number % 9}-1{number % 10}"
        )
        extra: dict[str, str] = {}
        if number % 3:
            extra["repo"] = REPOS[number % len(REPOS)]
        if number % 10 == 9 and ids:
            extra["supersedes"] = f"[{rng.choice(ids)}]"
        if number % 4 == 0:  # paths make column-filtered phrases in the query
            folder, name = rng.choices(words, weights, k=2)
            extra["files_touched"] = f"[src/{folder}/{name}.py]"
        notes[note_id] = note_text(
            " ".join(title_words).capitalize(),
            confidence=("high", "medium", "low")[number % 3],
            date=f"2026-0{1 + number % 9}-1{number % 10}",
            body="## What\n" + " ".join(body_words) + ".\n",
            **extra,
        )
        ids.append(note_id)
    return notes


def _queries(count: int, seed: int = 9) -> list[str]:
    rng = random.Random(seed)
    words = _vocabulary(random.Random(5), 400)
    common, rare = words[:12], words[12:]
    asked = []
    for number in range(count):
        picked = rng.sample(rare, rng.randint(1, 3)) + rng.sample(common, rng.randint(1, 3))
        if number % 5 == 0:
            picked.append(f"src/{rng.choice(common)}/{rng.choice(rare)}.py")
        rng.shuffle(picked)
        asked.append("how do we " + " ".join(picked))
    return asked


class PassCounter:
    """Records each first-stage query: which rows it scored (None: every matching row).

    Also counts the queries read past their first rows (`deeper`) and the rankings in
    which some phrase was reweighed (`reweighed`).
    """

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.runs: list[list[str | None]] = []
        self.deeper = 0
        self.reweighed = 0
        self.split = 0  # first passes asked as (rarer) AND (common), (rarer) NOT (common)
        original = ranker.Ranker.candidates
        read_on = ranker.Pass.take_above

        def counted(
            stages: ranker.Ranker, match: str, essential: str | None = None, rest: str | None = None
        ) -> object:
            self.runs[-1].append(essential)
            if len(self.runs[-1]) == 1:  # once a ranking
                self.split += rest is not None
                self.reweighed += any(ratio != 1.0 for ratio in stages.ratio.values())
            return original(stages, match, essential, rest)

        def deeper(query: ranker.Pass, threshold: float) -> dict[int, float]:
            self.deeper += 1
            return read_on(query, threshold)

        monkeypatch.setattr(ranker.Ranker, "candidates", counted)
        monkeypatch.setattr(ranker.Pass, "take_above", deeper)

    def start(self) -> None:
        self.runs.append([])


def _answer(
    conn: sqlite3.Connection, request: RecallRequest, statistics: Statistics | None = None
) -> list[tuple[str, float]]:
    result = recall_in_index(conn, request, statistics=statistics)
    return [(hit.id, hit.score) for hit in result.hits]


def _shared(conn: sqlite3.Connection, request: RecallRequest) -> Statistics:
    """This vault's statistics together with those of a made-up second vault of 250 notes."""
    phrases = [term.fts() for term in query_terms(conn, request.query)]
    other = Statistics(250, {phrase: (number * 37) % 180 for number, phrase in enumerate(phrases)})
    return Statistics.combined([phrase_statistics(conn, phrases), other])


def _requests(queries: list[str], repos: tuple[str | None, ...]) -> Iterator[RecallRequest]:
    for number, query in enumerate(queries):
        yield RecallRequest(
            query=query, repo=repos[number % len(repos)], limit=(10, 3, 1)[number % 3]
        )
        yield RecallRequest(query=query, limit=5, include_inactive=True)
        yield RecallRequest(query=query, limit=10, types=("convention",))
        yield RecallRequest(query=query, limit=4, tags=("tool/httpx", "billing"))


def _compare(
    root: Path, requests: list[RecallRequest], monkeypatch: pytest.MonkeyPatch
) -> PassCounter:
    conn, _ = open_index(root)
    counter = PassCounter(monkeypatch)
    try:
        for request in requests:
            for statistics in (None, _shared(conn, request)):
                counter.start()
                pruned = _answer(conn, request, statistics)
                counter.start()
                with monkeypatch.context() as patch:
                    patch.setattr(ranker, "COMMON_SHARE", 2.0)
                    plain = _answer(conn, request, statistics)
                assert pruned == plain, (request, statistics)
                assert set(counter.runs[-1]) == {None}, "the comparison must run the plain query"
    finally:
        conn.close()
    return counter


def test_skipping_common_phrases_keeps_the_answer_on_a_zipf_vault(
    make_vault: Callable[..., Vault], monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = make_vault(_zipf_notes(600), repos=REPOS)
    requests = list(_requests(_queries(60), (None, *REPOS)))
    counter = _compare(vault.root, requests, monkeypatch)

    pruned_runs = counter.runs[::2]  # each pruned query is followed by the plain one
    single = [runs for runs in pruned_runs if len(runs) == 1 and runs[0] is not None]
    assert len(single) >= len(requests), "the bound rarely held after one pass"
    # Shared statistics reweigh every phrase: 2 rankings a request. Beyond those, the
    # vault's own statistics reweigh its words in most notes.
    assert counter.reweighed > len(requests) * 3, "the words in most notes were not reweighed"
    firsts = sum(1 for runs in pruned_runs if runs[0] is not None)
    assert counter.split == firsts, "a first pass read every row that matches the query"
    more = [runs for runs in pruned_runs if len(runs) > 1]
    assert more, "no second pass ran"
    assert all(
        " NOT (" in str(run) or run in runs[:number]  # or an earlier one asked for every row
        for runs in more
        for number, run in enumerate(runs[1:], start=1)
    ), "a later pass must score only the notes the earlier ones did not"


@pytest.fixture(scope="module")
def eval_vault(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, object]]]:
    spec = importlib.util.spec_from_file_location("run_eval_for_pruning", EVAL)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["run_eval_for_pruning"] = module
    spec.loader.exec_module(module)
    return module.make_vault(tmp_path_factory.mktemp("eval")), module.load_queries()


def test_skipping_common_phrases_keeps_the_answer_on_the_eval_vault(
    eval_vault: tuple[Path, list[dict[str, object]]], monkeypatch: pytest.MonkeyPatch
) -> None:
    root, judged = eval_vault
    queries = [str(item["query"]) for item in judged]
    requests = list(_requests(queries, (None, "ledger", "checkout-api", "storefront")))
    counter = _compare(root, requests, monkeypatch)
    assert sum(1 for runs in counter.runs[::2] if runs[0] is not None) >= len(requests) * 2 // 3
    assert counter.reweighed > len(requests) * 2, "no phrase of the eval reweighed by the floor"


def test_the_candidates_hold_the_best_notes_by_bm25(
    make_vault: Callable[..., Vault], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A first stage cut at 3 rows still finds the best notes by lore's BM25.

    FTS5 orders the candidates by its own BM25; lore's reweighs some phrases, so the
    rows left out are asked for again when they could score higher. With the boosts
    set to 1 (they reorder the candidates, see `Ranker.rank`) the answer must be
    that of a first stage that reads every matching row.
    """
    vault = make_vault(_zipf_notes(300), repos=REPOS)
    requests = list(_requests(_queries(20), (None, *REPOS)))
    monkeypatch.setattr(ranker, "compute_boosts", lambda *_, **__: Boosts(1.0, 1.0, 1.0))
    conn, _ = open_index(vault.root)
    counter = PassCounter(monkeypatch)
    try:
        for request in requests:
            for statistics in (None, _shared(conn, request)):
                counter.start()
                with monkeypatch.context() as patch:
                    patch.setattr(ranker, "CANDIDATES", 3)
                    cut = _answer(conn, request, statistics)
                with monkeypatch.context() as patch:
                    patch.setattr(ranker, "CANDIDATES", 10**9)
                    patch.setattr(ranker, "COMMON_SHARE", 2.0)
                    every_row = _answer(conn, request, statistics)
                assert cut == every_row, (request, statistics)
    finally:
        conn.close()
    assert counter.deeper >= len(requests) // 2, "the rows left out were rarely asked for"


def _common_queries(count: int, seed: int = 13) -> list[str]:
    """Queries of the vault's commonest words only (each in most of the notes)."""
    rng = random.Random(seed)
    common = _vocabulary(random.Random(5), 400)[:12]
    return [" ".join(rng.sample(common, rng.randint(2, 5))) for _ in range(count)]


def test_queries_of_common_words_only_keep_the_answer(
    make_vault: Callable[..., Vault], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every phrase common, most of them reweighed by the idf floor: the pruned, the plain
    and the every-row answers agree, and the rows left unread were really left unread."""
    vault = make_vault(_zipf_notes(600), repos=REPOS)
    requests = list(_requests(_common_queries(30), (None, *REPOS)))
    counter = _compare(vault.root, requests, monkeypatch)
    assert counter.reweighed > len(requests) * 3, "the idf floor reweighed too few phrases"
    assert counter.deeper, "no pass was read past its first rows"

    read: list[int] = []
    take, take_above = ranker.Pass.take, ranker.Pass.take_above

    def counted(query: ranker.Pass, count: int) -> dict[int, float]:
        rows = take(query, count)
        read[-1] += len(rows)
        return rows

    def counted_above(query: ranker.Pass, threshold: float) -> dict[int, float]:
        rows = take_above(query, threshold)
        read[-1] += len(rows)
        return rows

    monkeypatch.setattr(ranker, "compute_boosts", lambda *_, **__: Boosts(1.0, 1.0, 1.0))
    monkeypatch.setattr(ranker.Pass, "take", counted)
    monkeypatch.setattr(ranker.Pass, "take_above", counted_above)
    conn, _ = open_index(vault.root)
    matching, partial = 0, 0
    try:
        for request in requests:
            for statistics in (None, _shared(conn, request)):
                read.append(0)
                with monkeypatch.context() as patch:
                    patch.setattr(ranker, "CANDIDATES", 3)
                    cut = _answer(conn, request, statistics)
                rows_read = read[-1]
                read.append(0)
                with monkeypatch.context() as patch:
                    patch.setattr(ranker, "CANDIDATES", 10**9)
                    patch.setattr(ranker, "COMMON_SHARE", 2.0)
                    every_row = _answer(conn, request, statistics)
                assert cut == every_row, (request, statistics)
                matching = read[-1]
                partial += rows_read < matching
    finally:
        conn.close()
    assert partial >= len(requests) // 2, "reading on rarely stopped before the last row"


def test_a_query_of_common_words_only_runs_the_plain_query(
    make_vault: Callable[..., Vault], monkeypatch: pytest.MonkeyPatch
) -> None:
    """When the skipped phrases could add more than the scored ones give (every word in
    about a third of the notes), a first pass over the rarest phrase's notes cannot
    settle the answer: the plain query runs at once. A rare word is still worth it."""
    rng = random.Random(3)
    common = ("alpha", "bravo", "charlie", "delta")
    notes = {}
    for number in range(200):
        words = [word for word in common if rng.random() < 0.35] + ["filler"] * 5
        if number % 50 == 0:
            words.append("zulu")
        notes[f"synth--note-{number}--2026-01-01"] = note_text(
            f"Note {number}", body="## What\n" + " ".join(words) + ".\n"
        )
    vault = make_vault(notes)
    conn, _ = open_index(vault.root)
    counter = PassCounter(monkeypatch)
    try:
        counter.start()
        plain = _answer(conn, RecallRequest(query=" ".join(common)))
        counter.start()
        with monkeypatch.context() as patch:
            patch.setattr(ranker, "COMMON_SHARE", 2.0)
            assert _answer(conn, RecallRequest(query=" ".join(common))) == plain
        counter.start()
        _answer(conn, RecallRequest(query="zulu alpha bravo"))
    finally:
        conn.close()
    assert counter.runs[0] == [None], "every word common: the plain query"
    assert counter.runs[2][0] == '"zulu"', "a rare word: the notes that have it first"


def test_a_filtered_query_without_a_phrase_rare_among_the_kept_notes_runs_the_plain_query(
    make_vault: Callable[..., Vault], monkeypatch: pytest.MonkeyPatch
) -> None:
    """With `--type`, the plain query scores only the notes the type keeps, so a phrase in
    4 % of the notes no longer makes a first pass cheap when the type keeps 15 % of them
    (each pass reads every phrase again): one plain query, the same answer. Without the
    filter, the notes of that phrase are still scored first, and so are those of a phrase
    in 1 % of the notes with it (a typical query's topic words)."""
    rng = random.Random(5)
    common = ("alpha", "bravo", "charlie")
    notes = {}
    for number in range(400):
        words = [word for word in common if rng.random() < 0.35] + ["filler"] * 5
        if number % 25 == 0:
            words.append("yankee")  # 16 of 400 notes: 4 %
        if number % 100 == 1:
            words.append("xray")  # 4 of 400 notes: 1 %
        kind = "gotcha" if number % 20 < 3 else "convention"  # 15 % gotchas
        notes[f"synth--note-{number}--2026-01-01"] = note_text(
            f"Note {number}", type=kind, body="## What\n" + " ".join(words) + ".\n"
        )
    vault = make_vault(notes)
    conn, _ = open_index(vault.root)
    counter = PassCounter(monkeypatch)
    query = "yankee alpha bravo charlie"
    filtered = RecallRequest(query=query, types=("gotcha",))
    try:
        counter.start()
        answer = _answer(conn, filtered)
        counter.start()
        with monkeypatch.context() as patch:
            patch.setattr(ranker, "COMMON_SHARE", 2.0)
            assert _answer(conn, filtered) == answer
        counter.start()
        _answer(conn, RecallRequest(query=query))
        counter.start()
        _answer(conn, RecallRequest(query="xray alpha bravo", types=("gotcha",)))
    finally:
        conn.close()
    assert answer, "the filter keeps notes that match"
    assert counter.runs[0] == [None], "filtered, no phrase rare among the kept: the plain query"
    assert counter.runs[2][0] == '"yankee"', "unfiltered: the rarer phrase's notes first"
    assert counter.runs[3][0] == '"xray"', "filtered, a phrase in 1 %: its notes first"
