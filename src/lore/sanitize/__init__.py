"""The sanitizer: what every piece of note text passes through before it leaves lore.

Note text is untrusted data. `lore.sanitize.text` removes characters that hide text or
steer a terminal (cheap: it runs on every recall and hook); `lore.sanitize.markdown`
also neutralises markdown and HTML that hide or fetch content (comments, raw HTML,
images, link-reference definitions), and reports what it would change
(`find_hazards`, which the curator's `injection/` rules are built on).

`lore.sanitize.secret_scan` finds secrets and masks them (`mask_secrets`, `redact`):
every view — the CLI, the MCP server, review, capture, the curator's reports — masks
through it, and the curator's `secret/` rule family is built on it.

Everything that leaves lore — CLI text and JSON, hooks, MCP — goes through one of:

- `sanitize_field`: one field of a note or a result (title, author, id, path, tag,
  type, date, a finding's message): sanitized as markdown, on one line;
- `sanitize_markdown`: a note's body.

They are applied where the result objects are built (`Hit`, `note_json`, ...), so every
adapter prints what it is given. Text with no markup character (`<`, `![`, `]:`) never
needs the markdown module, so the recall and hook paths import it only for notes that
carry markup.
"""

from __future__ import annotations

from lore.sanitize.text import char_hazard, is_banned_char, removed_chars, sanitize_text

__all__ = [
    "char_hazard",
    "is_banned_char",
    "removed_chars",
    "sanitize_field",
    "sanitize_fields",
    "sanitize_markdown",
    "sanitize_text",
]

MARKUP = ("<", "![", "]:")  # what markdown neutralising can act on; without them it is a no-op


def sanitize_markdown(text: str) -> str:
    """`sanitize_text`, plus markdown and HTML that can hide or fetch content."""
    clean = sanitize_text(text)
    if not any(mark in clean for mark in MARKUP):
        return clean
    from lore.sanitize.markdown import sanitize_markdown as neutralise

    return neutralise(clean)


def _one_clean_line(text: str) -> str:
    """`text` sanitized as markdown and joined into one line, until neither changes it.

    Joining can make what sanitizing let pass: a leading no-break space is dropped, and the
    `<A` after it starts the line, where it reads as raw HTML. Each round only replaces or
    removes, so it settles in two rounds on every input seen; five is a bound, not a count.
    """
    for _ in range(5):
        flat = " ".join(sanitize_markdown(text).split())
        if flat == text:
            break
        text = flat
    return text


def sanitize_field(text: str, limit: int = 0) -> str:
    """One outward field: sanitized as markdown, on one line, cut to `limit` (0: no cut)."""
    flat = _one_clean_line(text)
    if not limit or len(flat) <= limit:
        return flat
    # A cut can open what was closed (half a code span leaves its `<tag>` bare): the cut
    # text is sanitized again, and cut shorter while that makes it too long.
    keep = limit - 1
    while True:
        short = _one_clean_line(flat[:keep].rstrip())
        if len(short) <= limit - 1 or keep == 0:
            return short + "…"
        keep -= max(1, len(short) - (limit - 1))


def sanitize_fields(values: object) -> list[str]:
    """A list field (tags, repos, ids, paths), each item a sanitized field."""
    if not isinstance(values, (list, tuple)):
        return []
    return [sanitize_field(str(value)) for value in values]
