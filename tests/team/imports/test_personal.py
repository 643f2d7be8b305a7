"""`lore import foldcrumbs` and `lore import basic-memory`: other tools' stores, mapped.

The stores are tests/fixtures/import/foldcrumbs and basic-memory (their READMEs name
the documented formats). What cannot be mapped is said per file, in the draft's notes
the review shows; here it is read from the library, since the JSON contract carries
only the note's text and findings.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from lore.team.imports.foldcrumbs import read_flat
from lore.team.imports.run import open_vault, plan_import
from tests.team.imports.conftest import (
    FIXTURES,
    frontmatter,
    note_by_source,
    run_import,
    skip_reason,
)


def dry_run(
    capsys: pytest.CaptureFixture[str], checkout: Path, kind: str, folder: Path, *extra: str
) -> dict:
    code, data, out, err = run_import(
        capsys, kind, str(folder), "--vault", str(checkout), "--dry-run", "--json", *extra
    )
    assert data is not None, (code, out, err)
    return data


def test_foldcrumbs_memories_map_to_types_confidence_and_links(
    checkout: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = dry_run(
        capsys, checkout, "foldcrumbs", FIXTURES / "foldcrumbs" / "memory", "--repo", "payments-api"
    )
    webhooks = note_by_source(data, "decision_webhooks_are_verified_before_parsing.md")
    fields = frontmatter(webhooks["text"])
    assert fields["title"] == "Webhooks are verified before parsing"
    assert fields["type"] == "decision" and fields["confidence"] == "high"  # 0.9
    assert fields["date"] == "2025-03-04"  # created_at
    assert fields["repo"] == "payments-api"
    assert "domain/security" in fields["tags"]  # `security` is a tag's name
    assert (
        webhooks["text"]
        .split("## What\n", 1)[1]
        .startswith("Every incoming webhook's signature is checked before its body is parsed")
    )
    staging = frontmatter(
        note_by_source(data, "fact_the_staging_database_is_reset_every_sunday.md")["text"]
    )
    assert staging["type"] == "reference" and staging["confidence"] == "medium"  # 0.6
    storms = note_by_source(data, "learning_retry_storms_follow_processor_timeouts.md")
    assert frontmatter(storms["text"])["type"] == "gotcha"
    assert frontmatter(storms["text"])["confidence"] == "medium"  # 0.85, but inferred
    assert f"## Related\n[[{webhooks['id']}]]" in storms["text"]  # relations_json `supports`
    assert skip_reason(data, "goal_ship_refunds_v2_by_august.md").startswith("type goal")
    assert skip_reason(data, "decision_use_celery_for_emails.md").startswith("status superseded")
    assert not any(s["source"] == "MEMORY.md" for s in data["skipped"])  # the index is not a memory
    assert all("payments-api" in n["id"] for n in data["notes"])  # --repo gives the scope


def test_foldcrumbs_says_what_it_did_not_keep(checkout: Path) -> None:
    view = open_vault(checkout)
    plan = plan_import(
        view, "foldcrumbs", [FIXTURES / "foldcrumbs" / "memory"], author_lookup=lambda r, g: None
    )
    notes = {c.draft.source: c.draft.unmapped for c in plan.candidates}
    assert (
        "not kept: id, provenance, source, validation_count"
        in notes["decision_webhooks_are_verified_before_parsing.md"]
    )
    assert (
        "provenance inferred: confidence capped at medium"
        in notes["learning_retry_storms_follow_processor_timeouts.md"]
    )
    assert any(n.startswith("tags not in the vault's taxonomy: webhooks") for n in notes[
        "decision_webhooks_are_verified_before_parsing.md"
    ])  # fmt: skip


def test_foldcrumbs_frontmatter_is_read_as_foldcrumbs_reads_it() -> None:
    meta, body = read_flat("---\ndescription: a: b: c\ntags: x, y\n---\n\nThe body.\n")
    assert meta == {"description": "a: b: c", "tags": "x, y"}  # the first colon splits
    assert body.strip() == "The body."


def test_basic_memory_entities_with_observations_and_relations(
    checkout: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = dry_run(capsys, checkout, "basic-memory", FIXTURES / "basic-memory" / "project")
    search = note_by_source(data, "decisions/search-index-design.md")
    fields = frontmatter(search["text"])
    assert fields["type"] == "decision" and fields["title"] == "Search Index Design"
    assert "tool/opensearch" in fields["tags"] and "service/search" in fields["tags"]
    what = search["text"].split("## What\n", 1)[1]
    assert what.startswith("Product search runs on one OpenSearch index per locale")
    assert (
        "- A full rebuild takes forty minutes, so the nightly job starts at 01:00 (measured in May)"
        in what
    )
    assert "#opensearch" not in what and "[limitation]" not in what
    standards = note_by_source(data, "notes/coding-standards.md")
    assert f"[[{standards['id']}]]" in search["text"]  # relates_to [[Coding Standards]]
    assert (
        frontmatter(standards["text"])["type"] == "convention"
    )  # [convention], [rule], [preference]
    assert "pattern/testing" in frontmatter(standards["text"])["tags"]
    assert skip_reason(data, "people/ana-lima.md").startswith("type person")
    assert "ana@example.invalid" not in str(data)


def test_basic_memory_says_what_it_did_not_keep(checkout: Path) -> None:
    view = open_vault(checkout)
    plan = plan_import(
        view,
        "basic-memory",
        [FIXTURES / "basic-memory" / "project"],
        author_lookup=lambda r, g: None,
    )
    notes = {c.draft.source: c.draft.unmapped for c in plan.candidates}
    search = notes["decisions/search-index-design.md"]
    assert (
        "relation 'implements [[Product Events]]': no entity of that name in this import" in search
    )
    assert "not kept: permalink, owner" in search
    assert "categories not kept: decision, fact, limitation" in search
    standards = notes["notes/coding-standards.md"]
    assert (
        "relation 'supersedes [[Old Coding Standards]]': no entity of that name in this import"
        in standards
    )


def test_a_personal_store_never_goes_out_without_a_review(
    code_repo: Callable[..., Path], checkout: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from lore.cli.main import main

    assert (
        main(
            [
                "import",
                "foldcrumbs",
                str(FIXTURES / "foldcrumbs" / "memory"),
                "--vault",
                str(checkout),
            ]
        )
        == 2
    )
    assert "not a terminal" in capsys.readouterr().err
