"""A note's body as HTML for the site: CommonMark through markdown-it-py, raw HTML off.

Note text is untrusted on the web as everywhere else. The body first loses what the
sanitizer removes (characters that hide or reorder text) and what the secret scan
finds (masked, as in every view of a note); then markdown-it-py, a maintained
CommonMark parser, renders it with raw HTML off, so a `<script>`, an `<svg onload>`
or an `<img onerror>` is shown as the text it is. On top of its defaults:

- a link's target must be `https:`/`http:` (with `//` and a host), relative (not
  `//host`, no backslash) or `#…`; anything else (`javascript:`, `data:`, `file:`)
  stays text. Links out get `rel="nofollow noopener noreferrer"`.
- an image is never loaded (a note's image would be a request to wherever it points):
  it is a link labelled `image: ALT` to where it is.
- a link whose text names one host while it goes to another (`[github.com](https://
  evil.example)`) is no link: its text is shown, then where it really goes.
- `[[id]]` links to the note's page (its title as the text); a link to no note in the
  vault stays `[[id]]`, marked.
- a relative link to another note's file (`other-id.md`) goes to that note's page.

A body longer than `MAX_MARKDOWN_CHARS` is shown as plain, preformatted text instead:
markdown-it-py's link-label scan is quadratic on runs of brackets (measured here: 1 MB
of `[` took 12.5 s; 32 kB takes about 0.01 s), and no reviewed note comes near it (the
curator's limit is 250 words; the index takes no note file over 64 kB at all).
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Sequence
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token

from lore.curator.rules.link import WIKILINK
from lore.curator.rules.link_risk import host_named_instead
from lore.site.layout import clean_body

MAX_MARKDOWN_CHARS = 32_000
EXTERNAL_REL = "nofollow noopener noreferrer"
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*):")
_NOTE_FILE = re.compile(r"^(?:\./)?(?:\.\./notes/)?([A-Za-z0-9][A-Za-z0-9_.-]*)\.md(#[^#]*)?$")

# note id -> (href of its page from the page being built, its title as HTML), or None.
NoteLookup = Callable[[str], "tuple[str, str] | None"]


def safe_href(url: str) -> str | None:
    """`url` when a page may link to it: http(s) with a host, relative, or `#…`."""
    text = url.strip()
    if not text or "\\" in text or any(ord(c) < 0x21 or ord(c) == 0x7F for c in text):
        return None
    scheme = _SCHEME.match(text)
    if scheme is not None:
        if scheme[1].lower() in ("http", "https") and text[scheme.end() :].startswith("//"):
            return text
        return None
    if text.startswith("//"):
        return None  # protocol-relative: another host
    return text


def is_external(href: str) -> bool:
    return _SCHEME.match(href) is not None


def _valid_link(url: str) -> bool:
    return safe_href(url) is not None


def _wikilink(state: StateInline, silent: bool) -> bool:
    if not state.src.startswith("[[", state.pos):
        return False
    match = WIKILINK.match(state.src, state.pos)
    if match is None:
        return False
    if not silent:
        token = state.push("wikilink", "", 0)
        token.content = match[1]
    state.pos = match.end()
    return True


def _text_of(children: Sequence[Token], start: int) -> tuple[str, int]:
    """The plain text between a link_open at `start` and its link_close, and where it ends."""
    depth, parts = 0, list[str]()
    for index in range(start, len(children)):
        token = children[index]
        if token.type == "link_open":
            depth += 1
        elif token.type == "link_close":
            depth -= 1
            if depth == 0:
                return "".join(parts), index
        elif token.type in ("text", "code_inline"):
            parts.append(token.content)
    return "".join(parts), len(children) - 1


def _mark_links(state: Any) -> None:
    """Links whose text names another host lose their link; note files go to note pages."""
    for block in state.tokens:
        children = block.children or []
        for index, token in enumerate(children):
            if token.type != "link_open":
                continue
            href = str(token.attrGet("href") or "")
            text, close = _text_of(children, index)
            named = host_named_instead(href, text) if is_external(href) else None
            if named is not None:
                token.type, token.tag = "deceptive_open", "span"
                children[close].type, children[close].tag = "deceptive_close", "span"
                children[close].meta = {"href": href}


def _render_link_open(
    self: Any, tokens: Sequence[Token], idx: int, options: Any, env: dict[str, Any]
) -> str:
    token = tokens[idx]
    href = str(token.attrGet("href") or "")
    lookup: NoteLookup = env["lookup"]
    note_file = _NOTE_FILE.match(href)
    if note_file is not None and (found := lookup(note_file[1])) is not None:
        href = found[0] + (note_file[2] or "")
    if is_external(href):
        return f'<a href="{html.escape(href)}" rel="{EXTERNAL_REL}" class="external">'
    return f'<a href="{html.escape(href)}">'


def _render_deceptive_open(
    self: Any, tokens: Sequence[Token], idx: int, options: Any, env: dict[str, Any]
) -> str:
    return '<span class="deceptive" title="The link text names another host than the link.">'


def _render_deceptive_close(
    self: Any, tokens: Sequence[Token], idx: int, options: Any, env: dict[str, Any]
) -> str:
    href = str(tokens[idx].meta.get("href", ""))
    return f'</span> <span class="real-target">(links to <code>{html.escape(href)}</code>)</span>'


def _render_image(
    self: Any, tokens: Sequence[Token], idx: int, options: Any, env: dict[str, Any]
) -> str:
    token = tokens[idx]
    src = str(token.attrGet("src") or "")
    alt = html.escape(self.renderInlineAsText(token.children or [], options, env) or src)
    rel = f' rel="{EXTERNAL_REL}" class="external image-link"' if is_external(src) else ""
    return f'<a href="{html.escape(src)}"{rel}>image: {alt}</a>'


def _render_wikilink(
    self: Any, tokens: Sequence[Token], idx: int, options: Any, env: dict[str, Any]
) -> str:
    inner = tokens[idx].content
    target = inner.split("|", 1)[0].split("#", 1)[0].strip()
    lookup: NoteLookup = env["lookup"]
    found = lookup(target)
    if found is None:
        return (
            f'<span class="broken-link" title="No note has this id">[[{html.escape(inner)}]]</span>'
        )
    href, title = found
    target_id = html.escape(target)
    return f'<a href="{html.escape(href)}" class="note-link" title="{target_id}">{title}</a>'


class BodyRenderer:
    """Renders note bodies; one per build (making the parser is the costly part)."""

    def __init__(self) -> None:
        md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
        md.enable(["table", "strikethrough"])
        md.validateLink = _valid_link  # type: ignore[method-assign]
        md.inline.ruler.before("link", "wikilink", _wikilink)
        md.core.ruler.push("lore_links", _mark_links)
        md.add_render_rule("link_open", _render_link_open)
        md.add_render_rule("deceptive_open", _render_deceptive_open)
        md.add_render_rule("deceptive_close", _render_deceptive_close)
        md.add_render_rule("image", _render_image)
        md.add_render_rule("wikilink", _render_wikilink)
        self._md = md

    def render(self, body: str, lookup: NoteLookup) -> str:
        """The body as HTML; over `MAX_MARKDOWN_CHARS`, as preformatted text."""
        text = clean_body(body)
        if len(text) > MAX_MARKDOWN_CHARS:
            size = f"{len(text.encode('utf-8')) / 1024:,.0f} kB"
            return (
                f'<p class="notice">This note is {size}, too long to lay out: it is shown '
                f'as plain text.</p>\n<pre class="plain-body">{html.escape(text)}</pre>\n'
            )
        return str(self._md.render(text, {"lookup": lookup}))
