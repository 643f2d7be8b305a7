"""Parse `_taxonomy.md`, the vault's controlled vocabulary (DESIGN.md 2.2).

A level-2 heading names a section. `Types` and `Repos` are special; every other
section is a tag dimension whose entries are `dimension/name`. An entry is a list
item whose first token is a back-quoted name, then ` — ` and a one-line
definition, optionally ending with `Aliases: a, b, c`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from lore.errors import Problem
from lore.text.headings import heading

TAXONOMY_FILE = "_taxonomy.md"
_ENTRY = re.compile(r"^\s*[-*+]\s+`([^`]+)`\s*(?:(?:—|–|--|-|:)\s*(.*))?$")
_ALIASES = re.compile(r"\s*Aliases?:\s*(.+?)\s*\.?\s*$", re.IGNORECASE)
_NAME = re.compile(r"^[a-z0-9][a-z0-9._-]*$")


@dataclass(frozen=True)
class Entry:
    name: str  # `decision`, `payments-api`, or `tool/postgres`
    section: str  # `Types`, `Repos`, or the dimension
    definition: str
    aliases: tuple[str, ...]
    line: int


@dataclass
class Taxonomy:
    types: dict[str, Entry] = field(default_factory=dict)
    repos: dict[str, Entry] = field(default_factory=dict)
    tags: dict[str, Entry] = field(default_factory=dict)
    dimensions: dict[str, int] = field(default_factory=dict)  # name -> heading line
    problems: list[Problem] = field(default_factory=list)

    def alias_map(self) -> dict[str, list[str]]:
        """Lower-case alias (one or more words) -> the tags, types or repos it stands for."""
        mapping: dict[str, list[str]] = {}
        for entry in (*self.tags.values(), *self.types.values(), *self.repos.values()):
            for alias in entry.aliases:
                names = mapping.setdefault(alias.lower(), [])
                if entry.name not in names:
                    names.append(entry.name)
        return mapping

    def entries(self) -> list[Entry]:
        return [*self.types.values(), *self.repos.values(), *self.tags.values()]


def parse_taxonomy(text: str, path: str = TAXONOMY_FILE) -> Taxonomy:
    """Parse the taxonomy text; malformed lines become problems, never exceptions."""
    taxonomy = Taxonomy()
    section: str | None = None
    in_fence = False
    for number, line in enumerate(text.replace("\r\n", "\n").split("\n"), start=1):
        if line.lstrip().startswith("```"):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        found = heading(line)
        if found and found[0] == 2 and found[1]:
            section = found[1]
            if section.lower() == "types":
                section = "Types"
            elif section.lower() == "repos":
                section = "Repos"
            else:
                section = section.lower()
                if not _NAME.match(section):
                    taxonomy.problems.append(
                        Problem(
                            "taxonomy/bad-section",
                            f"the section '{section}' is not a valid dimension name",
                            path=path,
                            line=number,
                            fix="Use lower-case letters, digits and hyphens.",
                        )
                    )
                    section = None
                    continue
                taxonomy.dimensions[section] = number
            continue
        entry_match = _ENTRY.match(line)
        if not entry_match or section is None:
            continue
        name, rest = entry_match[1].strip(), (entry_match[2] or "").strip()
        aliases: tuple[str, ...] = ()
        alias_match = _ALIASES.search(rest)
        if alias_match:
            aliases = tuple(a.strip().lower() for a in alias_match[1].split(",") if a.strip())
            rest = rest[: alias_match.start()].rstrip()
        entry = Entry(name, section, rest, aliases, number)
        _add(taxonomy, entry, path)
    return taxonomy


def _add(taxonomy: Taxonomy, entry: Entry, path: str) -> None:
    def problem(code: str, message: str, fix: str) -> None:
        taxonomy.problems.append(Problem(code, message, path=path, line=entry.line, fix=fix))

    if entry.section == "Types":
        target = taxonomy.types
        if not _NAME.match(entry.name):
            problem(
                "taxonomy/bad-entry",
                f"'{entry.name}' is not a valid type name",
                "Use lower-case letters, digits and hyphens.",
            )
            return
    elif entry.section == "Repos":
        target = taxonomy.repos
        if not _NAME.match(entry.name.lower()):
            problem(
                "taxonomy/bad-entry",
                f"'{entry.name}' is not a valid repository name",
                "Use the repository's name as GitHub shows it.",
            )
            return
    else:
        target = taxonomy.tags
        dimension, _, leaf = entry.name.partition("/")
        if dimension != entry.section or not leaf or not _NAME.match(leaf):
            problem(
                "taxonomy/wrong-dimension",
                f"the tag '{entry.name}' is listed under '## {entry.section}'",
                f"Name it '{entry.section}/<name>' or move it under '## {dimension}'.",
            )
            return
    if entry.name in target:
        problem(
            "taxonomy/duplicate-entry",
            f"'{entry.name}' is defined twice",
            f"Keep one definition (the first is on line {target[entry.name].line}).",
        )
        return
    target[entry.name] = entry


def is_entry_name(name: str) -> bool:
    """Whether `name` can be listed as it is: a repository (`payments-api`) or a tag of a
    valid dimension (`tool/alembic`)."""
    dimension, slash, leaf = name.partition("/")
    if slash:
        return bool(_NAME.match(dimension) and _NAME.match(leaf))
    return bool(_NAME.match(name.lower()))


def with_repos(text: str, repos: list[str], *, by: str) -> str:
    """`_taxonomy.md` with a line for each repository, after the last one under `## Repos`
    (`by`: the command that adds them, said in each line's definition)."""
    lines = [f"- `{repo}` — The {repo} repository (added by `{by}`)." for repo in repos]
    return _with_entries(text, "Repos", lines)


def with_tags(text: str, tags: list[str], *, by: str) -> str:
    """`_taxonomy.md` with a line for each `dimension/name` tag under `## dimension` (a
    new section at the end for a dimension it does not have yet)."""
    for dimension in dict.fromkeys(tag.partition("/")[0] for tag in tags):
        lines = [
            f"- `{tag}` — {tag.partition('/')[2]} (added by `{by}`; say what it covers)."
            for tag in tags
            if tag.partition("/")[0] == dimension
        ]
        text = _with_entries(text, dimension, lines)
    return text


def with_lines(text: str, section: str, lines: list[str]) -> str:
    """`_taxonomy.md` with entry lines written whole (`- `name` — definition`) after the last
    entry of `## section`, or in a new section at the end."""
    return _with_entries(text, section, lines)


def _with_entries(text: str, section: str, new: list[str]) -> str:
    """`text` with `new` after the last entry of `## section`, or in a new section."""
    lines = text.split("\n")
    start = next(
        (i for i, line in enumerate(lines) if line.strip().lower() == f"## {section.lower()}"),
        None,
    )
    if start is None:
        tail = [] if not lines or lines[-1] == "" else [""]
        return "\n".join([*lines, *tail, f"## {section}", *new, ""])
    end = start + 1
    while end < len(lines) and not lines[end].startswith("## "):
        end += 1
    last = max(
        (i for i in range(start + 1, end) if lines[i].lstrip().startswith("- `")), default=start
    )
    return "\n".join([*lines[: last + 1], *new, *lines[last + 1 :]])


def read_taxonomy_text(vault_root: str) -> str | None:
    """The working-tree taxonomy file, if there is one (the index reads it from git)."""
    from pathlib import Path

    path = Path(vault_root) / TAXONOMY_FILE
    try:
        return path.read_text(encoding="utf-8-sig")
    except (FileNotFoundError, UnicodeDecodeError):
        return None
