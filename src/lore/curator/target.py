"""What one curator run checks, as one value: a range, paths, drafts, or the whole vault.

Each adapter builds its target from what it was given — `lore curate` from --base/--head,
PATHs and --all; `lore review` and a proposal's check of its pushed branch a `Range`;
`lore remember`, the drafts inbox and the importers `Drafts` — and the curator reads
the target's kind, never which flags were given (`lore.curator.run.curate`).

- `Range(base, head)`: the files a pull request changes, against the vault at its base;
  every commit of the range is scanned for secrets. `policy_approved_by`: the GitHub
  login of the maintainer whose approval of the pull request's policy changes the caller
  has verified (the trusted workflow); the `policy/` errors become warnings naming them.
- `Paths(paths)`: these files (a folder: its `.md` files), against the working tree.
- `Drafts(files, at)`: notes not yet written anywhere, keyed by their vault path, against
  the working tree or (`at`) the tree of that commit.
- `WholeVault()`: every note of the working tree, each against all the others.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from lore.errors import UsageError
from lore.sanitize import sanitize_text

# A GitHub login: 1-39 letters, digits and single inner hyphens (no bots: a bot approves
# nothing). The approval itself is verified by the trusted workflow that passes it.
_LOGIN = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}")


def approver_login(value: str) -> str:
    """The GitHub login `--policy-approved-by` names, checked; raises `UsageError`."""
    login = value.strip().removeprefix("@")
    if not _LOGIN.fullmatch(login):
        raise UsageError(
            f"--policy-approved-by {sanitize_text(value)[:60]!r} is not a GitHub login.",
            fix="Pass the login of the maintainer who approved the change, e.g. octocat.",
        )
    return login


@dataclass(frozen=True)
class Range:
    """A pull request: the changes from `base` to `head` (refs or commits)."""

    base: str
    head: str = "HEAD"
    policy_approved_by: str | None = None  # a GitHub login, checked (`approver_login`)

    def __post_init__(self) -> None:
        if self.policy_approved_by is not None:
            object.__setattr__(self, "policy_approved_by", approver_login(self.policy_approved_by))


@dataclass(frozen=True)
class Paths:
    """Files and folders of the working tree, as given on the command line."""

    paths: tuple[str, ...]

    def __init__(self, paths: Iterable[str]) -> None:
        object.__setattr__(self, "paths", tuple(paths))


@dataclass(frozen=True)
class Drafts:
    """Notes in memory (vault path -> bytes), against the working tree or commit `at`."""

    files: Mapping[str, bytes] = field(default_factory=dict)
    at: str | None = None


@dataclass(frozen=True)
class WholeVault:
    """Every note of the working tree: a full audit."""


Target = Range | Paths | Drafts | WholeVault
