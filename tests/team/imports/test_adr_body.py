"""An ADR's sections as a note, mapped as its authors meant them (lore.team.imports.adr_body).

Each format's shape follows its template: Michael Nygard's ("Documenting Architecture
Decisions": Status, Context, Decision, Consequences), MADR 2–4 (adr/madr's templates:
Decision Outcome with "Chosen option: …, because …", Positive/Negative Consequences in
MADR 2, a `### Consequences` list of "Good, because" / "Bad, because" in MADR 3–4) and
the Y-statement (Zdun et al.). The records are written for these tests.
"""

from __future__ import annotations

import pytest

from lore.team.imports.adr_body import note_body
from lore.team.imports.adr_parse import AdrRecord, parse_adr


def record(text: str, name: str = "0007-x.md") -> AdrRecord:
    parsed = parse_adr(text, name)
    assert not isinstance(parsed, str), parsed
    return parsed


NYGARD = """\
# 7. Pool ledger connections through PgBouncer

Date: 2023-06-01

## Status

Accepted

## Context

Each worker opened its own connection and the primary ran out of slots.

## Decision

We will pool ledger connections through PgBouncer in transaction mode.

## Consequences

Prepared statements no longer work across transactions.
Connections to the primary drop from 400 to 40.
"""


def test_nygard_consequences_are_kept_as_gotchas() -> None:
    body = note_body(record(NYGARD), 200)
    assert body.what == "We will pool ledger connections through PgBouncer in transaction mode."
    assert body.why.startswith("Each worker opened its own connection")
    assert body.gotchas.startswith("Prepared statements no longer work across transactions.")


MADR2 = """\
# Use Redis for the read cache

* Status: accepted
* Date: 2021-03-04

## Context and Problem Statement

Catalogue pages query the database on every view.

## Decision Outcome

Chosen option: "a Redis cluster with a five-minute TTL", because it is already run for Sidekiq.

### Positive Consequences

* Page loads stop hitting the primary.

### Negative Consequences

* A changed price can show for five minutes.
"""


def test_madr_two_outcome_and_its_positive_and_negative_consequences() -> None:
    body = note_body(record(MADR2), 200)
    assert body.what == "Use Redis for the read cache: a Redis cluster with a five-minute TTL."
    assert body.why.startswith("Chosen because it is already run for Sidekiq.")
    assert "Page loads stop hitting the primary." in body.why
    assert body.gotchas == "A changed price can show for five minutes."


MADR4_REASONS = """\
---
status: accepted
date: 2024-02-01
---
# Use dashes in file names

## Context and Problem Statement

How are decision files named?

## Decision Outcome

Chosen option: "`NNNN-title-with-dashes.md`", because

* the number orders the records
* no spaces is easier on the command line

### Consequences

* Good, because links never need escaping.
* Bad, because renaming a record breaks links to it.

### Confirmation

A lint checks every name.
"""


def test_madr_reasons_after_because_and_good_and_bad_consequences() -> None:
    body = note_body(record(MADR4_REASONS), 200)
    assert body.what == "Use dashes in file names: `NNNN-title-with-dashes.md`."
    assert body.why.startswith(  # the reasons listed after "because", in their own words
        "the number orders the records\n- no spaces is easier on the command line\n"
    )
    assert "Links never need escaping." in body.why
    assert body.gotchas == "Renaming a record breaks links to it."
    assert "lint" not in body.why + body.what + body.gotchas  # Confirmation is not kept


Y_STATEMENT = """\
# 3. Session storage

Date: 2022-09-12

## Decision

In the context of the checkout service, facing lost carts when a node restarts, we decided
for storing sessions in Redis and neglected sticky sessions, to achieve restarts without
lost carts, accepting one more service to run, because the team already operates Redis.
"""


def test_a_y_statement_is_split_into_what_why_and_gotchas() -> None:
    body = note_body(record(Y_STATEMENT, "0003-session-storage.md"), 200)
    assert body.what == (
        "We decided for storing sessions in Redis and neglected sticky sessions, to achieve "
        "restarts without lost carts."
    )
    assert body.why == (
        "In the context of the checkout service, facing lost carts when a node restarts. "
        "Because the team already operates Redis."
    )
    assert body.gotchas == "Accepting one more service to run."


@pytest.mark.parametrize(
    ("text", "what", "from_where"),
    [
        (  # fac: Context and Consequences only; the title states the decision
            "# 4. Use Django REST framework for the API\n\nDate: 2021-01-01\n\n## Context\n\n"
            "We need an API.\n\n## Consequences\n\nSerializers are reused.\n",
            "Use Django REST framework for the API.",
            "its title",
        ),
        (  # nats, decentraland: a design record with an overview
            "# JetStream JSON API Design\n\n## Context\n\nClients need one API.\n\n## Overview\n\n"
            "Every request and response is a JSON document with a type field.\n",
            "Every request and response is a JSON document with a type field.",
            "its summary",
        ),
        (  # ds-find-caselaw-docs: the decision's text under ### Solution
            "# 23. StyleLint configuration\n\n## Context\n\n### Problem\n\nStyles drift.\n\n"
            "## Decision\n\n### Solution\n\nWe lint every stylesheet with StyleLint.\n",
            "We lint every stylesheet with StyleLint.",
            "",
        ),
        (  # search-api: no section has a role; the first one with prose speaks
            "# Decision record: Upgrade to Elasticsearch 6\n\n## High-level migration plan\n\n"
            "We run both clusters side by side and switch reads last.\n",
            "We run both clusters side by side and switch reads last.",
            "its first section",
        ),
    ],
)
def test_a_record_without_a_decision_section_is_read_as_written(
    text: str, what: str, from_where: str
) -> None:
    parsed = record(text)
    body = note_body(parsed, 200)
    assert body.what == what
    assert parsed.decision_from.startswith(from_where)
    if from_where:
        assert body.notes[0].startswith(f"## What is {from_where}")
