"""The frame of every page: head, Content-Security-Policy, navigation, escaping, file names.

Every page carries the same policy in a `<meta http-equiv>` (a static host such as
GitHub Pages sets no headers of its own): nothing loads from anywhere but the site
itself, the only script is a file of the site (no inline script, no `eval`), and no
plugin, frame, form target or `<base>` elsewhere is allowed. `'self'` holds on
`file://` as on https in Chromium (checked by tests/site/test_browser.py), so the
same files work opened from disk.

Every piece of note text reaches a page through `text` (one line: sanitized, secrets
masked, HTML-escaped) or `lore.site.markdown` (a body). Names that become file names
(repositories, types, tags) go through `slug`, which keeps a safe name as it is and
gives any other a readable part and a hash, so two names never share a page.
"""

from __future__ import annotations

import hashlib
import html
import re
from dataclasses import dataclass
from functools import lru_cache

from lore.note.model import what_summary
from lore.sanitize import sanitize_field, sanitize_text
from lore.sanitize.secret_scan import mask_secrets

CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "base-uri 'none'; form-action 'self'; object-src 'none'"
)
_SAFE_SLUG = re.compile(r"^[a-z0-9][a-z0-9._-]{0,79}$")
NAV = (
    ("index.html", "Pulse"),
    ("map.html", "Map"),
    ("repos.html", "Repositories"),
    ("types.html", "Types"),
    ("tags.html", "Tags"),
    ("inactive.html", "Inactive"),
    ("expiring.html", "Expiring"),
    ("drift.html", "Drift"),
)


def esc(text: str) -> str:
    """Text the site wrote itself, escaped for HTML (attributes included)."""
    return html.escape(text, quote=True)


def text(value: str | None, limit: int = 0) -> str:
    """One line of note text for a page: sanitized, secrets masked, escaped, cut."""
    return _text(value or "", limit)


@lru_cache(maxsize=65536)
def _text(value: str, limit: int) -> str:
    return esc(plain(value, limit))


@lru_cache(maxsize=65536)
def _clean_field(value: str) -> str:
    # A site shows each title, type, tag and repository on many pages and in the search
    # index; the secret scan costs ~0.1 ms a field, so each distinct field is cleaned
    # once (it was 40 s of a 10,000-note build, bench/bench_site.py).
    return mask_secrets(sanitize_field(value))


def plain(value: str | None, limit: int = 0) -> str:
    """One line of note text, sanitized and secrets masked, cut to `limit` (not escaped).

    Masked before it is cut, so a cut can never leave half a secret the scan misses."""
    clean = _clean_field(value or "")
    return sanitize_field(clean, limit) if limit and len(clean) > limit else clean


@lru_cache(maxsize=16384)
def clean_body(body: str) -> str:
    """A body as every view shows it: hiding characters removed, secrets masked (once
    per body for the page and the search index alike)."""
    return mask_secrets(sanitize_text(body))


def summary(body: str, title: str, limit: int = 0) -> str:
    """The note's one-line summary (`Note.summary`), from the cleaned body: plain text."""
    found = what_summary(clean_body(body))
    if found is None:
        return plain(title, limit)
    return sanitize_field(found, limit)


@lru_cache(maxsize=4096)
def slug(name: str) -> str:
    """A file name for a repository, type or tag: the name itself when it is a safe
    lower-case name (`payments-api`; a tag's `/` becomes `--`), else a readable part
    and a hash of the name."""
    plain = name.replace("/", "--")
    if _SAFE_SLUG.match(plain) and ".." not in plain:
        return plain
    readable = "-".join(re.findall(r"[a-z0-9]+", name.lower()))[:40] or "name"
    digest = hashlib.sha1(name.encode("utf-8"), usedforsecurity=False).hexdigest()[:10]
    return f"{readable}-{digest}"


@dataclass(frozen=True)
class Frame:
    """What every page of one build shares."""

    vault: str  # the vault's name as the site shows it (already escaped)
    footer: str  # HTML


def page(
    frame: Frame,
    title: str,
    body: str,
    *,
    depth: int = 0,
    scripts: tuple[str, ...] = (),
    current: str = "",
    query: str = "",
    wide: bool = False,
) -> str:
    """A whole page. `title` is escaped already; `depth` is how many folders down it is
    (`notes/…` is 1), for relative links; `scripts` are site files under assets/."""
    up = "../" * depth
    here = ' aria-current="page"'
    main_class = ' class="wide"' if wide else ""
    nav = "".join(
        f'<a href="{up}{href}"{here if href == current else ""}>{label}</a>' for href, label in NAV
    )
    tags = "".join(f'<script src="{up}assets/{name}" defer></script>' for name in scripts)
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">\n'
        '<meta name="referrer" content="no-referrer">\n'
        f"<title>{title} · {frame.vault}</title>\n"
        f'<link rel="stylesheet" href="{up}assets/site.css">\n'
        f'<link rel="icon" href="{up}assets/favicon.svg" type="image/svg+xml">\n'
        f"{tags}\n</head>\n<body>\n"
        '<header class="top">\n'
        f'<a class="brand" href="{up}index.html">{frame.vault}</a>\n'
        f'<nav aria-label="Site">{nav}</nav>\n'
        f'<form class="search" action="{up}search.html" method="get" role="search">'
        f'<input type="search" name="q" value="{esc(query)}" placeholder="Search notes" '
        'aria-label="Search notes" autocomplete="off">'
        '<button type="submit">Search</button></form>\n'
        "</header>\n"
        f'<main id="main"{main_class}>\n{body}\n</main>\n'
        f'<footer class="bottom">{frame.footer}</footer>\n'
        "</body>\n</html>\n"
    )
