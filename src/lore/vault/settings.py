"""Vault settings from `lore.toml`: one table of every key, its default, what it accepts,
what it can do and where lore may read it from.

`SETTINGS` is the only place a setting's default and bounds are written down; recall,
the index, the hooks, the digest, the gardener and the curator all read their values
through `section_values`, and the curator reports a value the table does not accept
(`accepts`, `expected`). `vault-template/lore.toml` shows the same defaults to people
(a test keeps the two equal).

Every setting has an owner (docs/security.md, "The map of inputs"). Its `power` says
what it can do — send data or a key somewhere and choose the model (`SENDS`), decide
what agents are told (`SERVES`), shape what a review reports (`CHECKS`), or act on this
machine only (`LOCAL`) — and its `sources` say where lore may read it from: `lore.toml`
at a commit of the reviewed branch (`REVIEWED`), `lore.toml` as agents are served it
(`SERVED`: the reviewed branch's tip, or the files of a vault without git), the user's
own config (`USER`), or the file on disk (`CHECKOUT`: a checked-out pull request, an
uncommitted edit). A setting that sends or serves is never read from the checkout.
`parse_settings` takes the source of the text it parses and keeps only the settings
that may come from there, so a reader cannot take one from the wrong place by mistake;
the one reader of the files themselves is `lore.vault.lore_toml`.

A value of the wrong type takes the default; a number outside its range is brought to
the nearest bound. Boosts are gentle tie-breakers: MEASUREMENTS.md shows that
multipliers swinging more than ±20 % hurt ranking. This module is read on the hook
path, so it parses TOML only when asked to (`parse_settings`).
"""

from __future__ import annotations

import sys

from lore.errors import UsageError
from lore.record import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

SETTINGS_FILE = "lore.toml"

BOOL, COUNT, NUMBER, POSITIVE, STRINGS, TABLE, TEXT = (
    "bool",
    "count",  # a whole number from `low` to `high`
    "number",  # a number from `low` to `high`
    "positive",  # a number above 0, at most `high`
    "strings",  # a list of non-empty strings
    "table",  # a table of the default's keys, each a number above 0
    "text",  # a string (checked further by its reader)
)


# Where a setting may be read from.
REVIEWED = "reviewed"  # lore.toml at a commit of the reviewed branch: its tip, a PR's base
SERVED = "served"  # lore.toml as served: the reviewed branch's tip; without git, the files
USER = "user"  # the user's own config file ($LORE_CONFIG)
CHECKOUT = "checkout"  # lore.toml on disk: a checked-out pull request, an uncommitted edit
SOURCES = (REVIEWED, SERVED, USER, CHECKOUT)

# What a setting can do.
SENDS = "sends"  # chooses where data or a key goes, or which model or command runs
SERVES = "serves"  # decides what agents are told
CHECKS = "checks"  # shapes what the curator or the gardener reports
LOCAL = "local"  # acts on this machine only
POWERS = (SENDS, SERVES, CHECKS, LOCAL)

# Where each power may be read from, unless a row narrows it. Sending and serving come
# only from what the team reviewed or from the user; never from the checkout.
POWER_SOURCES = {
    SENDS: (REVIEWED, USER),
    SERVES: (SERVED,),
    CHECKS: (REVIEWED, CHECKOUT),
    LOCAL: (USER, CHECKOUT),
}


class Setting(Record):
    """One key of `lore.toml`: its section, default, the values it accepts, what it can
    do (`power`) and where lore may read it from (`sources`)."""

    __slots__ = ("default", "high", "key", "kind", "low", "power", "section", "sources")

    def __init__(
        self,
        section: str,
        key: str,
        default: Any,
        kind: str,
        *,
        power: str,
        sources: tuple[str, ...] | None = None,
        low: float = 0,
        high: float = 1e9,
    ) -> None:
        self.section = section  # "recall", "curator", "curator.semantic", ...
        self.key = key
        self.default = default
        self.kind = kind
        self.power = power
        self.sources = POWER_SOURCES[power] if sources is None else sources
        self.low = low
        self.high = high

    @property
    def name(self) -> str:
        """`section.key`, as docs/security.md names it."""
        return f"{self.section}.{self.key}"


