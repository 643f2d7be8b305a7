"""GitHub Actions expressions (`${{ … }}`), evaluated as GitHub documents them, for the runner.

https://docs.github.com/en/actions/reference/workflows-and-actions/expressions: literals
(null, booleans, numbers, 'single-quoted' strings), property access (`a.b`, `a['b']`,
case-insensitive), `!`, `< <= > >=`, `== !=` (loose: strings compare case-insensitively,
other types are coerced to numbers), `&&` and `||` (which return an operand, not a
boolean), and the functions lore's workflows use. An unknown function or context is an
error, so a typo fails the test instead of evaluating to an empty string.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

_TOKEN = re.compile(
    r"\s*(?:(?P<number>0x[0-9a-fA-F]+|-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)"
    r"|(?P<string>'(?:[^']|'')*')"
    r"|(?P<op>==|!=|<=|>=|&&|\|\||[!<>()\[\].,*])"
    r"|(?P<name>[A-Za-z_][A-Za-z0-9_-]*))"
)
_PRECEDENCE = {"||": 1, "&&": 2, "==": 3, "!=": 3, "<": 4, "<=": 4, ">": 4, ">=": 4}


class ExpressionError(ValueError):
    pass


def _tokens(text: str) -> list[tuple[str, str]]:
    tokens: list[tuple[str, str]] = []
    position = 0
    while position < len(text):
        if text[position:].strip() == "":
            break
        match = _TOKEN.match(text, position)
        if not match or match.end() == position:
            raise ExpressionError(f"cannot read the expression {text!r} at {text[position:]!r}")
        kind = match.lastgroup or ""
        tokens.append((kind, match[kind]))
        position = match.end()
    return tokens


def is_truthy(value: Any) -> bool:
    if value is None or value is False:
        return False
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value != 0 and not math.isnan(value)
    return value != ""


def _number(value: Any) -> float:
    if value is None:
        return 0.0
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        text = value.strip()
        if text == "":
            return 0.0
        try:
            return float(int(text, 16)) if text.lower().startswith("0x") else float(text)
        except ValueError:
            return math.nan
    return math.nan


def _equal(left: Any, right: Any) -> bool:
    if isinstance(left, str) and isinstance(right, str):
        return left.casefold() == right.casefold()
    if type(left) is type(right) and not isinstance(left, (int, float)):
        return bool(left == right)
    return _number(left) == _number(right)


def _compare(op: str, left: Any, right: Any) -> bool:
    if isinstance(left, str) and isinstance(right, str):
        a, b = left.casefold(), right.casefold()
    else:
        a, b = _number(left), _number(right)  # type: ignore[assignment]
    return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op]


class _Filtered(list[Any]):
    """What an object filter (`a.*`) returns: a property of it is taken from each item."""


def _property(value: Any, key: Any) -> Any:
    if isinstance(value, _Filtered):
        if key == "*":
            return _Filtered(item for inner in value for item in _property(inner, "*") or [])
        return _Filtered(_property(item, key) for item in value)
    if (
        key == "*"
    ):  # the object filter: https://docs.github.com/en/actions/reference/workflows-and-actions/expressions#object-filters
        if isinstance(value, dict):
            return _Filtered(value.values())
        return _Filtered(value) if isinstance(value, list) else _Filtered()
    if isinstance(value, dict):
        if key in value:
            return value[key]
        lowered = {str(k).lower(): v for k, v in value.items()}
        return lowered.get(str(key).lower())
    if isinstance(value, list) and isinstance(key, (int, float)) and not isinstance(key, bool):
        index = int(key)
        return value[index] if 0 <= index < len(value) else None
    return None


def to_text(value: Any) -> str:
    """A value as GitHub writes it into a string (env, with, run)."""
    if value is None:
        return ""
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, (dict, list)):
        return json.dumps(value, indent=2)
    return str(value)


class _Parser:
    def __init__(self, text: str, context: dict[str, Any], status: dict[str, bool]) -> None:
        self.text = text
        self.tokens = _tokens(text)
        self.position = 0
        self.context = context
        self.status = status

    def peek(self) -> tuple[str, str] | None:
        return self.tokens[self.position] if self.position < len(self.tokens) else None

    def take(self, value: str | None = None) -> tuple[str, str]:
        token = self.peek()
        if token is None or (value is not None and token[1] != value):
            raise ExpressionError(f"expected {value or 'more'} in {self.text!r}")
        self.position += 1
        return token

    def parse(self) -> Any:
        value = self.binary(1)
        if self.peek() is not None:
            raise ExpressionError(f"unexpected {self.peek()} in {self.text!r}")
        return value

    def binary(self, level: int) -> Any:
        left = self.unary()
        while True:
            token = self.peek()
            if token is None or token[0] != "op" or _PRECEDENCE.get(token[1], 0) < level:
                return left
            op = self.take()[1]
            right = self.binary(_PRECEDENCE[op] + 1)
            if op == "&&":
                left = right if is_truthy(left) else left
            elif op == "||":
                left = left if is_truthy(left) else right
            elif op == "==":
                left = _equal(left, right)
            elif op == "!=":
                left = not _equal(left, right)
            else:
                left = _compare(op, left, right)

    def unary(self) -> Any:
        if self.peek() == ("op", "!"):
            self.take()
            return not is_truthy(self.unary())
        return self.postfix(self.primary())

    def primary(self) -> Any:
        kind, value = self.take()
        if kind == "number":
            number = float(int(value, 16)) if value.lower().startswith("0x") else float(value)
            return int(number) if number.is_integer() else number
        if kind == "string":
            return value[1:-1].replace("''", "'")
        if value == "(":
            inner = self.binary(1)
            self.take(")")
            return inner
        if kind != "name":
            raise ExpressionError(f"unexpected {value!r} in {self.text!r}")
        if value in ("true", "false"):
            return value == "true"
        if value == "null":
            return None
        if self.peek() == ("op", "("):
            return self.call(value)
        if value not in self.context:
            raise ExpressionError(f"unknown context {value!r} in {self.text!r}")
        return self.context[value]

    def postfix(self, value: Any) -> Any:
        while True:
            token = self.peek()
            if token == ("op", "."):
                self.take()
                value = _property(value, self.take()[1])  # a name, or `*`
            elif token == ("op", "["):
                self.take()
                key = self.binary(1)
                self.take("]")
                value = _property(value, key)
            else:
                return value

    def call(self, name: str) -> Any:
        self.take("(")
        args: list[Any] = []
        while self.peek() != ("op", ")"):
            args.append(self.binary(1))
            if self.peek() == ("op", ","):
                self.take()
        self.take(")")
        failed = self.status.get("failed", False)
        functions = {
            "success": lambda: not failed,
            "failure": lambda: failed,
            "always": lambda: True,
            "cancelled": lambda: False,
            "contains": lambda haystack, needle: (
                to_text(needle).casefold() in to_text(haystack).casefold()
                if not isinstance(haystack, list)
                else any(_equal(item, needle) for item in haystack)
            ),
            "startsWith": lambda text, prefix: (
                to_text(text).casefold().startswith(to_text(prefix).casefold())
            ),
            "endsWith": lambda text, suffix: (
                to_text(text).casefold().endswith(to_text(suffix).casefold())
            ),
            "format": lambda template, *values: re.sub(
                r"\{(\d+)\}", lambda m: to_text(values[int(m[1])]), to_text(template)
            ),
            "join": lambda items, sep=",": to_text(sep).join(map(to_text, items)),
            "toJSON": lambda value: json.dumps(value, indent=2),
            "fromJSON": lambda text: json.loads(to_text(text)),
        }
        lookup = {key.lower(): function for key, function in functions.items()}
        if name.lower() not in lookup:
            raise ExpressionError(f"unknown function {name}() in {self.text!r}")
        return lookup[name.lower()](*args)


def evaluate(text: str, context: dict[str, Any], status: dict[str, bool] | None = None) -> Any:
    """The value of one expression (the text inside `${{ }}`)."""
    return _Parser(text, context, status or {}).parse()


def interpolate(text: str, context: dict[str, Any]) -> str:
    """`text` with each `${{ expression }}` replaced by its value, as GitHub writes it."""
    return re.sub(r"\$\{\{(.*?)\}\}", lambda m: to_text(evaluate(m[1], context)), text, flags=re.S)
