"""A tag for every note: when none of the taxonomy's tags fits, one is proposed beside it.

The conventions say it: "If no tag fits, propose one in the same pull request by adding a
line to `_taxonomy.md` with a definition". An import does that instead of leaving a note
with `tags: []` (an error the curator blocks on). The tag names what the note is about,
read from its title:

- a **named thing** — a word in code (`MeshHTTPRoute`), in capitals (`ECS`, `DNS`), in
  CamelCase (`PgBouncer`), with digits (`Ed25519`), or, in a title written in sentence
  case, a capitalised run after the first word ("Use Brakeman as …") — becomes a tag of
  the `tool` dimension;
- otherwise the title's **subject** — its first content words after a leading verb
  ("Record architecture decisions" → `architecture-decisions`) — becomes a tag of the
  `pattern` dimension (else `domain`, else a new `topic` section).

Terms are counted over the batch's untagged notes, and a note takes the term most of
them share, so one new tag serves every note about the same thing rather than one tag a
note. A term whose name is already a tag's (in any dimension) or one of its aliases maps
to that tag. The definition is the source's own words: the first title that names it,
quoted, for the reviewer to keep or rewrite.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from lore.note.ids import slugify
from lore.taxonomy import Taxonomy
from lore.team.imports.model import Draft
from lore.text.words import STOP_WORDS, tokens

NAMED_DIMENSION = "tool"
TOPIC_DIMENSIONS = ("pattern", "domain", "topic")
MAX_WORDS = 3
_TOKEN = re.compile(r"`[^`]+`|[\w][\w.+#/-]*[\w+#]|[\w]")
# Until lore.text lands (issue 29), the few words a title's subject is read past:
_VERBS = frozenset(
    (
        "use", "using", "used", "adopt", "adopting", "record", "recording", "move", "moving",
        "handle", "handling", "support", "supporting", "introduce", "introducing", "replace",
        "replacing", "remove", "removing", "add", "adding", "create", "creating", "define",
        "defining", "choose", "choosing", "store", "storing", "run", "running", "deploy",
        "deploying", "migrate", "migrating", "switch", "switching", "keep", "keeping", "make",
        "making", "implement", "implementing", "enable", "enabling", "allow", "allowing",
        "refactor", "refactoring", "assign", "assigning", "include", "including", "drop",
        "dropping", "retire", "retiring", "prefer", "limit", "limiting", "publish", "publishing",
        "partition", "partitioning", "pin", "pinning", "give", "giving", "host", "hosting",
        "build", "building", "track", "tracking", "require", "requiring", "standardise",
        "standardize", "standardising", "standardizing", "document", "documenting", "provide",
        "providing", "set", "setting", "do", "don't", "not", "never", "always", "we", "will",
        "should", "must",
    )
)  # fmt: skip
# Not a tag's word: a function word (`lore.text.words`), or "new" and "two" ("Two new
# queues" names no tool).
_STOP = STOP_WORDS | frozenset({"new", "two"})


@dataclass(frozen=True)
class NewTag:
    name: str  # `tool/brakeman`
    display: str  # `Brakeman`, as the source writes it
    example: str  # the first title that names it

    def line(self) -> str:
        """The `_taxonomy.md` entry: name, a one-line definition, and an alias if useful."""
        quote = self.example if len(self.example) <= 100 else self.example[:99] + "…"
        line = f"- `{self.name}` — {self.display}, as the imported notes name it: “{quote}”."
        leaf_words = self.name.split("/", 1)[1].replace("-", " ")
        plain = " ".join(re.findall(r"[a-z0-9.]+", self.display.lower()))
        if plain and plain != leaf_words:
            line += f" Aliases: {plain}"
        return line


def propose_tags(drafts: list[Draft], taxonomy: Taxonomy | None) -> list[NewTag]:
    """Give every untagged draft a tag, existing or new; the new tags, for `_taxonomy.md`.

    A note's terms come from its title, and the named things of its first sentence; it
    takes the one most notes of the batch mention (so a tag serves as many as it can),
    a title's term first when they tie.
    """
    untagged = [draft for draft in drafts if not draft.tags]
    if not untagged:
        return []
    existing = _existing_names(taxonomy)
    dimensions = set(taxonomy.dimensions) if taxonomy is not None else set()
    texts = [_words(f"{d.title} {d.what} {d.why}") for d in drafts]
    sections = Counter(_section_topic(d.section) for d in untagged if _section_topic(d.section))
    made: dict[str, NewTag] = {}
    for draft in untagged:
        lead = draft.what.split("\n", 1)[0]
        title_terms = _terms(draft.title)
        found = title_terms + [t for t in _terms(lead, strict=True) if t not in title_terms]
        spread = {term: sum(1 for text in texts if _mentions(text, term[1])) for term in found}
        shared = [term for term in found if spread[term] >= 2]
        section = _section_topic(draft.section)
        if section and sections[section] >= 2:  # the pieces a file groups under one heading
            kind, display = "topic", section
        elif shared:  # the title's own terms first: it says what the note is about
            kind, display = min(
                shared, key=lambda t: (t not in title_terms, t[0] != "named", found.index(t))
            )
        elif title_terms:
            kind, display = title_terms[0]
        elif _terms(lead):  # a title that names nothing ("009"): the first sentence does
            kind, display = _terms(lead)[0]
        else:
            continue
        slug = slugify(display, MAX_WORDS)
        if not slug:
            continue
        tag = existing.get(slug)
        if tag is None:
            tag = f"{_dimension(kind, dimensions)}/{slug}"
            made.setdefault(tag, NewTag(tag, display.strip("`"), draft.title))
        draft.tags = [tag]
        if tag in made:
            draft.unmapped.append(f"no tag of the taxonomy fits: proposes {tag} beside it")
    return list(made.values())


# A heading that names a part of a document, not what the part is about, names no tag.
_DOCUMENT_PARTS = frozenset(
    (
        "overview", "introduction", "summary", "guidelines", "guideline", "rules", "rule",
        "notes", "note", "important", "general", "misc", "miscellaneous", "other", "tips",
        "instructions", "requirements", "details", "reference", "references", "about",
        "background", "context", "faq", "do", "don't", "dos", "donts", "best practices",
        "conventions", "key points", "quick start", "getting started", "examples", "example",
    )
)  # fmt: skip
# A heading asked as a question or naming things to do names no subject either.
_NO_SUBJECT = re.compile(r"^(?:what|how|why|when|where|who|which|things|do|don'?t)\b", re.I)
# Capitals for emphasis are no name: "ALWAYS format Go code", "NEVER commit secrets".
_EMPHASIS = frozenset(
    ("always", "never", "must", "not", "important", "note", "warning", "only", "do", "dont",
     "don't", "should", "critical", "required", "todo", "avoid", "prefer", "use", "all", "no")
)  # fmt: skip


def _section_topic(heading: str) -> str:
    """The subject a section heading names ("Testing", "Database migrations"), or ""."""
    words = [w for w in re.findall(r"[A-Za-z][\w.+#-]*", heading) if w.lower() not in _STOP]
    topic = " ".join(words[:MAX_WORDS])
    if not topic or topic.lower() in _DOCUMENT_PARTS or _NO_SUBJECT.match(topic):
        return ""
    return topic


def _words(text: str) -> str:
    return " " + " ".join(tokens(text)) + " "


def _mentions(words: str, display: str) -> bool:
    phrase = " ".join(tokens(display))
    return bool(phrase) and f" {phrase} " in words


def _existing_names(taxonomy: Taxonomy | None) -> dict[str, str]:
    """slug -> tag, for every tag's leaf and alias (a new term that is one maps to it)."""
    names: dict[str, str] = {}
    if taxonomy is None:
        return names
    for tag, entry in taxonomy.tags.items():
        for phrase in (tag.split("/", 1)[1], *entry.aliases):
            slug = slugify(phrase, MAX_WORDS)
            if slug:
                names.setdefault(slug, tag)
    return names


