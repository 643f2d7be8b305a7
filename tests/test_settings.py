"""The table of vault settings: one default per key, and the template shows the same."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from lore.vault.settings import (
    SERVED,
    SETTINGS,
    accepts,
    defaults,
    parse_settings,
    section_values,
    value_of,
)

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

TEMPLATE = Path(__file__).resolve().parent.parent / "vault-template" / "lore.toml"
# A commented-out section header or key (`# [garden]`, `# enabled = false`): the template
# shows optional settings that way.
_COMMENTED = re.compile(r"^# ((?:\[[a-z_.]+\])|(?:[a-z_]+ = .*))$")


def template_settings() -> dict[str, object]:
    lines = []
    for line in TEMPLATE.read_text(encoding="utf-8").splitlines():
        match = _COMMENTED.match(line)
        lines.append(match.group(1) if match else line)
    return tomllib.loads("\n".join(lines))


def test_the_template_shows_every_setting_with_its_default() -> None:
    shown = template_settings()
    for setting in SETTINGS:
        section: object = shown
        for part in setting.section.split("."):
            assert isinstance(section, dict) and part in section, f"[{setting.section}] missing"
            section = section[part]
        assert isinstance(section, dict)
        assert setting.key in section, f"{setting.section}.{setting.key} is not in the template"
        assert section[setting.key] == setting.default, f"{setting.section}.{setting.key}"


def test_every_default_is_accepted_by_its_own_check() -> None:
    for setting in SETTINGS:
        assert accepts(setting, setting.default), setting


def test_a_missing_file_gives_the_defaults() -> None:
    assert parse_settings(None, source=SERVED) == defaults()
    assert section_values({}, "hooks")["prompt_max_notes"] == 3


@pytest.mark.parametrize(
    ("section", "key", "written", "used"),
    [
        ("recall", "repo_boost", -1, 1.15),  # not above zero: the default
        ("recall", "repo_boost", "high", 1.15),  # wrong type: the default
        ("hooks", "prompt_max_notes", 9, 3),  # out of range: the nearest bound
        ("hooks", "prompt_snippet_chars", 10, 60),
        ("digest", "budget_chars", True, 6000),  # a boolean is not a number
        ("curator", "near_duplicate_threshold", 3, 1.0),
        ("recall", "weights", {"title": 2, "nope": 5, "body": -1}, None),
    ],
)
def test_values_are_checked(section: str, key: str, written: object, used: object) -> None:
    setting = next(s for s in SETTINGS if s.section == section and s.key == key)
    if used is None:  # a table keeps its known keys with positive numbers
        assert value_of(setting, written) == {**setting.default, "title": 2.0}
    else:
        assert value_of(setting, written) == used
