"""The user config file (TOML): the vaults this machine knows and which is the default.

```toml
default = "team"

[vaults.team]
path = "~/lore/team"
remote = "https://github.com/acme/team-vault.git"
priority = 10
```

`load_config` reads it (a missing file is an empty config); `save_config` writes it
atomically (temp file, fsync, rename), keeping keys lore does not know. Parsing TOML
costs about 15 ms of imports, so `configured_vaults` — what `lore recall` reads on
every run — keeps a JSON copy of the vault list in `$LORE_HOME`, refreshed whenever
the config file changes; the same copy carries the user's `[hooks]` switches
(`user_hook_switches`, read by the agent hooks). Value classes are `Record`s, not
dataclasses, for the same reason.
"""

from __future__ import annotations

import contextlib
import re
import sys
from pathlib import Path

from lore.errors import UsageError
from lore.files import write_atomic
from lore.paths import config_path, lore_home
from lore.record import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

VAULT_NAME = re.compile(r"^[a-z0-9][a-z0-9_.-]{0,62}$")
CACHE_FILE = "config-vaults.json"
CACHE_VERSION = 2
_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")
_HEADER = (
    "# lore's user config: the vaults this machine knows (see docs/config.md).\n"
    "# `lore connect`, `lore init` and `lore vaults` rewrite this file; they keep\n"
    "# every setting but not comments.\n"
)


class VaultEntry(Record):
    """One registered vault: where its clone is, where it came from, how it ranks."""

    __slots__ = ("extra", "name", "path", "priority", "remote")

    def __init__(
        self,
        name: str,
        path: str,
        remote: str | None = None,
        priority: int = 0,
        extra: dict[str, Any] | None = None,
    ) -> None:
        self.name = name
        self.path = path
        self.remote = remote
        self.priority = priority
        self.extra = {} if extra is None else extra  # keys lore does not know, kept as read

    def __hash__(self) -> int:
        return hash((self.name, self.path, self.remote, self.priority))


class Config(Record):
    __slots__ = ("default", "extra", "path", "vaults")

    def __init__(
        self,
        path: Path,
        vaults: dict[str, VaultEntry] | None = None,
        default: str | None = None,
        extra: dict[str, Any] | None = None,
    ) -> None:
        self.path = path
        self.vaults = {} if vaults is None else vaults
        self.default = default
        self.extra = {} if extra is None else extra

    def __hash__(self) -> int:
        return hash((self.path, self.default, tuple(self.vaults)))

    def default_vault(self) -> VaultEntry | None:
        if self.default and self.default in self.vaults:
            return self.vaults[self.default]
        if len(self.vaults) == 1:
            return next(iter(self.vaults.values()))
        return None

    def ordered(self) -> list[VaultEntry]:
        """Every vault: the default first, then by priority (highest first), then by name."""
        default = self.default_vault()
        return sorted(
            self.vaults.values(),
            key=lambda e: (default is None or e.name != default.name, -e.priority, e.name),
        )

    def find_by_path(self, path: Path) -> VaultEntry | None:
        wanted = _same_path_key(path)
        for entry in self.vaults.values():
            if _same_path_key(Path(entry.path)) == wanted:
                return entry
        return None


def _same_path_key(path: Path) -> str:
    try:
        return str(path.expanduser().resolve())
    except OSError:
        return str(path.expanduser())


def check_vault_name(name: str) -> str:
    if not VAULT_NAME.match(name):
        raise UsageError(
            f"'{name}' is not a usable vault name.",
            fix="Use lower-case letters, digits, '-', '_' or '.', e.g. --name team.",
        )
    return name


def _toml_loads(text: str) -> dict[str, Any]:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib
    try:
        data: dict[str, Any] = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(str(exc)) from None
    return data


def load_config(path: Path | None = None) -> Config:
    """Read the user config; a missing file is an empty config, a broken one an error."""
    target = path or config_path()
    try:
        raw = target.read_bytes()
    except FileNotFoundError:
        return Config(path=target)
    except OSError as exc:
        raise UsageError(f"{target}: cannot be read ({exc.strerror}).") from None
    try:
        data: dict[str, Any] = _toml_loads(raw.decode("utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise UsageError(
            f"{target}: the config file is not valid TOML ({exc}).",
            fix="Fix the line it names, or move the file away to start afresh.",
        ) from None
    default = data.pop("default", None)
    if default is not None and not isinstance(default, str):
        raise UsageError(f"{target}: 'default' must be a vault name in quotes.")
    vaults = data.pop("vaults", {})
    if not isinstance(vaults, dict):
        raise UsageError(f"{target}: 'vaults' must be a table.", fix="Use [vaults.NAME] sections.")
    config = Config(path=target, default=default, extra=data)
    for name, entry in vaults.items():
        if not isinstance(entry, dict) or not isinstance(entry.get("path"), str):
            raise UsageError(
                f"{target}: the vault '{name}' has no path.",
                fix=f'Add path = "..." under [vaults.{name}].',
            )
        fields = dict(entry)
        remote = fields.pop("remote", None)
        priority = fields.pop("priority", 0)
        if remote is not None and not isinstance(remote, str):
            raise UsageError(f"{target}: the remote of the vault '{name}' must be a string.")
        if isinstance(priority, bool) or not isinstance(priority, int):
            raise UsageError(
                f"{target}: the priority of the vault '{name}' must be a whole number.",
                fix="E.g. priority = 10 (higher is searched and listed first).",
            )
        config.vaults[name] = VaultEntry(
            name=name,
            path=str(Path(fields.pop("path")).expanduser()),
            remote=remote,
            priority=priority,
            extra=fields,
        )
    return config


# ---- writing ----


def _key(name: str) -> str:
    return name if _BARE_KEY.match(name) else _string(name)


def _string(value: str) -> str:
    out = ['"']
    for char in value:
        if char in '"\\':
            out.append("\\" + char)
        elif ord(char) < 0x20 or ord(char) == 0x7F:
            out.append(f"\\u{ord(char):04x}")
        else:
            out.append(char)
    out.append('"')
    return "".join(out)


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_value(item) for item in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_key(k)} = {_value(v)}" for k, v in value.items()) + "}"
    if hasattr(value, "isoformat"):  # TOML dates and times read back as datetime objects
        return str(value.isoformat())
    raise TypeError(f"cannot write {type(value).__name__} to TOML")


