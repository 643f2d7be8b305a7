"""Issue 12's three examples, through the real curator on a real git vault.

Each example has an active note in the vault and a new note under review that the
old shingle and 75 %-overlap checks let through without a word; a consistent note on
the same subject next to each must stay quiet.
"""

from __future__ import annotations

from collections.abc import Callable

from lore.curator.run import curate
from lore.curator.target import Paths
from tests.curator.conftest import TODAY, check_bytes
from tests.support import Vault, note_text

KAFKA_ACTIVE = note_text(
    title="Kafka consumers commit offsets after processing, never before",
    tags="[tool/kafka, pattern/background-jobs, team/payments]",
    repo="payments-api",
    date="2025-04-02",
    body=(
        "## What\nKafka consumers commit offsets after processing, never before.\n\n"
        "## Why\nA consumer that committed first and then crashed lost the message for good; "
        "committing afterwards means a crash replays it, and the handlers are idempotent.\n"
    ),
)
KAFKA_NEW = note_text(
    title="Commit the Kafka offset only once the message has been handled",
    tags="[tool/kafka, team/payments]",
    repo="payments-api",
    body=(
        "## What\nCommit the Kafka offset only once the message has been handled.\n\n"
        "## Why\nIf the offset is committed first and the pod dies while handling, the message "
        "is never seen again. Handling twice is harmless because the consumers dedupe.\n"
    ),
)
DLQ_ACTIVE = note_text(
    title="Dead-letter topics alert after 10 messages",
    tags="[tool/kafka, tool/datadog, pattern/observability, team/platform]",
    repo="payments-api",
    date="2025-06-12",
    body=(
        "## What\nDead-letter topics alert after 10 messages.\n\n"
        "## How\nEach `*.dlq` topic gets a Datadog monitor on its message count from the shared "
        "terraform module; the alert goes to the owning team's channel, not to on-call.\n"
    ),
)
DLQ_NEW = note_text(
    title="The DLQ alert is deliberately not sensitive",
    tags="[tool/kafka, tool/datadog, team/platform]",
    repo="payments-api",
    body=(
        "## What\nThe DLQ alert fires once 100 messages are waiting, so a handful of poison "
        "messages after a deploy does not wake anyone.\n"
    ),
)
CURSOR_ACTIVE = note_text(
    title="Public list endpoints use cursor pagination, not offsets",
    tags="[service/billing, pattern/api-design, team/payments]",
    repo="payments-api",
    date="2025-05-08",
    body=(
        "## What\nPublic list endpoints use cursor pagination, not offsets.\n\n"
        "## Why\nOffsets skip or repeat invoices when new ones arrive between two page "
        "requests, and deep offsets make Postgres scan every skipped row.\n"
    ),
)
CURSOR_NEW = note_text(
    title="List endpoints page with offset and limit",
    tags="[service/billing, pattern/api-design]",
    repo="payments-api",
    body=(
        "## What\nList endpoints page with offset and limit.\n\n"
        "## How\n`GET /v1/invoices?offset=40&limit=20`; the response carries `total` so clients "
        "can draw page numbers.\n"
    ),
)


def _vault(make_vault: Callable[..., Vault], note_id: str, text: str) -> Vault:
    return make_vault({note_id: text})


def _family(result_findings: list, family: str) -> list:  # type: ignore[type-arg]
    return [f for f in result_findings if f.family == family]


def test_a_reworded_kafka_rule_is_a_near_duplicate(make_vault: Callable[..., Vault]) -> None:
    vault = _vault(make_vault, "kafka--commit-after-processing--2025-04-02", KAFKA_ACTIVE)
    result = check_bytes(
        vault, "notes/kafka--commit-once-handled--2026-11-10.md", KAFKA_NEW.encode()
    )
    near = [f for f in result.findings if f.rule == "duplicate/near"]
    assert len(near) == 1
    assert near[0].severity == "warning"
    assert "kafka--commit-after-processing--2025-04-02" in near[0].message
    assert "supersedes: [kafka--commit-after-processing--2025-04-02]" in (near[0].suggestion or "")
    assert _family(result.findings, "contradiction") == []
    assert result.exit_code == 0  # a warning: a person decides


