"""Text that speaks to an agent instead of informing it, however it is spelled.

The `injection/` family calls `scan` on each piece of text a note or policy file holds
(the body, every frontmatter string and list item, a policy file) and turns its
`TextHit`s into findings. What it looks for:

- instructions (`agent-instruction`), chat role markers (`role-tag`) and downloads
  piped into a shell (`pipe-to-shell`), matched both on the text as written (past
  invisible characters) and on its confusables fold (`lore.sanitize.skeleton`), so a
  Greek omicron in "Ignοre" changes nothing. A match inside a code span or a fenced
  block is a quotation: reported as such (a warning), so a note can document an attack;
- words that mix Latin with Greek or Cyrillic look-alikes (`mixed-script`);
- encoded runs outside code (`encoded-blob`): hex or base64 that decodes to readable
  text, or runs too long to be a digest (over 128 hex digits, 200 base64 characters).
  A git SHA (40 hex), a SHA-256 (64) or SHA-512 (128) digest and a UUID decode to
  random bytes, so they pass; text that decodes to an instruction is an instruction.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from lore.sanitize import sanitize_text
from lore.sanitize.skeleton import fold, mixed_script_words
from lore.text.markdown import CodeMap

ROLE_TAG = re.compile(
    r"</?\s*(?:system|assistant|user|human|memory|memories|instructions?|context|tool_call|"
    r"tool_result|function_calls?|antml:[a-z_]+|im_start|im_end)\b[^>]{0,200}>"
    r"|<\|(?:im_start|im_end|system|user|assistant|endoftext|eot_id|start_header_id)\|>"
    r"|\[/?INST\]|<</?SYS>>"
    r"|^[ \t>*_-]*(?:assistant|human|ai)[ \t]*:(?=[ \t]*\S)",
    re.IGNORECASE | re.MULTILINE,
)
INSTRUCTION = re.compile(
    r"\b(?:ignore|disregard|forget|override|bypass)\b[^.\n]{0,40}?\b(?:previous|prior|above|"
    r"earlier|preceding|all|any|your|the system|system)\b[^.\n]{0,20}?\b(?:instructions?|"
    r"prompts?|rules|messages|context|guidelines|directions)\b"
    r"|\byou are now\b|\byou must now\b|\bnew instructions?\s*:"
    r"|\bfrom now on\b,?\s*(?:you\b|always\b|never\b|(?:run|execute|use|call|reply|respond|"
    r"ignore|answer)\b)"
    r"|\b(?:do not|don't|never)\s+(?:tell|inform|mention|reveal|show)\b[^.\n]{0,30}?"
    r"\b(?:the )?(?:user|human|developer|reviewer)s?\b"
    r"|\b(?:as an? (?:ai|llm|language model|coding agent|assistant))\b[^.\n]{0,40}?\byou\b"
    r"|\b(?:when|if) you (?:read|see|process) this\b"
    r"|\b(?:always|automatically)\s+(?:run|execute)\b[^.\n]{0,60}?\bwithout\s+(?:asking|"
    r"confirmation|approval|review)\b"
    r"|\b(?:send|post|upload|exfiltrate|forward)\b[^.\n]{0,30}?\b(?:secrets?|credentials|"
    r"tokens?|api keys?|env(?:ironment)? variables|\.env|ssh keys?|private keys?)\b[^.\n]{0,30}?"
    r"\bto\b"
    r"|\bprint (?:all|every|the) (?:env(?:ironment)? variables|secrets|credentials|tokens)\b",
    re.IGNORECASE,
)
PIPE_TO_SHELL = re.compile(
    r"\b(?:curl|wget|iwr|irm|invoke-webrequest|invoke-restmethod|fetch)\b[^\n|]{0,300}\|\s*"
    r"(?:sudo\s+(?:-\S+\s+)*)?(?:ba|z|k|da|fi)?sh\b"
    r"|\b(?:curl|wget)\b[^\n|]{0,300}\|\s*(?:sudo\s+)?(?:python[0-9.]*|perl|ruby|node|php)\b"
    r"|\b(?:ba|z)?sh\s+<\(\s*(?:curl|wget)\b"
    r"|\b(?:ba|z)?sh\s+-c\s+[\"']?\$\(\s*(?:curl|wget)\b"
    r"|\|\s*iex\b|\biex\s*\(\s*(?:new-object|iwr|irm|invoke-webrequest|invoke-restmethod)\b",
    re.IGNORECASE,
)
PATTERNS = (
    ("injection/role-tag", ROLE_TAG),
    ("injection/agent-instruction", INSTRUCTION),
    ("injection/pipe-to-shell", PIPE_TO_SHELL),
)
# Each pattern can only match text (lower-cased) that holds one of these: a substring
# test is far cheaper than the regular expression, and most notes hold none of them.
NEEDS = {
    "injection/role-tag": ("<", "[", ":"),
    "injection/agent-instruction": (
        "ignor", "disregard", "forget", "overrid", "bypass", "you", "instruction",
        "from now on", "tell", "inform", "mention", "reveal", "show", "without", "secret",
        "credential", "token", "api key", "variable", ".env", "ssh key", "private key",
        "print",
    ),
    "injection/pipe-to-shell": (
        "curl", "wget", "iwr", "irm", "invoke-web", "invoke-rest", "fetch", "iex",
    ),
}  # fmt: skip

# Encoded runs. Thresholds measured on the curator fixtures, the eval vault and real
# ADRs (docs/rules.md): digests and ids in prose never reach them.
MIN_DECODED_BYTES = 12  # shorter runs are words and ids, not messages
MAX_HEX_DIGEST = 128  # SHA-512 in hex; a longer hex run is data whatever it decodes to
MAX_BASE64_RUN = 200
_HEX = re.compile(r"(?<![0-9A-Za-z])[0-9a-fA-F]{24,}(?![0-9A-Za-z])")
_BASE64 = re.compile(r"(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/_-]{20,}={0,2}(?![A-Za-z0-9+/=_-])")
MIN_RUN = 20  # the shortest run `_BASE64` and `_HEX` look at
# ASCII without spaces, markup, pipes or colons: every instruction pattern needs one of
# them, so such text (most frontmatter values) is only looked at for encoded runs.
_WORD_LIKE = re.compile(r"[A-Za-z0-9_./@+=-]*")
_NOT_NEWLINE = re.compile(r"[^\n]")
_URL_LIKE = re.compile(r"\b[A-Za-z][A-Za-z0-9+.-]{1,31}:[^\s<>()\[\]`\"']+|\]\([^)\s]*\)")


@dataclass(frozen=True)
class TextHit:
    """One match: its rule, file line, the matched text, and whether it sits in code."""

    rule: str
    line: int
    text: str
    in_code: bool = False
    decoded: str | None = None  # encoded-blob: what the run decodes to, if it is text


def code_only(text: str, code: CodeMap) -> str:
    """`text` with everything outside code blanked (same length and line breaks)."""
    out: list[str] = []
    last = 0
    for start, end in code.ranges:
        out += (_blank(text[last:start]), text[start:end])
        last = end
    out.append(_blank(text[last:]))
    return "".join(out)


def _blank(text: str) -> str:
    return _NOT_NEWLINE.sub(" ", text)


Where = Callable[[str, int], int]  # (text, offset) -> the file line of that offset


def _lines_from(first_line: int, line_map: list[int] | None = None) -> Where:
    def where(text: str, offset: int) -> int:
        index = text.count("\n", 0, offset)
        if line_map is None:
            return first_line + index
        return line_map[min(index, len(line_map) - 1)]

    return where


def _pattern_hits(part: str, where: Where, in_code: bool) -> Iterator[TextHit]:
    for variant in dict.fromkeys((part, fold(part))):
        lower = variant.lower()
        for rule, pattern in PATTERNS:
            if not any(needed in lower for needed in NEEDS[rule]):
                continue
            for match in pattern.finditer(variant):
                yield TextHit(rule, where(variant, match.start()), match[0], in_code)


def scan(text: str, first_line: int = 1, *, line_map: list[int] | None = None) -> list[TextHit]:
    """Every hit in `text` (whose first line is file line `first_line`, or whose lines are
    the file lines in `line_map`), one per rule and line; a hit in prose wins over a
    quotation on the same line."""
    where = _lines_from(first_line, line_map)
    if _WORD_LIKE.fullmatch(text):  # a tag, an id, a path, a date: no pattern can match
        return list(_encoded_hits(text, where)) if len(text) >= MIN_RUN else []
    visible = sanitize_text(text)  # read past invisible characters ("ig\u200bnore")
    code = CodeMap(visible)
    found: dict[tuple[str, int], TextHit] = {}
    parts = [(code.prose(visible), False)]
    if code.ranges:
        parts.append((code_only(visible, code), True))
    for part, in_code in parts:
        for hit in _pattern_hits(part, where, in_code):
            found.setdefault((hit.rule, hit.line), hit)
        if in_code:
            continue
        for hit in _encoded_hits(part, where):
            found.setdefault((hit.rule, hit.line), hit)
    for offset, word, _script in mixed_script_words(visible):
        hit = TextHit("injection/mixed-script", where(visible, offset), word)
        found.setdefault((hit.rule, hit.line), hit)
    return sorted(found.values(), key=lambda h: (h.line, h.rule, h.in_code))


def scan_values(values: Iterable[tuple[int, str]]) -> list[TextHit]:
    """`scan` over many short texts (frontmatter values), each with its file line.

    They are scanned as one text, a blank line between two values so that no code span
    runs from one into the next; a value holding a fence is scanned alone, so that no
    fence does either.
    """
    hits: list[TextHit] = []
    parts: list[str] = []
    line_map: list[int] = []
    for line, text in values:
        if "```" in text or "~~~" in text:
            hits += scan(text, line)
            continue
        parts.append(text)
        line_map += [line] * (text.count("\n") + 2)  # its lines, then the blank line
    if parts:
        hits += scan("\n\n".join(parts), line_map=line_map)
    return hits


def _readable(data: bytes) -> str | None:
    """`data` as text when it reads as text: UTF-8, printable, mostly letters and spaces."""
    if len(data) < MIN_DECODED_BYTES:
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    printable = sum(1 for char in text if char.isprintable() or char in "\n\t")
    wordy = sum(1 for char in text if char.isalpha() or char == " ")
    if printable < 0.95 * len(text) or wordy < 0.6 * len(text) or " " not in text.strip():
        return None
    return text


def _decode_base64(run: str) -> bytes | None:
    body = run.rstrip("=")
    padded = body + "=" * (-len(body) % 4)
    altchars = b"-_" if ("-" in body or "_" in body) else None
    if altchars and ("+" in body or "/" in body):
        return None
    try:
        return base64.b64decode(padded, altchars=altchars, validate=True)
    except (binascii.Error, ValueError):
        return None


def _encoded_hits(prose: str, where: Where) -> Iterator[TextHit]:
    """Hex and base64 runs outside code and links that decode to text, or are too long."""
    plain = _URL_LIKE.sub(lambda m: " " * len(m[0]), prose)  # links: the link rules' job
    hex_spans: list[tuple[int, int]] = []
    runs: list[tuple[int, str, str | None, bool]] = []
    for match in _HEX.finditer(plain):
        run = match[0]
        hex_spans.append(match.span())
        decoded = _readable(bytes.fromhex(run[: len(run) // 2 * 2]))
        runs.append((match.start(), run, decoded, len(run) > MAX_HEX_DIGEST))
    for match in _BASE64.finditer(plain):
        if any(start <= match.start() < end for start, end in hex_spans):
            continue
        run = match[0]
        data = _decode_base64(run)
        decoded = _readable(data) if data is not None else None
        runs.append((match.start(), run, decoded, len(run) > MAX_BASE64_RUN and _varied(run)))
    for start, run, decoded, too_long in runs:
        if decoded is None and not too_long:
            continue
        line = where(plain, start)
        yield TextHit("injection/encoded-blob", line, run, decoded=decoded)
        if decoded is not None:  # an encoded instruction is an instruction
            for hit in _pattern_hits(decoded, _lines_from(1), False):
                yield TextHit(hit.rule, line, run, False, decoded)


def _varied(run: str) -> bool:
    """Upper and lower case and digits: data, not a long path or word chain."""
    return (
        any(c.isupper() for c in run)
        and any(c.islower() for c in run)
        and any(c.isdigit() for c in run)
    )
