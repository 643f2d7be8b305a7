"""Which remembered facts stay personal: one principle, rows from three agents' documentation.

The principle (lore.team.imports.memory_rules): a fact whose subject is the person who
drives the agent stays on their machine; a fact about the code, the services or the
team's practices can become the team's. The rows paraphrase each agent's documented
examples — Gemini CLI's `save_memory` page (geminicli.com/docs/tools/memory), Claude
Code's memory types (user / feedback / project / reference) and Codex's consolidation
prompt (its "User Profile" and handbook entries) — plus product sentences that mention
"user" without being about the person.
"""

from __future__ import annotations

import pytest

from lore.team.imports.memory_rules import PERSON_REASON, about_the_person, judge_fact

PERSONAL = [
    ("gemini docs", "My preferred programming language is Python."),
    ("gemini docs", "The project I'm currently working on is called 'gemini-cli'."),
    ("claude user type", "The user is a data scientist, currently focused on observability."),
    ("claude user type", "I've written Go for ten years but I'm new to the React side."),
    ("codex profile", "Prefers terse answers and numbered lists."),
    ("codex profile", "The user's timezone is CET, and they review in the morning."),
    ("codex profile", "Works mostly on the iOS app."),
]
TEAM = [
    ("claude feedback", "Integration tests must hit a real database, not mocks."),
    ("claude project", "A merge freeze starts on 2026-03-05 for the mobile release branch."),
    ("claude reference", "Pipeline bugs are tracked in the Linear project INGEST."),
    ("codex handbook", "Run `make db` before the ledger tests or they fail on port 5433."),
    ("gemini fact", "The staging database is reset every Sunday at 02:00 UTC."),
    ("product", "User sessions expire after 30 minutes of inactivity."),
    ("product", "The user-facing API returns errors as RFC 7807 problem documents."),
    ("product", "Users who delete their account keep their invoices for seven years."),
]
AGENT = [
    ("claude feedback", "Stop summarizing what you changed at the end of each response."),
    ("codex handbook", "Be concise in summaries of a change."),
]


@pytest.mark.parametrize(("where", "fact"), PERSONAL)
def test_facts_about_the_person_stay_personal(where: str, fact: str) -> None:
    assert about_the_person(fact), where
    assert judge_fact(fact) == PERSON_REASON


@pytest.mark.parametrize(("where", "fact"), TEAM)
def test_facts_about_the_code_and_the_team_can_be_the_teams(where: str, fact: str) -> None:
    assert not about_the_person(fact), where
    assert judge_fact(fact) is None, where


@pytest.mark.parametrize(("where", "fact"), AGENT)
def test_how_the_agent_talks_is_judged_as_in_instruction_files(where: str, fact: str) -> None:
    reason = judge_fact(fact)
    assert reason is not None and reason.startswith("about the agent, not the team"), where
