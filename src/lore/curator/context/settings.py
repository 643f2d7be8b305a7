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
  default: `enabled`, `provider` ("openai", "anthropic", "github" for GitHub Models
  with the workflow's own token, or "llm" for any model the `llm` library reaches),
  `model` (github: `openai/gpt-4.1-mini` unless set), `endpoint` (openai, anthropic
  and github only: the provider's public API unless set; with llm the model's plugin
  chooses), `org` (github only: attribute the calls to this organisation),
  `api_key_env` (the NAME of the environment variable holding the key, the key itself
  never lives in lore.toml; unset: `GITHUB_TOKEN` for github, else
  `LORE_SEMANTIC_API_KEY`), `timeout_seconds`, `max_related` (candidates judged per
  note), `max_calls` (model calls, one per note, per run).

Where the model settings come from (`lore.vault.settings`: they send data and a key, so
`SENDS`): `lore.toml` at a commit of the reviewed branch — the base of a pull request,
the reviewed branch's tip for a command on a checkout — with the user's own config on
top (`[curator.semantic]` in `$LORE_CONFIG`, `user_model_section`): there a person turns
the review on or off for their own runs, or points it at an endpoint of their own. A key
goes only where its owner meant it to: to the provider's public API (`PUBLIC_ENDPOINTS`)
or to an endpoint the user's config names, never to an endpoint a vault file names
(`SemanticSettings.refused` says why no call is made); a `gh` token only to GitHub's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from lore.curator.finding import ERROR, WARNING, Finding
from lore.errors import UsageError
from lore.vault.settings import (
    REVIEWED,
    SETTINGS_FILE,
    USER,
    accepts,
    as_toml,
    expected,
    owned_by,
    parse_settings,
    section_values,
    settings_of,
    value_of,
)

PROVIDERS = ("openai", "anthropic", "github", "llm")
GITHUB = "github"  # GitHub Models, with the workflow's GITHUB_TOKEN (no secret to store)
# An empty `model` or `api_key_env` means the provider's own default. GitHub Models'
# openai/gpt-4.1-mini is a "low" tier model: 15 requests a minute, 150 a day free
# (https://docs.github.com/en/github-models/use-github-models/prototyping-with-ai-models#rate-limits).
DEFAULT_MODELS = {GITHUB: "openai/gpt-4.1-mini"}
DEFAULT_KEY_ENV = "LORE_SEMANTIC_API_KEY"
DEFAULT_KEY_ENVS = {GITHUB: "GITHUB_TOKEN"}
# Each provider's public API: where a key named by api_key_env may go without the user's
# own config naming another endpoint.
PUBLIC_ENDPOINTS = {
    "openai": "https://api.openai.com/v1",
    "anthropic": "https://api.anthropic.com/v1",
    GITHUB: "https://models.github.ai",
}
# The rules a vault may report as warnings instead of errors (`relax_to_warning`).
RELAXABLE = ("injection/agent-instruction", "injection/role-tag", "injection/pipe-to-shell")
LLM = "llm"  # any model the optional `llm` library reaches, through its plugins
_LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,127}")
_ORG = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}")  # a GitHub login
_CURATOR = section_values({}, "curator")  # the defaults, from lore.vault.settings' table
_SEMANTIC = section_values({}, "curator.semantic")


@dataclass(frozen=True)
class SemanticSettings:
    """`[curator.semantic]`: the optional, advisory model review (off by default)."""

    enabled: bool = _SEMANTIC["enabled"]
    provider: str = _SEMANTIC["provider"]
    model: str = _SEMANTIC["model"]
    endpoint: str = _SEMANTIC["endpoint"]  # empty: the provider's public API
    org: str = _SEMANTIC["org"]  # github: the organisation the calls are attributed to
    api_key_env: str = DEFAULT_KEY_ENV  # resolved: never empty
    timeout_seconds: float = _SEMANTIC["timeout_seconds"]
    max_related: int = _SEMANTIC["max_related"]  # candidate notes judged per note
    max_calls: int = _SEMANTIC["max_calls"]  # model calls per run
    refused: str = ""  # why no call may be made with these settings (a vault's endpoint)


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


def load_curator_settings(
    text: str | None,
    path: str = SETTINGS_FILE,
    *,
    source: str = REVIEWED,
    user: UserModel | None = None,
) -> CuratorSettings:
    """The `[curator]` policy; bad values fall back to defaults and become findings.

    `source`: where `text` was read from (`lore.vault.settings.SOURCES`; a commit of the
    reviewed branch unless said otherwise); the settings the table does not allow from
    there keep their defaults. `user`: the user config's `[curator.semantic]`, which
    wins over the vault's (`user_model_section`); a bad value there raises `UsageError`.
    """
    problems: list[Finding] = []

    def problem(message: str, fix: str, severity: str = ERROR) -> None:
        problems.append(Finding("convention/invalid-settings", severity, path, None, message, fix))

    try:
        data = parse_settings(text, path, source=source)
    except UsageError as exc:
        problem(f"{exc.message} The default curator policy was used.", "Fix the TOML syntax.")
        data = parse_settings(None, path, source=source)
        if user is None or not user.section:
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
    if "semantic" in section or (user is not None and user.section):
        values["semantic"] = _model_settings(section.get("semantic", {}), user, problem)
    for key in sorted(set(section) - set(settings_of("curator")) - {"semantic"}):
        problem(
            f"curator.{key} is not a curator setting", "Remove it or fix its spelling.", WARNING
        )
    return CuratorSettings(problems=problems, **values)


