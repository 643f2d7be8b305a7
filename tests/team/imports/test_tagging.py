"""Tags by what a note is about, and a proposed tag when none of the taxonomy's fits.

Each principle has rows from unrelated sources (an ADR set, an agent file, an agent's
memory); the taxonomy is lore's seed (`_taxonomy.md` at the repository's root), a
payments company's, as a new vault starts with.
"""

from __future__ import annotations

import pytest

from lore.taxonomy import Taxonomy, parse_taxonomy
from lore.team.imports.model import Draft
from lore.team.imports.new_tags import NewTag, propose_tags
from lore.team.imports.tagging import Tagger
from lore.vault.seed import seed_files


@pytest.fixture(scope="module")
def taxonomy() -> Taxonomy:
    raw = seed_files()["_taxonomy.md"]
    return parse_taxonomy(raw.decode() if isinstance(raw, bytes) else raw)


def tags(taxonomy: Taxonomy, title: str, body: str = "") -> list[str]:
    return Tagger(taxonomy).suggest(title, body)


# Principle: the subject names the tag — title, first sentence, or three mentions.
@pytest.mark.parametrize(
    ("title", "body", "wanted", "unwanted"),
    [
        (  # an ADR: PgBouncer in its title
            "Pool ledger connections through PgBouncer",
            "We run PgBouncer in transaction mode.",
            "tool/pgbouncer",
            "",
        ),
        (  # an agent file: docker named once, in passing, in the last sentence
            "Run the unit tests with pytest before pushing",
            "Tests must pass. Lint first. The CI image is built from a Dockerfile later on.",
            "tool/pytest",
            "tool/docker",
        ),
        (  # a memory: redis throughout the note, though not in its title
            "Sessions expire after thirty minutes",
            "Sessions live in Redis. Redis evicts them by TTL. Redis is shared with Celery.",
            "tool/redis",
            "",
        ),
    ],
)
def test_a_tag_is_named_by_the_subject_or_throughout(
    taxonomy: Taxonomy, title: str, body: str, wanted: str, unwanted: str
) -> None:
    found = tags(taxonomy, title, body)
    assert wanted in found
    assert not unwanted or unwanted not in found


# Principle: an alias is an ordinary word people search with; once, alone, it is weak.
@pytest.mark.parametrize(
    ("title", "alias_of"),
    [
        ("Use structured logging with human-readable messages", "service/notifications"),
        ("Both sync and async variants exist for all public methods", "pattern/background-jobs"),
        ("Record the API keys in the team's password manager", "pattern/api-design"),
    ],
)
def test_one_ordinary_alias_alone_names_no_tag(
    taxonomy: Taxonomy, title: str, alias_of: str
) -> None:
    assert alias_of not in tags(taxonomy, title)


def test_two_aliases_or_the_tags_own_name_do(taxonomy: Taxonomy) -> None:
    assert "pattern/observability" in tags(taxonomy, "Export traces and logs to the collector")
    assert "pattern/testing" in tags(taxonomy, "Testing happens in CI")  # its own name


def test_a_team_tag_needs_the_team_named(taxonomy: Taxonomy) -> None:
    assert "team/platform" not in tags(taxonomy, "The platform supports three regions")
    assert "team/platform" in tags(taxonomy, "The platform team owns the CI runners")


def draft(key: str, title: str, what: str = "", section: str = "") -> Draft:
    return Draft(key=key, source=key, title=title, type="decision", what=what or title,
                 date="2024-01-01", section=section)  # fmt: skip


def test_a_note_no_tag_fits_gets_one_shared_with_the_notes_like_it(
    taxonomy: Taxonomy,
) -> None:
    drafts = [
        draft("a", "Use Brakeman as a static code analyser"),  # a named thing
        draft("b", "Run Brakeman on every pull request"),
        draft("c", "Record architecture decisions"),  # a subject after a verb
        draft("d", "Keep the request log for ninety days", section="Data retention"),
        draft("e", "Delete exports after a week", section="Data retention"),  # one heading
        draft("f", "Cache product search results", "Redis holds them."),  # an existing tag
    ]
    drafts[5].tags = ["pattern/caching"]
    made = propose_tags(drafts, taxonomy)
    assert drafts[0].tags == drafts[1].tags == ["tool/brakeman"]
    assert drafts[2].tags == ["pattern/architecture-decisions"]
    assert drafts[3].tags == drafts[4].tags == ["pattern/data-retention"]
    assert drafts[5].tags == ["pattern/caching"]  # a note with a tag keeps it
    assert {tag.name for tag in made} == {
        "tool/brakeman",
        "pattern/architecture-decisions",
        "pattern/data-retention",
    }


def test_a_proposed_term_that_names_an_existing_tag_is_that_tag(
    taxonomy: Taxonomy,
) -> None:
    drafts = [
        draft("a", "Things we learned", section="Testing"),
        draft("b", "x", section="Testing"),
    ]
    assert propose_tags(drafts, taxonomy) == []
    assert drafts[0].tags == ["pattern/testing"]


@pytest.mark.parametrize(
    ("title", "not_a_tag"),
    [
        ("ALWAYS format any Go code you write", "tool/always"),  # capitals for emphasis
        ("They are independent. Neither reads the other's state", "tool/neither"),
        ("Supported frequency types", ""),  # title case: capitals say nothing
    ],
)
def test_capitals_that_are_no_name_make_no_tag(
    taxonomy: Taxonomy, title: str, not_a_tag: str
) -> None:
    drafts = [draft("a", title)]
    propose_tags(drafts, taxonomy)
    assert drafts[0].tags and drafts[0].tags[0] != not_a_tag


def test_a_heading_that_names_a_part_of_a_document_names_no_tag(
    taxonomy: Taxonomy,
) -> None:
    drafts = [draft(k, f"Run job {k}", section=heading)
              for k, heading in (("a", "Guidelines"), ("b", "Guidelines"),
                                 ("c", "How it works"), ("d", "How it works"))]  # fmt: skip
    propose_tags(drafts, taxonomy)
    assert all(not d.tags[0].endswith(("guidelines", "how-it-works")) for d in drafts)


def test_the_proposed_line_quotes_the_source_and_keeps_the_written_name() -> None:
    line = NewTag("tool/gov-uk-forms", "GOV.UK Forms", "Re-platform GOV.UK Forms on ECS").line()
    assert line == (
        "- `tool/gov-uk-forms` — GOV.UK Forms, as the imported notes name it: “Re-platform "
        "GOV.UK Forms on ECS”. Aliases: gov.uk forms"
    )


def test_html_quoted_in_a_note_is_neutralised_not_blocked() -> None:
    """`<marquee>` in a title or in code would fail the curator's injection rules."""
    from lore.team.imports.markdown import cut_title

    assert cut_title("Don't use `<marquee>` or `List<String>`") == (
        "Don't use `‹marquee›` or `List‹String›`"
    )
    body = draft("a", "t", "Use `<Form>` from shadcn and never a bare `<script>`.").body([])
    assert "<Form>" not in body and "<script>" not in body
    assert "Form" in body and "script" in body