def _table(lines: list[str], header: str, data: dict[str, Any]) -> None:
    scalars = {k: v for k, v in data.items() if not isinstance(v, dict)}
    tables = {k: v for k, v in data.items() if isinstance(v, dict)}
    if header and (scalars or not tables):
        lines.append(f"\n[{header}]")
    lines.extend(f"{_key(k)} = {_value(v)}" for k, v in scalars.items())
    for name, inner in tables.items():
        _table(lines, f"{header}.{_key(name)}" if header else _key(name), inner)


def dump_config(config: Config) -> str:
    """The config as TOML: `default`, other top-level keys, then one table per vault."""
    top: dict[str, Any] = {}
    if config.default:
        top["default"] = config.default
    top.update(config.extra)
    lines: list[str] = []
    _table(lines, "", {k: v for k, v in top.items() if not isinstance(v, dict)})
    for entry in config.vaults.values():
        fields: dict[str, Any] = {"path": entry.path}
        if entry.remote:
            fields["remote"] = entry.remote
        if entry.priority:
            fields["priority"] = entry.priority
        fields.update(entry.extra)
        _table(lines, f"vaults.{_key(entry.name)}", fields)
    _table(lines, "", {k: v for k, v in top.items() if isinstance(v, dict)})
    return _HEADER + "\n".join(lines).lstrip("\n").join(["\n", "\n"])


def save_config(config: Config) -> None:
    """Write the config atomically to `config.path` (folders are created as needed)."""
    text = dump_config(config)
    _toml_loads(text)  # never write a file lore itself could not read back
    write_atomic(config.path, text.encode("utf-8"))


# ---- the fast path for recall ----


def configured_vaults(path: Path | None = None) -> list[VaultEntry]:
    """The registered vaults in search order (default first, then priority, then name).

    Served from a JSON copy in `$LORE_HOME` while the config file is unchanged, so
    recall does not import a TOML parser; a broken config raises `UsageError`.
    """
    data = _cached(path)
    if data is None:
        return []
    return [
        VaultEntry(str(v["name"]), str(v["path"]), v.get("remote"), int(v["priority"]))
        for v in data["vaults"]
    ]


def user_hook_switches(path: Path | None = None) -> dict[str, bool]:
    """The user config's `[hooks]` switches (`session_end = false`), from the same copy.

    Only true/false values count; a broken config reads as no switches, never an error.
    """
    try:
        data = _cached(path)
    except UsageError:
        return {}
    return dict(data["hooks"]) if data is not None else {}


def _is_cached_entry(entry: object) -> bool:
    return (
        isinstance(entry, dict)
        and isinstance(entry.get("name"), str)
        and isinstance(entry.get("path"), str)
        and isinstance(entry.get("priority"), int)
        and isinstance(entry.get("remote"), (str, type(None)))
    )


def _cached(path: Path | None) -> dict[str, Any] | None:
    """The JSON copy of the config's vaults and hook switches; None without a config."""
    import json

    target = path or config_path()
    try:
        stat = target.stat()
    except OSError:
        return None
    stamp = [str(target), stat.st_ino, stat.st_mtime_ns, stat.st_size]
    cache = lore_home() / CACHE_FILE
    try:
        data = json.loads(cache.read_text(encoding="utf-8"))
        if (
            data.get("version") == CACHE_VERSION
            and data.get("stamp") == stamp
            and isinstance(data.get("hooks"), dict)
            and all(map(_is_cached_entry, data["vaults"]))
        ):
            return dict(data)
    except (OSError, ValueError, AttributeError, KeyError, TypeError):
        pass
    config = load_config(target)
    hooks = config.extra.get("hooks")
    switches = {
        str(key): value
        for key, value in (hooks.items() if isinstance(hooks, dict) else ())
        if isinstance(value, bool)
    }
    payload = {
        "version": CACHE_VERSION,
        "stamp": stamp,
        "vaults": [
            {"name": e.name, "path": e.path, "remote": e.remote, "priority": e.priority}
            for e in config.ordered()
        ],
        "hooks": switches,
    }
    with contextlib.suppress(OSError):  # a read-only home only costs a TOML parse per recall
        write_atomic(cache, json.dumps(payload).encode("utf-8"))
    return payload
