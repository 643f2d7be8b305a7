"""The one place lore reads and writes YAML.

Frontmatter is read with libyaml's parser (`CSafeLoader` machinery) when present and
with a resolver that knows no implicit types: every plain scalar is a string, so
YAML 1.1 surprises (`NO` -> false, `1.10` -> 1.1, dates -> objects) cannot happen and
the note model decides what each field means. Anchors and aliases, duplicate keys,
non-standard tags and deep nesting are rejected with the line they sit on.
"""

from __future__ import annotations

import re
from typing import Any

import yaml
from yaml.constructor import ConstructorError, SafeConstructor
from yaml.resolver import BaseResolver

WITH_LIBYAML: bool = bool(getattr(yaml, "__with_libyaml__", False))

if WITH_LIBYAML:
    from yaml._yaml import CParser as _Parser
else:  # pragma: no cover - depends on how PyYAML was built
    from yaml.composer import Composer
    from yaml.parser import Parser
    from yaml.reader import Reader
    from yaml.scanner import Scanner

    class _Parser(Reader, Scanner, Parser, Composer):  # type: ignore[no-redef]
        def __init__(self, stream: str) -> None:
            Reader.__init__(self, stream)
            Scanner.__init__(self)
            Parser.__init__(self)
            Composer.__init__(self)


MAX_DEPTH = 8
_NULL = re.compile(r"^(?:~|null|Null|NULL|)$")
_ALLOWED_TAGS = frozenset(
    {
        "tag:yaml.org,2002:null",
        "tag:yaml.org,2002:str",
        "tag:yaml.org,2002:seq",
        "tag:yaml.org,2002:map",
    }
)


class YamlProblem(Exception):
    """Frontmatter YAML that lore refuses to read; `line` is 1-based within the YAML."""

    def __init__(self, message: str, line: int | None, fix: str, code: str = "unsafe-yaml") -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.line = line
        self.fix = fix


class _StrictLoader(_Parser, SafeConstructor, BaseResolver):
    """Plain `~`, `null` and empty values are null; every other scalar is a string."""

    def __init__(self, stream: str) -> None:
        _Parser.__init__(self, stream)
        SafeConstructor.__init__(self)
        BaseResolver.__init__(self)

    def construct_mapping(self, node: Any, deep: bool = False) -> dict[Any, Any]:
        seen: dict[Any, int] = {}
        for key_node, _ in node.value:
            key = key_node.value
            line = key_node.start_mark.line + 1
            if key in seen:
                raise YamlProblem(
                    f"the key '{key}' appears twice (lines {seen[key]} and {line})",
                    line,
                    "Keep one of them.",
                    "duplicate-key",
                )
            seen[key] = line
        return super().construct_mapping(node, deep=deep)


_StrictLoader.add_implicit_resolver("tag:yaml.org,2002:null", _NULL, ["~", "n", "N", ""])


def _check_node(node: Any, depth: int = 0) -> None:
    if depth > MAX_DEPTH:
        raise YamlProblem(
            "the frontmatter is nested too deeply",
            node.start_mark.line + 1,
            "Use plain values and lists.",
        )
    if node.tag not in _ALLOWED_TAGS:
        raise YamlProblem(
            f"the YAML tag '{node.tag}' is not allowed",
            node.start_mark.line + 1,
            "Remove the tag; frontmatter holds plain strings and lists.",
        )
    if isinstance(node, yaml.SequenceNode):
        for child in node.value:
            _check_node(child, depth + 1)
    elif isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            _check_node(key, depth + 1)
            _check_node(value, depth + 1)


_ANCHOR_OR_ALIAS = re.compile(r"(^|[\s\[\{,:-])[&*][^\s\[\]\{\},]")


def _find_alias_line(text: str) -> int | None:
    """The 1-based line of the first anchor or alias event, if the text has one."""
    if "&" not in text and "*" not in text:
        return None
    if not _ANCHOR_OR_ALIAS.search(text):
        return None
    loader = _Parser(text)
    try:
        while loader.check_event():
            event = loader.get_event()
            if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
                mark = getattr(event, "start_mark", None)
                return int(mark.line) + 1 if mark is not None else 1
    finally:
        loader.dispose()
    return None


# The common shape of frontmatter, `key: plain value` and `key: [a, b]` on one line each,
# is read without a YAML parser (a third of a full index build). Anything else, even a
# comment or a quote, goes to the real parser, so the result is always what YAML reads.
_FLAT_LINE = re.compile(r"^([A-Za-z_][A-Za-z0-9_-]*):(?:[ ]+(.*?))?[ ]*$")
_PLAIN_VALUE = re.compile(r"^[A-Za-z0-9_(./][^\t]*$")
_FLOW_ITEM = re.compile(r"^[A-Za-z0-9_./][A-Za-z0-9_./+@ -]*$")


def _plain_value_ok(value: str) -> bool:
    return (
        bool(_PLAIN_VALUE.match(value))
        and ": " not in value
        and " #" not in value
        and not value.endswith(":")
    )


def fast_flat_mapping(text: str) -> dict[str, Any] | None:
    """The frontmatter when every line is a simple `key: value` or `key: [a, b]`; else None."""
    result: dict[str, Any] = {}
    for line in text.split("\n"):
        if not line:
            continue
        match = _FLAT_LINE.match(line)
        if match is None:
            return None
        key, value = match[1], match[2] or ""
        if key in result:
            return None
        if value.startswith("["):
            if not value.endswith("]"):
                return None
            inner = value[1:-1].strip()
            items = [item.strip() for item in inner.split(",")] if inner else []
            if not all(_FLOW_ITEM.match(item) and not item.endswith(" -") for item in items):
                return None
            result[key] = items
        elif _NULL.match(value):
            result[key] = None
        elif not _plain_value_ok(value):
            return None
        else:
            result[key] = value
    return result


def load_frontmatter(text: str) -> Any:
    """Parse one YAML document of frontmatter; raise `YamlProblem` on anything unsafe."""
    flat = fast_flat_mapping(text)
    if flat is not None:
        return flat
    try:
        alias_line = _find_alias_line(text)
        if alias_line is not None:
            raise YamlProblem(
                "YAML anchors and aliases (&name, *name) are not allowed",
                alias_line,
                "Write each value out in full.",
                "yaml-alias",
            )
        loader = _StrictLoader(text)
        try:
            node = loader.get_single_node()
            if node is None:
                return None
            _check_node(node)
            return loader.construct_document(node)
        finally:
            loader.dispose()
    except YamlProblem:
        raise
    except RecursionError:
        raise YamlProblem(
            "the frontmatter is nested too deeply", None, "Use plain values and lists."
        ) from None
    except ConstructorError as exc:
        mark = exc.problem_mark or exc.context_mark
        raise YamlProblem(
            f"the YAML cannot be read safely ({exc.problem})",
            mark.line + 1 if mark else None,
            "Use plain values and lists.",
        ) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise YamlProblem(
            f"the frontmatter is not valid YAML ({problem})",
            mark.line + 1 if mark is not None else None,
            "Check the indentation and quote values that contain ': ' or start with a symbol.",
            "invalid-yaml",
        ) from None
