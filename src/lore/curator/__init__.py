"""The curator: deterministic review of notes before they enter the vault.

Its folders are the steps a change goes through:

- `context/` reads the change and the vault it would join: the files under review
  (`sources`), the vault through the index (`vault_index`), the policy from the base
  (`settings`), and the candidate notes each note is judged against (`candidates`,
  `corpus`, `index_corpus`).
- `rules/` holds one module per rule family, in the static `registry`; a family looks
  at a `CuratorContext` and returns `Finding`s, never raises. The text helpers the
  families share live beside them; the `secret/` family is built on the secret scan,
  which sits on the ground floor (`lore.sanitize.secret_scan`) because every view masks
  with it.
- `judgement/` decides what two notes are to each other (the same lesson, a
  replacement, a contradiction): pure functions of two notes' readings, no I/O. Each
  note is read by `lore.text` (its clauses, its cue sentences) and profiled once
  (`judgement.notes`); the judgement reads no prose itself (an architecture test).
- `review/` is the optional model review: what is asked (`pairs`), of which provider.
- `report/` turns findings into JSON, GitHub workflow commands and markdown.

`curate` (in `run`) is the entry point, used by `lore curate` and `lore remember`; a
full audit runs through `audit`. `similar` is the lookup beside them: the notes most
like each one under review, judged as the rules judge them (`lore review`, the pull
request comment). Nothing here imports rich.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from lore.curator.finding import Finding
    from lore.curator.report.formats import to_github, to_json, to_markdown
    from lore.curator.run import CurateResult, curate

__all__ = ["CurateResult", "Finding", "curate", "to_github", "to_json", "to_markdown"]

_HOMES = {
    "CurateResult": "lore.curator.run",
    "curate": "lore.curator.run",
    "Finding": "lore.curator.finding",
    "to_github": "lore.curator.report.formats",
    "to_json": "lore.curator.report.formats",
    "to_markdown": "lore.curator.report.formats",
}


def __getattr__(name: str) -> object:
    """The public API, imported when first used: `lore.curator.curate`, `Finding`, formats.

    Lazily, so that a module that needs one piece (the secret scan, on the hook path)
    does not load the whole curator.
    """
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'lore.curator' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(home), name)
