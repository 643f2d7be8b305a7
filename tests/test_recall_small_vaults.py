"""Recall in the vault a team starts with: a handful of notes, and beside a big org vault.

FTS5's BM25 gives a phrase in half the notes or more an idf of 1e-6, so in a young
vault the only match of a query scored 0.000 and the boosts multiplied nothing.
These tests build real vaults of 1 to 20 notes and check that every match scores
above zero, that the boosts show in the score, that a note matching the query's
words in its title outranks passing mentions, that the scan fallback scores as the
index does, and that a 3-note team vault searched beside a 500-note org vault is
ranked as one collection would be.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path

import pytest

from lore.cli.main import main
from lore.recall.engine import recall
from lore.recall.model import RecallRequest, RecallResult
from lore.recall.multi import recall_many
from lore.vaults import VaultRef
from tests.support import Vault, block_state_dir, note_text

DEPLOY_NOTES = {
    "ops--deploy-checklist--2026-10-01": note_text(
        "Deploy checklist",
        type="runbook",
        repo="payments-api",
        files_touched="[deploy/checklist.md]",
        body="## What\nBefore a deploy: migrations applied, feature flags set, on-call told.\n",
    ),
    "web--deploy-previews--2026-09-12": note_text(
        "Preview environments for pull requests",
        repo="web-app",
        body="## What\nEvery pull request gets a preview environment; the deploy takes "
        "about four minutes and the link is posted on the pull request.\n",
    ),
    "ops--friday-freeze--2026-08-03": note_text(
        "No production changes on Friday afternoons",
        type="decision",
        confidence="low",
        body="## What\nWe do not deploy to production after 14:00 on Fridays.\n",
    ),
    "billing--ledger-lock--2026-07-20": note_text(
        "Ledger writes take a row lock",
        type="gotcha",
        body="## What\nLedger writes lock the account row; a deploy during the nightly "
        "reconciliation waits for it.\n",
    ),
    "auth--token-ttl--2026-06-02": note_text(
        "Access tokens live fifteen minutes",
        type="reference",
        body="## What\nAccess tokens expire after fifteen minutes; refresh tokens after "
        "thirty days.\n",
    ),
}


def ask(root: Path, query: str, **options: object) -> RecallResult:
    return recall(root, RecallRequest(query=query, **options))  # type: ignore[arg-type]


@pytest.mark.parametrize("size", [1, 2, 3, 5, 10, 20])
def test_a_word_in_every_note_still_scores_above_zero(
    make_vault: Callable[..., Vault], size: int
) -> None:
    notes = {
        f"ops--runbook-{number}--2026-10-{number + 1:02d}": note_text(
            f"Runbook {number} for the deploy pipeline",
            body=f"## What\nStep {number} of the deploy pipeline runbook.\n",
        )
        for number in range(size)
    }
    vault = make_vault(notes)
    result = ask(vault.root, "deploy pipeline", explain=True, limit=size)
    assert len(result.hits) == size
    for hit in result.hits:
        data = hit.to_json(explain=True)
        assert data["score"] > 0, data  # was 0.0: the idf of a word in every note was 1e-6
        assert data["explain"]["bm25"] > 0
        assert all(term["score"] > 0 and term["idf"] > 0 for term in data["explain"]["terms"])


def test_the_only_note_of_a_one_note_vault_has_a_score_the_boosts_change(
    make_vault: Callable[..., Vault],
) -> None:
    vault = make_vault(
        {
            "billing--httpx-tests--2026-11-02": note_text(
                repo="payments-api", body="## What\nIntegration tests call the container.\n"
            )
        }
    )
    plain = ask(vault.root, "integration tests").hits[0]
    boosted = ask(vault.root, "integration tests", repo="payments-api").hits[0]
    other = ask(vault.root, "integration tests", repo="web-app").hits[0]
    assert plain.to_json()["score"] > 0
    assert boosted.to_json()["score"] > plain.to_json()["score"] > other.to_json()["score"]
    assert boosted.score == pytest.approx(plain.score * 1.15)  # repo_boost
    assert other.score == pytest.approx(plain.score * 0.95)  # other_repo_factor


def test_boosts_order_and_score_a_five_note_vault(make_vault: Callable[..., Vault]) -> None:
    vault = make_vault(DEPLOY_NOTES)
    # "deploy" is in four of the five notes: its BM25 idf is negative, FTS5's is 1e-6.
    result = ask(vault.root, "deploy", repo="web-app", explain=True)
    assert len(result.hits) == 4
    scores = {hit.id: hit.to_json(explain=True)["score"] for hit in result.hits}
    assert all(score > 0 for score in scores.values()), scores
    assert result.hits[0].id == "ops--deploy-checklist--2026-10-01"  # in its title
    for hit in result.hits:
        assert hit.boosts is not None
        assert hit.score == pytest.approx(hit.base_score * hit.boosts.total)
    # The repository boost and factor show in the scores, as a share of the plain score.
    plain = {hit.id: hit.score for hit in ask(vault.root, "deploy").hits}
    factors = {hit.id: round(hit.score / plain[hit.id], 6) for hit in result.hits}
    assert factors == {
        "web--deploy-previews--2026-09-12": 1.15,
        "ops--deploy-checklist--2026-10-01": 0.95,
        "ops--friday-freeze--2026-08-03": 1.0,
        "billing--ledger-lock--2026-07-20": 1.0,
    }


def test_the_note_about_the_query_beats_a_passing_mention_of_a_rarer_word(
    make_vault: Callable[..., Vault],
) -> None:
    notes = {
        "data--kafka-consumer-lag--2026-10-01": note_text(
            "Kafka consumer lag alerts",
            type="runbook",
            body="## What\nKafka consumer lag above 10k messages pages the data on-call.\n",
        ),
        "data--kafka-topic-names--2026-09-01": note_text(
            "Kafka topic names",
            body="## What\nTopics are named domain.entity.event in Kafka.\n",
        ),
        "data--consumer-group-ids--2026-08-01": note_text(
            "Consumer group ids carry the service name",
            body="## What\nEvery consumer group id starts with the service name.\n",
        ),
        "db--replica-lag--2026-07-01": note_text(
            "Read replicas can lag behind the primary",
            type="gotcha",
            body="## What\nReplica lag shows on the database dashboard; read your own "
            "writes from the primary.\n",
        ),
    }
    vault = make_vault(notes)
    # kafka, consumer and lag are each in two of the four notes (idf 0 for FTS5);
    # "dashboard" is in one, mentioned in passing by the replica note.
    hits = ask(vault.root, "kafka consumer lag dashboard").hits
    assert hits[0].id == "data--kafka-consumer-lag--2026-10-01", [h.id for h in hits]
    assert all(hit.score > 0 for hit in hits)


def test_the_scan_fallback_scores_a_small_vault_as_the_index_does(
    make_vault: Callable[..., Vault],
) -> None:
    vault = make_vault(DEPLOY_NOTES)
    queries = [
        "deploy",
        "deploy lock",
        "friday deploy production",
        "access tokens expire",
        "deploy/checklist.md",  # a path: a phrase, and the same phrase in files_touched
    ]
    indexed = {query: ask(vault.root, query, repo="payments-api") for query in queries}
    block_state_dir(vault.root)  # the index cannot be written
    for query in queries:
        scanned = ask(vault.root, query, repo="payments-api")
        assert scanned.engine == "scan"
        assert [h.id for h in scanned.hits] == [h.id for h in indexed[query].hits], query
        for by_scan, by_index in zip(scanned.hits, indexed[query].hits, strict=True):
            assert by_scan.score == pytest.approx(by_index.score, rel=1e-9), query


# --- A 3-note team vault beside a 500-note org vault -------------------------------

TEAM_NOTES = {
    "billing--canary-rollouts--2026-10-14": note_text(
        "Billing deploys go out as Argo canary rollouts",
        type="runbook",
        tags="[service/billing]",
        body="## What\nEvery billing-api deploy starts as a canary at 5 % with Argo "
        "Rollouts; promote it with `kubectl argo rollouts promote billing-api`.\n",
    ),
    "billing--invoice-immutable--2026-09-30": note_text(
        "Invoices are immutable once finalized",
        type="decision",
        tags="[service/billing]",
        body="## What\nA finalized invoice is never edited; a postgres trigger rejects "
        "the update and the fix is a credit note.\n",
    ),
    "team--standup-time--2026-09-01": note_text(
        "Standup is at 9:30",
        type="reference",
        tags="[service/billing]",
        body="## What\nThe billing team meets at 9:30 every weekday.\n",
    ),
}

ORG_BEST = "db--postgres-lock-timeout--2026-05-11"
VOCABULARY = """
    cache queue worker retry backoff cursor pagination header token session cookie
    schema column index metric dashboard alert trace span sentry budget quota batch
    cron export import csv parquet webhook signature gateway proxy certificate domain
    runner image layer registry module state plan apply secret flag toggle experiment
    replica failover backup restore snapshot vacuum analyze ranking analyzer tokenizer
