"""Make note text safe to show to a terminal or to inject into an agent's context.

Note bodies are untrusted data. Everything that can hide text from a reviewer or
steer a terminal is removed: control characters (ANSI escapes included), bidi
controls, Unicode tag characters, zero-width and other format characters (a
zero-width joiner between two emoji is kept, and so is one emoji/text presentation
selector after a visible character). `sanitize_text` is idempotent and linear in time.

The markdown part (HTML comments, raw HTML, images, link-reference definitions)
lives in `lore.sanitize.markdown`, which compiles a dozen regular expressions on
import; this module stays cheap because it runs on every recall and hook.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator

_KEEP_CONTROLS = frozenset("\n\t")
_ZWJ = "\u200d"
_PRESENTATION_SELECTORS = frozenset("\ufe0e\ufe0f")
_BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
_ZERO_WIDTH = frozenset("\u200b\u200c\u200d\u2060\u2061\u2062\u2063\u2064\ufeff\u180e")
# Invisible "letters" and joiners that render as nothing (Hangul fillers, the
# combining grapheme joiner).
_INVISIBLE = frozenset("\u115f\u1160\u3164\uffa0\u034f")
_CLEAN_ASCII = re.compile(r"[^\t\n\x20-\x7e]")


def _is_emoji(char: str) -> bool:
    code = ord(char)
    return (
        0x1F000 <= code <= 0x1FAFF
        or 0x2600 <= code <= 0x27BF
        or 0x2B00 <= code <= 0x2BFF
        or code in (0xFE0F, 0x20E3)
    )


def char_hazard(char: str) -> str | None:
    """What kind of hidden or steering character this is, or None when it is harmless.

    The kinds are the `injection/` rule names: `control-character`, `tag-character`,
    `bidi-control`, `zero-width`, `format-character`. A zero-width joiner is reported
    here as `zero-width`; `sanitize_text` keeps it between two emoji.
    """
    if char in _KEEP_CONTROLS:
        return None
    code = ord(char)
    if code < 0x20 or 0x7F <= code <= 0x9F:
        return "control-character"
    if 0xE0000 <= code <= 0xE007F:
        return "tag-character"
    if char in _BIDI:
        return "bidi-control"
    if char in _ZERO_WIDTH:
        return "zero-width"
    # Variation selectors other than the two presentation selectors carry no
    # meaning in English prose and can smuggle hidden data after an emoji.
    if char in _INVISIBLE or 0xFE00 <= code <= 0xFE0D or 0xE0100 <= code <= 0xE01EF:
        return "format-character"
    # Cf: format characters (bidi controls, zero-width space/joiners, BOM, soft hyphen…)
    # Co: private use; Cs: surrogates; Zl/Zp: line and paragraph separators
    if unicodedata.category(char) in ("Cf", "Co", "Cs", "Zl", "Zp"):
        return "format-character"
    return None


def is_banned_char(char: str) -> bool:
    """A character that never reaches an agent or a terminal (ZWJ is judged in context)."""
    return char_hazard(char) is not None


def removed_chars(text: str) -> Iterator[tuple[int, str]]:
    """(offset, kind) of each character `sanitize_text` removes, in order."""
    last_removed = -2
    anchor = ""  # the last kept character before the current run of removed ones
    length = len(text)

    def kept_before(index: int) -> str:
        if index - 1 == last_removed:
            return anchor
        return text[index - 1] if index > 0 else ""

    for match in _CLEAN_ASCII.finditer(text):
        index = match.start()
        char = text[index]
        if char == _ZWJ:
            before = kept_before(index)
            after = text[index + 1] if index + 1 < length else ""
            if before and after and _is_emoji(before) and _is_emoji(after):
                continue
            kind: str | None = "zero-width"
        elif char in _PRESENTATION_SELECTORS:
            before = kept_before(index)
            if before and not before.isspace() and before not in _PRESENTATION_SELECTORS:
                continue
            kind = "format-character"
        else:
            kind = char_hazard(char)
        if kind is not None:
            anchor = kept_before(index)
            last_removed = index
            yield index, kind


def sanitize_text(text: str) -> str:
    """Remove banned characters; keep a ZWJ only between two emoji."""
    if not _CLEAN_ASCII.search(text):
        return text
    drop = [index for index, _ in removed_chars(text)]
    if not drop:
        return text
    out: list[str] = []
    start = 0
    for index in drop:
        out.append(text[start:index])
        start = index + 1
    out.append(text[start:])
    return "".join(out)
