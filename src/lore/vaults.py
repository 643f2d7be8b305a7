"""Which vault, or vaults, a command, a hook or an MCP tool uses: decided here, once.

The first that applies (DESIGN §3, docs/cli.md "Which vault"): `--vault` (a folder, or
the name of a vault registered in the user config); the vault you stand in (the
current folder or the nearest folder above it that has `_taxonomy.md` and `notes/`,
looking no further than the git repository you are in) when it is a registered vault,
or, for a person's reviewer commands (`curate`, `review`, `doctor`: `reviewing=True`),
any such folder; `$LORE_VAULT`; the user config.

Only a registered vault is served to an agent. What an agent is told must come from
the team's review, and any code repository with `_taxonomy.md` and `notes/` at its top
— an open-source project, a dependency, a branch of the team's code — looks like a
vault and has far more writers than the vault: so recall, `show`, the MCP server and
everything else that is not a reviewer command never serve a folder only because the
user (or the agent) stands in it. Such a look-alike gets one line on stderr saying how
to connect it (written here, so every command and the MCP server say it alike; the
hooks never look at the working directory and stay silent). Then:

- `one_vault`: commands that act on one vault (show, remember, curate, index, ...)
  take the config's default vault;
- `search_vaults`: recall and the MCP server search every registered vault, the
  default first;
- `chosen_vaults`: sync, stats and proposals act on the vaults named on the command
  line, or on all;
- `hook_vaults`: the hooks read `$LORE_VAULT` or the registered vaults, never the
  working directory, and never fail: a vault that cannot be used is left out.

Every answer is a `VaultRef`. The vault list comes from `lore.config.configured_vaults`,
a JSON copy of the config, so recall and the hooks parse no TOML.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path

from lore.errors import LoreError, UsageError, VaultError
from lore.paths import NOTES_DIR
from lore.record import Record

FLAG, ENV, CONFIG, HERE = "flag", "env", "config", "here"


class VaultRef(Record):
    """A vault to use: its name, its folder, and which rule chose it (`how`)."""

    __slots__ = ("how", "name", "root")

    def __init__(self, name: str, root: Path, how: str = CONFIG) -> None:
        self.name = name
        self.root = root
        self.how = how  # flag, env, config or here (the vault the user stands in)


def one_vault(
    flag: str | None = None, *, here: Path | None = None, reviewing: bool = False
) -> VaultRef:
    """The vault a single-vault command uses, or `VaultError` saying how to name one.

    `here`: where the user stands (default: the current folder). `reviewing`: a person's
    reviewer command (`curate`, `review`, `doctor`), which works on the vault checkout it
    stands in even when that checkout is not registered; everything else uses the folder
    it stands in only when it is a registered vault.
    """
    if flag:
        return _from_flag(flag)
    standing = vault_here(here) if reviewing else registered_here(here)
    if standing is not None:
        return standing
    return _env_or_default()


def _env_or_default() -> VaultRef:
    """`$LORE_VAULT`, else the config's default vault, else `VaultError`."""
    env = os.environ.get("LORE_VAULT")
    if env:
        return _checked(Path(env), "LORE_VAULT", ENV)
    from lore.config import load_config

    config = load_config()
    entry = config.default_vault()
    if entry is not None:
        return _checked(
            Path(entry.path), f"the vault '{entry.name}' in {config.path}", CONFIG, entry.name
        )
    if config.vaults:
        names = ", ".join(sorted(config.vaults))
        raise VaultError(
            f"Several vaults are registered ({names}) and none is the default.",
            fix="Pass --vault NAME, or choose one with `lore vaults --default NAME`.",
        )
    raise VaultError(
        "No vault is configured.",
        fix="Connect your team's vault with `lore connect OWNER/REPO`, or create one with "
        "`lore init`; or pass --vault PATH, set LORE_VAULT, or try `lore demo`.",
    )


def vault_here(here: Path | None = None) -> VaultRef | None:
    """The vault the user stands in: `here` (default: the current folder) or the nearest
    folder above it with `_taxonomy.md` and `notes/`, within the git repository `here`
    is in (a code repository's own `notes/` folder is not a vault)."""
    try:
        start = (here or Path.cwd()).resolve()
    except OSError:  # the current folder was deleted
        return None
    for folder in (start, *start.parents):
        if (folder / "_taxonomy.md").is_file() and (folder / NOTES_DIR).is_dir():
            return VaultRef(folder.name, folder, HERE)
        if (folder / ".git").exists():
            return None  # the top of a repository that is not a vault
    return None


def registered_here(here: Path | None = None) -> VaultRef | None:
    """The vault you stand in when it is registered in the user config (named as there)
    or is the folder `$LORE_VAULT` names; None otherwise. An unregistered look-alike gets
    one line on stderr and is not used."""
    standing = vault_here(here)
    if standing is None:
        return None
    env = os.environ.get("LORE_VAULT")
    if env and _same_folder(Path(env).expanduser(), standing.root):
        return VaultRef(standing.name, standing.root, ENV)  # the vault the user named
    from lore.config import configured_vaults

    try:
        entries = configured_vaults()
    except LoreError:  # a broken config: the caller's own read of it says what is wrong
        entries = []
    for entry in entries:
        if _same_folder(Path(entry.path).expanduser(), standing.root):
            return VaultRef(entry.name, standing.root, HERE)
    _passed_over(standing.root)
    return None


