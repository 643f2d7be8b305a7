"""The JSON values in a piece of an agent's transcript, however they are laid out.

Agents write their transcripts as JSON values one after another: most as JSON lines
(`JSON.stringify`, one compact object a line), some pretty-printed over many lines,
some as one document. `complete_values` reads every value that is whole, in any of
those layouts, and says how many bytes they took, so that the next read starts after
them; a value still being written at the end is left for the next read, and a line that
is not JSON is skipped. `count_matches` counts the objects, at any depth, that have one
of the given key and value pairs (a tool call, a file edit). Only the standard library's
`json` is used: this runs in the session-end hook.
"""

from __future__ import annotations

import json

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_WHITESPACE = " \t\r\n"


def complete_values(data: bytes) -> tuple[list[Any], int]:
    """The whole JSON values in `data`, and the bytes of `data` read (theirs and the lines
    skipped); what follows is a value still being written, to read again later."""
    text = data.decode("utf-8", "surrogateescape")
    decoder = json.JSONDecoder()
    values: list[Any] = []
    position = read = 0
    while True:
        while position < len(text) and text[position] in _WHITESPACE:
            position += 1
        if position >= len(text):
            read = position
            break
        try:
            value, end = decoder.raw_decode(text, position)
        except ValueError:
            if _still_open(text, position):
                break  # the rest of a value not written yet
            newline = text.find("\n", position)
            if newline == -1:
                break
            position = read = newline + 1  # a line that is not JSON: skip it
            continue
        values.append(value)
        position = read = end
    return values, len(text[:read].encode("utf-8", "surrogateescape"))


def _still_open(text: str, start: int) -> bool:
    """Whether the object or array at `start` is cut off by the end of `text` (rather than
    broken: it closes, or never opened, before the end)."""
    if text[start] not in "{[":
        return False
    depth = 0
    quoted = escaped = False
    for char in text[start:]:
        if quoted:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                quoted = False
        elif char == '"':
            quoted = True
        elif char in "{[":
            depth += 1
        elif char in "}]":
            depth -= 1
            if depth == 0:
                return False
    return True


def count_matches(values: list[Any], pairs: tuple[tuple[str, str], ...]) -> int:
    """The objects in `values`, at any depth, with at least one of the (key, value) pairs."""
    if not pairs:
        return 0
    count = 0
    stack = list(values)
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if any(item.get(key) == value for key, value in pairs):
                count += 1
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return count