SETTINGS: tuple[Setting, ...] = (
    Setting("recall", "repo_boost", 1.15, POSITIVE, power=SERVES),
    Setting("recall", "other_repo_factor", 0.95, POSITIVE, power=SERVES),
    Setting(
        "recall", "confidence", {"high": 1.0, "medium": 0.95, "low": 0.88}, TABLE, power=SERVES
    ),
    Setting("recall", "recency_half_life_days", 365.0, POSITIVE, power=SERVES),
    Setting("recall", "recency_max_boost", 1.08, POSITIVE, power=SERVES),
    Setting(
        "recall",
        "weights",
        {"title": 6.0, "tags": 4.0, "body": 1.0, "files_touched": 3.0},
        TABLE,
        power=SERVES,
    ),
    Setting("digest", "budget_chars", 6000, COUNT, low=600, high=100_000, power=SERVES),
    # Agent hooks (docs/agents/index.md): what `lore hook` injects and what it starts.
    Setting("hooks", "session_start", True, BOOL, power=SERVES),
    Setting("hooks", "prompt", False, BOOL, power=SERVES),
    Setting("hooks", "session_end", True, BOOL, power=SERVES, sources=(SERVED, USER)),
    Setting("hooks", "prompt_min_score", 10.0, NUMBER, low=0, high=1e6, power=SERVES),
    Setting("hooks", "prompt_max_notes", 3, COUNT, low=1, high=3, power=SERVES),
    Setting("hooks", "prompt_snippet_chars", 240, COUNT, low=60, high=600, power=SERVES),
    Setting("hooks", "sync_interval_minutes", 30.0, POSITIVE, power=SERVES),
    Setting("hooks", "sync_timeout_seconds", 120.0, POSITIVE, power=SERVES),
    Setting("curator", "max_body_words", 250, COUNT, low=1, power=CHECKS),
    Setting("curator", "max_title_chars", 120, COUNT, low=1, power=CHECKS),
    Setting("curator", "allow_extra_fields", False, BOOL, power=CHECKS),
    Setting("curator", "allowed_link_domains", ["github.com"], STRINGS, power=CHECKS),
    # true: any link outside allowed_link_domains is flagged (the strict allow-list);
    # false: only links that can carry data out or hide where they lead.
    Setting("curator", "only_allowed_link_domains", False, BOOL, power=CHECKS),
    # Instruction rules a vault reports as warnings instead of errors (their reader
    # accepts only injection/agent-instruction, injection/role-tag, injection/pipe-to-shell).
    Setting("curator", "relax_to_warning", [], STRINGS, power=CHECKS),
    Setting("curator", "allowed_placeholders", [], STRINGS, power=CHECKS),
    # The likeness of lore.curator.judgement.similarity (0..1); 0.42 is the middle of the
    # gap between distinct pairs and duplicates in eval/curator's tune part.
    Setting("curator", "near_duplicate_threshold", 0.42, POSITIVE, high=1, power=CHECKS),
    # The optional model review (docs/curator.md), off by default: one call judges one
    # note against all its candidates. Its reader checks the text values (provider
    # names, endpoints, variable names, the organisation) and fills in the provider's
    # own defaults for an empty model or api_key_env (lore.curator.context.settings).
    # max_related: notes found by likeness judged per note (besides the notes it points
    # at), within the request's 8,000 tokens; max_calls: calls (notes) per run, 10 so one
    # run stays under GitHub Models' 10-15 requests a minute.
    Setting("curator.semantic", "enabled", False, BOOL, power=SENDS),
    Setting("curator.semantic", "provider", "openai", TEXT, power=SENDS),
    Setting("curator.semantic", "model", "", TEXT, power=SENDS),
    Setting("curator.semantic", "endpoint", "", TEXT, power=SENDS),
    Setting("curator.semantic", "org", "", TEXT, power=SENDS),
    Setting("curator.semantic", "api_key_env", "", TEXT, power=SENDS),
    Setting("curator.semantic", "timeout_seconds", 30.0, POSITIVE, high=300, power=SENDS),
    Setting("curator.semantic", "max_related", 8, COUNT, low=0, high=50, power=SENDS),
    Setting("curator.semantic", "max_calls", 10, COUNT, low=1, high=500, power=SENDS),
    # The gardener (`lore garden`, docs/keeping-the-vault-true.md).
    Setting("garden", "archive_superseded_after_days", 90, COUNT, power=CHECKS),
    Setting("garden", "low_confidence_max_age_days", 180, COUNT, power=CHECKS),
    Setting("garden", "remove_unused_taxonomy", True, BOOL, power=CHECKS),
    # ...but never the template's entries, nor entries younger than this many days.
    Setting("garden", "keep_template_taxonomy", True, BOOL, power=CHECKS),
    Setting("garden", "keep_new_taxonomy_days", 90, COUNT, power=CHECKS),
    # The drafts inbox (`lore drafts`, docs/agents/drafts.md): a draft older than this is
    # moved out of the inbox, once, with a notice; the user config's [drafts] wins.
    Setting("drafts", "max_age_days", 30, COUNT, low=1, high=3650, power=LOCAL),
    # What is served (lore.vault.snapshot): "" is the remote's default branch.
    Setting("vault", "reviewed_branch", "", TEXT, power=SERVES, sources=(REVIEWED,)),
    # The site (`lore site`, docs/site.md): a vault whose repository is not public is
    # published to GitHub Pages only when this says so (lore.site.publish). It sends the
    # notes to whoever can read the site, so only the reviewed branch's tip may say so:
    # never a checkout, a pull request, a vault without git or a user's own config.
    Setting("site", "publish_private", False, BOOL, power=SENDS, sources=(REVIEWED,)),
)