def test_the_dlq_alert_at_100_messages_contradicts_10(make_vault: Callable[..., Vault]) -> None:
    vault = _vault(make_vault, "platform--dead-letter-topic-alerts--2025-06-12", DLQ_ACTIVE)
    result = check_bytes(vault, "notes/platform--dlq-alert--2026-11-10.md", DLQ_NEW.encode())
    found = _family(result.findings, "contradiction")
    assert [f.rule for f in found] == ["contradiction/different-number"]
    message = found[0].message
    assert "platform--dead-letter-topic-alerts--2025-06-12" in message
    assert '"The DLQ alert fires once 100 messages are waiting' in message  # this note's clause
    assert '"Dead-letter topics alert after 10 messages"' in message  # the other note's
    assert "100 messages against 10 messages" in message
    assert found[0].severity == "warning"
    assert _family(result.findings, "duplicate") == []


def test_offset_paging_contradicts_cursor_not_offsets(make_vault: Callable[..., Vault]) -> None:
    vault = _vault(make_vault, "billing--cursor-pagination--2025-05-08", CURSOR_ACTIVE)
    result = check_bytes(vault, "notes/billing--offset-paging--2026-11-10.md", CURSOR_NEW.encode())
    found = _family(result.findings, "contradiction")
    assert [f.rule for f in found] == ["contradiction/opposite-claim"]
    message = found[0].message
    assert "billing--cursor-pagination--2025-05-08" in message
    assert '"List endpoints page with offset and limit"' in message
    assert '"Public list endpoints use cursor pagination, not offsets"' in message
    assert "the other note rules out what this one asserts" in message


def test_consistent_notes_on_the_same_subjects_stay_quiet(make_vault: Callable[..., Vault]) -> None:
    vault = make_vault(
        {
            "kafka--commit-after-processing--2025-04-02": KAFKA_ACTIVE,
            "platform--dead-letter-topic-alerts--2025-06-12": DLQ_ACTIVE,
            "billing--cursor-pagination--2025-05-08": CURSOR_ACTIVE,
        }
    )
    agreeing = {
        # Refines the Kafka rule: why replays are safe.
        "kafka--dedupe-on-event-id--2026-11-10": note_text(
            title="Consumers dedupe on event_id in processed_events",
            tags="[tool/kafka, pattern/background-jobs, team/payments]",
            repo="payments-api",
            body="## What\nEach handled event's `event_id` goes into `processed_events` in the "
            "same transaction; a unique violation means it was handled before and is skipped.\n",
        ),
        # Another number for another thing, on the same subject.
        "platform--consumer-lag-pages--2026-11-10": note_text(
            title="Consumer lag pages on-call above 50,000 messages",
            tags="[tool/kafka, tool/datadog, pattern/observability, team/platform]",
            repo="payments-api",
            body="## What\nA consumer group whose lag stays above 50,000 messages for 15 minutes "
            "pages the on-call engineer of the owning team.\n",
        ),
        # States the same threshold in passing, as a runbook: it agrees.
        "platform--replaying-dead-letters--2026-11-10": note_text(
            title="Replay dead-lettered messages with replay_dlq once the cause is fixed",
            tags="[tool/kafka, team/platform]",
            repo="payments-api",
            type="runbook",
            body="## What\nWhen the dead-letter alert fires (ten messages parked), fix the "
            "handler first, then run `replay_dlq --topic <name>` from the ops pod.\n",
        ),
        # Complements the cursor rule.
        "billing--cursors-are-opaque--2026-11-10": note_text(
            title="List cursors are opaque and expire after 24 hours",
            tags="[service/billing, pattern/api-design]",
            repo="payments-api",
            body="## What\nThe `next_cursor` of list endpoints is an opaque token of the last "
            "row's sort key; clients must not build or parse it, and it stops working after "
            "24 hours.\n",
        ),
    }
    for note_id, text in agreeing.items():
        vault.write(note_id, text)
    paths = [str(vault.root / "notes" / f"{note_id}.md") for note_id in agreeing]
    result = curate(vault.root, Paths(paths), today=TODAY)
    judged = [
        f"{f.rule}: {f.message}"
        for f in result.findings
        if f.family == "contradiction" or f.rule == "duplicate/near"
    ]
    assert judged == []
