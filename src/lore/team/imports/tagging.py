"""Tags for an imported note, from the vault's own taxonomy and nothing else.

A tag is suggested when the source's words name it: the tag's own name (`postgres` for
`tool/postgres`, `api gateway` for `service/api-gateway`) or one of its aliases, as
whole words. A match in the title counts three times as much as one in the body; the
tags that score at least 2 (a title match, or two mentions) are kept, at most four, the
best first — the conventions ask for two to four. Tags the user gives (`--tag`) come
first and always stay. A source's own tags (basic-memory's `#tag`, foldcrumbs' `tags:`)
map through the same names and aliases; what maps to nothing is reported, not invented.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from lore.taxonomy import Taxonomy

MAX_TAGS = 4
TITLE_WEIGHT = 3
MIN_SCORE = 2


def _phrase(text: str) -> str:
    return " ".join(re.findall(r"[a-z0-9]+", text.lower()))


class Tagger:
    """Matches words to the taxonomy's tags; built once per import."""

    def __init__(self, taxonomy: Taxonomy | None) -> None:
        phrases: dict[str, set[str]] = {}
        if taxonomy is not None:
            for name, entry in taxonomy.tags.items():
                leaf = name.split("/", 1)[1]
                for phrase in (_phrase(leaf), *(_phrase(alias) for alias in entry.aliases)):
                    if phrase and len(phrase) > 1:
                        phrases.setdefault(phrase, set()).add(name)
        self.known = set(taxonomy.tags) if taxonomy is not None else set()
        self._phrases = phrases
        words = sorted(phrases, key=len, reverse=True)
        self._pattern = (
            re.compile(r"(?<![a-z0-9])(" + "|".join(map(re.escape, words)) + r")(?![a-z0-9])")
            if words
            else None
        )

    def _hits(self, text: str) -> Counter[str]:
        found: Counter[str] = Counter()
        if self._pattern is None:
            return found
        for match in self._pattern.finditer(_phrase(text)):
            for tag in self._phrases[match[1]]:
                found[tag] += 1
        return found

    def suggest(self, title: str, body: str, given: Sequence[str] = ()) -> list[str]:
        """The tags the words name, best first, after the ones `given`."""
        scores: Counter[str] = Counter()
        for tag, hits in self._hits(title).items():
            scores[tag] += TITLE_WEIGHT * hits
        for tag, hits in self._hits(body).items():
            scores[tag] += hits
        chosen = list(dict.fromkeys(given))
        ranked = sorted(scores.items(), key=lambda item: (-item[1], item[0]))
        for tag, score in ranked:
            if len(chosen) >= max(MAX_TAGS, len(given)):
                break
            if score >= MIN_SCORE and tag not in chosen:
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
