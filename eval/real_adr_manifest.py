"""The real-decision eval's data: the manifest's batches and repositories, and the labels.

`eval/curator/real/manifest.toml` is the one place that says which batch (`split`) a
repository is in, which batches there are (`[batches] order`), which of them nobody has
run yet (`unread`: they run once, at first sight) and which were labelled from the
authors' status lines alone (`recorded_only`). The script holds no list of names: a
repository whose batch the manifest does not list is refused.

`eval/curator/real/pairs.toml` holds the labels (ADR file names, never their text).

The order the eval proposes a repository's ADRs in is `proposal_order`: by the number in
the file name (a leading date is not a number), else by the ADR's date, then by name;
each ADR is proposed against the ADRs before it.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

HERE = Path(__file__).resolve().parent
REAL = HERE / "curator" / "real"
MANIFEST = REAL / "manifest.toml"
PAIRS = REAL / "pairs.toml"
LABEL_KINDS = ("supersession", "related", "hard_negative", "dismissed")
# A file name's number: digits at its start, after a date or a short prefix of letters
# ("0012-…", "adr-017-…", "ADR021-…", "scs-0002-v1-…", "2023-04-26-023-…").
_DATE = re.compile(r"^(?:\d{4}-\d{2}-\d{2}|\d{8})[-_]")
_NUMBER = re.compile(r"^(?:[a-z]{1,5}[-_ ]?)?0*(\d+)", re.I)


@dataclass(frozen=True)
class Batches:
    """`[batches]` of the manifest."""

    order: tuple[str, ...]
    unread: frozenset[str]
    recorded_only: frozenset[str]

    @property
    def read(self) -> tuple[str, ...]:
        return tuple(name for name in self.order if name not in self.unread)


class ManifestError(Exception):
    """The manifest contradicts itself; the message says where, in one sentence."""


def _document(path: Path | None = None) -> dict[str, Any]:
    return tomllib.loads((path or MANIFEST).read_text(encoding="utf-8"))


def load_batches(path: Path | None = None) -> Batches:
    table = _document(path).get("batches", {})
    order = tuple(table.get("order", ()))
    unread = frozenset(table.get("unread", ()))
    recorded = frozenset(table.get("recorded_only", ()))
    unknown = sorted((unread | recorded) - set(order))
    if not order or unknown:
        raise ManifestError(
            f"manifest [batches]: {unknown or 'order'} must be listed in `order` (the batches, "
            "in the order they were added)"
        )
    return Batches(order, unread, recorded)


def load_manifest(path: Path | None = None) -> list[dict[str, Any]]:
    """The repositories, each in a batch the manifest lists; raises `ManifestError`."""
    document = _document(path)
    batches = load_batches(path)
    repositories = list(document.get("repository", []))
    seen: set[str] = set()
    for repository in repositories:
        name = repository.get("name", "")
        if repository.get("split") not in batches.order:
            raise ManifestError(
                f"manifest: {name} is in batch {repository.get('split')!r}, which [batches] "
                f"order does not list ({', '.join(batches.order)})"
            )
        if name in seen:
            raise ManifestError(f"manifest: {name} is listed twice")
        seen.add(name)
    return repositories


def load_labels(path: Path | None = None) -> dict[str, list[dict[str, Any]]]:
    data = tomllib.loads((path or PAIRS).read_text(encoding="utf-8"))
    return {kind: list(data.get(kind, [])) for kind in LABEL_KINDS}


def snapshot_dir(mirrors: Path, name: str) -> Path:
    """Where a repository's snapshot lives: DIR/<owner>+<name>/repo (a bare git directory,
    or a clone whose `.git` is used)."""
    folder = mirrors / name.replace("/", "+") / "repo"
    return folder / ".git" if (folder / ".git").is_dir() else folder


def adr_number(file: str) -> int | None:
    """The number an ADR's file name starts with (a leading date is not its number)."""
    found = _NUMBER.match(_DATE.sub("", file, count=1))
    return int(found[1]) if found else None


def proposal_order(file: str, date: str) -> tuple[int, int, str, str]:
    """The key the eval sorts a repository's ADRs by: numbered ADRs by number, the others
    (after them) by date; then by name."""
    number = adr_number(file)
    return (number is None, number or 0, date, file)
