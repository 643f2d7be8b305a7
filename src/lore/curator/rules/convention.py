"""`convention/`: the mechanical parts of `_conventions.md`, with limits from `lore.toml`.

`## What` comes first and its first line stands alone (an agent may see only that
line, though it may end with a colon when it states the decision, and "It was
decided …" refers to nothing before it); the title and the body stay short (URLs are
not counted as words). Settings problems and a pull request
that edits `lore.toml` are reported here too.
"""

from __future__ import annotations

import re

from lore.curator.context.model import CuratorContext, NoteView
from lore.curator.context.settings import CuratorSettings
from lore.curator.finding import ERROR, WARNING, Finding
from lore.curator.rules.text import line_at, quote
from lore.text.markdown import CodeMap, Section, sections
from lore.text.words import count_words
from lore.vault.settings import SETTINGS_FILE

NAME = "convention"
RULES = {
    "convention/missing-what": "the body has no `## What` section",
    "convention/empty-what": "`## What` has no first line",
    "convention/what-not-first": "`## What` is not the first thing in the body (warning)",
    "convention/what-not-standalone": "the first line of `## What` does not make sense alone "
    "(a fragment, a list, or 'This…/It…') (warning)",
    "convention/title-too-long": "the title is longer than `max_title_chars`",
    "convention/body-too-long": "the body is longer than `max_body_words`",
    "convention/unknown-section": "a `##` section other than What, Why, How, Gotchas, Related "
    "(warning)",
    "convention/duplicate-section": "a `##` section appears twice (warning)",
    "convention/invalid-settings": "`lore.toml` cannot be read or has a bad `[curator]` value",
    "convention/policy-changed": "the pull request changes `lore.toml`; the base policy was "
    "used (warning)",
}

KNOWN_SECTIONS = ("what", "why", "how", "gotchas", "related")
_BACK_REFERENCE = re.compile(
    r"^(this|that|these|those|it|it's|its|they|them|same|also|above|below|see|as above|"
    r"as mentioned|here|like before|see above)\b",
    re.IGNORECASE,
)
_FRAGMENT_START = re.compile(r"^(?:[-*+]\s|\d+[.)]\s|```|~~~|\||>|<|!\[|\[\[)")
# "It" that refers to nothing before it: "It was decided we would …", "It is required that …".
_IMPERSONAL = re.compile(
    r"^it(?:'s|’s|\s+(?:is|was|has\s+been|had\s+been|will\s+be))\s+(?:now\s+)?"
    r"(?:decided|agreed|chosen|resolved|determined|settled|required|mandatory|forbidden|"
    r"necessary|important|essential|safe|unsafe|best|better|possible|impossible|recommended)\b",
    re.IGNORECASE,
)
# A line ending with a colon that states the decision itself ("We will use these tools:").
_DECIDES = re.compile(
    r"\b(?:we|the team|teams?|everyone|each \w+|all \w+)\s+(?:will|shall|must|should|"
    r"decided|agreed|chose|adopt(?:ed)?|use[sd]?|keep|run|require[sd]?)\b|\bdecided\s+to\b|"
    r"\bis\s+to\b|\b(?:must|will|shall)\s+(?:not\s+)?\w+",
    re.IGNORECASE,
)
MIN_DECISION_WORDS = 5  # of a line ending with a colon that states the decision
_LINK_TARGET = re.compile(r"\]\([^)\s]*(?:\s+\"[^\"]*\")?\)")
_BARE_URL = re.compile(r"\b[a-z][a-z0-9+.-]{0,31}://\S+", re.IGNORECASE)  # bounded: linear


def check(context: CuratorContext) -> list[Finding]:
    findings: list[Finding] = list(context.settings_problems)
    if context.settings_changed:
        findings.append(
            Finding(
                "convention/policy-changed",
                WARNING,
                SETTINGS_FILE,
                None,
                "this pull request changes lore.toml; the curator used the policy of the base "
                "branch, so the new settings apply only after merge",
                "Review the policy change on its own: it changes what every later note may "
                "contain.",
            )
        )
    for checked in context.notes:
        assert checked.view is not None
        findings += _check_note(checked.view, checked.display, context.settings)
    return findings


