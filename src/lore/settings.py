"""Vault settings from `lore.toml` (optional): recall boosts, digest budget, curator policy.

Missing keys take the defaults below; unknown keys are ignored here (the curator may
warn about them). Boosts are gentle tie-breakers: MEASUREMENTS.md shows that
multipliers swinging more than ±20 % hurt ranking.
"""

from __future__ import annotations

import sys
from typing import Any

from lore.errors import UsageError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

SETTINGS_FILE = "lore.toml"

DEFAULTS: dict[str, dict[str, Any]] = {
    "recall": {
        "repo_boost": 1.15,
        "other_repo_factor": 0.95,
        "confidence": {"high": 1.0, "medium": 0.95, "low": 0.88},
        "recency_half_life_days": 365,
        "recency_max_boost": 1.08,
        "weights": {"title": 6.0, "tags": 4.0, "body": 1.0, "files_touched": 3.0},
    },
    "digest": {"budget_chars": 6000},
    # Agent hooks (docs/agents/index.md): what `lore hook` injects and what it starts.
    "hooks": {
        "session_start": True,
        "prompt": False,
        "prompt_min_score": 10.0,
        "prompt_max_notes": 3,
        "prompt_snippet_chars": 240,
        "sync_interval_minutes": 30,
        "sync_timeout_seconds": 120,
    },
    "curator": {
        "max_body_words": 250,
        "max_title_chars": 120,
        "allow_extra_fields": False,
        "allowed_link_domains": ["github.com"],
        "allowed_placeholders": [],
        "near_duplicate_threshold": 0.6,
        # The optional model review (docs/curator.md), off by default.
        "semantic": {
            "enabled": False,
            "provider": "openai",
            "model": "",
            "endpoint": "",
            "api_key_env": "LORE_SEMANTIC_API_KEY",
            "timeout_seconds": 30,
            "max_related": 8,
        },
    },
    # The gardener (`lore garden`, docs/keeping-the-vault-true.md).
    "garden": {
        "archive_superseded_after_days": 90,
        "low_confidence_max_age_days": 180,
        "remove_unused_taxonomy": True,
    },
}


def _merge(base: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = _merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def parse_settings(text: str | None, path: str = SETTINGS_FILE) -> dict[str, Any]:
    """Settings with defaults filled in; raises `UsageError` naming the line of bad TOML."""
    if not text:
        return _merge(DEFAULTS, {})
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"{path}: not valid TOML ({exc}).", fix="Fix the line it names.") from None
    return _merge(DEFAULTS, data)


def recall_settings(settings: dict[str, Any]) -> dict[str, Any]:
    """The recall section, with numbers checked so a typo cannot break ranking."""
    section = settings.get("recall", {})
    clean = _merge(DEFAULTS["recall"], {})
    for key in ("repo_boost", "other_repo_factor", "recency_half_life_days", "recency_max_boost"):
        value = section.get(key)
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0:
            clean[key] = float(value)
    for group in ("confidence", "weights"):
        values = section.get(group, {})
        if isinstance(values, dict):
            for key, value in values.items():
                if key in clean[group] and isinstance(value, (int, float)) and value > 0:
                    clean[group][key] = float(value)
    return clean
