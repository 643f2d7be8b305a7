"""How one ADR names another: each rule a principle, each principle rows from unrelated sets.

The wordings are written for these tests in the shapes real public ADR sets use (the sets
of eval/curator/real/manifest.toml, measured by eval/imports/run_adr_import_eval.py);
the repository in each row's comment is where the shape was seen.
"""

from __future__ import annotations

import pytest

from lore.team.imports.adr_links import AdrLink, field_links, record_links
from lore.team.imports.adr_parse import parse_adr, undecorated


def kinds(links: list[AdrLink]) -> list[tuple[str, int | None]]:
    return [(link.kind, link.number) for link in links]


def prose(sentence: str) -> list[tuple[str, int | None]]:
    return kinds(record_links("", "", [sentence], {}, ""))


def status(line: str) -> list[tuple[str, int | None]]:
    return kinds(record_links(line, "", [], {}, ""))


# Principle: a status line that says the record no longer holds names what replaced it,
# whatever the verb: superseded, replaced, deprecated by or in favour of, a "see" pointer.
STATUS_ROWS = [
    ("Superseded by [ADR 14](0014-tagging.md)", [("superseded-by", 14)]),  # content-publisher
    ("Deprecated by [Partial Set Security](adr-015-pss.md)", [("superseded-by", None)]),  # cosmos
    ("Deprecated (Replaced by ADR #0012)", [("superseded-by", 12)]),  # claim-payments
    ("Superseded: 2019-12-19 by [ADR 14](0014-x.md)", [("superseded-by", 14)]),
    ("Superseded. See [this one](../024-use-hhs.md)", [("superseded-by", None)]),  # by its path
    ("Deprecated - See ADR 017", [("superseded-by", 17)]),  # OPRE-OPS, after a struck status
    (
        "Superseded by [AD045: Remove forms-api](ADR045-remove-forms-api.md)",
        [("superseded-by", 45)],
    ),
]


@pytest.mark.parametrize(("line", "expected"), STATUS_ROWS)
def test_a_status_line_names_the_record_that_replaced_it(line: str, expected: list) -> None:
    assert [k for k, _ in status(line)] == [k for k, _ in expected]
    assert [n for _, n in status(line)][:1] == [n for _, n in expected][:1]


# Principle: a replacement that is denied is none.
DENIED_ROWS = [
    "While this does not directly supersede [ADR23](/adr/23), it paves the way.",  # hydra
    "This proposal doesn't replace [ADR 4](0004-queue.md); both hold.",
    "It no longer supersedes [ADR-9](0009-cache.md) after the revision.",
]


@pytest.mark.parametrize("sentence", DENIED_ROWS)
def test_a_denied_replacement_is_no_link(sentence: str) -> None:
    assert prose(sentence) == []


# Principle: replacing a part of a record (a metric it sets, the limits specified in it,
# its row of a table) amends it: a Related link, never `supersedes`.
PART_ROWS = [
    ("Note: This metric superceeded by [ADR23](/adrs/ADR023-idle-cpu/)", "related"),  # paas
    ("These changes supersede the size limits specified in [ADR-45](/adr/ADR-45).", "related"),
    ("This replaces ADR-0036's row of its write-ordering table.", "related"),  # epr-re-ex
    ("The protocol replaces the implementation described in ADR-137.", "related"),
    ("This decision is superseded by [ADR 5](0005-x.md).", "superseded-by"),  # the record
    ("We supersede [ADR 18](/adr/18) with the current ADR.", "supersedes"),  # hydra
    ("Note: This has been superseded by [ADR-013](adr-013-x.md).", "superseded-by"),  # search
]


@pytest.mark.parametrize(("sentence", "kind"), PART_ROWS)
def test_replacing_a_part_of_a_record_is_related(sentence: str, kind: str) -> None:
    found = prose(sentence)
    assert found and all(k == kind for k, _ in found), found


def test_a_list_after_a_part_shares_its_verdict() -> None:
    assert prose("These supersede the limits specified in [ADR-45](a.md) and [ADR-51](b.md).") == [
        ("related", 45),
        ("related", 51),
    ]


# Principle: "[ADR-7] which supersedes this decision" names the newer record.
@pytest.mark.parametrize(
    "sentence",
    [
        "The strategy was revisited in [ADR-7] which supersedes this decision.",  # email-alert
        "See ADR 12, which now replaces this record.",
        "[ADR 3](0003-x.md) that supersedes this is the current one.",
    ],
)
def test_a_reference_that_supersedes_this_is_the_newer_record(sentence: str) -> None:
    assert [k for k, _ in prose(sentence)] == ["superseded-by"]


# Principle: metadata fields say it too, on either side, as lists, numbers or file names.
FIELD_ROWS = [
    ({"superseded_by": ["0009"]}, [("superseded-by", 9)]),  # konflux
    ({"replaced_by": "scs-0002-v2-docs.md"}, [("superseded-by", None)]),  # sovereign cloud
    ({"supersedes": "0015, 0016"}, [("supersedes", 15), ("supersedes", 16)]),  # konflux
    ({"supplements": "scs-0100-v3.md"}, [("related", None)]),  # sovereign cloud
    ({"amends": ["[ADR 4](0004-x.md)"]}, [("related", 4)]),
    ({"superseded by": "-"}, []),  # univention: nothing yet
]


@pytest.mark.parametrize(("fields", "expected"), FIELD_ROWS)
def test_metadata_fields_link_records(fields: dict, expected: list) -> None:
    assert kinds(field_links(fields)) == expected


def test_a_deprecation_note_points_at_what_replaced_it() -> None:
    """decentraland keeps a `deprecated-reason` and a "Deprecation Reason" section."""
    links = record_links(
        "Deprecated",
        "",
        [],
        {"deprecated-reason": "The old client is gone; it was reimplemented. See ADR-291."},
        "Replaced by the explorer's plugin system. Refer to [ADR-295: Realms](/adr/ADR-295).",
    )
    assert {link.number for link in links} == {291, 295}
    assert all(link.kind == "superseded-by" for link in links)


def test_what_prose_implies_is_weaker_than_what_a_status_states() -> None:
    text = (
        "# 12. Completion selection\n\nDate: 2024-01-02\n\n## Status\n\nAccepted\n\n## Decision\n\n"
        "The behavior supersedes that description in [ADR-0015](0015-x.md).\n"
    )
    record = parse_adr(text, "0012-completion-selection.md")
    assert not isinstance(record, str)
    [link] = record.links
    assert link.kind == "related" and link.stated is False


@pytest.mark.parametrize(
    ("title", "name"),
    [
        ("Handling FQDNs {#adr_0011}", "Handling FQDNs"),  # wbaas-deploy
        ("Architecture Decision Record: Use ADRs", "Use ADRs"),  # arachne
        (
            "Decision record: Removing Sidekiq from queue consumers",
            "Removing Sidekiq from queue consumers",
        ),
        ("OUTDATED Use DynamoDB as our Datastore", "Use DynamoDB as our Datastore"),  # cmcs
        ("Use Kafka [Superseded by ADR-0012]", "Use Kafka"),
        ("~~Cache in Redis~~ (deprecated)", "Cache in Redis"),
        ("Deprecated TLS Versions", "Deprecated TLS Versions"),  # a title about deprecation
        ("Security Groups Decision Record", "Security Groups"),  # gsp
        ("Use Kafka - Superseded by ADR 12", "Use Kafka"),
        ("— OUTDATED Use protobufs for submission data", "Use protobufs for submission data"),
    ],
)
def test_titles_lose_what_was_put_around_them(title: str, name: str) -> None:
    assert undecorated(title) == name