def _check_note(view: NoteView, path: str, settings: CuratorSettings) -> list[Finding]:
    findings: list[Finding] = []
    if view.title and len(view.title) > settings.max_title_chars:
        findings.append(
            Finding(
                "convention/title-too-long",
                ERROR,
                path,
                view.line_of_key("title"),
                f"the title is {len(view.title)} characters (at most {settings.max_title_chars})",
                "State the fact in fewer words; details go under ## What.",
            )
        )
    body = view.body
    code = CodeMap(body)
    words = word_count(body)
    if words > settings.max_body_words:
        findings.append(
            Finding(
                "convention/body-too-long",
                ERROR,
                path,
                view.body_line,
                f"the body is {words} words (at most {settings.max_body_words}); short beats long",
                "Keep one idea per note: cut it down or split it into linked notes.",
            )
        )
    found = [s for s in sections(body, code) if s.level == 2]
    what = [s for s in found if s.title.lower() == "what"]
    if not what:
        findings.append(
            Finding(
                "convention/missing-what",
                ERROR,
                path,
                view.body_line,
                "the body has no '## What' section",
                "Start the body with '## What' and a one-line summary that makes sense on its own.",
            )
        )
    else:
        findings += _check_what(view, path, what[0], found)
    seen: set[str] = set()
    for section in found:
        name = section.title.lower()
        line = line_at(body, section.start, view.body_line)
        if name not in KNOWN_SECTIONS:
            findings.append(
                Finding(
                    "convention/unknown-section",
                    WARNING,
                    path,
                    line,
                    f"'## {quote(section.title, 40)}' is not one of the note sections",
                    "Use ## What, ## Why, ## How, ## Gotchas and ## Related.",
                )
            )
        elif name in seen:
            findings.append(
                Finding(
                    "convention/duplicate-section",
                    WARNING,
                    path,
                    line,
                    f"'## {quote(section.title, 40)}' appears twice",
                    "Merge the two sections.",
                )
            )
        seen.add(name)
    return findings


def _check_what(view: NoteView, path: str, what: Section, found: list[Section]) -> list[Finding]:
    findings: list[Finding] = []
    body = view.body
    heading_line = line_at(body, what.start, view.body_line)
    before = body[: what.start]
    if found[0] is not what or before.strip():
        findings.append(
            Finding(
                "convention/what-not-first",
                WARNING,
                path,
                heading_line,
                "'## What' is not the first thing in the body",
                "Move '## What' to the top: recall shows its first line as the summary.",
            )
        )
    following = [s for s in found if s.start > what.start]
    end = following[0].start if following else len(body)
    first = None
    offset = what.content_start
    for text in body[what.content_start : end].split("\n"):
        if text.strip():
            first = text.strip()
            break
        offset += len(text) + 1
    if first is None:
        findings.append(
            Finding(
                "convention/empty-what",
                ERROR,
                path,
                heading_line,
                "'## What' has no summary line",
                "Write one sentence under ## What that makes sense without the title.",
            )
        )
        return findings
    line = line_at(body, offset, view.body_line)
    reason = _not_standalone(first)
    if reason:
        findings.append(
            Finding(
                "convention/what-not-standalone",
                WARNING,
                path,
                line,
                f"the first line of ## What {reason}: '{quote(first, 60)}'",
                "An agent may see only this line: make it a full sentence that names its subject.",
            )
        )
    return findings


def word_count(body: str) -> int:
    """The body's words as a reader counts them: a URL (bare, or a link's target) is not
    words, however many path segments it has."""
    return count_words(_BARE_URL.sub(" ", _LINK_TARGET.sub("]", body)))


def _not_standalone(line: str) -> str | None:
    if line.startswith(("```", "~~~", "    ")):
        return "is code, not a sentence"
    if _FRAGMENT_START.match(line):
        return "is a list item, quote or markup rather than a sentence"
    if line.rstrip().endswith(":") and not _states_decision(line):
        return "introduces something that follows"
    if _BACK_REFERENCE.match(line) and not _IMPERSONAL.match(line):
        return "refers back to something the reader has not seen"
    if count_words(line) < 3:
        return "is too short to stand alone"
    return None


def _states_decision(line: str) -> bool:
    """A line ending with a colon that still says what was decided ("We will run these
    checks on every pull request:"), not a bare lead-in ("The options are:")."""
    return count_words(line) >= MIN_DECISION_WORDS and bool(_DECIDES.search(line))
