"""Which vault, or vaults, a command, a hook or an MCP tool uses: decided here, once.

The first that applies (DESIGN §3, docs/cli.md "Which vault"): `--vault` (a folder, or
the name of a vault registered in the user config); the vault you stand in (the
current folder or the nearest folder above it that has `_taxonomy.md` and `notes/`,
looking no further than the git repository you are in); `$LORE_VAULT`; the user
config. Standing in a vault is the most local thing a user says — like git, which
works on the repository you are in — so it comes before `$LORE_VAULT`, which a shell
may have exported long ago for another vault. Then:

- `one_vault`: commands that act on one vault (show, remember, curate, index, ...)
  take the config's default vault;
- `search_vaults`: recall and the MCP server search every registered vault, the
  default first;
- `chosen_vaults`: sync, stats and proposals act on the vaults named on the command
  line, or on all;
- `hook_vaults`: the hooks read the same list as recall, but never fail: a vault that
  cannot be used is left out.

Every answer is a `VaultRef`. The vault list comes from `lore.config.configured_vaults`,
a JSON copy of the config, so recall and the hooks parse no TOML.
"""

from __future__ import annotations

import os
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


def one_vault(flag: str | None = None, *, here: Path | None = None) -> VaultRef:
    """The vault a single-vault command uses, or `VaultError` saying how to name one.

    `here`: where the user stands (default: the current folder).
    """
    if flag:
        return _from_flag(flag)
    standing = vault_here(here)
    if standing is not None:
        return standing
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
        fix="Pass --vault PATH, set LORE_VAULT, or try `lore demo` to create a demo vault.",
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


def search_vaults(flag: str | None = None) -> list[VaultRef]:
    """Every vault recall searches, in order: the named one, the one you stand in, or
    all that are registered."""
    if flag or os.environ.get("LORE_VAULT") or vault_here() is not None:
        return [one_vault(flag)]
    from lore.config import configured_vaults

    entries = configured_vaults()
    if not entries:
        return [one_vault(None)]  # raises the usual "no vault is configured"
    return [VaultRef(entry.name, Path(entry.path).expanduser()) for entry in entries]


def chosen_vaults(flag: str | None, names: Sequence[str] = ()) -> list[VaultRef]:
    """The vaults a command acts on: `--vault`, the named ones, the one you stand in,
    `$LORE_VAULT`, or all."""
    if flag or (not names and (os.environ.get("LORE_VAULT") or vault_here() is not None)):
        return [one_vault(flag)]
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
