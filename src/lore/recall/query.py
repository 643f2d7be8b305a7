"""Turn a natural-language query into a safe FTS5 MATCH expression.

Agents write queries like sentences. Every term is quoted (no input can produce
FTS5 syntax), function words and the words of a request are dropped
(`lore.text.words.QUERY_STOP_WORDS`), compound tokens (paths, identifiers like
`LEDGER_WRITE_TIMEOUT_MS`, `X-Request-Id`) become a phrase of their parts plus the
parts as terms, and taxonomy aliases add the words of the tag they stand for
(a query for "sso" also searches for the `service/auth` tag). Terms are OR-ed and
BM25 ranks them; the number of terms is capped so a 5,000-character query costs
no more than a long question.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from lore.record import Record
from lore.text.words import QUERY_STOP_WORDS, identifier_parts

MAX_TERMS = 24
MAX_QUERY_CHARS = 2000

_TOKEN = re.compile(r"[^\W_](?:[\w./:@#+-]*[^\W_])?", re.UNICODE)
_PATH = re.compile(r"^[\w.-]*(?:/[\w.-]+)+$|^[\w-]+\.[a-z]{1,5}$", re.IGNORECASE)


class Term(Record):
    """One OR-ed element of the query: a word or a phrase, and where it came from."""

    __slots__ = ("column", "origin", "words")

    def __init__(self, words: tuple[str, ...], origin: str, *, column: str | None = None) -> None:
        self.words = words
        self.origin = origin  # "word", "phrase", "path", or "alias:<alias>-><entry>"
        self.column = column  # restrict the match to one column (paths: files_touched)

    @property
    def label(self) -> str:
        text = " ".join(self.words)
        return f"{self.column}: {text}" if self.column else text

    def fts(self) -> str:
        phrase = '"' + " ".join(w.replace('"', '""') for w in self.words) + '"'
        return f"{self.column} : {phrase}" if self.column else phrase


class QueryPlan(Record):
    __slots__ = ("terms", "text")

    def __init__(self, text: str, terms: list[Term] | None = None) -> None:
        self.text = text
        self.terms = [] if terms is None else terms

    @property
    def match(self) -> str:
        return " OR ".join(term.fts() for term in self.terms)

    @property
    def empty(self) -> bool:
        return not self.terms


def _parts(token: str) -> list[str]:
    return [p.lower() for p in identifier_parts(token)]


def build_query(
    text: str, aliases: Mapping[str, Sequence[str]] | AliasIndex | None = None
) -> QueryPlan:
    """The query plan for `text`; `aliases` maps alias -> taxonomy entries (tags/types/repos)."""
    text = text[:MAX_QUERY_CHARS]
    plan = QueryPlan(text=text)
    seen: set[tuple[str, ...]] = set()

    def add(words: Sequence[str], origin: str, column: str | None = None) -> None:
        key = (*words, column or "")
        if words and key not in seen and len(plan.terms) < MAX_TERMS:
            seen.add(key)
            plan.terms.append(Term(tuple(words), origin, column=column))

    tokens = _TOKEN.findall(text)
    lowered = [t.lower() for t in tokens]
    content = [t for t in lowered if t not in QUERY_STOP_WORDS]
    if not content:
        content = lowered  # a query of only stop words still searches for them

    for token in content:
        parts = _parts(token)
        if len(parts) > 1:
            add(parts, "phrase")
            if _PATH.match(token):  # a file path: a match in files_touched counts again
                add(parts, "path", "files_touched")
            for part in parts:
                if part not in QUERY_STOP_WORDS:
                    add((part,), "word")
        elif parts:
            add(parts, "word")

    if aliases:
        _expand_aliases(lowered, aliases, add)
    return plan


class AliasIndex(Record):
    """Taxonomy aliases prepared for matching: each alias's words, and the entries it
    stands for (their words are read only for an alias a query holds: a recall process
    prepares every alias once, and a query holds few)."""

    __slots__ = ("entries",)

    def __init__(self, aliases: Mapping[str, Sequence[str]]) -> None:
        self.entries: list[tuple[str, str, Sequence[str]]] = []
        for alias in sorted(aliases):
            alias_words = " ".join(_parts(alias))
            if alias_words:
                self.entries.append((f" {alias_words} ", alias, aliases[alias]))


def _expand_aliases(
    tokens: list[str],
    aliases: Mapping[str, Sequence[str]] | AliasIndex,
    add: object,
) -> None:
    index = aliases if isinstance(aliases, AliasIndex) else AliasIndex(aliases)
    joined = " " + " ".join(" ".join(_parts(t)) for t in tokens) + " "
    for alias_words, alias, targets in index.entries:
        if alias_words not in joined:
            continue
        for entry in targets:
            words = _parts(entry.split("/", 1)[-1])
            if words:
                add(words, f"alias:{alias}->{entry}")  # type: ignore[operator]
