"""The curator's policy from the vault's `lore.toml` (`[curator]`), checked and defaulted.

In pull-request mode the policy is read at the base commit, so a pull request
cannot loosen the rules it is checked by; a change to `lore.toml` in the pull
request is reported for the reviewer instead.

Keys (all optional):
- `max_body_words` (250), `max_title_chars` (120): convention limits.
- `allow_extra_fields` (false): unknown frontmatter fields warn instead of failing.
- `allowed_link_domains` (["github.com"]): links elsewhere are flagged for review;
  a domain allows its sub-domains.
- `allowed_placeholders` ([]): exact strings the secret scan accepts, e.g. the
  dummy key your runbooks use.
- `near_duplicate_threshold` (0.6): the share of 3-word shingles two notes must
  have in common to be reported as near duplicates.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from lore.curator.finding import ERROR, WARNING, Finding
from lore.errors import UsageError
from lore.settings import SETTINGS_FILE, parse_settings


@dataclass(frozen=True)
class CuratorSettings:
    max_body_words: int = 250
    max_title_chars: int = 120
    allow_extra_fields: bool = False
    allowed_link_domains: tuple[str, ...] = ("github.com",)
    allowed_placeholders: tuple[str, ...] = ()
    near_duplicate_threshold: float = 0.6
    problems: list[Finding] = field(default_factory=list, compare=False)


_KNOWN_KEYS = frozenset(
    {
        "max_body_words",
        "max_title_chars",
        "allow_extra_fields",
        "allowed_link_domains",
        "allowed_placeholders",
        "near_duplicate_threshold",
        "semantic",  # reserved for the optional semantic review
    }
)


def _positive_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def _strings(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) and item for item in value)


def load_curator_settings(text: str | None, path: str = SETTINGS_FILE) -> CuratorSettings:
    """The `[curator]` policy; bad values fall back to defaults and become findings."""
    problems: list[Finding] = []

    def problem(message: str, fix: str, severity: str = ERROR) -> None:
        problems.append(Finding("convention/invalid-settings", severity, path, None, message, fix))

    try:
        data = parse_settings(text, path)
    except UsageError as exc:
        problem(f"{exc.message} The default curator policy was used.", "Fix the TOML syntax.")
        return CuratorSettings(problems=problems)
    section = data.get("curator", {})
    if not isinstance(section, dict):
        problem("[curator] in lore.toml is not a table", "Write it as a [curator] section.")
        return CuratorSettings(problems=problems)
    values: dict[str, Any] = {}
    for key in ("max_body_words", "max_title_chars"):
        if key in section:
            if _positive_int(section[key]):
                values[key] = section[key]
            else:
                problem(f"curator.{key} must be a positive whole number", f"Set {key} = 250.")
    if "allow_extra_fields" in section:
        if isinstance(section["allow_extra_fields"], bool):
            values["allow_extra_fields"] = section["allow_extra_fields"]
        else:
            problem(
                "curator.allow_extra_fields must be true or false",
                "Set allow_extra_fields = false.",
            )
    for key in ("allowed_link_domains", "allowed_placeholders"):
        if key in section:
            if _strings(section[key]):
                items = section[key]
                if key == "allowed_link_domains":
                    items = [item.strip().lower().lstrip(".") for item in items]
                values[key] = tuple(items)
            else:
                problem(f"curator.{key} must be a list of strings", f'Set {key} = ["…"].')
    if "near_duplicate_threshold" in section:
        value = section["near_duplicate_threshold"]
        if isinstance(value, (int, float)) and not isinstance(value, bool) and 0 < value <= 1:
            values["near_duplicate_threshold"] = float(value)
        else:
            problem(
                "curator.near_duplicate_threshold must be a number above 0 and at most 1",
                "Set near_duplicate_threshold = 0.6.",
            )
    for key in sorted(set(section) - _KNOWN_KEYS):
        problem(
            f"curator.{key} is not a curator setting", "Remove it or fix its spelling.", WARNING
        )
    return CuratorSettings(problems=problems, **values)
