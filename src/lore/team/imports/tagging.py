"""Tags for an imported note, from the vault's own taxonomy and nothing else.

Principle: **a tag is what the note is about, so it must be named in the note's subject
— its title or its first sentence — or throughout it (three mentions or more); a word
met once in passing does not make the note about that thing.** A tag is named by its own
name (`postgres` for `tool/postgres`, `api gateway` for `service/api-gateway`) or one of
its aliases, as whole words. An alias is a word people search with instead (DESIGN
§2.2), often an ordinary one ("messages", "events", "api", "async"): alone, once, it is
weak evidence, so a tag named only by aliases needs two of them, or one twice. A `team/`
tag names who owns the work, so only a phrase that names the team ("payments team", or
an alias of more than one word) counts for it, not its bare name ("platform"). Among the
tags that qualify, a title mention weighs 3, one in the first sentence 2, any other 1;
at most four are kept, the best first. Tags the user gives (`--tag`) come first and
always stay. A source's own tags (basic-memory's `#tag`, foldcrumbs' `tags:`) map
through the same names and aliases; what maps to nothing is reported, not invented. When
no tag qualifies, the batch proposes one (`lore.team.imports.new_tags`).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from lore.taxonomy import Taxonomy
from lore.text.words import tokens

MAX_TAGS = 4
TITLE_WEIGHT = 3
LEAD_WEIGHT = 2
THROUGHOUT = 3  # mentions outside the subject that make a note about a thing
OWNER_DIMENSION = "team"


def _phrase(text: str) -> str:
    return " ".join(tokens(text))


_SENTENCE_END = re.compile(r"(?<=[.!?:])\s+|\n")


def _first_sentence(text: str) -> tuple[str, str]:
    """(the first sentence or line of `text`, the rest)."""
    text = text.strip()
    match = _SENTENCE_END.search(text)
    if match is None:
        return text, ""
    return text[: match.start()], text[match.end() :]


class Tagger:
    """Matches words to the taxonomy's tags; built once per import."""

    def __init__(self, taxonomy: Taxonomy | None) -> None:
        phrases: dict[str, set[str]] = {}
        self._own: set[tuple[str, str]] = set()  # (phrase, tag): the tag's own name
        if taxonomy is not None:
            for name, entry in taxonomy.tags.items():
                dimension, leaf = name.split("/", 1)
                names = [_phrase(alias) for alias in entry.aliases]
                if dimension != OWNER_DIMENSION:
                    names.append(_phrase(leaf))
                else:  # "platform" alone is no team; "platform team" is
                    names.append(f"{_phrase(leaf)} team")
                    names = [n for n in names if " " in n or n == _phrase(leaf) + " team"]
                for phrase in names:
                    if phrase and len(phrase) > 1:
                        phrases.setdefault(phrase, set()).add(name)
                self._own.add((_phrase(leaf), name))
                self._own.add((f"{_phrase(leaf)} team", name))
        self.known = set(taxonomy.tags) if taxonomy is not None else set()
        self._phrases = phrases
        words = sorted(phrases, key=len, reverse=True)
        self._pattern = (
            re.compile(r"(?<![a-z0-9])(" + "|".join(map(re.escape, words)) + r")(?![a-z0-9])")
            if words
            else None
        )

    def _hits(self, text: str, named: dict[str, list[str]] | None = None) -> Counter[str]:
        found: Counter[str] = Counter()
        if self._pattern is None:
            return found
        for match in self._pattern.finditer(_phrase(text)):
            for tag in self._phrases[match[1]]:
                found[tag] += 1
                if named is not None:
                    named.setdefault(tag, []).append(match[1])
        return found

    def suggest(self, title: str, body: str, given: Sequence[str] = ()) -> list[str]:
        """The tags the note is about (see the module docstring), best first, after `given`."""
        lead, rest = _first_sentence(body)
        named: dict[str, list[str]] = {}
        in_title = self._hits(title, named)
        in_lead, in_rest = self._hits(lead, named), self._hits(rest, named)
        scores: Counter[str] = Counter()
        for tag in {*in_title, *in_lead, *in_rest}:
            if not (in_title[tag] or in_lead[tag] or in_rest[tag] >= THROUGHOUT):
                continue  # named only in passing
            phrases = named[tag]
            if not any((p, tag) in self._own for p in phrases) and len(phrases) < 2:
                continue  # one ordinary word that is only an alias
            scores[tag] = (
                TITLE_WEIGHT * in_title[tag] + LEAD_WEIGHT * in_lead[tag] + min(in_rest[tag], 5)
            )
        chosen = list(dict.fromkeys(given))
        for tag, _ in sorted(scores.items(), key=lambda item: (-item[1], item[0])):
            if len(chosen) >= max(MAX_TAGS, len(given)):
                break
            if tag not in chosen:
                chosen.append(tag)
        return chosen

    def map_tags(self, names: list[str]) -> tuple[list[str], list[str]]:
        """(taxonomy tags, names that map to none) for a source's own tags."""
        mapped: list[str] = []
        unmapped: list[str] = []
        for name in names:
            clean = name.strip().lstrip("#").lower()
            if not clean:
                continue
            if clean in self.known:
                mapped.append(clean)
                continue
            tags = self._phrases.get(_phrase(clean))
            if tags:
                mapped += sorted(tags)
            else:
                unmapped.append(name.strip())
        return list(dict.fromkeys(mapped)), unmapped
