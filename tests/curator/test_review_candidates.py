"""Which notes the model review asks about: what similarity finds and what the note points at.

Through the real curator on a real vault (a pull request's range), with the model
review's requests caught by the stand-in HTTP provider of test_semantic (no model can be
reached from a test). The vault's notes are imported decision records: their ids carry
their titles, and the number each record had lives in the file its `source:` names.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from lore.note.records import record_number
from tests.curator.test_semantic import (
    Provider,
    candidate_ids,
    enable,
    propose,
    provider,
    review,
    user_prompt,
)
from tests.support import Vault, note_text

__all__ = ["provider"]  # the stand-in provider fixture, shared with test_semantic

SOURCE = "https://github.com/acme/payments-api/blob/4f2c1e0/docs/adr"
TAGS = "[tool/kafka, pattern/background-jobs]"


def adr(title: str, file: str, body: str, date: str, **extra: str) -> str:
    return note_text(
        title,
        type="decision",
        tags=TAGS,
        repo="payments-api",
        date=date,
        body=body,
        source=f"{SOURCE}/{file}",
        **extra,
    )


BROKER = "payments--jobs-go-through-a-message-broker--2021-03-01"
TABLE = "payments--jobs-live-in-a-postgres-table--2022-05-01"
RETRIES = "payments--retry-failed-jobs-three-times--2022-06-01"
TWIN = "payments--adopt-a-workflow-engine--2022-07-01"
SCHEMA = "payments--the-job-schema-lives-in-one-file--2022-08-01"
NEW = "payments--adopt-a-workflow-engine--2024-02-01"
VAULT = {
    BROKER: adr(
        "Jobs go through a message broker",
        "0007-jobs-go-through-a-message-broker.md",
        "## What\nBackground jobs are published to RabbitMQ and consumed by the workers.\n",
        "2021-03-01",
    ),
    TABLE: adr(
        "Jobs live in a Postgres table",
        "0009-jobs-live-in-a-postgres-table.md",
        "## What\nBackground jobs are rows of one table; a worker locks a row to take it.\n",
        "2022-05-01",
        supersedes=f"[{BROKER}]",
    ),
    RETRIES: adr(
        "Retry failed jobs three times",
        "0010-retry-failed-jobs-three-times.md",
        "## What\nA failed background job is retried three times, then parked for a person.\n",
        "2022-06-01",
    ),
    TWIN: adr(
        "Adopt a workflow engine",
        "0011-adopt-a-workflow-engine.md",
        "## What\nThe reporting team evaluates Temporal for nightly exports.\n",
        "2022-07-01",
    ),
    SCHEMA: adr(
        "The job schema lives in one file",
        "0012-the-job-schema-lives-in-one-file.md",
        "## What\nEvery job's payload is declared in jobs/schema.py.\n",
        "2022-08-01",
        files_touched="[jobs/schema.py]",
    ),
}
NEW_NOTE = adr(
    "Adopt a workflow engine",
    "0020-adopt-a-workflow-engine.md",
    "## What\nLong-running business processes run as Temporal workflows; a failed step is "
    "retried three times, then parked for a person. This supersedes ADR 7.\n",
    "2024-02-01",
    files_touched="[jobs/schema.py]",
)


@pytest.mark.parametrize(
    ("note_id", "source", "number"),
    [
        ("acme--use-kafka--2021-01-01", f"{SOURCE}/0015-use-kafka.md", 15),
        ("forms--remove-the-api--2024-01-01", f"{SOURCE}/ADR045-remove-forms-api.md", 45),
        ("hydra--local-state--2023-04-26", f"{SOURCE}/2023-04-26_023-local-state.md", 23),
        ("arachne--adr-012-config--2020-01-01", None, 12),  # the id's own number
        ("gsp--use-oauth2--2020-01-01", f"{SOURCE}/use-oauth2.md", None),
        ("blog--a-post--2020-01-01", "https://example.com/2019/10/a-post/", None),
    ],
)
def test_a_note_stands_for_the_record_its_id_or_its_source_file_numbers(
    note_id: str, source: str | None, number: int | None
) -> None:
    assert record_number(note_id, source) == number


def test_the_model_is_asked_about_what_the_note_points_at_then_what_is_alike(
    make_vault: Callable[..., Vault], provider: Provider, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ "Supersedes ADR 7" points at a record already replaced: the note that replaced it
    is asked about instead; the same title and a shared file point at two more; and
    one note found by likeness fills the rest (`max_related = 1`)."""
    monkeypatch.setenv("LORE_TEST_SEMANTIC_KEY", "test-key")
    vault = make_vault(VAULT)
    enable(vault, provider, max_related=1)
    provider.reply = lambda prompt: {"verdicts": []}  # broken on purpose: one call is enough
    propose(vault, {NEW: NEW_NOTE})
    review(vault)
    (request,) = provider.requests
    asked = candidate_ids(user_prompt(request))
    assert asked[:3] == [TABLE, TWIN, SCHEMA]  # pointed at: by number (and on), title, file
    assert BROKER not in asked  # replaced: never shown to the model
    assert len(asked) == 4 and asked[3] == RETRIES  # the one most alike of the rest


