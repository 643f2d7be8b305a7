"""The search index the site's search page downloads, built when the site is built.

An inverted index, small enough to download once: `notes` lists each note as
`[id, title, summary, type, date, active]` (title and summary cut, sanitized, secrets
masked); `terms` is every distinct word of the notes, sorted; `postings[i]` lists the
notes that use `terms[i]`, as gaps between note numbers in hexadecimal joined by commas.
Words are what `words` cuts text into (lower case, accents dropped, letters and
digits) from the title, summary, id, type, tags, repositories and the first
`BODY_CHARS` of the body, less recall's stop words (`lore.text.words.QUERY_STOP_WORDS`,
shipped in the index so the page drops the same words from a query).

It is written as a script (`assets/search-index.js` sets `window.loreSearch`), not
as JSON to fetch: a page opened from `file://` may run its own scripts but may not
fetch a file, and the Content-Security-Policy allows no connection at all.
`assets/search.js`, the site's own script, matches each query word against the terms
by prefix (so `pool` finds `pooling`), ranks notes by how many query words they
match, then active before inactive, then words in the title, and shows the best 50.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterable
from typing import Any

from lore.site.content import SiteVault
from lore.site.layout import clean_body, plain
from lore.site.layout import summary as one_line
from lore.text.words import QUERY_STOP_WORDS as STOP_WORDS

BODY_CHARS = 4000  # a reviewed note is at most ~250 words (~1,700 characters)
TITLE_CHARS, SUMMARY_CHARS = 200, 120
MAX_WORD = 40
_WORD = re.compile(r"[^\W_]+")
# The combining diacritical marks (and their supplement and extended blocks): what an
# accented Latin, Greek or Cyrillic letter decomposes into besides its base letter.
_MARKS = re.compile("[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]")


def _folded(text: str) -> str:
    """Lower case with accents dropped: the same decomposition and the same combining
    marks as `search.js` drops from a query."""
    lowered = text.lower()
    if lowered.isascii():
        return lowered
    return _MARKS.sub("", unicodedata.normalize("NFKD", lowered))


def words(text: str) -> list[str]:
    """The words of `text` as the index holds them (`search.js` cuts queries alike)."""
    return [word for word in _WORD.findall(_folded(text)) if len(word) <= MAX_WORD]


def _terms(parts: Iterable[str]) -> set[str]:
    """The distinct words of a note's texts, less stop words (`words`, made a set first:
    it runs on every note's whole text)."""
    found = set(_WORD.findall(_folded(" ".join(parts))))
    return {word for word in found if len(word) <= MAX_WORD} - STOP_WORDS


def search_data(vault: SiteVault) -> dict[str, Any]:
    """The index as data: `notes`, `terms`, `postings`, `stop`."""
    notes: list[list[Any]] = []
    postings: dict[str, list[int]] = {}
    for number, item in enumerate(vault.notes.values()):
        note = item.note
        title, summary = (
            plain(note.title, TITLE_CHARS),
            one_line(note.body, note.title, SUMMARY_CHARS),
        )
        notes.append(
            [note.id, title, summary, plain(note.type, 60), note.date[:10], int(item.active)]
        )
        body = clean_body(note.body)[:BODY_CHARS]
        tags = [tag.replace("/", " ") for tag in note.tags]
        for term in _terms([title, summary, note.id, note.type, *tags, *note.repo, body]):
            postings.setdefault(term, []).append(number)
    terms = sorted(postings)
    encoded = []
    for term in terms:
        previous, gaps = 0, []
        for number in postings[term]:
            gaps.append(f"{number - previous:x}")
            previous = number
        encoded.append(",".join(gaps))
    return {"notes": notes, "terms": terms, "postings": encoded, "stop": sorted(STOP_WORDS)}


def search_script(vault: SiteVault) -> bytes:
    """`assets/search-index.js`: the index as one assignment to `window.loreSearch`."""
    data = json.dumps(search_data(vault), ensure_ascii=False, separators=(",", ":"))
    data = data.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    return f"window.loreSearch={data};\n".encode()
