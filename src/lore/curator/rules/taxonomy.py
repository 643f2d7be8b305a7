"""`taxonomy/`: a note's type, tags and repos come from `_taxonomy.md` (DESIGN.md 2.2).

Unknown names get a "did you mean" from the taxonomy's names and aliases. When the
change edits `_taxonomy.md` itself (or in a full audit), the file's own problems
are reported too.
"""

from __future__ import annotations

from lore.curator.context.model import CuratorContext, NoteView
from lore.curator.finding import ERROR, Finding
from lore.curator.rules.text import did_you_mean, quote
from lore.taxonomy import Taxonomy

NAME = "taxonomy"
RULES = {
    "taxonomy/missing": "the vault has no readable `_taxonomy.md`, so nothing can be checked",
    "taxonomy/unknown-type": "`type` is not listed under `## Types`",
    "taxonomy/unknown-tag": "a tag is not listed in `_taxonomy.md`",
    "taxonomy/wrong-dimension": "a tag names a dimension its name is not listed under "
    "(also: an entry of `_taxonomy.md` under the wrong heading)",
    "taxonomy/unknown-repo": "`repo` names a repository not listed under `## Repos`",
    "taxonomy/bad-section": "`_taxonomy.md`: a heading that is not a valid dimension name",
    "taxonomy/bad-entry": "`_taxonomy.md`: an entry whose name is not valid",
    "taxonomy/duplicate-entry": "`_taxonomy.md`: a name defined twice",
}


def check(context: CuratorContext) -> list[Finding]:
    findings: list[Finding] = []
    taxonomy = context.taxonomy
    if taxonomy is not None and context.taxonomy_changed:
        findings += [
            Finding(p.code, p.severity, context.taxonomy_path, p.line, p.message, p.fix)
            for p in taxonomy.problems
        ]
    notes = [checked for checked in context.notes if checked.view is not None]
    if not notes:
        return findings
    if taxonomy is None:
        findings.append(
            Finding(
                "taxonomy/missing",
                ERROR,
                context.taxonomy_path,
                None,
                "the vault has no readable _taxonomy.md, so types, tags and repos cannot be "
                "checked",
                "Add _taxonomy.md (lore init writes a starting one).",
            )
        )
        return findings
    aliases = taxonomy.alias_map()
    for checked in notes:
        assert checked.view is not None
        findings += _check_note(checked.view, checked.display, taxonomy, aliases)
    return findings


def _suggest(name: str, names: list[str], aliases: dict[str, list[str]]) -> str | None:
    leaf = name.rsplit("/", 1)[-1]
    for key in (name, leaf):
        for candidate in aliases.get(key, []):
            if candidate in names:
                return candidate
    return did_you_mean(name, names)


def _check_note(
    view: NoteView, path: str, taxonomy: Taxonomy, aliases: dict[str, list[str]]
) -> list[Finding]:
    findings: list[Finding] = []

    def add(rule: str, key: str, message: str, fix: str) -> None:
        findings.append(Finding(rule, ERROR, path, view.line_of_key(key), message, fix))

    if view.type and view.type not in taxonomy.types:
        types = sorted(taxonomy.types)
        guess = _suggest(view.type.lower(), types, aliases)
        fix = f"Did you mean '{guess}'? " if guess else ""
        add(
            "taxonomy/unknown-type",
            "type",
            f"type '{quote(view.type, 40)}' is not in _taxonomy.md",
            fix + f"Types: {', '.join(types)}.",
        )
    tag_names = sorted(taxonomy.tags)
    for tag in view.tags:
        if tag in taxonomy.tags:
            continue
        dimension, _, leaf = tag.partition("/")
        same_leaf = [name for name in tag_names if name.split("/", 1)[1] == (leaf or dimension)]
        if same_leaf:
            where = "has no dimension" if not leaf else f"is not under '## {dimension}'"
            add(
                "taxonomy/wrong-dimension",
                "tags",
                f"the tag '{quote(tag, 60)}' {where}",
                f"Did you mean '{same_leaf[0]}'?",
            )
            continue
        guess = _suggest(tag, tag_names, aliases)
        if leaf and dimension not in taxonomy.dimensions:
            message = f"the tag '{quote(tag, 60)}' uses the dimension '{quote(dimension, 30)}', "
            message += "which _taxonomy.md does not have"
        else:
            message = f"the tag '{quote(tag, 60)}' is not in _taxonomy.md"
        fix = f"Did you mean '{guess}'? Or add" if guess else "Add"
        add(
            "taxonomy/unknown-tag",
            "tags",
            message,
            f"{fix} it to _taxonomy.md in this pull request, with a definition.",
        )
    repos = {name.lower(): name for name in taxonomy.repos}
    for repo in view.repo:
        if repo.lower() in repos:
            continue
        guess = _suggest(repo.lower(), sorted(repos), aliases)
        fix = f"Did you mean '{repos.get(guess, guess)}'? Or add" if guess else "Add"
        add(
            "taxonomy/unknown-repo",
            "repo",
            f"the repository '{quote(repo, 60)}' is not listed under '## Repos' in _taxonomy.md",
            f"{fix} it under '## Repos', or leave repo out for org-wide knowledge.",
        )
    return findings