def may_read(setting: Setting, source: str) -> bool:
    """Whether lore may take `setting` from `source` (one of `SOURCES`)."""
    return source in setting.sources


def settings_of(section: str) -> dict[str, Setting]:
    """The table's entries for one section (`"curator.semantic"` for a sub-table)."""
    return {s.key: s for s in SETTINGS if s.section == section}


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def accepts(setting: Setting, value: object) -> bool:
    """Whether `value` is a value of `setting` exactly as written (the curator's check)."""
    kind = setting.kind
    if kind == BOOL:
        return isinstance(value, bool)
    if kind == COUNT:
        return (
            isinstance(value, int)
            and not isinstance(value, bool)
            and setting.low <= value <= setting.high
        )
    if kind in (NUMBER, POSITIVE):
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            return False
        above_low = value > 0 if kind == POSITIVE else value >= setting.low
        return above_low and value <= setting.high
    if kind == STRINGS:
        return isinstance(value, list) and all(isinstance(item, str) and item for item in value)
    if kind == TABLE:
        return isinstance(value, dict) and all(
            key in setting.default and _is_number(item) and item > 0 for key, item in value.items()
        )
    return isinstance(value, str)


def expected(setting: Setting) -> str:
    """What `setting` accepts, as the end of a sentence: "must be ..."."""
    kind = setting.kind
    if kind == BOOL:
        return "true or false"
    if kind == COUNT:
        if setting.high >= 1e9:
            return "a positive whole number" if setting.low == 1 else "a whole number"
        return f"a whole number from {setting.low:g} to {setting.high:g}"
    if kind == NUMBER:
        return f"a number from {setting.low:g} to {setting.high:g}"
    if kind == POSITIVE:
        if setting.high >= 1e9:
            return "a number above 0"
        return f"a number above 0 and at most {setting.high:g}"
    if kind == STRINGS:
        return "a list of strings"
    if kind == TABLE:
        names = ", ".join(setting.default)
        return f"a table of positive numbers for {names}"
    return "a string"


