"""The snapshot folders an eval of real repositories is given on its command line.

Each argument is a folder `owner+name` (or its `repo` folder, the layout the snapshot
fetcher leaves), named after it as `owner/name`, or `owner/name=PATH` to name it.
"""

from __future__ import annotations

from pathlib import Path


def snapshots(arguments: list[str]) -> list[tuple[str, Path]]:
    """(repository name, path) for each argument."""
    found = []
    for argument in arguments:
        if "=" in argument:
            name, path = argument.split("=", 1)
        else:
            path = argument
            folder = Path(argument).resolve()
            folder = folder.parent if folder.name == "repo" else folder
            name = folder.name.replace("+", "/", 1)
        found.append((name, Path(path)))
    return found
