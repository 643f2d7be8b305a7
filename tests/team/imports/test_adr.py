"""`lore import adr --dry-run --json`: every format, supersession from either side, the contract.

The ADRs are the fixtures of tests/fixtures/import/adr (see its README for the public
formats they follow), committed in a code repository with a GitHub origin.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from lore.team.imports.adr_parse import parse_adr, parse_date
from tests.support import git
from tests.team.imports.conftest import frontmatter, note_by_source, run_import, skip_reason

DRY = ("--dry-run", "--json")


def dry_run(
    capsys: pytest.CaptureFixture[str], checkout: Path, *paths: Path, extra: tuple[str, ...] = ()
) -> dict:
    code, data, out, err = run_import(
        capsys, "adr", *map(str, paths), "--vault", str(checkout), *DRY, *extra
    )
    assert data is not None, (code, out, err)
    assert code in (0, 1), err
    return data


def test_the_json_contract_is_exactly_the_documented_shape(
    code_repo: Callable[..., Path], checkout: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = code_repo("adr/nygard", "payments-api")
    data = dry_run(capsys, checkout, repo / "doc" / "adr")
    assert set(data) == {"version", "notes", "skipped"} and data["version"] == 1
    assert data["notes"] and data["skipped"]
    for note in data["notes"]:
        assert set(note) == {"id", "source", "text", "findings"}
        assert note["text"].startswith("---\n") and f"notes/{note['id']}.md"
        for finding in note["findings"]:
            assert set(finding) == {"rule", "severity", "path", "line", "message", "suggestion"}
    for skip in data["skipped"]:
        assert set(skip) == {"source", "reason"}


def test_nygard_and_adr_tools(
    code_repo: Callable[..., Path], checkout: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = code_repo("adr/nygard", "payments-api")
    data = dry_run(capsys, checkout, repo / "doc" / "adr")
    pooled = note_by_source(data, "0003-pool-ledger-connections-through-pgbouncer.md")
    assert pooled["id"] == "payments-api--pool-ledger-connections-through-pgbouncer--2023-06-01"
    fields = frontmatter(pooled["text"])
    assert fields["title"] == "Pool ledger connections through PgBouncer"  # no "3. "
    assert fields["type"] == "decision" and fields["confidence"] == "high"
    assert fields["date"] == "2023-06-01" and fields["repo"] == "payments-api"
    commit = git(repo, "rev-parse", "HEAD")
    assert fields["source"] == (
        f"https://github.com/acme/payments-api/blob/{commit}/doc/adr/"
        "0003-pool-ledger-connections-through-pgbouncer.md"
    )
    # "Superceded by" in the old ADR and "Supercedes" in the new one (adr-tools' spelling).
    assert fields["supersedes"] == "[payments-api--store-ledger-entries-in-postgresql--2023-02-14]"
    body = pooled["text"].split("---\n", 2)[2]
    assert body.startswith(
        "## What\nLedger workers connect to PostgreSQL through PgBouncer in transaction pooling mode."
    )
    assert "## Why\nAt the spring peak" in body
    assert "```" not in body and "| setting" not in body and "pool_mode" not in body
    assert "tool/pgbouncer" in fields["tags"] and "tool/postgres" in fields["tags"]
    # "Amends" is a related link, never `supersedes`.
    amends = note_by_source(data, "0004-retry-card-captures-with-backoff.md")
    assert "supersedes" not in frontmatter(amends["text"])
    assert amends["text"].rstrip().endswith(f"## Related\n[[{pooled['id']}]]")
    assert "backoff.png" not in amends["text"]  # images are left out
    assert "index page" in skip_reason(data, "doc/adr/README.md")
    assert "template" in skip_reason(data, "doc/adr/template.md")
    assert skip_reason(data, "0005-use-graphql-for-the-partner-api.md").startswith("rejected")


def test_madr_two_three_and_four(
    code_repo: Callable[..., Path], checkout: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = code_repo("adr/madr", "payments-api")
    data = dry_run(capsys, checkout, repo / "docs")
    madr2 = frontmatter(note_by_source(data, "0001-use-markdown-any-decision-records.md")["text"])
    assert madr2["date"] == "2022-03-01" and madr2["confidence"] == "high"  # `* Date:`, `* Status:`
    proposed = frontmatter(note_by_source(data, "0003-cache-product-search-results.md")["text"])
    assert proposed["confidence"] == "low"
    kafka = note_by_source(data, "0004-move-background-jobs-to-kafka-consumers.md")
    # Only the older ADR says it (frontmatter `status: superseded by [ADR-0004](…)`).
    assert (
        frontmatter(kafka["text"])["supersedes"]
        == "[payments-api--run-background-jobs-on-celery--2022-05-10]"
    )
    # MADR's outcome as its authors meant it: the chosen option is the decision, "because"
    # the reason, "Good, because" a reason too and "Bad, because" a gotcha.
    assert (
        kafka["text"]
        .split("## What\n", 1)[1]
        .startswith(
            "Move background jobs to Kafka consumers: Kafka consumers with a dead-letter topic.\n"
        )
    )
    assert (
        kafka["text"]
        .split("## Why\n", 1)[1]
        .startswith(
            "Chosen because a failed over broker loses nothing and several services read the same "
            "topic. Celery lost jobs when Redis failed over"
        )
    )
    assert "- Replaying a topic rebuilds a read model." in kafka["text"].split("## Why\n", 1)[1]
    assert "## Gotchas\nEvery consumer must be idempotent.\n" in kafka["text"]
    assert "Confirmation" not in kafka["text"] and "contract test" not in kafka["text"]
    assert skip_reason(data, "0005-use-soap-for-the-bank-gateway.md").startswith("deprecated")
    assert "template" in skip_reason(data, "adr-template.md")
    assert "index page" in skip_reason(data, "docs/decisions/index.md")


def test_an_adr_without_a_date_gets_gits_first_record_never_a_made_up_one(
    code_repo: Callable[..., Path],
    checkout: Path,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    repo = code_repo("adr/madr", "payments-api")
    data = dry_run(capsys, checkout, repo / "docs")
    undated = frontmatter(note_by_source(data, "0006-keep-money-as-integer-minor-units.md")["text"])
    assert undated["date"] == "2026-11-01"  # the fixture commit's date (tests/support.py)
    assert undated["confidence"] == "medium"  # no status at all
    # Outside git, with no date in the file: skipped, and said why.
    loose = tmp_path / "loose"
    loose.mkdir()
    (loose / "0001-x.md").write_text(
        "# 1. Use X\n\n## Status\n\nAccepted\n\n## Decision\n\nWe use X for everything.\n"
    )
    data = dry_run(capsys, checkout, loose, extra=("--repo", "payments-api"))
    assert data["notes"] == []
    assert skip_reason(data, "0001-x.md").startswith("no date")


def test_log4brains(
    code_repo: Callable[..., Path], checkout: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = code_repo("adr/log4brains", "web-app")
    data = dry_run(capsys, checkout, repo / "docs" / "adr")
    debezium = note_by_source(data, "20240310-publish-order-events-with-debezium.md")
    fields = frontmatter(debezium["text"])
    # Both sides say it: the old one's status line and the new one's `## Links`.
    assert (
        fields["supersedes"]
        == "[web-app--publish-order-events-with-a-transactional-outbox--2024-01-05]"
    )
    # "Refined by" is a related link; `Tags: kafka, postgres` map through the taxonomy.
    assert (
        "## Related\n[[web-app--partition-order-events-by-customer--2024-04-02]]"
        in debezium["text"]
    )
    assert "tool/kafka" in fields["tags"] and "tool/postgres" in fields["tags"]
    draft = frontmatter(
        note_by_source(data, "20240402-partition-order-events-by-customer.md")["text"]
    )
    assert draft["confidence"] == "low" and draft["date"] == "2024-04-02"
    assert skip_reason(data, "20240415-drop-the-read-replica.md").startswith("rejected")
    assert "template" in skip_reason(data, "docs/adr/template.md")


def test_one_folder_per_adr(
    code_repo: Callable[..., Path], checkout: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = code_repo("adr/folders", "web-app")
    data = dry_run(capsys, checkout, repo)  # walked recursively from the repository's root
    helm = note_by_source(data, "0001-deploy-with-helm/README.md")
    assert frontmatter(helm["text"])["title"] == "Deploy with Helm"  # no "ADR-0001: "
    argo = frontmatter(note_by_source(data, "0003-deploy-with-argo-cd/README.md")["text"])
    assert argo["supersedes"] == f"[{helm['id']}]"  # "We supersede ADR 1 with the current ADR."
    regions = note_by_source(data, "0002-run-one-cluster-per-region/README.md")
    assert frontmatter(regions["text"])["date"] == "2021-10-04"  # from a `| Date |` table row
    # "Parts of this ADR were superseded by [ADR-0004]": related, not `supersedes`.
    namespaces = note_by_source(data, "0004-give-each-team-a-namespace/README.md")
    assert f"## Related\n[[{namespaces['id']}]]" in regions["text"]
    assert "supersedes" not in frontmatter(namespaces["text"])
    digests = note_by_source(data, "0005-pin-base-images/index.md")
    assert frontmatter(digests["text"])["title"] == "Pin base images by digest"
    assert "README.md is its ADR" in skip_reason(data, "0002-run-one-cluster-per-region/index.md")
    assert "index page" in skip_reason(data, "docs/architecture/decisions/README.md")
    assert not any("diagram.png" in s["source"] for s in data["skipped"])


@pytest.mark.parametrize(
    ("status", "newer_says", "expected"),
    [
        ("Superseded by [ADR-0002](0002-new.md)", "", "supersedes"),
        ("Accepted", "Supersedes ADR 1", "supersedes"),
        ("Accepted", "We supersede ADR 1 with the current ADR.", "supersedes"),
        ("Replaced by [2. New](0002-new.md)", "", "supersedes"),
        ("Superseded by [New](0002-new.md)", "", "supersedes"),  # the title only
        ("Superceeded by [ADR002](/decisions/0002-new/)", "", "supersedes"),  # a site's link
        ("⌛️ Superseded [0002](0002-new.md)", "", "supersedes"),
        (
            "Superseded by [ADR 2](https://github.com/acme/x/blob/main/adr/0002-new.md)",
            "",
            "supersedes",
        ),
        ("Accepted", "Note: this ADR supersedes some aspects of [ADR-1](0001-old.md).", "related"),
        ("Partly superseded by [ADR 2](0002-new.md)", "", "related"),
        ("Accepted", "This ADR in part supersedes [0001](0001-old.md).", "related"),
        ("Amended by [2. New](0002-new.md)", "", "related"),
        ("Accepted", "Clarifies [1. Old](0001-old.md)", "related"),
    ],
)
def test_supersession_wordings_from_either_side(
    status: str,
    newer_says: str,
    expected: str,
    tmp_path: Path,
    checkout: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    folder = tmp_path / "adr"
    folder.mkdir()
    (folder / "0001-old.md").write_text(
        f"# 1. Old\n\nDate: 2024-01-01\n\n## Status\n\n{status}\n\n## Decision\n\nWe use the old way.\n"
    )
    (folder / "0002-new.md").write_text(
        f"# 2. New\n\nDate: 2024-02-01\n\n## Status\n\nAccepted\n\n{newer_says}\n\n"
        "## Decision\n\nWe use the new way for everything.\n"
    )
    data = dry_run(capsys, checkout, folder, extra=("--repo", "payments-api"))
    old, new = note_by_source(data, "0001-old.md"), note_by_source(data, "0002-new.md")
    if expected == "supersedes":
        assert frontmatter(new["text"])["supersedes"] == f"[{old['id']}]"
        assert "## Related" not in old["text"] + new["text"]
    else:
        assert "supersedes" not in frontmatter(new["text"])
        assert f"[[{old['id']}]]" in new["text"] or f"[[{new['id']}]]" in old["text"]


@pytest.mark.parametrize(
    ("heading", "title", "number"),
    [
        ("# 12. Use Kafka", "Use Kafka", 12),
        ("# ADR-0012: Use Kafka", "Use Kafka", 12),
        ("# ADR 12 - Use Kafka", "Use Kafka", 12),
        ("# [ADR-012] Use Kafka", "Use Kafka", 12),
        ("# 0012 Use Kafka", "Use Kafka", 12),
        ("# 3 replicas for Kafka", "3 replicas for Kafka", 12),  # a number that is the title's
    ],
)
def test_the_title_loses_its_numbering_only(heading: str, title: str, number: int) -> None:
    record = parse_adr(f"{heading}\n\n## Decision\n\nWe do it.\n", "0012-use-kafka.md")
    assert not isinstance(record, str)
    assert (record.title, record.number) == (title, number)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2016-02-12", "2016-02-12"),
        ("2016/02/12", "2016-02-12"),
        ("12 February 2016", "2016-02-12"),
        ("February 12th, 2016", "2016-02-12"),
        ("2025-03-04T10:15:00+00:00", "2025-03-04"),
        ("12/02/2016", None),  # day and month cannot be told apart
        ("{YYYY-MM-DD when the decision was last updated}", None),
    ],
)
def test_dates_are_read_only_when_unambiguous(text: str, expected: str | None) -> None:
    assert parse_date(text) == expected


def test_an_unreadable_file_is_skipped_with_a_reason(
    tmp_path: Path, checkout: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "adr"
    folder.mkdir()
    (folder / "0001-latin1.md").write_bytes(
        "# 1. Caf\xe9\n\n## Decision\n\nOui.\n".encode("latin-1")
    )
    (folder / "0002-bad-yaml.md").write_text(
        "---\nstatus: [accepted\ntitle: ADR-002: Run the nightly job at 03:00\ndate: 2022-01-03"
        "\n---\n# Two\n\n## Decision\n\nWe do.\n"
    )  # not YAML, but a reader sees its fields: it is read line by line, and says so
    data = dry_run(capsys, checkout, folder, extra=("--repo", "payments-api"))
    assert skip_reason(data, "0001-latin1.md") == "not UTF-8 text"
    fields = frontmatter(note_by_source(data, "0002-bad-yaml.md")["text"])
    assert fields["title"] == "Run the nightly job at 03:00" and fields["date"] == "2022-01-03"


def test_a_frontmatter_title_names_the_record_and_a_first_heading_is_a_section() -> None:
    """Sites that render an ADR folder (Jekyll, Docusaurus) keep the title in the
    frontmatter and open the body with a `# Abstract` section: that is no title."""
    text = "---\ntitle: Realm description\nstatus: Accepted\n---\n\n# Abstract\n\nWhat a realm is.\n\n## Decision\n\nDescribe realms in one document.\n"
    record = parse_adr(text, "ADR-110-realm-description.md")
    assert not isinstance(record, str)
    assert (record.title, record.number) == ("Realm description", 110)
    plain = parse_adr("# Abstract\n\n## Decision\n\nDescribe realms.\n", "ADR-111-x.md")
    assert not isinstance(plain, str)
    assert plain.title == "Abstract"  # with no frontmatter title, the heading is all there is
