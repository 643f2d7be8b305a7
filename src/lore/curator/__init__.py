"""The curator: deterministic review of notes before they enter the vault.

`lore.curator.run.curate` is the entry point (used by `lore curate` and by
`lore remember`). Each rule family is one module under `rules/`, listed in the
static `registry`; a family looks at a `CuratorContext` and returns `Finding`s,
never raises. `formats` turns findings into JSON, GitHub workflow commands and a
markdown PR comment. Nothing here imports rich.
"""