def _dimension(kind: str, dimensions: set[str]) -> str:
    if kind == "named" and NAMED_DIMENSION in dimensions:
        return NAMED_DIMENSION
    return next((d for d in TOPIC_DIMENSIONS if d in dimensions), TOPIC_DIMENSIONS[-1])


def _terms(title: str, *, strict: bool = False) -> list[tuple[str, str]]:
    """("named" | "topic", the words as written) for a title, the named things first.

    `strict` (a sentence of prose, not a title): only what is written as a name — in code,
    capitals, CamelCase or with digits — and no topic."""
    tokens = _TOKEN.findall(title)
    if not tokens:
        return []
    lettered = [t for t in tokens if len(t) >= 4 and t[:1].isalpha()]
    title_case = bool(lettered) and sum(1 for t in lettered if t[0].isupper()) >= 0.7 * len(
        lettered
    )
    named: list[str] = []
    run: list[str] = []
    starts = _sentence_starts(title, tokens)
    for index, token in enumerate(tokens):
        if _is_named(token, 0 if index in starts else index, title_case or strict):
            run.append(token)
            continue
        if run:
            named.append(" ".join(run))
            run = []
    if run:
        named.append(" ".join(run))
    found = [
        ("named", " ".join(name.split()[:MAX_WORDS]))
        for name in named
        if name.strip("`").lower() not in _RECORD_TYPES
    ]
    topic = "" if strict else _topic(tokens)
    if topic:
        found.append(("topic", topic))
    return found