""".split()  # noqa: SIM905 - a word list reads best as text


def _org_notes(count: int = 500) -> dict[str, str]:
    """Org-wide notes on many subjects; a few mention the team's words in passing."""
    rng = random.Random(7)
    notes = {}
    for number in range(count - 1):
        words = rng.sample(VOCABULARY, 8)
        mention = ""
        if number % 97 == 3:
            mention = " It was found during an Argo canary deploy."
        elif number % 89 == 5:
            mention = " The same happened to billing rollouts once."
        notes[f"org--{words[0]}-{words[1]}-{number}--2026-0{1 + number % 9}-1{number % 10}"] = (
            note_text(
                f"{words[0].capitalize()} {words[1]} {words[2]} notes {number}",
                tags="[pattern/testing]",
                date=f"2026-0{1 + number % 9}-1{number % 10}",
                body=f"## What\n{' '.join(words[2:])} {' '.join(rng.sample(VOCABULARY, 12))}."
                f"{mention}\n",
            )
        )
    notes[ORG_BEST] = note_text(
        "Postgres lock timeout during migrations",
        type="gotcha",
        tags="[tool/postgres]",
        date="2026-05-11",
        body="## What\nMigrations set `lock_timeout = 5s` so a postgres lock never blocks "
        "the API; a migration that times out is retried after the traffic peak.\n",
    )
    return notes


