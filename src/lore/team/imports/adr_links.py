"""How one ADR names another: supersession and its milder kin, from either side.

Authors record a replacement in many places and words, and all of them are read:

- a **status line** or a links section: "Superseded by [3](0003-….md)", "Supercedes
  ADR 2" (adr-tools' spelling), "Deprecated by [Partial Set Security](adr-015-….md)",
  "Deprecated (Replaced by ADR #0012)", "Superseded: 2019-12-19 by [ADR 14](…)",
  "Deprecate in favor of ADR-37", "⌛️ Superseded [0019](…)" with no "by";
- **metadata fields**, in front matter or as `- key: value` lines: `superseded_by:
  ["0009"]`, `replaced_by: scs-0002-v2-….md`, `supersedes:`, `replaces:`, and for what only
  adds to another, `amends:`, `supplements:`, `extends:`;
- a **deprecation note** (a `deprecated-reason:` field or a "Deprecation Reason" section)
  that says the record was replaced or reimplemented and points at another ("See
  ADR-291", "Refer to [ADR-295]"): the record it points at replaced it;
- any **sentence** that names another record explicitly (a link to its file, or "ADR 5"):
  "… superseded by", "… replaced by" (the other is newer), "supersedes", "replaces", "we
  supersede" (this one is), "[ADR-7] which supersedes this decision" (the other is newer).

"Partly" or "in part" superseded, "supersedes some aspects of", "amends", "clarifies",
"refines", "extends", "supplements", "relates to" are related links, never a
replacement. A reference is a markdown link to a record (a `.md` or `.html` file, a
folder, a site's page), "ADR 5", "ADR-0005", "AD045", "ADR #0012" or "#0033".
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from lore.team.imports.markdown import field_text, inline_plain

_REF = re.compile(
    r"\[(?P<text>[^\]]*)\]\((?P<target>[^)\s]+)\)"
    r"|\bAD[RD]?[\s#-]*(?P<num>\d{1,5})\b|(?<![\w/])#(?P<hash>\d{1,5})\b",
    re.IGNORECASE,
)
_PARTIAL = r"(?:partly|partially|in\s+part|parts?\s+of\s+(?:this|it|the)(?:\s+\w+){0,3}?)"
_ON_DAY = r"(?:\s*:?\s*(?:on\s+)?\d{4}-\d{2}-\d{2})?"
_PHRASES = (
    ("partial-by", re.compile(rf"{_PARTIAL}\s+(?:been\s+)?super[sc]ee?ded\s+(?:by\s+)?", re.I)),
    ("partial-of", re.compile(rf"{_PARTIAL}\s+super[sc]edes?\s+", re.I)),
    ("partial-of", re.compile(
        r"\bsuper[sc]edes?\s+(?:some\s+aspects|aspects|parts?|some\s+parts?|portions?)"
        r"\s+of\s+", re.I)),
    ("by", re.compile(
        rf"\b(?:super[sc]ee?ded|replaced|obsoleted|overridden|deprecated){_ON_DAY}\s+"
        r"(?:in\s+full\s+)?by\s+", re.I)),
    ("by", re.compile(r"\bdeprecated?\s+in\s+favou?r\s+of\s+", re.I)),
    ("by", re.compile(r"\bsuper[sc]ee?ded\s+(?=\[)", re.I)),  # "⌛️ Superseded [0019](…)"
    ("of", re.compile(r"\b(?:super[sc]edes?|replaces|obsoletes|overrides)\s+(?:the\s+)?", re.I)),
    ("related", re.compile(
        r"\b(?:amend(?:s|ed\s+by)|clarifie(?:s|d\s+by)|refine(?:s|d\s+by)|extend(?:s|ed\s+by)|"
        r"supplement(?:s|ed\s+by)|relates?\s+to|related\s+to|see\s+also|complement(?:s|ed\s+by)|"
        r"depends\s+on|updated\s+by|updates)\s+", re.I)),
)  # fmt: skip
# "[ADR-7] which supersedes this decision": the reference before names the newer record.
_SUPERSEDES_THIS = re.compile(
    r"\b(?:which|that)?\s*(?:now\s+)?(?:supersedes|replaces|obsoletes)\s+(?:this|the current)\b",
    re.I,
)
_POINTER = re.compile(r"\b(?:see|refer to|replaced by|superseded by)\s+", re.I)
_NO_LONGER = re.compile(r"^\W*(?:super[sc]ee?ded|deprecated|replaced|obsolete)\b", re.I)
_REPLACED = re.compile(r"\b(?:replaced|reimplemented|superseded|succeeded)\b", re.I)
FIELDS = {
    "superseded_by": "by", "superseded-by": "by", "superseded by": "by", "supersededby": "by",
    "replaced_by": "by", "replaced-by": "by", "replaced by": "by", "deprecated_by": "by",
    "deprecated-by": "by", "obsoleted_by": "by", "obsoleted-by": "by",
    "supersedes": "of", "replaces": "of", "obsoletes": "of",
    "amends": "related", "amended_by": "related", "amended-by": "related",
    "supplements": "related", "supplemented_by": "related", "supplemented-by": "related",
    "extends": "related", "extended_by": "related", "refines": "related",
    "refined_by": "related", "related": "related", "relates_to": "related",
}  # fmt: skip
DEPRECATION_FIELDS = ("deprecated-reason", "deprecated_reason", "deprecation-reason")
_KINDS = {
    "by": "superseded-by",
    "of": "supersedes",
    "partial-by": "related",
    "partial-of": "related",
    "related": "related",
}
_SENTENCE_GAP = re.compile(r"[.;](?:\s|$)|\n")
# A link to another record: a markdown file, a folder, a site's page (`.html`, or a
# relative path with no extension, as documentation sites write them).
_RECORD_LINK = re.compile(
    r"\.(?:md|markdown|html?)(?:#.*)?$|/$|/README(?:\.md)?$|^(?![a-z]+:)(?!#)(?:\.\.?/)*[^.#]*[^/.#]$",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class AdrLink:
    kind: str  # "superseded-by" (the target is newer), "supersedes", "related"
    target: str  # the link's path as written, or ""
    number: int | None  # "ADR 5", "#0033", or the number in the link text
    text: str  # the link text (a title, when there is no number)
    wording: str  # the phrase, for messages
    stated: bool = True  # a status line, a field or a links section says it, not prose


def record_links(
    status: str,
    links_section: str,
    body_lines: Iterable[str],
    fields: dict[str, Any],
    deprecation: str,
) -> list[AdrLink]:
    """Every link to another record (see the module docstring), each once."""
    found: list[AdrLink] = []
    for line in (status, links_section):
        if line:
            found += _phrase_links(line, explicit_only=False)
    if _NO_LONGER.match(inline_plain(status)):  # "Superseded. See [this one](…)"
        found += _pointer_links(status)
    found += field_links(fields)
    reason = " ".join(
        [deprecation, *(field_text(fields.get(k)) for k in DEPRECATION_FIELDS if k in fields)]
    )
    if _REPLACED.search(reason):
        found += _pointer_links(reason)
    for line in body_lines:  # prose: weaker than what a status line or a field states
        prose = _phrase_links(line, explicit_only=True) + _backward_links(line)
        found += [replace(link, stated=False) for link in prose]
    unique: dict[tuple[str, str, int | None, str], AdrLink] = {}
    for link in found:  # one link a target, the first (stated before prose) wording kept
        unique.setdefault((link.kind, link.target, link.number, link.text), link)
    return list(unique.values())


def field_links(fields: dict[str, Any]) -> list[AdrLink]:
    """Links from metadata fields (`superseded_by: ["0009"]`, `replaces: x.md`, …)."""
    found: list[AdrLink] = []
    for key, value in fields.items():
        kind = FIELDS.get(str(key).strip().lower())
        if kind is None:
            continue
        values = value if isinstance(value, list) else [value]
        if len(values) == 1 and isinstance(values[0], str) and not _REF.search(values[0]):
            values = [part for part in values[0].split(",") if part.strip()]  # "0015, 0016"
        for item in values:
            text = field_text(item).strip().strip("\"'")
            if not text or text in ("-", "none", "n/a", "null"):
                continue
            refs = list(_REF.finditer(text))
            if refs:
                found += [_link(kind, ref, str(key)) for ref in refs]
            elif re.fullmatch(r"#?\d{1,5}", text):
                found.append(AdrLink(_KINDS[kind], "", int(text.lstrip("#")), text, str(key)))
            elif re.search(r"\.(?:md|markdown|html?)$", text, re.I):
                found.append(AdrLink(_KINDS[kind], text, None, "", str(key)))
            else:
                found.append(AdrLink(_KINDS[kind], "", None, text, str(key)))
    return found


def _phrase_links(text: str, *, explicit_only: bool) -> list[AdrLink]:
    found: list[AdrLink] = []
    taken: list[tuple[int, int]] = []
    for kind, pattern in _PHRASES:
        for match in pattern.finditer(text):
            if any(start <= match.start() < end for start, end in taken):
                continue
            taken.append((match.start(), match.end()))
            before = re.split(r"[.;:(]", text[: match.start()])[-1]
            if _DENIED.search(before):
                continue  # "does not directly supersede [ADR23]": no replacement
            rest = text[match.end() : match.end() + 400]
            position, refs, part = 0, 0, False
            for ref in _REF.finditer(rest):
                if _SENTENCE_GAP.search(rest[position : ref.start()]):
                    break  # the phrase's sentence ended before this reference
                between = rest[position : ref.start()]
                position = ref.end()
                if ref["target"] is not None and not _RECORD_LINK.search(ref["target"]):
                    continue  # a link to somewhere other than another record
                if explicit_only and ref["target"] is None and ref["num"] is None:
                    continue
                listed = refs > 0 and re.fullmatch(r"\s*(?:,|and|or|&|,\s*and)?\s*", between)
                if not listed:  # "… specified in [ADR-45] and [ADR-51]": both, as the first
                    part = _of_a_part(kind, before, between, rest[ref.end() : ref.end() + 3])
                refs += 1
                found.append(_link("related" if part else kind, ref, match[0].strip()))
            if not refs and not explicit_only and kind in ("by", "of"):
                title = inline_plain(_SENTENCE_GAP.split(rest, maxsplit=1)[0]).strip(" .()")
                if title and not re.fullmatch(r"[\W_]*", title):
                    found.append(AdrLink(_KINDS[kind], "", None, title, match[0].strip()))
    return found


# Principles, each tested on wordings from unrelated sets (tests/team/imports/test_adr_links.py):
# a replacement that is denied is none; replacing a part of a record — a metric it sets,
# the limits "specified in" it, its row of a table — amends it, so the link is Related.
_DENIED = re.compile(r"\b(?:not|n't|never|no longer|nor)\b(?:\s+\w+){0,2}\s*$", re.I)
_RECORD_WORDS = (
    "adr|decision|record|document|proposal|design|rfc|page|approach|policy|standard|it|one|"
    "version|spec|specification"
)
_AUXILIARY = "is|was|are|were|has|have|had|will|would|should|can|could|must|may|might|now"
_PART_SUBJECT = re.compile(
    rf"\b(?:this|these|that|those|the|its|our)\s+(?!(?:{_RECORD_WORDS}|{_AUXILIARY})\b)"
    r"[a-z][\w-]*"
    r"(?:\s+[a-z][\w-]*){0,3}\s+(?:(?:is|was|are|were|has|have|had)\s+(?:been\s+)?)?$",
    re.I,
)
_PART_OBJECT = re.compile(r"\w.*\b(?:in|of|from|under|within)\s*$", re.I)


def _of_a_part(kind: str, before: str, between: str, after: str) -> bool:
    """Whether the phrase replaces a part of the record, not the record (see above)."""
    if kind == "by":  # "This metric superseded by [ADR23]": the subject is a part
        return bool(_PART_SUBJECT.search(before.strip() + " "))
    if kind == "of":  # "supersedes the limits specified in [ADR-45]", "replaces ADR-36's row"
        return bool(_PART_OBJECT.match(between.strip())) or after.startswith(("'s", "’s"))
    return False


def _backward_links(text: str) -> list[AdrLink]:
    """ "[ADR-7] which supersedes this decision": the last reference before the phrase."""
    found: list[AdrLink] = []
    for match in _SUPERSEDES_THIS.finditer(text):
        before = text[max(0, match.start() - 200) : match.start()]
        sentence = _SENTENCE_GAP.split(before)[-1]
        refs = [
            r
            for r in _REF.finditer(sentence)
            if r["target"] is None or _RECORD_LINK.search(r["target"])
        ]
        if refs:
            found.append(_link("by", refs[-1], match[0].strip()))
    return found


def _pointer_links(text: str) -> list[AdrLink]:
    """The records a deprecation note points to for what replaced it ("See ADR-291")."""
    found: list[AdrLink] = []
    for match in _POINTER.finditer(text):
        rest = text[match.end() : match.end() + 200]
        ref = _REF.match(rest.lstrip())
        if ref is not None and _is_record(ref):
            found.append(_link("by", ref, "deprecated: " + match[0].strip()))
    return found


def _is_record(ref: re.Match[str]) -> bool:
    return ref["target"] is None or bool(_RECORD_LINK.search(ref["target"]))


def _link(kind: str, ref: re.Match[str], wording: str) -> AdrLink:
    text = inline_plain(ref["text"] or "")
    number: int | None = None
    raw = ref["num"] or ref["hash"]
    if raw:
        number = int(raw)
    else:
        leading = re.match(r"^\s*(?:ad[rd]?[\s#:-]*)?#?(\d{1,5})\b", text, re.IGNORECASE)
        if leading and not re.match(r"^\d{8}", text):
            number = int(leading[1])
    return AdrLink(_KINDS[kind], ref["target"] or "", number, text, wording)