def test_a_record_number_names_the_note_whose_source_has_it(
    make_vault: Callable[..., Vault], provider: Provider, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The rules read the number too: "supersedes ADR 9" names the imported record 9."""
    monkeypatch.setenv("LORE_TEST_SEMANTIC_KEY", "test-key")
    vault = make_vault(VAULT)
    propose(vault, {NEW: NEW_NOTE.replace("ADR 7", "ADR 9")})
    found = [f for f in review(vault).findings if f.rule == "lifecycle/may-supersede"]
    named = [f for f in found if TABLE in f.message]
    assert len(named) == 1 and "ADR 9" in named[0].message
    assert f"supersedes: [{TABLE}]" in (named[0].suggestion or "")


def test_max_related_is_honoured_past_the_notes_the_rules_judge(
    make_vault: Callable[..., Vault], provider: Provider, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The rules judge each note against its 8 most alike (`MAX_CANDIDATES`); the model
    review asks about as many as `max_related` says (docs/curator.md: 0 to 50), the
    request's token budget permitting. Twelve short notes on one subject, all alike."""
    monkeypatch.setenv("LORE_TEST_SEMANTIC_KEY", "test-key")
    topics = ["orders", "invoices", "refunds", "payouts", "ledgers", "receipts", "disputes"]
    topics += ["coupons", "carts", "wallets", "fees", "taxes"]
    notes = {
        f"payments--retry-{topic}-jobs--2022-0{1 + n % 9}-01": note_text(
            f"Retry {topic} jobs",
            type="decision",
            tags=TAGS,
            repo="payments-api",
            date=f"2022-0{1 + n % 9}-01",
            body=f"## What\nFailed {topic} background jobs are retried with backoff by the "
            "workers, three times, then parked on the dead-letter queue.\n",
        )
        for n, topic in enumerate(topics)
    }
    new = "payments--retry-background-jobs--2024-02-01"
    text = note_text(
        "Retry background jobs",
        type="decision",
        tags=TAGS,
        repo="payments-api",
        date="2024-02-01",
        body="## What\nFailed background jobs are retried with backoff by the workers, "
        "five times, then parked on the dead-letter queue.\n",
    )
    asked = []
    for related in (8, 11):
        vault = make_vault(notes)
        enable(vault, provider, max_related=related)
        provider.requests.clear()
        provider.reply = lambda prompt: {"verdicts": []}
        propose(vault, {new: text})
        review(vault)
        (request,) = provider.requests
        asked.append(candidate_ids(user_prompt(request)))
    assert len(asked[0]) == 8
    assert len(asked[1]) == 11  # it was 8 whatever max_related said
    assert set(asked[0]) <= set(asked[1])