class UserModel:
    """The user config's `[curator.semantic]` (only what it writes) and where it is."""

    __slots__ = ("path", "section")

    def __init__(self, section: dict[str, Any], path: str) -> None:
        self.section = section
        self.path = path


def user_model_section(config_path: Path | None = None) -> UserModel:
    """`[curator.semantic]` of the user's own config; `UsageError` when it is not a table."""
    from lore.config import load_config

    config = load_config(config_path)
    curator = config.extra.get("curator", {})
    section = curator.get("semantic", {}) if isinstance(curator, dict) else None
    if not isinstance(section, dict):
        raise UsageError(
            f"{config.path}: curator.semantic must be a table.",
            fix="Write it as a [curator.semantic] section, or remove it.",
        )
    kept = owned_by({"curator": {"semantic": section}}, USER)["curator"]["semantic"]
    return UserModel(kept, str(config.path))


def is_public_endpoint(provider: str, endpoint: str) -> bool:
    """Whether `endpoint` (empty: the default) is the provider's own public API."""
    public = PUBLIC_ENDPOINTS.get(provider)
    return public is not None and (endpoint or public).rstrip("/") == public


def _model_settings(vault: Any, user: UserModel | None, problem: Any) -> SemanticSettings:
    """The vault's `[curator.semantic]` with the user's config on top; a key never goes to
    an endpoint a vault file names (`refused`)."""
    if user is None or not user.section:
        return _keep_keys_home(_semantic_settings(vault, problem), vault_endpoint=True)
    if not isinstance(vault, dict):
        _semantic_settings(vault, problem)  # says it is not a table
        vault = {}
    mine = user.section

    def routed(message: str, fix: str, severity: str = ERROR) -> None:
        named = re.match(r"curator\.semantic\.([a-z_]+)", message)
        if named is not None and named[1] in mine:
            raise UsageError(f"{user.path}: {message}.", fix=fix)
        problem(message, fix, severity)

    merged = _semantic_settings({**vault, **mine}, routed)
    return _keep_keys_home(merged, vault_endpoint="endpoint" not in mine)


def _keep_keys_home(settings: SemanticSettings, *, vault_endpoint: bool) -> SemanticSettings:
    """`settings`, refused when a vault file chose an endpoint other than the provider's
    public API: a key is sent there only when the user's own config names it."""
    if (
        not vault_endpoint
        or settings.provider == LLM
        or not settings.endpoint
        or is_public_endpoint(settings.provider, settings.endpoint)
    ):
        return settings
    from dataclasses import replace

    reason = (
        f"lore.toml names the endpoint {settings.endpoint}, and lore sends a key only to "
        f"the provider's public API or to an endpoint your own config names (endpoint under "
        "[curator.semantic] in $LORE_CONFIG)"
    )
    return replace(settings, refused=reason)


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
            'curator.semantic.provider must be "openai", "anthropic", "github" or "llm"',
            'Set provider = "github" (GitHub Models, no key to store) or "openai".',
        )
    model = section.get("model", "")
    if isinstance(model, str) and len(model) <= 200 and "\n" not in model:
        values["model"] = model.strip() or DEFAULT_MODELS.get(provider, "")
    else:
        reject("curator.semantic.model must be a model name", 'Set model = "…".')
    org = section.get("org", "")
    if org and provider != GITHUB:
        reject(
            "curator.semantic.org is for the github provider (GitHub Models)",
            'Remove org, or set provider = "github".',
        )
    elif org == "" or (isinstance(org, str) and _ORG.fullmatch(org)):
        values["org"] = org
    else:
        reject(
            "curator.semantic.org must be the login of a GitHub organisation",
            'Set org = "your-org", or remove it to use your own account\'s GitHub Models.',
        )
    endpoint = section.get("endpoint", "")
    if endpoint and provider == LLM:
        reject(
            "curator.semantic.endpoint is for the openai, anthropic and github providers; "
            "with llm, "
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
    if key_env == "":
        values["api_key_env"] = DEFAULT_KEY_ENVS.get(provider, DEFAULT_KEY_ENV)
    elif isinstance(key_env, str) and _ENV_NAME.fullmatch(key_env):
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
    for key in sorted(set(section) - set(settings_of("curator.semantic"))):
        problem(
            f"curator.semantic.{key} is not a semantic review setting",
            "Remove it or fix its spelling.",
            WARNING,
        )
    if bad:
        return SemanticSettings()
    return SemanticSettings(**values)
