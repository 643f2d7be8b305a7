"""The raw text of a repository's ADR files at the manifest's commit, for the labels.

The labels are checked against the authors' own status lines (eval/real_adr_labels.py),
so they read the files as they are, straight from the snapshot with `git show`, never
through lore: what is measured must not make the labels. The titles printed beside a
recorded pair (for a person to check it by) are the ones `lore import adr` reads.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

from lore.team.imports.adr_parse import parse_adr
from real_adr_import import adr_folders
from real_adr_manifest import proposal_order, snapshot_dir


def folder_paths(mirrors: Path, repository: dict[str, Any]) -> dict[str, str] | str:
    """Every file name in the repository's ADR folders at its commit, with its path, or
    why not. An ADR is known by its file name alone, so a name two folders share is
    refused."""
    git_dir = snapshot_dir(mirrors, repository["name"])
    if not git_dir.is_dir():
        return f"no snapshot at {git_dir}"
    commit = repository["commit"]
    base = ["git", f"--git-dir={git_dir}"]
    if subprocess.run([*base, "cat-file", "-e", f"{commit}^{{commit}}"], check=False).returncode:
        return f"commit {commit} is not in {git_dir}"
    paths: dict[str, str] = {}
    for folder in adr_folders(repository):
        spec = f"{commit}:{folder}" if folder else f"{commit}:"
        listed = subprocess.run(
            [*base, "ls-tree", "-z", "--name-only", spec],
            capture_output=True,
            text=True,
            check=False,
        )
        if listed.returncode:
            return f"no folder {folder!r} at {commit} in {git_dir}"
        for name in (name for name in listed.stdout.split("\0") if name):
            path = f"{folder}/{name}" if folder else name
            if name in paths and name.endswith(".md"):
                return (
                    f"{paths[name]} and {path} share a file name at {commit}: list one of "
                    "the two folders only, or skip the file in the manifest"
                )
            paths.setdefault(name, path)
    return paths


def folder_files(mirrors: Path, repository: dict[str, Any]) -> list[str] | str:
    """Every file name in the repository's ADR folders at its commit, or why not."""
    paths = folder_paths(mirrors, repository)
    return paths if isinstance(paths, str) else list(paths)


def read_texts(mirrors: Path, repository: dict[str, Any]) -> list[tuple[str, str]] | str:
    """(file name, text) of the repository's markdown ADR files (less `skip`), by number."""
    paths = folder_paths(mirrors, repository)
    if isinstance(paths, str):
        return paths
    git_dir = snapshot_dir(mirrors, repository["name"])
    commit = repository["commit"]
    skip = set(repository.get("skip", []))
    files = sorted(
        (n for n in paths if n.endswith(".md") and n not in skip),
        key=lambda name: proposal_order(name, ""),
    )
    return [(name, _show(git_dir, f"{commit}:{paths[name]}")) for name in files]


def _show(git_dir: Path, spec: str) -> str:
    return subprocess.run(
        ["git", f"--git-dir={git_dir}", "show", spec], capture_output=True, text=True, check=True
    ).stdout


def titles_of(texts: list[tuple[str, str]]) -> dict[str, str]:
    """Each file's title as `lore import adr` reads it (the file name when it reads none)."""
    titles = {}
    for name, text in texts:
        record = parse_adr(text, name, None)
        titles[name] = name if isinstance(record, str) else record.title
    return titles
