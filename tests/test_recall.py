"""Ranked recall: query safety, aliases, statuses, boosts, explain, the scan fallback."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lore.cli.main import main
from lore.recall.engine import recall
from lore.recall.model import RecallRequest
from lore.recall.query import MAX_TERMS, build_query
from tests.support import Vault, block_state_dir, note_text

NOTES = {
    "billing--httpx-tests--2026-11-02": note_text(
        "Integration tests use httpx against a running container",
        repo="payments-api",
        files_touched="[tests/integration/conftest.py]",
        body="## What\nBilling integration tests call the container over HTTP with httpx.\n",
    ),
    "billing--testclient-tests--2026-03-14": note_text(
        "Integration tests use FastAPI TestClient",
        repo="payments-api",
        date="2026-03-14",
        body="## What\nUse TestClient in process for billing integration tests.\n",
    ),
    "auth--okta-clock-skew--2025-05-27": note_text(
        "Enterprise Okta logins fail when clocks drift",
        type="gotcha",
        tags="[service/auth]",
        body="## What\nIdentity provider assertions are rejected when pod clocks drift.\n",
    ),
    "web--retries-backoff--2026-01-10": note_text(
        "Retry failed requests with jittered backoff",
        type="convention",
        tags="[pattern/retries]",
        repo="web-app",
        body="## What\nThe web client retries idempotent requests with jittered backoff.\n",
    ),
    "payments--retries-backoff--2026-01-10": note_text(
        "Retry failed requests with jittered backoff",
        type="convention",
        tags="[pattern/retries]",
        repo="payments-api",
        body="## What\nThe payments client retries idempotent requests with jittered backoff.\n",
    ),
    "ops--freeze-2025--2025-11-20": note_text(
        "Deploy freeze for the holiday sale",
        type="runbook",
        tags="[domain/deployment]",
        expires="2025-12-02",
        body="## What\nNo deploys during the holiday sale freeze.\n",
    ),
    "ledger--write-timeout--2026-02-01": note_text(
        "Ledger writes time out after 800 ms",
        type="reference",
        tags="[tool/postgres]",
        body="## What\n`LEDGER_WRITE_TIMEOUT_MS` defaults to 800; raise it only for backfills.\n",
    ),
}
NOTES["billing--httpx-tests--2026-11-02"] = NOTES["billing--httpx-tests--2026-11-02"].replace(
    "date: 2026-11-02", "date: 2026-11-02\nsupersedes: [billing--testclient-tests--2026-03-14]"
)


@pytest.fixture
def demo(make_vault: Callable[..., Vault]) -> Vault:
    return make_vault(NOTES)


def ask(root: Path, query: str, **options: object) -> list[str]:
    result = recall(root, RecallRequest(query=query, **options))  # type: ignore[arg-type]
    return [hit.id for hit in result.hits]


def test_natural_question_finds_the_note(demo: Vault) -> None:
    assert ask(demo.root, "why do integration tests call the container over http")[0] == (
        "billing--httpx-tests--2026-11-02"
    )


def test_superseded_match_returns_the_replacement(demo: Vault) -> None:
    result = recall(demo.root, RecallRequest(query="TestClient in process"))
    assert result.hits[0].id == "billing--httpx-tests--2026-11-02"
    assert result.hits[0].replaces == "billing--testclient-tests--2026-03-14"
    assert "billing--testclient-tests--2026-03-14" not in [h.id for h in result.hits]
    with_all = ask(demo.root, "TestClient in process", include_inactive=True)
    assert "billing--testclient-tests--2026-03-14" in with_all


def test_expired_notes_are_hidden_unless_all(demo: Vault) -> None:
    assert "ops--freeze-2025--2025-11-20" not in ask(demo.root, "holiday sale deploy freeze")
    assert ask(demo.root, "holiday sale deploy freeze", include_inactive=True)[0] == (
        "ops--freeze-2025--2025-11-20"
    )


def test_alias_expansion_reaches_the_tag(demo: Vault) -> None:
    # "sso" is an alias of service/auth in the default taxonomy; the note never says it.
    assert "sso" not in NOTES["auth--okta-clock-skew--2025-05-27"].lower()
    assert ask(demo.root, "sso broken")[0] == "auth--okta-clock-skew--2025-05-27"


def test_identifiers_and_paths(demo: Vault) -> None:
    assert ask(demo.root, "LEDGER_WRITE_TIMEOUT_MS")[0] == "ledger--write-timeout--2026-02-01"
    assert ask(demo.root, "tests/integration/conftest.py")[0] == "billing--httpx-tests--2026-11-02"


def test_repo_boost_breaks_ties(demo: Vault) -> None:
    assert ask(demo.root, "retry failed requests", repo="web-app")[0] == (
        "web--retries-backoff--2026-01-10"
    )
    assert ask(demo.root, "retry failed requests", repo="payments-api")[0] == (
        "payments--retries-backoff--2026-01-10"
    )


def test_filters(demo: Vault) -> None:
    assert ask(demo.root, "retry requests tests", types=("reference",)) == []
    assert set(ask(demo.root, "retry requests tests", tags=("pattern/retries",))) == {
        "web--retries-backoff--2026-01-10",
        "payments--retries-backoff--2026-01-10",
    }
    assert set(ask(demo.root, "retry requests", tags=("retries",))) == {
        "web--retries-backoff--2026-01-10",
        "payments--retries-backoff--2026-01-10",
    }
    assert len(ask(demo.root, "tests retry requests", limit=1)) == 1


def test_explain_terms_add_up_to_bm25(demo: Vault) -> None:
    result = recall(
        demo.root,
        RecallRequest(query="integration tests httpx container", explain=True, repo="payments-api"),
    )
    for hit in result.hits:
        assert hit.terms
        assert sum(t.score for t in hit.terms) == pytest.approx(hit.base_score, rel=1e-6)
        assert hit.boosts is not None
        assert hit.score == pytest.approx(hit.base_score * hit.boosts.total)


def test_explain_adds_up_for_a_note_that_answers_for_the_note_it_replaced(
    demo: Vault, capsys: pytest.CaptureFixture[str]
) -> None:
    """ "TestClient in process" matches the superseded note better than the note that
    replaced it, which ranks by that stronger match: its own terms plus the row for the
    replaced note make its BM25, in the JSON and in the table (the table's row showed the
    whole BM25 again, so its rows summed to more than the total)."""
    from lore.cli.main import main

    query = "TestClient in process call"
    result = recall(demo.root, RecallRequest(query=query, explain=True))
    hit = result.hits[0]
    assert hit.replaces == "billing--testclient-tests--2026-03-14"
    own = sum(t.score for t in hit.terms)
    assert 0 < own < hit.base_score  # its own terms count, and the replaced note's match more
    assert own + hit.from_replaced() == pytest.approx(hit.base_score, rel=1e-9)
    data = hit.to_json(explain=True)["explain"]
    parts = sum(t["score"] for t in data["terms"]) + data["from_replaced"]
    assert parts == pytest.approx(data["bm25"], abs=1e-3)
    assert main(["recall", query, "--explain", "--limit", "1", "--vault", str(demo.root)]) == 0
    table = capsys.readouterr().out.split("\n#1 ", 1)[1]
    cells = [[cell.strip() for cell in line.split("│")] for line in table.splitlines()]
    values = {row[0]: float(row[-1]) for row in cells if len(row) == 3}
    total = values.pop("bm25 total")
    added = [value for label, value in values.items() if label.startswith(("bm25 “", "+ "))]
    assert any(label.startswith("+ the replaced note") for label in values), table
    assert sum(added) == pytest.approx(total, abs=0.001 * len(added)), table


def test_snippet_highlights_the_match(demo: Vault) -> None:
    result = recall(demo.root, RecallRequest(query="jittered backoff"))
    data = result.hits[0].to_json()
    assert "**jittered**" in data["snippet"]


@pytest.mark.parametrize(
    "query",
    [
        '"unbalanced',
        "NEAR(a b)",
        "a AND OR NOT b",
        "*",
        "title:x",
        "^start",
        "col : x",
        "-minus",
        "(",
        ")",
        "{x}",
        "\x00\x01",
        "🙂 emoji",
        "ü ß é",
        "x" * 5000,
        " ".join(f"w{i}" for i in range(3000)),
        "'; DROP TABLE notes; --",
    ],
)
def test_hostile_queries_never_fail(demo: Vault, query: str) -> None:
    result = recall(demo.root, RecallRequest(query=query))
    assert result.engine == "fts5"
    assert len(result.plan.terms) <= MAX_TERMS


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200))
def test_any_text_makes_a_valid_match_expression(text: str) -> None:
    conn = sqlite3.connect(":memory:")
    conn.execute(
        "CREATE VIRTUAL TABLE t USING fts5(title, tags, body, files_touched, "
        "tokenize='porter unicode61')"
    )
    conn.execute("INSERT INTO t VALUES ('some', 'text', 'to match', 'src/a.py')")
    plan = build_query(text, {"sso": ["service/auth"], "single sign-on": ["service/auth"]})
    if not plan.empty:
        conn.execute("SELECT count(*) FROM t WHERE t MATCH ?", (plan.match,)).fetchone()
    assert len(plan.terms) <= MAX_TERMS


def test_scan_fallback_when_the_index_cannot_be_written(demo: Vault) -> None:
    block_state_dir(demo.root)
    result = recall(demo.root, RecallRequest(query="integration tests httpx"))
    assert result.engine == "scan"
    assert result.notices
    assert result.hits[0].id == "billing--httpx-tests--2026-11-02"
    # Same status rules as the index: superseded and expired notes stay out.
    scan_ids = [h.id for h in recall(demo.root, RecallRequest(query="TestClient freeze")).hits]
    assert "billing--testclient-tests--2026-03-14" not in scan_ids
    assert "ops--freeze-2025--2025-11-20" not in scan_ids


def test_cli_json_contract(demo: Vault, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        [
            "recall",
            "--vault",
            str(demo.root),
            "--json",
            "--repo",
            "payments-api",
            "integration",
            "tests",
        ]
    )
    assert code == 0
    data = json.loads(capsys.readouterr().out)
    assert data["version"] == 1
    assert data["engine"] == "fts5"
    assert data["query"] == "integration tests"
    first = data["results"][0]
    assert set(first) >= {
        "id",
        "title",
        "path",
        "type",
        "repo",
        "tags",
        "confidence",
        "date",
        "score",
        "snippet",
    }
    assert first["repo"] == "payments-api"
    assert first["path"] == f"notes/{first['id']}.md"


def test_cli_nothing_found_is_success(demo: Vault, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["recall", "--vault", str(demo.root), "--json", "zebra", "unicorn"]) == 0
    assert json.loads(capsys.readouterr().out)["results"] == []


@pytest.mark.parametrize("args", [["   "], ["x", "--limit", "0"], ["x", "--limit", "abc"]])
def test_cli_bad_input_exits_2(
    demo: Vault, args: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["recall", "--vault", str(demo.root), *args]) == 2
    assert "Traceback" not in capsys.readouterr().err


def test_snippet_marks_the_densest_window() -> None:
    from lore.recall.snippet import HIGHLIGHT, make_snippet

    body = (
        "## What\nIntro words that say nothing. "
        + "filler " * 40
        + "Set (postgres) LEDGER_WRITE_TIMEOUT_MS before migrations run; postgres waits. "
        + "filler " * 40
    )
    snippet = make_snippet(body, ["postgres", "timeout", "migration"])
    start, end = HIGHLIGHT
    assert snippet.startswith("…") and snippet.endswith("…")
    marked = [piece.split(end)[0] for piece in snippet.split(start)[1:]]
    assert marked == ["(postgres)", "LEDGER_WRITE_TIMEOUT_MS", "migrations", "postgres"]
    assert "##" not in snippet
    assert make_snippet(body, ["absent"], fallback="summary") == "summary"


@settings(max_examples=300, deadline=None)
@given(
    text=st.text(
        alphabet=st.sampled_from(list("abcdeAB _-.\n\t#(")) | st.characters(), max_size=200
    ),
    words=st.lists(st.sampled_from(["ab", "abc", "bad", "cab", "déjà", "ß"]), min_size=1),
)
def test_snippet_word_finder_agrees_with_the_regular_expression(
    text: str, words: list[str]
) -> None:
    from lore.recall.snippet import _hit_tokens, _hit_tokens_by_regex, term_of

    wanted = {term_of(word) for word in words}
    assert _hit_tokens(text, wanted) == _hit_tokens_by_regex(text, wanted)


def test_snippet_marks_the_words_fts5_matched() -> None:
    # The snippet marks a word when FTS5's `porter unicode61` tokenizer would match it:
    # asked here of a real FTS5 table holding each word of the body as a row.
    import sqlite3

    from lore.recall.snippet import HIGHLIGHT, make_snippet

    body = "Deployments retried twice; the deployed worker retries. Déploiement is French."
    words = body.split()
    db = sqlite3.connect(":memory:")
    db.execute(
        "CREATE VIRTUAL TABLE t USING fts5(x, tokenize='porter unicode61 remove_diacritics 2')"
    )
    db.executemany("INSERT INTO t VALUES (?)", [(word,) for word in words])
    for query in (["deploy", "retry"], ["déploiement"], ["deployment"]):
        expression = " OR ".join(f'"{word}"' for word in query)
        matched = [row[0] for row in db.execute("SELECT x FROM t WHERE t MATCH ?", (expression,))]
        start, end = HIGHLIGHT
        marked = [w.strip(start + end) for w in make_snippet(body, query).split() if start in w]
        assert marked == [w for w in words if w in matched], query
    db.close()
