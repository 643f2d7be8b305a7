"""Make note text safe to show to a terminal or to inject into an agent's context.

Note bodies are untrusted data. Everything that can hide text from a reviewer or
steer a terminal is removed: control characters (ANSI escapes included), bidi
controls, Unicode tag characters, zero-width and other format characters (a
zero-width joiner between two emoji is kept). `sanitize_markdown` also neutralises
HTML comments, raw HTML, remote images and link-reference definitions. Both
functions are idempotent. This module imports nothing heavy: it runs on the recall
and hook paths.
"""

from __future__ import annotations

import re
import unicodedata

_KEEP_CONTROLS = frozenset("\n\t")
_ZWJ = "\u200d"


def _is_emoji(char: str) -> bool:
    code = ord(char)
    return (
        0x1F000 <= code <= 0x1FAFF
        or 0x2600 <= code <= 0x27BF
        or 0x2B00 <= code <= 0x2BFF
        or code in (0xFE0F, 0x20E3)
    )


def is_banned_char(char: str) -> bool:
    """A character that never reaches an agent or a terminal (ZWJ is judged in context)."""
    if char in _KEEP_CONTROLS:
        return False
    code = ord(char)
    if code < 0x20 or 0x7F <= code <= 0x9F:
        return True
    if 0xE0000 <= code <= 0xE007F:  # Unicode tag characters
        return True
    category = unicodedata.category(char)
    # Cf: format characters (bidi controls, zero-width space/joiners, BOM, soft hyphen…)
    # Co: private use; Cs: surrogates; Zl/Zp: line and paragraph separators
    return category in ("Cf", "Co", "Cs", "Zl", "Zp")


def sanitize_text(text: str) -> str:
    """Remove banned characters; keep a ZWJ only between two emoji."""
    if text.isascii() and text.isprintable():
        return text
    out: list[str] = []
    length = len(text)
    for index, char in enumerate(text):
        if char == _ZWJ:
            before = out[-1] if out else ""
            after = text[index + 1] if index + 1 < length else ""
            if before and after and _is_emoji(before) and _is_emoji(after):
                out.append(char)
            continue
        if is_banned_char(char):
            continue
        out.append(char)
    return "".join(out)


_HTML_COMMENT = re.compile(r"<!--.*?(?:-->|$)", re.DOTALL)
_HTML_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9:-]*(?:\s[^<>]*)?/?>")
_IMAGE = re.compile(r"!\[([^\]]*)\]\(([^)]*)\)")
_LINK_REFERENCE = re.compile(r"^ {0,3}\[[^\]]+\]:\s*\S.*$", re.MULTILINE)


def sanitize_markdown(text: str) -> str:
    """`sanitize_text`, plus markdown and HTML that can hide or fetch content."""
    text = sanitize_text(text)
    text = _HTML_COMMENT.sub("", text)
    text = _IMAGE.sub(lambda m: f"[image: {m[1]}]" if m[1] else "[image]", text)
    text = _LINK_REFERENCE.sub("", text)
    # Raw HTML tags are shown as text, never interpreted: drop the angle brackets.
    text = _HTML_TAG.sub(lambda m: m[0].replace("<", "‹").replace(">", "›"), text)
    return text


def one_line(text: str, limit: int = 200) -> str:
    """Sanitised text on one line, cut to `limit` characters."""
    flat = " ".join(sanitize_text(text).split())
    if len(flat) > limit:
        return flat[: limit - 1].rstrip() + "…"
    return flat
