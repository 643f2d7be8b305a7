"""Write a `Note` back as frontmatter + body, in a stable field order.

Values are emitted plain when YAML can only read them as the same string, and
double-quoted otherwise, so the file reads the same to lore, to GitHub and to any
YAML 1.1 or 1.2 parser.
"""

from __future__ import annotations

import json
import re

from lore.note.model import FIELD_ORDER, LIST_FIELDS, Note

_PLAIN = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_ ./()+@-]*$")
_PLAIN_IN_LIST = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_./@+-]*$")
_AMBIGUOUS = re.compile(
    r"^(?:y|n|yes|no|on|off|true|false|null|~|[-+]?[0-9][0-9_.:eE+-]*|\.inf|\.nan)$",
    re.IGNORECASE,
)
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def yaml_scalar(value: str, *, in_list: bool = False) -> str:
    pattern = _PLAIN_IN_LIST if in_list else _PLAIN
    if _DATE.match(value):
        return value
    if pattern.match(value) and not value.endswith(" ") and not _AMBIGUOUS.match(value):
        return value
    return _double_quoted(value)


def _double_quoted(value: str) -> str:
    """A YAML double-quoted scalar; characters YAML could misread are \\u-escaped."""
    quoted = json.dumps(value, ensure_ascii=False)
    if quoted.isprintable():
        return quoted
    return "".join(c if c.isprintable() else _escape(c) for c in quoted)


def _escape(char: str) -> str:
    code = ord(char)
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def render_frontmatter(note: Note) -> str:
    lines = ["---"]
    for key in FIELD_ORDER:
        value = getattr(note, key)
        if key in LIST_FIELDS:
            if not value and key != "tags":
                continue
            if key == "repo" and len(value) == 1:
                lines.append(f"repo: {yaml_scalar(value[0])}")
                continue
            items = ", ".join(yaml_scalar(item, in_list=True) for item in value)
            lines.append(f"{key}: [{items}]")
        elif value is not None:
            lines.append(f"{key}: {yaml_scalar(value)}")
    for key, value in note.extra.items():
        # Unknown fields are kept as they were read (JSON is valid YAML flow syntax).
        lines.append(f"{yaml_scalar(key)}: {json.dumps(value, ensure_ascii=False)}")
    lines.append("---")
    return "\n".join(lines) + "\n"


def render_note(note: Note) -> str:
    """The full text of a note file."""
    return render_frontmatter(note) + note.body
