"""Which parts of an agent-instruction file are team knowledge, and which only steer the agent.

An instruction file mixes two things: what holds for the code and the team ("use pnpm",
"run the tests before committing", "never edit generated files") and what only tells a
model how to behave ("be concise", "you are an expert in…", "ask the user before…").
The first kind is a note; the second is not a team lesson. Five families of rules decide,
each a few phrase patterns, tried in this order on a piece's words (inline markdown
removed, lower case) — the first that matches drops the piece and names itself
(`no-claim` comes last):

- `persona`: who the model is — "you are an expert…", "act as…", "your role…".
- `conversation`: how it talks to the person driving it — answer length and tone,
  explanations, apologies, summaries of what it did, asking the user, thinking step by
  step, its final message.
- `agent-tooling`: its own machinery — tools "if available", what to load into its
  context, subagents, skills, slash commands, plan mode, its turn, co-author trailers.
- `about-instructions`: the file itself — "this file…", "these rules apply to…",
  nested instruction files, tables of contents.
- `no-claim`: nothing to keep — under three words, a label ("Code Style:"), a
  placeholder (`[describe …]`, `{…}`, TODO), or only a pointer ("see X").

A whole section goes when its heading is about one of the first three ("Communication",
"Tone", "Your role"…). Everything else is kept, in the source's own words, and the user
reviews it. The rules were measured on real public files (eval/agents_md/): the figures
and the judgement of what they get wrong are in eval/agents_md/results.md.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lore.text.words import count_words

FAMILIES = ("persona", "conversation", "agent-tooling", "about-instructions", "no-claim")


def _any(*alternatives: str) -> re.Pattern[str]:
    return re.compile("|".join(alternatives))


_RULES: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "persona",
        _any(
            r"^(?:you are|you're) (?:an?|the) ",
            r"\bact as (?:an?|the) (?:\w+ )?"
            r"(?:expert|assistant|agent|developer|engineer|architect)\b",
            r"\bas an ai\b",
            r"\byour (?:role|persona|primary responsibility|job is|mission)\b",
            r"\bchannel your\b",
            r"\byou are (?:an? )?(?:expert|senior|world-class)",
        ),
    ),
    (
        "conversation",
        _any(
            r"\b(?:be|stay|keep (?:it|answers|responses|replies|them))\s+(?:very\s+)?"
            r"(?:concise|succinct|brief|terse|short|verbose|thorough)\b",
            r"\bsuccinct\b",
            r"\byour (?:answers?|responses?|replies|explanations?|chat partner)\b",
            r"\bapologi[sz]",
            r"\bunless (?:explicitly )?(?:asked|requested|told)\b",
            r"\b(?:ask|asking|tell|remind|inform|notify|check with|confirm with) "
            r"(?:the user|me|the human)\b",
            r"\bclarifying questions?\b",
            r"\bask for clarification\b",
            r"\bthe user\b.{0,40}\b(?:asks?|asked|requests?|wants|instructs?|says|prompts?|"
            r"driving)\b",
            r"\b(?:unless|until) the user (?:asks|says|tells|confirms|approves)\b",
            r"\bthe user(?:'s)? (?:input|request|instructions?|intent|prompt)\b",
            r"\bsummar(?:y|ize|ise|izing|ising)\b.{0,30}\b(?:what you|you(?:'ve| have)? "
            r"(?:changed|done|did))\b",
            r"\bstop summar",
            r"\bstep[- ]by[- ]step\b",
            r"\bthink (?:carefully|hard|deeply|before)\b",
            r"\b(?:respond|reply|answer) (?:in|with|using|only)\b",
            r"\bin (?:the|this) (?:chat|conversation)\b",
            r"\bfinal (?:summary|message|answer|report|response)\b",
            r"\bwhen you(?:'re| are) (?:unsure|uncertain|stuck)\b",
            r"\bdon'?t be lazy\b",
            r"\bexplain (?:your|the) (?:reasoning|approach|changes)\b",
            r"\boffer to\b",
        ),
    ),
    (
        "agent-tooling",
        _any(
            r"\byourself\b",
            r"\bco-?authored?-by\b",
            r"\bco-?author\b",
            r"\bcontext window\b",
            r"\b(?:in|into|to) (?:the|your) context\b",
            r"\btools? (?:is|are) (?:not )?available\b",
            r"\bif (?:the|a) [\w#/ -]{0,30}tool\b",
            r"\buse the [\w#/-]+ tool\b",
            r"#[a-z]+/[a-z]+",
            r"#(?:problems|codebase|terminal\w*|selection|changes|fetch|githubrepo|usages|testfailure)\b",
            r"\bsub-?agents?\b",
            r"\bslash commands?\b",
            r"\bplan(?:ning)? mode\b",
            r"\b(?:this|your|a|the) turn\b",
            r"\bgo idle\b",
            r"\b(?:agent|claude|workflow) skills?\b",
            r"\bthe `[^`]+` skill\b",
            r"\b(?:use|activate|invoke|load|read|update) (?:the )?(?:relevant |`[^`]+` )?skills?\b",
            r"\bskills? (?:folder|directory|index)\b",
            r"\.(?:claude|agents|cursor)/skills\b",
            r"\b(?:claude|codex|copilot|cursor|gemini|greptile)\b[^.]{0,120}\byou\b",
            r"\bmemory bank\b",
            r"\btodo ?write\b",
            r"\b(?:ai|llm|coding) (?:assistants?|agents?) (?:should|must|may|can|will|need)\b",
            r"\b(?:the|as an?) (?:ai|llm|coding) (?:assistant|agent)\b",
            r"\bagents? (?:should|must|may|will)\b",
            r"\b(?:web ?search|web ?fetch|mcp) tools?\b",
        ),
    ),
    (
        "about-instructions",
        _any(
            r"\bthis (?:file|document|guide)\b",
            r"\bthese (?:instructions|guidelines|rules)\b",
            r"\b(?:agents|claude|gemini|copilot-instructions)\.md\b",
            r"\.cursorrules\b",
            r"\.mdc\b",
            r"\bcursor rules?\b",
            r"\bnested (?:agents|claude|gemini)\b",
            r"\b(?:rules|instructions|guidelines) (?:apply|applies) to\b",
        ),
    ),
)
_AGENT_SECTION = _any(
    r"\b(?:communication|tone|persona|conversation)\b",
    r"\b(?:response|answer|interaction|output) (?:style|format|guidelines)\b",
    r"\byour (?:primary )?(?:role|responsibilit\w*|job)\b",
    r"\b(?:agent|ai) behaviou?r\b",
    r"\bworking with (?:the )?(?:user|me)\b",
    r"\bhow to (?:talk|respond|answer)\b",
    r"\bchat (?:style|etiquette|behaviou?r|guidelines)\b",
    r"\bgathering context\b",
    r"\bmemory bank\b",
    r"\b(?:general|generic) (?:ai|agent|assistant) (?:rules|guidelines)\b",
)
_META_SECTION = re.compile(r"^(?:table of )?contents$|^index$|^toc$")
_PLACEHOLDER = re.compile(
    r"^\s*[\[{(].*[\]})]\s*$|\[(?:brief|describe|list|add|your|project)\b|\btodo\b|\btbd\b"
)
_POINTER = re.compile(r"^(?:see|read|refer to)\b")
_OPERATOR = re.compile(r"[=!<>&|+%^~]{2,}")  # operators (`===`) count as words


@dataclass(frozen=True)
class Verdict:
    keep: bool
    family: str = ""  # the rule family that dropped it

    @property
    def reason(self) -> str:
        what = {
            "persona": "tells the agent who it is",
            "conversation": "about how the agent talks to the person",
            "agent-tooling": "about the agent's own tools and context",
            "about-instructions": "about the instruction file itself",
            "no-claim": "holds no claim to keep",
        }[self.family]
        return (
            f"about the agent, not the team ({self.family}: {what})"
            if self.family != "no-claim"
            else what
        )


KEEP = Verdict(True)


def words_of(text: str) -> str:
    return " ".join(text.lower().split())


def judge_section(heading: str) -> Verdict:
    """The verdict on a whole section from its heading (KEEP: judge its pieces)."""
    name = words_of(re.sub(r"[^\w\s'/-]", " ", heading))
    if _META_SECTION.search(name):
        return Verdict(False, "about-instructions")
    if _AGENT_SECTION.search(name):
        return Verdict(False, "conversation")
    return KEEP


def _words(text: str) -> int:
    return count_words(text) + len(_OPERATOR.findall(text))


def judge(text: str) -> Verdict:
    """The verdict on one piece (a paragraph, or a list item with its sub-items)."""
    plain = words_of(text)
    for family, pattern in _RULES:
        if pattern.search(plain):
            return Verdict(False, family)
    words = _words(plain)
    if words < 3 or _PLACEHOLDER.search(plain) or (plain.endswith(":") and words <= 6):
        return Verdict(False, "no-claim")
    if _POINTER.match(plain) and words <= 8:
        return Verdict(False, "no-claim")
    return KEEP