def as_toml(value: object) -> str:
    """A default as it would be written in lore.toml (for "Set key = value." fixes)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, list):
        return "[" + ", ".join(as_toml(item) for item in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {as_toml(v)}" for k, v in value.items()) + " }"
    return str(value)


def value_of(setting: Setting, value: object) -> Any:
    """The value lore uses for `setting` when `lore.toml` says `value` (or nothing)."""
    kind = setting.kind
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if kind == POSITIVE and value > 0:
            return min(setting.high, float(value))
        if kind == NUMBER:
            return max(setting.low, min(setting.high, float(value)))
        if kind == COUNT and isinstance(value, int):
            return int(max(setting.low, min(setting.high, value)))
        return _copy(setting.default)
    if kind == TABLE and isinstance(value, dict):
        table = dict(setting.default)
        for key, item in value.items():
            if key in table and _is_number(item) and item > 0:
                table[key] = float(item)
        return table
    if value is not None and accepts(setting, value):
        return _copy(value)
    return _copy(setting.default)


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return dict(value)
    if isinstance(value, list):
        return list(value)
    return value


def section_values(settings: dict[str, Any], section: str) -> dict[str, Any]:
    """Every key of `section` with the value lore uses (defaults fill in the rest).

    `settings` is `lore.toml` as parsed (or as the index stored it); a sub-table is
    named with a dot (`"curator.semantic"`).
    """
    raw: Any = settings
    for part in section.split("."):
        raw = raw.get(part) if isinstance(raw, dict) else None
    if not isinstance(raw, dict):
        raw = {}
    return {key: value_of(setting, raw.get(key)) for key, setting in settings_of(section).items()}


def defaults() -> dict[str, Any]:
    """The whole table as nested sections of default values."""
    tree: dict[str, Any] = {}
    for setting in SETTINGS:
        node = tree
        for part in setting.section.split("."):
            node = node.setdefault(part, {})
        node[setting.key] = _copy(setting.default)
    return tree


def _merge(base: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = _merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def parse_settings(text: str | None, path: str = SETTINGS_FILE, *, source: str) -> dict[str, Any]:
    """`lore.toml` as written, over the defaults; raises `UsageError` for bad TOML.

    `source` says where `text` was read from (`SOURCES`): a setting the table does not
    allow from there keeps its default, whatever the text says. Values are not checked
    here: readers take them through `section_values`.
    """
    if source not in SOURCES:
        raise ValueError(f"unknown settings source {source!r}")
    if not text:
        return defaults()
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"{path}: not valid TOML ({exc}).", fix="Fix the line it names.") from None
    return _merge(defaults(), owned_by(data, source))


def owned_by(data: dict[str, Any], source: str) -> dict[str, Any]:
    """`data` (parsed TOML) without the settings the table does not allow from `source`;
    keys the table does not know are kept (the curator reports them)."""
    kept = _tree_copy(data)
    for setting in SETTINGS:
        if may_read(setting, source):
            continue
        node: Any = kept
        parts = setting.section.split(".")
        for part in parts:
            node = node.get(part) if isinstance(node, dict) else None
        if isinstance(node, dict):
            node.pop(setting.key, None)
    return kept


def _tree_copy(data: dict[str, Any]) -> dict[str, Any]:
    return {k: _tree_copy(v) if isinstance(v, dict) else v for k, v in data.items()}


def refused_from(data: dict[str, Any], source: str) -> list[Setting]:
    """The settings `data` sets that lore does not take from `source` (to say so)."""
    refused = []
    for setting in SETTINGS:
        node: Any = data
        for part in setting.section.split("."):
            node = node.get(part) if isinstance(node, dict) else None
        if isinstance(node, dict) and setting.key in node and not may_read(setting, source):
            refused.append(setting)
    return refused


def recall_settings(settings: dict[str, Any]) -> dict[str, Any]:
    """The `[recall]` section with every value checked, so a typo cannot break ranking."""
    return section_values(settings, "recall")
