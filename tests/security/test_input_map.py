"""The map of inputs holds: every setting has an owner, and a new one cannot slip in.

Issue 28, deliverable 4. `lore.vault.settings.SETTINGS` says, for every setting of
`lore.toml`, what it can do (`power`) and where lore may read it from (`sources`). These
tests fail when

- a setting that sends data or a key, or decides what agents are told, may be read from
  a checkout (the file a checked-out pull request writes), or a setting whose name says
  it chooses where something goes or what runs is not marked as sending;
- a reader takes a setting from a source the table does not allow (every setting is
  written with a value of its own and parsed from every source);
- code reads `lore.toml` anywhere but the places listed here with the source each one
  reads, or parses it without saying where the text came from;
- docs/security.md's settings table and the code's table disagree.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path
from typing import Any

import pytest

from lore.vault.settings import (
    BOOL,
    CHECKOUT,
    COUNT,
    NUMBER,
    POSITIVE,
    POWERS,
    REVIEWED,
    SENDS,
    SERVED,
    SERVES,
    SETTINGS,
    SOURCES,
    STRINGS,
    TABLE,
    USER,
    Setting,
    accepts,
    parse_settings,
    section_values,
)

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src" / "lore"
DOC = ROOT / "docs" / "security.md"

# Words in a setting's name that say it picks where data goes or what runs.
_SENDING_WORDS = re.compile(
    r"endpoint|url|host|server|proxy|key|token|secret|password|credential|command|cmd|"
    r"exec|program|script|model|provider|env|org"
)

# Every module that names lore.toml in code (not in prose), with the source it reads.
READERS = {
    "vault/settings.py": "defines the file's name and the table",
    "vault/lore_toml.py": "a checkout: the reviewed branch's tip (REVIEWED), the file on disk "
    "only without git (CHECKOUT)",
    "vault/snapshot.py": "[vault] reviewed_branch at the remote default branch's tip (REVIEWED)",
    "index/fill.py": "the served snapshot (SERVED)",
    "recall/scan.py": "the served snapshot (SERVED)",
    "curator/context/settings.py": "names the file in the findings it reports",
    "curator/context/sources.py": "a pull request's base (REVIEWED; the head's only for its "
    "problems), drafts at a commit (REVIEWED), a checkout through vault/lore_toml.py",
    "curator/rules/convention.py": "names the file in a finding",
    "curator/rules/policy.py": "names the file as a policy path of a change",
    "team/garden.py": "the commit the gardener audits (REVIEWED)",
    "team/drafts/expiry.py": "the file on disk through vault/lore_toml.py (CHECKOUT; a local "
    "setting)",
    "team/imports/vault_view.py": "the proposals' base commit (REVIEWED)",
    "team/init.py": "writes the template's lore.toml into a new vault (reads no setting)",
}
# Calls that parse lore.toml text without naming its source: they take the default,
# REVIEWED, and must read a commit.
UNNAMED_SOURCE = {"team/imports/vault_view.py": "reads the file at the proposals' base commit"}


def test_no_setting_that_sends_or_serves_is_read_from_a_checkout() -> None:
    assert SETTINGS
    for setting in SETTINGS:
        assert setting.power in POWERS, setting
        assert setting.sources and set(setting.sources) <= set(SOURCES), setting
        if setting.power in (SENDS, SERVES):
            assert CHECKOUT not in setting.sources, f"{setting.name} may come from a checkout"
            assert set(setting.sources) <= {REVIEWED, SERVED, USER}, setting.name
        if setting.power == SENDS:
            assert SERVED not in setting.sources, f"{setting.name}: a vault without git"


def test_a_setting_named_for_where_things_go_is_marked_as_sending() -> None:
    for setting in SETTINGS:
        if _SENDING_WORDS.search(setting.key):
            assert setting.power == SENDS, f"{setting.name} looks like it sends: {setting.power}"


def a_value_of_its_own(setting: Setting) -> Any:
    """A value `setting` accepts that is not its default."""
    kind, default = setting.kind, setting.default
    if kind == BOOL:
        value: Any = not default
    elif kind == COUNT:
        value = int(setting.low) + 1 if default != int(setting.low) + 1 else int(setting.low) + 2
    elif kind in (NUMBER, POSITIVE):
        value = float(min(setting.high, 0.5 if default != 0.5 else 0.25))
    elif kind == STRINGS:
        value = ["some-value"]
    elif kind == TABLE:
        value = {key: float(item) + 1 for key, item in default.items()}
    elif setting.key == "provider":
        value = "anthropic"
    elif setting.key == "endpoint":
        value = "https://example.com/v1"
    elif setting.key == "api_key_env":
        value = "SOME_VARIABLE"
    else:
        value = "some-value"
    assert accepts(setting, value) and value != default, setting
    return value


def every_setting_written() -> tuple[str, dict[str, Any]]:
    """A lore.toml that gives every setting of the table a value of its own."""
    tree: dict[str, Any] = {}
    written = {}
    for setting in SETTINGS:
        node = tree
        for part in setting.section.split("."):
            node = node.setdefault(part, {})
        node[setting.key] = written[setting.name] = a_value_of_its_own(setting)
    sections = {setting.section for setting in SETTINGS}
    lines = []
    for section in sorted(sections):
        lines.append(f"[{section}]")
        lines += [
            f"{setting.key} = {_toml(written[setting.name])}"
            for setting in SETTINGS
            if setting.section == section
        ]
    return "\n".join(lines) + "\n", written


def _toml(value: Any) -> str:
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {_toml(v)}" for k, v in value.items()) + " }"
    return json.dumps(value)


@pytest.mark.parametrize("source", SOURCES)
def test_each_reader_takes_only_what_its_source_may_say(source: str) -> None:
    text, written = every_setting_written()
    parsed = parse_settings(text, source=source)
    for setting in SETTINGS:
        used = section_values(parsed, setting.section)[setting.key]
        if source in setting.sources:
            assert used == written[setting.name], f"{setting.name} from {source}"
        else:
            assert used == setting.default, f"{setting.name} was taken from {source}"


def _docstrings(tree: ast.AST) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        first = body[0] if isinstance(body, list) and body else None
        if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
            found.add(id(first.value))
    return found


def test_lore_toml_is_read_only_where_the_map_says() -> None:
    readers: set[str] = set()
    unnamed: set[str] = set()
    for path in sorted(SRC.rglob("*.py")):
        module = path.relative_to(SRC).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        prose = _docstrings(tree)
        for node in ast.walk(tree):
            if (isinstance(node, ast.Name) and node.id == "SETTINGS_FILE") or (
                isinstance(node, ast.Constant)
                and node.value == "lore.toml"
                and id(node) not in prose
            ):
                readers.add(module)
            if isinstance(node, ast.Call):
                called = node.func
                name = getattr(called, "id", None) or getattr(called, "attr", None)
                if name in ("parse_settings", "load_curator_settings") and not any(
                    keyword.arg == "source" for keyword in node.keywords
                ):
                    unnamed.add(module)
    assert readers - set(READERS) == set(), "a new reader of lore.toml: list it with its source"
    assert set(READERS) - readers == set(), "READERS lists a module that no longer reads it"
    assert unnamed <= set(UNNAMED_SOURCE) | {"curator/context/settings.py"}, unnamed


def documented_settings() -> dict[str, tuple[str, tuple[str, ...]]]:
    """docs/security.md's settings table: name -> (power, sources)."""
    text = DOC.read_text(encoding="utf-8")
    section = text.split("### Settings: who may set each one", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `([a-z_.]+)` \| (\w+) \| ([\w, ]+) \|$", section, re.MULTILINE)
    return {
        name: (power, tuple(s.strip() for s in sources.split(","))) for name, power, sources in rows
    }


def test_the_doc_table_and_the_code_agree() -> None:
    documented = documented_settings()
    in_code = {setting.name: (setting.power, setting.sources) for setting in SETTINGS}
    assert documented == in_code