def _same_folder(one: Path, other: Path) -> bool:
    try:
        return one.resolve() == other.resolve()
    except OSError:
        return False


_TOLD: set[Path] = set()  # the look-alikes this process has already named


def _passed_over(folder: Path) -> None:
    """Say once that `folder` looks like a vault but is not served, and how to connect it."""
    if folder in _TOLD:
        return
    _TOLD.add(folder)
    from lore.sanitize import sanitize_text

    shown = sanitize_text(str(folder))
    sys.stderr.write(
        f"lore: {shown} looks like a vault but is not registered, so lore does not use it; "
        f"to use it, connect it with `lore connect {shown}` (`lore vaults` lists the "
        "registered ones).\n"
    )


def search_vaults(flag: str | None = None) -> list[VaultRef]:
    """Every vault recall searches, in order: the named one, the registered one you stand
    in, `$LORE_VAULT`, or all that are registered."""
    if flag:
        return [_from_flag(flag)]
    standing = registered_here()
    if standing is not None:
        return [standing]
    if os.environ.get("LORE_VAULT"):
        return [_env_or_default()]
    from lore.config import configured_vaults

    entries = configured_vaults()
    if not entries:
        return [_env_or_default()]  # raises the usual "no vault is configured"
    return [VaultRef(entry.name, Path(entry.path).expanduser()) for entry in entries]


def chosen_vaults(flag: str | None, names: Sequence[str] = ()) -> list[VaultRef]:
    """The vaults a command acts on: `--vault`, the named ones, the registered one you
    stand in, `$LORE_VAULT`, or all."""
    if flag:
        return [_from_flag(flag)]
    if not names:
        standing = registered_here()
        if standing is not None:
            return [standing]
        if os.environ.get("LORE_VAULT"):
            return [_env_or_default()]
    from lore.config import load_config

    config = load_config()
    if names:
        for name in names:
            if name not in config.vaults:
                raise _unknown_name(name, sorted(config.vaults), folder_too=False)
        return [VaultRef(name, Path(config.vaults[name].path).expanduser()) for name in names]
    if not config.vaults:
        raise VaultError(
            "No vault is registered.",
            fix="Connect your team's vault with `lore connect OWNER/REPO`, or create one "
            "with `lore init`.",
        )
    return [VaultRef(entry.name, Path(entry.path).expanduser()) for entry in config.ordered()]


def hook_vaults() -> list[VaultRef]:
    """The vaults a hook reads, in recall's order; only folders that exist, never an error."""
    env = os.environ.get("LORE_VAULT")
    if env:
        root = Path(env).expanduser()
        return [VaultRef(root.name, root, ENV)] if root.is_dir() else []
    from lore.config import configured_vaults

    try:
        entries = configured_vaults()
    except LoreError:
        return []
    refs = [VaultRef(entry.name, Path(entry.path).expanduser()) for entry in entries]
    return [ref for ref in refs if ref.root.is_dir()]


def _from_flag(flag: str) -> VaultRef:
    """`--vault`: a folder, or the name of a registered vault."""
    path = Path(flag).expanduser()
    if path.exists() or "/" in flag or os.sep in flag:
        return _checked(path, "--vault", FLAG)
    from lore.config import load_config

    config = load_config()
    entry = config.vaults.get(flag)
    if entry is None:
        raise _unknown_name(flag, sorted(config.vaults), folder_too=True)
    return _checked(Path(entry.path), f"the vault '{flag}' in {config.path}", CONFIG, flag)


def _unknown_name(name: str, registered: list[str], *, folder_too: bool) -> UsageError:
    known = f"Registered: {', '.join(registered)}." if registered else "None is registered yet."
    if folder_too:
        return UsageError(
            f"There is no folder '{name}' and no vault registered as '{name}'. {known}",
            fix="Pass a registered vault's name or a vault folder with --vault.",
        )
    return UsageError(
        f"No vault is registered as '{name}'. {known}", fix="`lore vaults` lists them."
    )


def _looks_like_vault(folder: Path) -> bool:
    return (folder / NOTES_DIR).is_dir() or (folder / "_taxonomy.md").is_file()


def _checked(path: Path, source: str, how: str, name: str | None = None) -> VaultRef:
    root = path.expanduser()
    if root.exists() and not root.is_dir():
        raise VaultError(
            f"{root} (from {source}) is a file, not a vault folder.",
            fix="Point at the vault's top folder (the one with notes/ and _taxonomy.md).",
        )
    if not root.is_dir():
        raise VaultError(
            f"The vault folder {root} (from {source}) does not exist.",
            fix="Check the path, or create a vault with `lore init`.",
        )
    if not _looks_like_vault(root):
        raise VaultError(
            f"{root} (from {source}) is not a lore vault: it has no notes/ folder "
            "and no _taxonomy.md.",
            fix="Point at the vault's top folder.",
        )
    resolved = root.resolve()
    return VaultRef(name or resolved.name, resolved, how)
