"""Which facts an agent remembered are about the person, and stay on their machine.

Principle: **a fact whose subject is the person who drives the agent — who they are,
what they like, how they want to be answered, what they are working on today — stays
personal; a fact about the code, the team's services or its practices can become the
team's.** The person is named as "I", "my", "me", "the user", or left implicit in the
agents' own shorthand ("Prefers tabs", "Works mostly on the iOS app"). "User sessions
expire after 30 minutes" is about the product's users, not the person: the user is the
subject only with a verb of a person (is, prefers, likes, works, asked…).

How to talk to the person (answer length, tone, summaries) is judged by the rules that
drop it from agent instruction files too (`agent_rules`, families `persona`,
`conversation`, `agent-tooling`), so a memory and an AGENTS.md line get one verdict.

The rows of tests/team/imports/test_memory_rules.py hold examples from the three
agents' documentation (Gemini CLI's `save_memory` examples, Claude Code's memory types,
Codex's user profile), each with the verdict it gets.
"""

from __future__ import annotations

import re

from lore.team.imports import agent_rules

_PERSON_VERBS = (
    r"(?:is|was|am|are|has|had|have|prefers?|likes?|loves?|dislikes?|hates?|enjoys?|wants?|"
    r"expects?|needs?|works?|worked|uses?|used|asked|asks|said|says|thinks?|knows?|writes?|"
    r"codes?|lives?|speaks?|reads?|codes|cares?|tends?|usually|often|always|never|"
    r"does(?:n'?t| not)|do(?:n'?t| not)|is(?:n'?t| not)|'s|'m|'d|'ve)"
)
_PERSON = re.compile(
    "|".join(
        (
            r"^(?:i|i'm|i've|i'd|i'll)\b",  # "I prefer…", "I'm on the platform team"
            r"^(?:my|me|myself)\b",  # "My preferred language is Python."
            rf"^(?:the )?(?:user|human)\s+{_PERSON_VERBS}\b",
            r"^(?:the )?user's\b",  # "The user's timezone is CET."
            r"^(?:prefers?|likes?|loves?|dislikes?|hates?|enjoys?|wants?|expects?|works? "
            r"(?:mostly|mainly|on|at|in|as|with)|is (?:a|an) \w+(?: \w+)? (?:engineer|developer|"
            r"designer|scientist|manager|lead|student))\b",  # the agents' shorthand
            r"\b(?:call me|my name is|my (?:role|job|title|team|manager|timezone|time zone|"
            r"preferred|favou?rite|own)|about me)\b",
            r"\buser(?:'s)? (?:profile|preferences?|background|role|name|timezone|time zone|"
            r"expertise|experience|workflow)\b",
            r"\b(?:the user|i) (?:am|is|are) (?:currently )?(?:working on|focused on|learning|new "
            r"to|familiar with)\b",
            r"\b(?:i'm|i am|i've been|i was) (?:currently |now )?(?:working on|focused on|"
            r"building|learning|new to)\b",  # "The project I'm currently working on is …"
        )
    )
)
PERSON_REASON = "about you, not the code: facts about a person stay on their machine"


def about_the_person(text: str) -> bool:
    """The fact's subject is the person who drives the agent (see the module docstring)."""
    plain = agent_rules.words_of(re.sub(r"[*_`]", "", text)).lstrip("-*+ ")
    return bool(_PERSON.search(plain))


def judge_fact(text: str) -> str | None:
    """Why the fact stays out of the vault (a skip reason), or None when it can be a note."""
    if about_the_person(text):
        return PERSON_REASON
    verdict = agent_rules.judge(text)
    if not verdict.keep:
        return verdict.reason
    return None
