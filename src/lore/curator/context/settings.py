"""The curator's policy from the vault's `lore.toml` (`[curator]`), checked and defaulted.

In pull-request mode the policy is read at the base commit, so a pull request
cannot loosen the rules it is checked by; a change to `lore.toml` in the pull
request is reported for the reviewer instead.

Keys (all optional; their defaults and bounds are in `lore.vault.settings.SETTINGS`):
- `max_body_words`, `max_title_chars`: convention limits.
- `allow_extra_fields`: unknown frontmatter fields warn instead of failing.
- `allowed_link_domains`: links there are never flagged; a domain allows its
  sub-domains. Links elsewhere are flagged only when they can carry data out or hide
  where they lead, unless `only_allowed_link_domains` asks for the strict allow-list.
- `relax_to_warning`: the instruction rules (`RELAXABLE`) this vault reports as
  warnings instead of errors.
- `allowed_placeholders`: exact strings the secret scan accepts, e.g. the dummy key
  your runbooks use.
- `near_duplicate_threshold`: how alike two notes must be (the likeness of
  `lore.curator.judgement.similarity`, 0 to 1) to be reported as near duplicates.
- `[curator.semantic]`: the optional model review (`lore.curator.review.semantic`), off by
  default: `enabled`, `provider` ("openai", "anthropic", or "llm" for any model the
  `llm` library reaches), `model`, `endpoint` (openai and anthropic only: the
  provider's public API unless set; with llm the model's plugin chooses),
  `api_key_env` (the NAME of the environment variable holding the key; the key itself
  never lives in lore.toml), `timeout_seconds`, `max_related` (candidates judged per
  note), `max_calls` (model calls per run).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from lore.curator.finding import ERROR, WARNING, Finding
from lore.errors import UsageError
from lore.vault.settings import (
    SETTINGS_FILE,
    accepts,
    as_toml,
    expected,
    parse_settings,
    section_values,
    settings_of,
    value_of,
)

PROVIDERS = ("openai", "anthropic", "llm")
# The rules a vault may report as warnings instead of errors (`relax_to_warning`).
RELAXABLE = ("injection/agent-instruction", "injection/role-tag", "injection/pipe-to-shell")
LLM = "llm"  # any model the optional `llm` library reaches, through its plugins
_LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,127}")
_CURATOR = section_values({}, "curator")  # the defaults, from lore.vault.settings' table
_SEMANTIC = section_values({}, "curator.semantic")


@dataclass(frozen=True)
class SemanticSettings:
    """`[curator.semantic]`: the optional, advisory model review (off by default)."""

    enabled: bool = _SEMANTIC["enabled"]
    provider: str = _SEMANTIC["provider"]
    model: str = _SEMANTIC["model"]
    endpoint: str = _SEMANTIC["endpoint"]  # empty: the provider's public API
    api_key_env: str = _SEMANTIC["api_key_env"]
    timeout_seconds: float = _SEMANTIC["timeout_seconds"]
    max_related: int = _SEMANTIC["max_related"]  # candidate notes judged per note
    max_calls: int = _SEMANTIC["max_calls"]  # model calls per run


@dataclass(frozen=True)
class CuratorSettings:
    max_body_words: int = _CURATOR["max_body_words"]
    max_title_chars: int = _CURATOR["max_title_chars"]
    allow_extra_fields: bool = _CURATOR["allow_extra_fields"]
    allowed_link_domains: tuple[str, ...] = tuple(_CURATOR["allowed_link_domains"])
    only_allowed_link_domains: bool = _CURATOR["only_allowed_link_domains"]
    relax_to_warning: frozenset[str] = frozenset(_CURATOR["relax_to_warning"])
    allowed_placeholders: tuple[str, ...] = tuple(_CURATOR["allowed_placeholders"])
    near_duplicate_threshold: float = _CURATOR["near_duplicate_threshold"]
    semantic: SemanticSettings = field(default_factory=SemanticSettings)
    problems: list[Finding] = field(default_factory=list, compare=False)


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
    for key, setting in settings_of("curator").items():
        if key not in section:
            continue
        if accepts(setting, section[key]):
            values[key] = section[key]
        else:
            problem(
                f"curator.{key} must be {expected(setting)}",
                f"Set {key} = {as_toml(setting.default)}.",
            )
    if "allowed_link_domains" in values:
        values["allowed_link_domains"] = tuple(
            item.strip().lower().lstrip(".") for item in values["allowed_link_domains"]
        )
    if "relax_to_warning" in values:
        unknown = [rule for rule in values["relax_to_warning"] if rule not in RELAXABLE]
        for rule in unknown:
            problem(
                f"curator.relax_to_warning lists {rule!r}, which cannot be relaxed",
                "List only " + ", ".join(f'"{name}"' for name in RELAXABLE) + ".",
            )
        values["relax_to_warning"] = frozenset(
            rule for rule in values["relax_to_warning"] if rule in RELAXABLE
        )
    if "allowed_placeholders" in values:
        values["allowed_placeholders"] = tuple(values["allowed_placeholders"])
    if "near_duplicate_threshold" in values:
        values["near_duplicate_threshold"] = float(values["near_duplicate_threshold"])
    if "semantic" in section:
        values["semantic"] = _semantic_settings(section["semantic"], problem)
    for key in sorted(set(section) - set(settings_of("curator")) - {"semantic"}):
        problem(
            f"curator.{key} is not a curator setting", "Remove it or fix its spelling.", WARNING
        )
    return CuratorSettings(problems=problems, **values)


def _endpoint_ok(value: str) -> bool:
    """https anywhere; plain http only to this machine (a key never crosses a network bare)."""
    try:
        parts = urlsplit(value)
    except ValueError:
        return False
    if not parts.hostname or parts.username or parts.password or parts.query or parts.fragment:
        return False
    return parts.scheme == "https" or (parts.scheme == "http" and parts.hostname in _LOOPBACK)


def _semantic_settings(section: Any, problem: Any) -> SemanticSettings:
    """`[curator.semantic]`; any bad value is reported and leaves the review off."""
    if not isinstance(section, dict):
        problem(
            "[curator.semantic] in lore.toml is not a table",
            "Write it as a [curator.semantic] section.",
        )
        return SemanticSettings()
    values: dict[str, Any] = {}
    bad = False

    def reject(message: str, fix: str) -> None:
        nonlocal bad
        bad = True
        problem(f"{message}; the semantic review is off", fix)

    enabled = section.get("enabled", _SEMANTIC["enabled"])
    if isinstance(enabled, bool):
        values["enabled"] = enabled
    else:
        reject("curator.semantic.enabled must be true or false", "Set enabled = false.")
    provider = section.get("provider", _SEMANTIC["provider"])
    if provider in PROVIDERS:
        values["provider"] = provider
    else:
        reject(
            'curator.semantic.provider must be "openai", "anthropic" or "llm"',
            'Set provider = "openai".',
        )
    model = section.get("model", "")
    if isinstance(model, str) and len(model) <= 200 and "\n" not in model:
        values["model"] = model.strip()
    else:
        reject("curator.semantic.model must be a model name", 'Set model = "…".')
    endpoint = section.get("endpoint", "")
    if endpoint and provider == LLM:
        reject(
            "curator.semantic.endpoint is for the openai and anthropic providers; with llm, "
            "the plugin that provides the model decides where it connects",
            "Remove endpoint (configure the model in llm on the machine that runs the curator).",
        )
    elif endpoint == "" or (isinstance(endpoint, str) and _endpoint_ok(endpoint)):
        values["endpoint"] = endpoint.rstrip("/")
    else:
        reject(
            "curator.semantic.endpoint must be an https:// URL without credentials "
            "(http:// only to 127.0.0.1 or localhost)",
            "Remove endpoint to use the provider's public API.",
        )
    key_env = section.get("api_key_env", _SEMANTIC["api_key_env"])
    if isinstance(key_env, str) and _ENV_NAME.fullmatch(key_env):
        values["api_key_env"] = key_env
    else:
        reject(
            "curator.semantic.api_key_env must be the NAME of an environment variable "
            "(the key itself never goes in lore.toml)",
            'Set api_key_env = "LORE_SEMANTIC_API_KEY".',
        )
    numbers = settings_of("curator.semantic")
    for key in ("timeout_seconds", "max_related", "max_calls"):
        if key not in section:
            continue
        setting = numbers[key]
        if accepts(setting, section[key]):
            values[key] = value_of(setting, section[key])
        else:
            reject(
                f"curator.semantic.{key} must be {expected(setting)}",
                f"Set {key} = {as_toml(setting.default)}.",
            )
    if values.get("enabled") and not values.get("model"):
        reject("curator.semantic.model is not set", 'Set model = "…" (a model of the provider).')
    for key in sorted(set(section) - set(SemanticSettings.__dataclass_fields__)):
        problem(
            f"curator.semantic.{key} is not a semantic review setting",
            "Remove it or fix its spelling.",
            WARNING,
        )
    if bad:
        return SemanticSettings()
    return SemanticSettings(**values)
