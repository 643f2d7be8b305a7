"""`injection/`: what could steer or deceive the agents that will read a note.

Runs on every note under review (its body and every frontmatter string and list item)
and on the vault's policy prose (`_taxonomy.md`, `_conventions.md`, `README.md`)
whenever a change touches it or the whole vault is audited.

Hazard errors are exactly what `lore.sanitize` removes or neutralises
(`find_hazards`): hidden and steering characters anywhere in the file, and HTML
comments, raw HTML, images and link-reference definitions outside code in the body
(and in policy files). So a note passes the hazard rules if and only if sanitising
it changes nothing, and the sanitised text the PR comment shows is what an agent
will get. In frontmatter values, where a title may say `List<T>`, only comments,
images and link references count.

Instruction errors (`lore.curator.rules.instructions`): an instruction addressed to an
agent, a chat role marker, a download piped into a shell, read through the Unicode
confusables fold. Inside a code span or fenced block they are quotations (a note may
document an attack): warnings. `relax_to_warning` in the base's `lore.toml` makes any
of the three a warning everywhere.

Warnings, for a reviewer's judgement: links that can carry data out or hide where
they lead (`lore.curator.rules.link_risk`), words mixing Latin with Greek or
Cyrillic look-alikes, and encoded runs outside code.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from typing import Any

from lore.curator.context.model import CheckedFile, CuratorContext, NoteView
from lore.curator.finding import ERROR, WARNING, Finding
from lore.curator.rules.instructions import TextHit, scan, scan_values
from lore.curator.rules.link_risk import WARNING_FIX, link_warnings, located_links
from lore.curator.rules.text import line_at, quote
from lore.sanitize import MARKUP
from lore.sanitize.markdown import Hazard, find_hazards

NAME = "injection"
RULES = {
    "injection/control-character": "a control character (ANSI escape, NUL, …) anywhere in the file",
    "injection/tag-character": "Unicode tag characters (U+E0000–U+E007F): invisible text",
    "injection/bidi-control": "a bidirectional control that reorders how text reads",
    "injection/zero-width": "a zero-width character (a joiner inside an emoji is fine)",
    "injection/format-character": "another invisible format character (soft hyphen, private "
    "use, variation selectors used to smuggle data, …)",
    "injection/html-comment": "an HTML comment: hidden on GitHub, read by agents",
    "injection/raw-html": "raw HTML outside code",
    "injection/remote-image": "an image with a remote URL: fetched when the note is viewed",
    "injection/image": "an image: notes are text, and agents do not see images",
    "injection/link-reference": "a link-reference definition: invisible when rendered",
    "injection/link-domain": "a link that can carry data out or hide where it leads "
    "(warning; with `only_allowed_link_domains`, any link outside `allowed_link_domains`)",
    "injection/role-tag": "a chat role marker such as `<system>`, `</memory>` or `Assistant:` "
    "(a warning inside code, or when relaxed)",
    "injection/agent-instruction": "text addressed to an agent as an instruction (a warning "
    "inside code, or when relaxed)",
    "injection/pipe-to-shell": "a download piped into a shell or interpreter (a warning inside "
    "code, or when relaxed)",
    "injection/mixed-script": "a word mixing Latin with Greek or Cyrillic look-alike letters "
    "(warning)",
    "injection/encoded-blob": "hex or base64 outside code that decodes to text, or is too long "
    "for a digest (warning)",
}

_MESSAGES = {
    "control-character": "a control character ({detail}) can rewrite what a terminal shows",
    "tag-character": "invisible Unicode tag characters ({detail}) can carry text no reviewer sees",
    "bidi-control": "a bidirectional control ({detail}) makes text read differently from what "
    "it is",
    "zero-width": "a zero-width character ({detail}) hides text or splits words past review",
    "format-character": "an invisible character ({detail}) hides text from reviewers",
    "html-comment": "an HTML comment is hidden on GitHub but read by agents",
    "raw-html": "raw HTML ({detail}) can hide or restyle content",
    "remote-image": "an image from {detail} is fetched whenever the note is shown",
    "image": "an image ({detail}) is not shown to agents; notes are plain text",
    "link-reference": "a link-reference definition ({detail}) is invisible when rendered",
}
_CHAR_KINDS = frozenset(
    {"control-character", "tag-character", "bidi-control", "zero-width", "format-character"}
)
FIX = "Remove it; lore strips it before an agent sees the note, so it can only mislead."
# Text that only looks like a tag (`v<N>:`, `List<String>`) is meant to be read: say how.
_FIXES = {
    "raw-html": "If it is text, such as a placeholder like `v<N>:`, wrap it in backticks; "
    "if it is markup, remove it: lore strips it before an agent sees the note.",
}

_FIELD_MARKUP = frozenset({"html-comment", "image", "remote-image", "link-reference"})
INSTRUCTION_RULES = frozenset(
    {"injection/role-tag", "injection/agent-instruction", "injection/pipe-to-shell"}
)
_TEXT_MESSAGES = {
    "injection/role-tag": (
        "'{text}' looks like a chat role marker, which can make a model treat the text as "
        "its own instructions",
        "Describe the format in words, or quote it in a code block with a sentence that "
        "says what it is.",
    ),
    "injection/agent-instruction": (
        "'{text}' reads as an instruction to an agent, not as knowledge",
        "State the fact and the reason instead; notes are reference data. To document an "
        "attack, quote it in backticks or a code block.",
    ),
    "injection/pipe-to-shell": (
        "'{text}' pipes a download into a shell or interpreter",
        "Download, check and then run; or link the install docs. In a code block it is "
        "allowed as a quotation.",
    ),
    "injection/mixed-script": (
        "'{text}' mixes Latin letters with {script} look-alikes: it reads as one word but "
        "is spelled with another alphabet",
        "Retype the word in one alphabet.",
    ),
    "injection/encoded-blob": (
        "'{text}' is an encoded run{decoded}",
        "Write the content in plain words, or put data in a code block with what it is.",
    ),
}
MAX_PER_RULE = 20


def check(context: CuratorContext) -> list[Finding]:
    findings: list[Finding] = []
    settings = context.settings
    allowed, strict = settings.allowed_link_domains, settings.only_allowed_link_domains
    relaxed = settings.relax_to_warning
    for checked in context.notes:
        view = checked.view
        assert view is not None
        path = checked.display
        findings += _hazard_findings(view, path)
        links = list(located_links(view.body, view.body_line))
        hits = scan(view.body, view.body_line)
        values = list(_frontmatter_strings(checked, view))
        for line, value in values:
            if ":" in value:
                links += located_links(value, line)
            if any(mark in value for mark in MARKUP):
                findings += _field_markup(value, line, path)
        hits += scan_values(values)
        findings += _link_findings(links, path, allowed, strict)
        findings += _text_findings(hits, path, relaxed)
    for checked in context.policy_texts:
        text = checked.decoded()
        findings += _policy_hazards(text, checked.display)
        findings += _link_findings(list(located_links(text, 1)), checked.display, allowed, strict)
        findings += _text_findings(scan(text, 1), checked.display, relaxed)
    return findings


def _group(hazards: list[tuple[int, Hazard]]) -> dict[tuple[str, int], list[Hazard]]:
    grouped: dict[tuple[str, int], list[Hazard]] = defaultdict(list)
    for line, hazard in hazards:
        grouped[(hazard.kind, line)].append(hazard)
    return grouped


def _hazard_findings(view: NoteView, path: str) -> list[Finding]:
    located: list[tuple[int, Hazard]] = [
        (line_at(view.text, h.start), h) for h in find_hazards(view.text, markdown=False)
    ]
    located += [
        (line_at(view.body, h.start, view.body_line), h)
        for h in find_hazards(view.body)
        if h.kind not in _CHAR_KINDS
    ]
    return _hazards_to_findings(located, path)


def _policy_hazards(text: str, path: str) -> list[Finding]:
    """Policy prose is markdown from top to bottom: every hazard, with its file line."""
    return _hazards_to_findings([(line_at(text, h.start), h) for h in find_hazards(text)], path)


def _field_markup(value: str, line: int, path: str) -> list[Finding]:
    """Comments, images and link references in a frontmatter value (characters are found
    over the whole file)."""
    hazards = [(line, h) for h in find_hazards(value) if h.kind in _FIELD_MARKUP]
    return _hazards_to_findings(hazards, path)


def _hazards_to_findings(located: list[tuple[int, Hazard]], path: str) -> list[Finding]:
    findings: list[Finding] = []
    per_rule: dict[str, int] = defaultdict(int)
    for (kind, line), group in sorted(_group(located).items(), key=lambda kv: (kv[0][1], kv[0][0])):
        per_rule[kind] += 1
        if per_rule[kind] > MAX_PER_RULE:
            continue
        detail = group[0].detail
        if kind in _CHAR_KINDS and len(group) > 1:
            detail += f", and {len(group) - 1} more on this line"
        message = _MESSAGES[kind].format(detail=quote(detail, 80))
        fix = _FIXES.get(kind, FIX)
        findings.append(Finding(f"injection/{kind}", ERROR, path, line, message, fix))
    for kind, number in per_rule.items():
        if number > MAX_PER_RULE:
            findings.append(
                Finding(
                    f"injection/{kind}",
                    ERROR,
                    path,
                    None,
                    f"{number - MAX_PER_RULE} more lines have the same problem",
                    _FIXES.get(kind, FIX),
                )
            )
    return findings


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _strings(item)
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _strings(key)
            yield from _strings(item)


def _frontmatter_strings(checked: CheckedFile, view: NoteView) -> Iterator[tuple[int, str]]:
    """(file line, text) for every frontmatter key, string and list item.

    The line is the first line from the key's on that holds the text as written (a
    block list puts each item on its own line), else the key's line. When the YAML
    cannot be read, each frontmatter line is scanned as it stands.
    """
    lines = view.text[: view.frontmatter_end].split("\n")
    data = checked.report.frontmatter if checked.report is not None else None
    if not isinstance(data, dict):
        for number, text in enumerate(lines[1:], start=2):
            if text.strip() and text.strip() != "---":
                yield number, text
        return
    for key, value in data.items():
        line = view.line_of_key(str(key))
        for text in _strings([key, value]):
            probe = text.strip()[:40]
            # Items of a block list sit on the lines below the key, in order.
            found = next((n for n in range(line, len(lines) + 1) if probe in lines[n - 1]), None)
            yield (found or line), text
            line = found or line


def _link_findings(
    links: list[tuple[int, str, str | None]], path: str, allowed: tuple[str, ...], strict: bool
) -> list[Finding]:
    return [
        Finding("injection/link-domain", WARNING, path, line, message, WARNING_FIX)
        for line, message in link_warnings(links, allowed, strict=strict)
    ]


def _text_findings(hits: list[TextHit], path: str, relaxed: frozenset[str]) -> list[Finding]:
    findings: list[Finding] = []
    seen: set[tuple[str, int]] = set()
    for hit in sorted(hits, key=lambda h: (h.line, h.rule, h.in_code)):
        if (hit.rule, hit.line) in seen:
            continue
        seen.add((hit.rule, hit.line))
        message, fix = _TEXT_MESSAGES[hit.rule]
        decoded = f" that decodes to '{quote(hit.decoded, 60)}'" if hit.decoded else ""
        text = quote(hit.text, 60)
        message = message.format(text=text, script=_script_name(hit), decoded=decoded)
        severity = WARNING
        if hit.rule in INSTRUCTION_RULES:
            if hit.in_code:
                message += " (inside code: allowed as a quotation)"
            elif hit.rule in relaxed:
                message += " (relaxed to a warning in lore.toml)"
            else:
                severity = ERROR
            if hit.decoded and not hit.in_code:
                message += f"; it is encoded, and decodes to '{quote(hit.decoded, 60)}'"
        elif hit.rule == "injection/encoded-blob" and not hit.decoded:
            message = f"'{quote(hit.text, 40)}' is a {len(hit.text)}-character encoded run"
        findings.append(Finding(hit.rule, severity, path, hit.line, message, fix))
    return findings


def _script_name(hit: TextHit) -> str:
    if hit.rule != "injection/mixed-script":
        return ""
    from lore.sanitize.skeleton import script_of

    scripts = {script_of(char) for char in hit.text} & {"GREEK", "CYRILLIC"}
    return " and ".join(sorted(s.title() for s in scripts)) or "other"