_RECORD_TYPES = frozenset(("adr", "adrs", "rfc", "rfcs", "madr", "adr-tools"))  # the kind of text


def _sentence_starts(text: str, tokens: list[str]) -> set[int]:
    """The tokens that open a sentence (after ". ", "! ", "? ", ": "): capitalised by rule."""
    starts: set[int] = {0}
    position = 0
    for index, token in enumerate(tokens):
        found = text.find(token, position)
        if found > 0 and re.search(r"[.!?:]\s+$", text[:found]):
            starts.add(index)
        position = found + len(token) if found >= 0 else position
    return starts


def _is_named(token: str, index: int, title_case: bool) -> bool:
    if token.startswith("`"):
        return True
    letters = [c for c in token if c.isalpha()]
    if not letters or token.lower() in _STOP or token.lower().strip(".") in _EMPHASIS:
        return False
    if len(letters) >= 2 and all(c.isupper() for c in letters):
        return True  # ECS, DNS, GOV.UK
    if any(c.isdigit() for c in token) and letters:
        return True  # Ed25519, Secp256k1, S3
    if any(c.isupper() for c in token[1:]) and token[0].isalpha():
        return True  # PgBouncer, MeshHTTPRoute
    return not title_case and index > 0 and token[0].isupper()


def _topic(tokens: list[str]) -> str:
    words = [t.strip("`") for t in tokens]
    while words and words[0].lower() in _VERBS:
        words = words[1:]
    content = [w for w in words if w.lower() not in _STOP and not w.isdigit()]
    chunk: list[str] = []
    for word in words:
        if word.lower() in _STOP or word.isdigit():
            if chunk:
                break
            continue
        chunk.append(word)
        if len(chunk) == MAX_WORDS:
            break
    if len(chunk) == 1:  # "Need for symmetric cryptography": the subject follows a preposition
        rest = words[words.index(chunk[0]) + 1 :]
        if rest and rest[0].lower() in ("for", "of", "to", "on", "in", "with"):
            after = [w for w in rest[1:] if w.lower() not in _STOP][:MAX_WORDS]
            if after and not any(w.isdigit() for w in after):
                return " ".join(after)
    return " ".join(chunk or content[:MAX_WORDS])
