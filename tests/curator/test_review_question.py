"""The reviewer's question: duplicate, replaces (wholly or in part), contradicts or neither.

Through the real curator on a real vault (a pull request's range), the model being the
stand-in HTTP provider of test_semantic (no model can be reached from a test), answering
what the test tells it to. The rules' finding and the model's verdict on one pair make
one finding with both reasons (`lore.curator.review.merge`); the model stays advisory.
"""

from __future__ import annotations

from typing import Any

from lore.curator.review.github_models import strict_ready
from lore.curator.review.pairs import ANSWER_SCHEMA, SYSTEM_PROMPT, VERDICTS
from tests.curator.test_semantic import (
    KAFKA,
    KAFKA_CLAUSE,
    LAG,
    NEW,
    NEW_CLAUSE,
    Provider,
    batch_data,
    clause_number,
    enable,
    key,
    pair_vault,
    propose,
    provider,
    review,
    semantic,
)
from tests.curator.test_semantic_llm import NEAR, NEAR_NOTE
from tests.support import Vault

__all__ = ["key", "pair_vault", "provider"]  # fixtures shared with test_semantic


def answering(verdict: str, about: str, still_holds: str = "", start: str = "") -> Any:
    """A model that answers `verdict` for the candidate `about` (quoting the clauses that
    start with `start` and KAFKA_CLAUSE, or the first ones) and "neither" for the rest."""

    def answer(prompt: str) -> dict[str, Any]:
        data = batch_data(prompt)
        verdicts = []
        for candidate in data["candidates"]:
            if candidate["id"] != about:
                verdicts.append(
                    {
                        "candidate": candidate["candidate"],
                        "verdict": "neither",
                        "proposed_clause": None,
                        "existing_clause": None,
                        "still_holds": "",
                        "reason": "Unrelated.",
                    }
                )
                continue
            mine = clause_number(data["proposed"], start) if start else 1
            theirs = clause_number(candidate, KAFKA_CLAUSE) if about == KAFKA else 1
            verdicts.append(
                {
                    "candidate": candidate["candidate"],
                    "verdict": verdict,
                    "proposed_clause": mine,
                    "existing_clause": theirs,
                    "still_holds": still_holds,
                    "reason": "Both decide when an offset is committed.",
                }
            )
        return {"verdicts": verdicts}

    return answer


def test_the_question_is_the_reviewers_and_the_schema_is_strict() -> None:
    for verdict in VERDICTS:
        assert f'"{verdict}"' in SYSTEM_PROMPT
    assert "still_holds" in SYSTEM_PROMPT and strict_ready(ANSWER_SCHEMA)
    properties = ANSWER_SCHEMA["properties"]["verdicts"]["items"]["properties"]
    assert properties["verdict"]["enum"] == list(VERDICTS)
    assert "still_holds" in properties


def test_a_replacement_the_rules_miss_carries_the_exact_supersedes_line(
    pair_vault: Vault, provider: Provider, key: str
) -> None:
    enable(pair_vault, provider)
    provider.reply = answering("replaces", KAFKA, start=NEW_CLAUSE)
    propose(pair_vault)
    result = review(pair_vault)
    (found,) = semantic(result)
    assert (found.rule, found.severity, found.path) == (
        "convention/semantic-replacement", "warning", f"notes/{NEW}.md",
    )  # fmt: skip
    assert f"this note replaces {KAFKA}" in found.message
    assert f'"{NEW_CLAUSE}' in found.message and f'"{KAFKA_CLAUSE}' in found.message
    assert found.suggestion == (
        f"If it replaces it, add `supersedes: [{KAFKA}]` to the frontmatter."
    )
    assert result.exit_code == 0  # advisory: never a failed check


def test_a_partial_replacement_links_the_note_and_says_what_still_holds(
    pair_vault: Vault, provider: Provider, key: str
) -> None:
    enable(pair_vault, provider)
    holds = "Committing after processing still holds for the billing consumers."
    provider.reply = answering("replaces_in_part", KAFKA, holds, start=NEW_CLAUSE)
    propose(pair_vault)
    (found,) = semantic(review(pair_vault))
    assert found.rule == "convention/semantic-replacement" and found.severity == "warning"
    assert f"this note replaces part of {KAFKA}" in found.message
    assert found.suggestion is not None
    assert f"link [[{KAFKA}]] under `## Related`" in found.suggestion
    assert holds in found.suggestion and "supersedes" not in found.suggestion


def test_the_rule_and_the_model_on_one_pair_make_one_finding_with_both_reasons(
    pair_vault: Vault, provider: Provider, key: str
) -> None:
    """The rules call NEAR a near duplicate of KAFKA; the model says it replaces it: one
    finding, the rule's, with the model's reason and its exact supersedes line."""
    enable(pair_vault, provider)
    provider.reply = answering("replaces", KAFKA)
    propose(pair_vault, {NEAR: NEAR_NOTE})
    result = review(pair_vault)
    about_kafka = [f for f in result.findings if f.about == KAFKA]
    assert [f.rule for f in about_kafka] == ["duplicate/near"]
    (found,) = about_kafka
    assert found.severity == "warning"
    assert "this note holds the same lesson as" in found.message  # the rule's reason
    assert f"judges that this note replaces {KAFKA}" in found.message  # the model's
    assert "Both decide when an offset is committed." in found.message
    assert found.suggestion == f"If it replaces it, add `supersedes: [{KAFKA}]` to the frontmatter."
    assert semantic(result) == []  # no second finding for the pair
    assert result.model_review is not None and result.model_review.verdicts == 1


def test_a_rule_finding_the_model_disagrees_with_stays_and_says_so(
    pair_vault: Vault, provider: Provider, key: str
) -> None:
    enable(pair_vault, provider)
    provider.reply = answering("neither", LAG)  # "neither" for every candidate
    propose(pair_vault, {NEAR: NEAR_NOTE})
    result = review(pair_vault)
    (found,) = [f for f in result.findings if f.about == KAFKA]
    assert found.rule == "duplicate/near" and found.severity == "warning"  # never a pass
    assert "found no duplicate, replacement or contradiction: Unrelated." in found.message
    assert "add `supersedes:" in (found.suggestion or "")  # the rule's own suggestion
    assert semantic(result) == []
    review_run = result.model_review
    assert review_run is not None and review_run.verdicts == 0
    assert "no duplicate, replacement or contradiction found" in review_run.line


def test_the_merged_finding_travels_in_the_json_report(
    pair_vault: Vault, provider: Provider, key: str
) -> None:
    from lore.curator.report.formats import to_json

    enable(pair_vault, provider)
    provider.reply = answering("replaces", KAFKA)
    propose(pair_vault, {NEAR: NEAR_NOTE})
    report = to_json(review(pair_vault))
    (found,) = [f for f in report["findings"] if KAFKA in f["message"]]
    assert found["rule"] == "duplicate/near"
    assert "the model review (advisory" in found["message"] and "about" not in found