@pytest.fixture
def team_and_org(make_vault: Callable[..., Vault]) -> list[VaultRef]:
    team = make_vault(TEAM_NOTES)
    org = make_vault(_org_notes())
    return [VaultRef("team", team.root), VaultRef("org", org.root)]


def test_the_team_vaults_best_answer_is_not_buried_under_the_org_vaults(
    team_and_org: list[VaultRef],
) -> None:
    for order in (team_and_org, team_and_org[::-1]):
        result = recall_many(order, RecallRequest("argo canary rollouts for billing deploys"))
        ranked = list(zip(result.labels, (h.id for h in result.hits), strict=True))
        assert ranked[0] == ("team", "billing--canary-rollouts--2026-10-14"), ranked
        assert any(label == "org" for label, _ in ranked), "the org's mentions are listed too"


def test_the_org_vaults_best_answer_is_not_buried_under_the_team_vaults(
    team_and_org: list[VaultRef],
) -> None:
    for order in (team_and_org, team_and_org[::-1]):
        result = recall_many(order, RecallRequest("postgres lock timeout in migrations"))
        ranked = list(zip(result.labels, (h.id for h in result.hits), strict=True))
        assert ranked[0] == ("org", ORG_BEST), ranked
        team = [i for i, (label, _) in enumerate(ranked) if label == "team"]
        assert team, "the team note that mentions postgres is listed too"


def test_lore_recall_explains_the_shared_idf(
    team_and_org: list[VaultRef], isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    team, org = team_and_org
    (isolated_home / "config.toml").write_text(
        f'default = "team"\n[vaults.team]\npath = "{team.root}"\n'
        f'[vaults.org]\npath = "{org.root}"\n',
        encoding="utf-8",
    )
    assert main(["recall", "--json", "--explain", "argo", "canary", "rollouts"]) == 0
    data = json.loads(capsys.readouterr().out)
    first = data["results"][0]
    assert (first["vault"], first["id"]) == ("team", "billing--canary-rollouts--2026-10-14")
    # Every vault weighs a word alike: the idf of "canary" is the same in both.
    idf = {
        (item["vault"], term["term"]): term["idf"]
        for item in data["results"]
        for term in item["explain"]["terms"]
    }
    assert idf[("team", "canary")] == idf[("org", "canary")]
    assert main(["recall", "--explain", "argo", "canary", "rollouts"]) == 0
    assert "idf from all 503 notes of the 2 vaults searched" in capsys.readouterr().out


def test_a_vault_read_from_its_files_shares_the_statistics_too(
    team_and_org: list[VaultRef],
) -> None:
    queries = ["argo canary rollouts for billing deploys", "postgres lock timeout", "standup"]
    indexed = {query: recall_many(team_and_org, RecallRequest(query)) for query in queries}
    team = team_and_org[0].root
    block_state_dir(team)  # the team's index cannot be used
    for query in queries:
        scanned = recall_many(team_and_org, RecallRequest(query))
        assert scanned.engine == "scan"
        assert any("[team]" in notice for notice in scanned.notices)
        expected = [(h.id, pytest.approx(h.score, rel=1e-9)) for h in indexed[query].hits]
        assert [(h.id, h.score) for h in scanned.hits] == expected, query
