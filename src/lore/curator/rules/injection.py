"""`injection/`: what could steer or deceive the agents that will read a note.

Errors are exactly what `lore.sanitize` removes or neutralises (`find_hazards`):
hidden and steering characters anywhere in the file, and HTML comments, raw HTML,
images and link-reference definitions outside code in the body. So a note passes
the error rules if and only if sanitising it changes nothing, and the sanitised
text the PR comment shows is what an agent will get.

Warnings are for a reviewer's judgement and are not removed: links to domains not
in `allowed_link_domains`, role tags (`<system>`, `Assistant:`), instructions
addressed to an agent, and downloads piped into a shell.
"""

from __future__ import annotations

import re
from collections import defaultdict

from lore.curator.context.model import CuratorContext, NoteView
from lore.curator.finding import ERROR, WARNING, Finding
from lore.curator.rules.text import CodeMap, domain_allowed, line_at, quote, url_host, urls
from lore.sanitize import sanitize_text
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
    "injection/link-domain": "a link to a domain not in `allowed_link_domains` (warning)",
    "injection/role-tag": "a chat role marker such as `<system>`, `</memory>` or `Assistant:` "
    "(warning)",
    "injection/agent-instruction": "text addressed to an agent as an instruction (warning)",
    "injection/pipe-to-shell": "a download piped into a shell or interpreter (warning)",
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

_ROLE_TAG = re.compile(
    r"</?\s*(?:system|assistant|user|human|memory|memories|instructions?|context|tool_call|"
    r"tool_result|function_calls?|antml:[a-z_]+|im_start|im_end)\b[^>]{0,200}>"
    r"|<\|(?:im_start|im_end|system|user|assistant|endoftext|eot_id|start_header_id)\|>"
    r"|\[/?INST\]|<</?SYS>>"
    r"|^[ \t>*_-]*(?:assistant|human|ai)[ \t]*:(?=[ \t]*\S)",
    re.IGNORECASE | re.MULTILINE,
)
_INSTRUCTION = re.compile(
    r"\b(?:ignore|disregard|forget|override|bypass)\b[^.\n]{0,40}?\b(?:previous|prior|above|"
    r"earlier|preceding|all|any|your|the system|system)\b[^.\n]{0,20}?\b(?:instructions?|"
    r"prompts?|rules|messages|context|guidelines|directions)\b"
    r"|\byou are now\b|\byou must now\b|\bnew instructions?\s*:"
    r"|\bfrom now on\b[^.\n]{0,60}?\b(?:always|never|you|run|execute|use|call|reply|respond)\b"
    r"|\b(?:do not|don't|never)\s+(?:tell|inform|mention|reveal|show)\b[^.\n]{0,30}?"
    r"\b(?:the )?(?:user|human|developer|reviewer)s?\b"
    r"|\b(?:as an? (?:ai|llm|language model|coding agent|assistant))\b[^.\n]{0,40}?\byou\b"
    r"|\b(?:when|if) you (?:read|see|process) this\b"
    r"|\b(?:always|automatically)\s+(?:run|execute)\b[^.\n]{0,60}?\bwithout\s+(?:asking|"
    r"confirmation|approval|review)\b"
    r"|\b(?:send|post|upload|exfiltrate|forward)\b[^.\n]{0,30}?\b(?:secrets?|credentials|"
    r"tokens?|api keys?|env(?:ironment)? variables|\.env|ssh keys?|private keys?)\b[^.\n]{0,30}?"
    r"\bto\b",
    re.IGNORECASE,
)
_PIPE_TO_SHELL = re.compile(
    r"\b(?:curl|wget|iwr|irm|invoke-webrequest|invoke-restmethod|fetch)\b[^\n|]{0,300}\|\s*"
    r"(?:sudo\s+(?:-\S+\s+)*)?(?:ba|z|k|da|fi)?sh\b"
    r"|\b(?:curl|wget)\b[^\n|]{0,300}\|\s*(?:sudo\s+)?(?:python[0-9.]*|perl|ruby|node|php)\b"
    r"|\b(?:ba|z)?sh\s+<\(\s*(?:curl|wget)\b"
    r"|\b(?:ba|z)?sh\s+-c\s+[\"']?\$\(\s*(?:curl|wget)\b"
    r"|\|\s*iex\b|\biex\s*\(\s*(?:new-object|iwr|irm|invoke-webrequest|invoke-restmethod)\b",
    re.IGNORECASE,
)
MAX_PER_RULE = 20


def check(context: CuratorContext) -> list[Finding]:
    findings: list[Finding] = []
    allowed = context.settings.allowed_link_domains
    for checked in context.notes:
        view = checked.view
        assert view is not None
        path = checked.display
        findings += _hazard_findings(view, path)
        findings += _link_findings(view, path, allowed)
        findings += _warning_findings(view, path)
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


def _link_findings(view: NoteView, path: str, allowed: tuple[str, ...]) -> list[Finding]:
    findings: list[Finding] = []
    located: list[tuple[int, str]] = []
    if view.source:
        located.append((view.line_of_key("source"), view.source))
    code = CodeMap(view.body)
    located += [
        (line_at(view.body, offset, view.body_line), url) for offset, url in urls(view.body, code)
    ]
    seen: set[str] = set()
    for line, url in located:
        host = url_host(url)
        scheme = url.split(":", 1)[0].lower() if ":" in url else ""
        if host is None:
            if scheme in ("javascript", "data", "vbscript", "file"):
                message = f"a {scheme}: link runs or embeds content instead of pointing somewhere"
                findings.append(
                    Finding(
                        "injection/link-domain",
                        WARNING,
                        path,
                        line,
                        message,
                        "Link to a page on an allowed domain instead.",
                    )
                )
            continue
        if domain_allowed(host, allowed) or host in seen:
            continue
        seen.add(host)
        findings.append(
            Finding(
                "injection/link-domain",
                WARNING,
                path,
                line,
                f"a link to {quote(host, 80)}, which is not in allowed_link_domains",
                "Check where it leads; if the domain is trusted, add it to allowed_link_domains "
                "in lore.toml.",
            )
        )
    return findings


def _warning_findings(view: NoteView, path: str) -> list[Finding]:
    findings: list[Finding] = []
    # Read past invisible characters, so "ig\u200bnore previous" is still seen.
    visible = sanitize_text(view.body)
    title = sanitize_text(view.title or "")
    checks = (
        (
            "injection/role-tag",
            _ROLE_TAG,
            "'{text}' looks like a chat role marker, which can make a model treat the note as "
            "its own instructions",
            "Describe the format in words, or put it in a code block "
            "with a sentence that says what it is.",
        ),
        (
            "injection/agent-instruction",
            _INSTRUCTION,
            "'{text}' reads as an instruction to an agent, not as knowledge",
            "State the fact and the reason instead; notes are reference data.",
        ),
        (
            "injection/pipe-to-shell",
            _PIPE_TO_SHELL,
            "'{text}' pipes a download into a shell or interpreter",
            "Download, check and then run; or link the install docs instead.",
        ),
    )
    for rule, pattern, message, fix in checks:
        hits = [(view.line_of_key("title"), m[0]) for m in pattern.finditer(title)]
        hits += [
            (line_at(visible, m.start(), view.body_line), m[0]) for m in pattern.finditer(visible)
        ]
        seen_lines: set[int] = set()
        for line, text in hits:
            if line in seen_lines:
                continue
            seen_lines.add(line)
            findings.append(
                Finding(rule, WARNING, path, line, message.format(text=quote(text, 60)), fix)
            )
    return findings
