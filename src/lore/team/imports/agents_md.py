"""`lore import agents-md`: the instruction files a repository grew for its agents, as notes.

Read, in each repository given (default: the current one): every `CLAUDE.md`,
`AGENTS.md` and `GEMINI.md` (nested ones too), `.github/copilot-instructions.md`,
`.cursor/rules/**/*.mdc` and `.cursorrules` that git tracks (or, outside git, that the
folder holds), except inside an agent skill's folder (a skill's own instructions).

A file that only points elsewhere (`@AGENTS.md`, "See AGENTS.md", or a symbolic link) is
followed when its target is in the repository — each file is read once — and skipped
with the reason otherwise. Every path is looked at and read through
`lore.team.imports.walk`, which follows no link itself and opens with `O_NOFOLLOW`.
`@path` lines inside a longer file are followed too.

Each file is split into pieces by section and list item: a paragraph or a list item
(with its sub-items) is one piece; a numbered list, or a list whose every item starts
with a command or a path in backticks, stays together as one piece named after its
section (a runbook, a set of commands, a layout). A short code block after a piece
becomes its `## How`; tables and long code blocks are left out. `agent_rules` drops
what is only about the agent. What is kept is the source's wording: the title is its
first sentence, the type `gotcha` for warnings, `runbook` for numbered operational
steps, `howto` for command lists, `reference` for layouts and `convention` otherwise.
Hidden text never gets this far (`markdown.visible_text`), and the curator's secret
scan leaves out any piece with a secret.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from lore.sanitize.secret_scan import redact, scan_secrets
from lore.team.imports import agent_rules
from lore.team.imports.code_repo import CodeRepo, repo_of
from lore.team.imports.markdown import (
    Block,
    blocks,
    cut_sentences,
    cut_title,
    inline_plain,
    sentences,
    split_frontmatter,
    visible_text,
)
from lore.team.imports.model import Draft, ReadOptions, Skip
from lore.team.imports.vault_view import summary_key
from lore.team.imports.walk import Entry, Link, Unreadable, look, read_text, walk

FILE_NAMES = frozenset({"CLAUDE.md", "AGENTS.md", "GEMINI.md", ".cursorrules"})
SKIPPED_DIRS = frozenset({"node_modules", "vendor", ".git", "__pycache__", ".venv", "venv"})
MAX_HOW_LINES = 15
MAX_POINTER_WORDS = 30
_AT_IMPORT = re.compile(r"^\s*@(?P<path>[\w./-]+\.(?:md|mdc|txt))\s*$")
_SEE_FILE = re.compile(
    r"\b(?P<path>[\w./-]*(?:agents|claude|gemini|copilot-instructions)\.md)\b", re.IGNORECASE
)
_GOTCHA = re.compile(
    r"\b(?:gotcha|pitfall|careful|beware|caveat|watch out|note that|be aware|known issue|"
    r"workaround|surprising|otherwise|will (?:fail|break)|breaks|doesn'?t work|does not work|"
    r"flaky|important)\b"
)
_GOTCHA_SECTION = re.compile(
    r"\b(?:gotchas?|pitfalls?|caveats?|troubleshoot\w*|common (?:mistakes|issues|errors)|"
    r"known issues|warnings?)\b"
)
_RUNBOOK_SECTION = re.compile(
    r"\b(?:release|releasing|deploy\w*|rollback|incident|on-?call|migrat\w*|upgrad\w*|publish\w*|"
    r"hotfix|recover\w*|restore|runbook|operations?)\b"
)
_CODE_START = re.compile(r"^`[^`]+`")
_CLAUSE = re.compile(r"(?<=;)\s+")  # "Prefer X; if Y, ask the user": each clause is judged
_LABEL = re.compile(r"^[^`:]{1,40}:\s*(?=`)")


@dataclass
class AgentFile:
    path: Path  # resolved
    source: str  # as shown: relative to the repository (after its name, for several)
    repo: CodeRepo | None
    relative: str  # relative to the repository, for git
    mtime: float  # when the file last changed, for a file git does not have


@dataclass
class Piece:
    text: str  # the source's words (inline markdown kept)
    line: int
    section: list[str]
    kind: str = "convention"
    items: list[str] = field(default_factory=list)  # a grouped list's items
    how: str = ""
    left_out: str = ""  # what of the piece was dropped


def is_agent_file(relative: str) -> bool:
    parts = relative.split("/")
    name = parts[-1]
    if name in FILE_NAMES:  # as the agents spell them: a docs page `gemini.md` is not one
        return True
    if relative.lower().endswith(".github/copilot-instructions.md"):
        return True
    return name.lower().endswith(".mdc") and ".cursor/rules" in relative.replace("\\", "/")


def in_skill(relative: str) -> bool:
    return "skills" in relative.lower().split("/")[:-1]


def read_agent_files(paths: list[Path], options: ReadOptions) -> tuple[list[Draft], list[Skip]]:
    """Drafts for the agent-instruction files of the repositories (or files) in `paths`."""
    repos: dict[Path, CodeRepo] = {}
    skipped: list[Skip] = []
    queue: list[Entry] = []
    boundaries: dict[Path, Path] = {}  # a file's real folder -> where its links may lead
    for given in paths or [Path.cwd()]:
        start = given.resolve()
        repo = repo_of(start, options.repo, repos)
        boundary = repo.root if repo is not None else (start if start.is_dir() else start.parent)
        if start.is_file():
            found = look(boundary, start.relative_to(boundary).as_posix(), boundary=boundary)
            listed: list[Entry | Link | tuple[str, str]] = [
                found if not isinstance(found, str) else (start.name, found)
            ]
        else:
            root = repo.root if repo is not None and start == repo.root else start
            listed = _discover(root, boundary, repo)
        for item in listed:
            if isinstance(item, tuple):
                skipped.append(Skip(*item))
                continue
            entry = item.entry if isinstance(item, Link) else item
            if in_skill(entry.relative):
                skipped.append(
                    Skip(
                        entry.shown, "inside an agent skill's folder: the skill's own instructions"
                    )
                )
            else:
                queue.append(entry)
                boundaries[entry.root] = boundary
        if repo is not None:
            repo.load([repo.root])
    drafts: list[Draft] = []
    read: dict[Path, str] = {}  # real file -> its source name
    several = len(repos) > 1  # sources then start with the repository's name
    while queue:
        entry = queue.pop(0)
        path = entry.path
        repo = repo_of(path, options.repo, repos)
        source = _display(path, repo, several)
        boundary = repo.root if repo is not None else boundaries.get(entry.root, entry.root)
        if path in read:
            continue
        found = look(boundary, path.relative_to(boundary).as_posix(), boundary=boundary)
        if isinstance(found, Link):
            if found.target is None:
                skipped.append(Skip(source, found.reason))
            elif found.target.path in read:
                skipped.append(
                    Skip(source, f"a link to {read[found.target.path]}, which is read once")
                )
            else:
                shown = _display(found.target.path, repo, several)
                skipped.append(Skip(source, f"a link to {shown}: read there"))
                queue.insert(0, found.target)
            continue
        if isinstance(found, str):
            skipped.append(Skip(source, found))
            continue
        read[path] = source
        try:
            raw, mtime = read_text(found)
        except Unreadable as exc:
            skipped.append(Skip(source, str(exc)))
            continue
        file = AgentFile(path, source, repo, _display(path, repo), mtime)
        text = visible_text(raw)
        if path.suffix == ".mdc":  # its frontmatter is Cursor's: blank it, keeping line numbers
            _, body, _ = split_frontmatter(text)
            text = "\n" * (text.count("\n") - body.count("\n")) + body
        pointers, text = _pointers(text)
        if pointers is not None and _is_pointer_file(text, pointers):
            targets = [_target(path, p, boundary) for p in pointers]
            found_targets = [t for t in targets if t is not None]
            if found_targets:
                shown = ", ".join(_display(t.path, repo, several) for t in found_targets)
                skipped.append(Skip(source, f"only points to {shown}: read there"))
                queue[:0] = [t for t in found_targets if t.path not in read]
            else:
                skipped.append(
                    Skip(
                        source,
                        "only points to "
                        + ", ".join(pointers)
                        + ", which is not in this repository",
                    )
                )
            continue
        for pointer in pointers or []:
            target = _target(path, pointer, boundary)
            if target is not None and target.path not in read:
                queue.append(target)
        new, left = _drafts(file, text, options)
        drafts += new
        skipped += left
    return drafts, skipped


def _discover(
    root: Path, boundary: Path, repo: CodeRepo | None
) -> list[Entry | Link | tuple[str, str]]:
    """The agent files under `root`: from `git ls-files` in a repository, else by the walk."""
    if repo is not None:
        from lore.errors import GitError
        from lore.vault import git

        try:
            listed = git.run_git(
                ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], root
            ).stdout.decode("utf-8", "surrogateescape")
        except GitError:
            pass
        else:
            found: list[Entry | Link | tuple[str, str]] = []
            for name in sorted(set(listed.split("\x00"))):
                if name and is_agent_file(name):
                    item = look(root, name, boundary=boundary)
                    found.append(item if not isinstance(item, str) else (name, item))
            return found
    walked = walk(root, boundary=boundary, skip_folder=SKIPPED_DIRS, hidden=True)
    kept: list[Entry | Link | tuple[str, str]] = [
        e for e in walked.files if is_agent_file(e.relative)
    ]
    kept += [link for link in walked.links if is_agent_file(link.entry.relative)]
    return kept


def _display(path: Path, repo: CodeRepo | None, several: bool = False) -> str:
    if repo is not None:
        try:
            relative = path.absolute().relative_to(repo.root).as_posix()
        except ValueError:
            return str(path)
        return f"{repo.name}/{relative}" if several else relative
    return str(path)


def _pointers(text: str) -> tuple[list[str] | None, str]:
    """The `@path` imports (and "see X.md" names) of a file, and its text without the imports."""
    imports = [m["path"] for m in map(_AT_IMPORT.match, text.split("\n")) if m]
    kept = "\n".join(line for line in text.split("\n") if not _AT_IMPORT.match(line))
    named = [m["path"] for m in _SEE_FILE.finditer(kept)]
    found = list(dict.fromkeys(imports + named))
    return (found or None), kept


def _is_pointer_file(text: str, pointers: list[str]) -> bool:
    words = re.findall(r"[\w'-]+", re.sub(r"^#.*$", "", text, flags=re.MULTILINE))
    return len(words) <= MAX_POINTER_WORDS and bool(pointers)


def _target(file: Path, pointer: str, boundary: Path) -> Entry | None:
    """The file an `@path` or "see X.md" names, when it is one inside `boundary`."""
    for base in (file.parent, boundary):
        lexical = os.path.normpath(base / pointer)
        relative = os.path.relpath(lexical, boundary)
        if relative.startswith(".."):
            continue
        found = look(boundary, Path(relative).as_posix(), boundary=boundary)
        if isinstance(found, Entry):
            return found
        if isinstance(found, Link) and found.target is not None:
            return found.target
    return None


# ---- pieces ----


def pieces_of(text: str) -> tuple[list[Piece], list[tuple[int, str]], int]:
    """(kept pieces, (line, family) of the dropped ones, parts left out) of one file."""
    kept: list[Piece] = []
    dropped: list[tuple[int, str]] = []
    left_out = 0
    section: list[tuple[int, str]] = []  # (level, heading)
    section_verdict = agent_rules.KEEP
    found = blocks(text)
    index = 0
    while index < len(found):
        block = found[index]
        index += 1
        if block.kind == "heading":
            section = [(lvl, h) for lvl, h in section if lvl < block.level] + [
                (block.level, inline_plain(block.text))
            ]
            verdicts = [agent_rules.judge_section(h) for _, h in section if h]
            section_verdict = next((v for v in verdicts if not v.keep), agent_rules.KEEP)
            continue
        headings = [h for _, h in section]
        if block.kind == "table":
            left_out += 1
            continue
        if block.kind == "code":
            if (
                kept
                and kept[-1].section == headings
                and not kept[-1].how
                and block.text.count("\n") < MAX_HOW_LINES
            ):
                kept[-1].how = f"```\n{block.text.strip()}\n```"
            else:
                left_out += 1
            continue
        if not section_verdict.keep:
            dropped.append((block.line, section_verdict.family))
            continue
        if block.kind == "item":
            run = [block]
            while index < len(found) and found[index].kind == "item":
                run.append(found[index])
                index += 1
            grouped = _grouped_kind(run, headings)
            if grouped:
                items = [_item_text(item) for item in run]
                verdicts = [agent_rules.judge(item) for item in items]
                keep = [item for item, v in zip(items, verdicts, strict=True) if v.keep]
                if len(keep) >= 2 and headings:
                    kept.append(Piece(headings[-1], run[0].line, headings, grouped, keep))
                    continue
            for item in run:
                _judge_piece(Piece(_item_text(item), item.line, headings), kept, dropped)
            continue
        _judge_piece(Piece(block.text, block.line, headings), kept, dropped)
    return kept, dropped, left_out


def _judge_piece(piece: Piece, kept: list[Piece], dropped: list[tuple[int, str]]) -> None:
    """Keep the piece, drop it, or keep only its sentences that are not about the agent."""
    first, _, rest = piece.text.partition("\n")
    if rest and agent_rules.judge(inline_plain(first)).family == "no-claim":
        verdict = agent_rules.judge(inline_plain(piece.text))  # a label over its sub-items
        if verdict.keep:
            kept.append(piece)
        else:
            dropped.append((piece.line, verdict.family))
        return
    parts = [clause for sentence in sentences(first) for clause in _CLAUSE.split(sentence)]
    verdicts = [agent_rules.judge(inline_plain(part)) for part in parts] or [
        agent_rules.judge(first)
    ]
    if all(v.keep for v in verdicts) and agent_rules.judge(inline_plain(piece.text)).keep:
        kept.append(piece)
        return
    keep = [part for part, v in zip(parts, verdicts, strict=False) if v.keep]
    family = (
        next((v.family for v in verdicts if not v.keep), "")
        or agent_rules.judge(inline_plain(piece.text)).family
    )
    if not keep or not agent_rules.judge(inline_plain(" ".join(keep))).keep:
        dropped.append((piece.line, family))
        return
    piece.text = " ".join(keep).rstrip(";") + (f"\n{rest}" if rest else "")
    piece.left_out = f"left out: {len(parts) - len(keep)} sentence(s) about the agent ({family})"
    kept.append(piece)


def _item_text(item: Block) -> str:
    lines = [item.text]
    for child in item.children:
        if child.kind == "item":
            lines.append("- " + _item_text(child).replace("\n", "\n  "))
        elif child.kind in ("paragraph", "quote"):
            lines.append(child.text)
    return "\n".join(lines)


def _grouped_kind(run: list[Block], headings: list[str]) -> str | None:
    """The kind a list keeps as one piece: runbook or howto (numbered), howto (commands),
    reference (paths); None when its items are pieces of their own."""
    heading = (headings[-1] if headings else "").lower()
    if len(run) >= 2 and all(item.ordered for item in run):
        return "runbook" if _RUNBOOK_SECTION.search(heading) else "howto"
    starts = [_LABEL.sub("", inline_plain(item.text, emphasis=False)) for item in run]
    if len(run) >= 3 and all(_CODE_START.match(text) for text in starts):
        paths = sum(1 for text in starts if re.match(r"^`[^`]*/[^`]*`", text))
        return "reference" if paths * 2 >= len(run) else "howto"
    return None


def _kind_of(piece: Piece) -> str:
    if piece.items:
        return piece.kind
    heading = " ".join(piece.section).lower()
    if _GOTCHA_SECTION.search(heading) or _GOTCHA.search(inline_plain(piece.text).lower()):
        return "gotcha"
    return "convention"


def _drafts(file: AgentFile, text: str, options: ReadOptions) -> tuple[list[Draft], list[Skip]]:
    pieces, dropped, left_out = pieces_of(text)
    skipped = [
        Skip(
            f"{file.source}:{line}",
            agent_rules.Verdict(False, family).reason + _excerpt(text, line),
        )
        for line, family in dropped
    ]
    repo = file.repo
    name = repo.name if repo is not None else (options.repo or "")
    committed = repo.last_date.get(file.relative) if repo is not None else None
    day = committed or _mtime_date(file.mtime)
    url = repo.source_url(file.relative) if repo is not None else None
    types = options.types or None
    drafts: list[Draft] = []
    for number, piece in enumerate(pieces, start=1):
        kind = _kind_of(piece)
        if types is not None and kind not in types:
            kind = "convention" if "convention" in types else sorted(types)[0]
        if piece.items:
            title = cut_title(
                f"{inline_plain(piece.text, emphasis=False)} ({name or file.source})",
                options.max_title,
            )
            what_lines = [f"{inline_plain(piece.text)} in {name or file.source}:"] + [
                f"- {item}" for item in piece.items
            ]
            what = "\n".join(what_lines)
        else:
            plain = inline_plain(piece.text.split("\n", 1)[0])
            first = sentences(plain)
            title = cut_title(
                inline_plain(first[0] if first else plain, emphasis=False), options.max_title
            )
            rest = piece.text.split("\n", 1)[1] if "\n" in piece.text else ""
            what = " ".join(cut_sentences(first, options.max_words)) + (f"\n{rest}" if rest else "")
        tags = options.tagger.suggest(
            title, " ".join([*piece.section, piece.text, *piece.items]), options.tags
        )
        summary = what.split("\n", 1)[0]
        drafts.append(
            Draft(
                key=f"{file.path}#{number}",
                source=f"{file.source}:{piece.line}",
                title=title,
                type=kind,
                what=what,
                how=piece.how,
                date=day,
                confidence="medium",
                tags=tags,
                repo=[name] if name else [],
                scope=name or "agents",
                source_url=f"{url}#L{piece.line}" if url else None,
                match_key=f"{repo.match_key(file.relative)}|{summary_key(summary)}"
                if repo is not None and repo.github
                else None,
                section=piece.section[-1] if piece.section else "",
                unmapped=([f"section: {' › '.join(piece.section)}"] if piece.section else [])
                + ([piece.left_out] if piece.left_out else []),
            )
        )
    if left_out:
        skipped.append(
            Skip(
                file.source,
                f"{left_out} table(s) or long code block(s) left out: not one claim each",
            )
        )
    if not committed and drafts:
        for draft in drafts:
            draft.unmapped.append("not committed: dated from the file's modification time")
    return drafts, skipped


def _excerpt(text: str, line: int) -> str:
    lines = text.split("\n")
    raw = lines[line - 1].strip() if 0 < line <= len(lines) else ""
    raw = redact(raw, {m.value for m in scan_secrets(raw)})
    plain = inline_plain(raw.lstrip("-*+0123456789.) "), emphasis=False)
    return f': "{cut_title(plain, 70)}"' if plain else ""


def _mtime_date(mtime: float) -> str:
    from datetime import date

    return date.fromtimestamp(mtime).isoformat()
