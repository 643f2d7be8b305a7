"""The files a new vault starts from: `vault-template/` plus `_taxonomy.md` and `_conventions.md`.

They live once, at the top of the source repository; a wheel carries them under
`lore/_seed/`. Whatever builds a vault (`lore init`, `lore demo`, tests) composes
them through `seed_files`, so no file is kept twice.
"""

from __future__ import annotations

import os
from pathlib import Path

from lore.errors import LoreError

SEED_TOP_FILES = ("_taxonomy.md", "_conventions.md")
TEMPLATE_DIR = "vault-template"


def seed_root() -> Path:
    """The folder holding `_taxonomy.md`, `_conventions.md` and `vault-template/`."""
    package = Path(__file__).resolve().parent.parent
    candidates = (package / "_seed", package.parent.parent)
    for candidate in candidates:
        if (candidate / "_taxonomy.md").is_file() and (candidate / TEMPLATE_DIR).is_dir():
            return candidate
    raise LoreError(
        "lore's vault template is missing from this installation.",
        fix="Reinstall gh-lore (pipx reinstall gh-lore).",
    )


def seed_files() -> dict[str, bytes]:
    """Relative path -> contents of every file a new vault gets."""
    root = seed_root()
    files: dict[str, bytes] = {}
    template = root / TEMPLATE_DIR
    for folder, _, names in os.walk(template):
        for name in sorted(names):
            path = Path(folder) / name
            files[path.relative_to(template).as_posix()] = path.read_bytes()
    for name in SEED_TOP_FILES:
        files[name] = (root / name).read_bytes()
    return dict(sorted(files.items()))


def write_files(dest: Path, files: dict[str, bytes]) -> None:
    """Write files under `dest`, refusing to overwrite anything that is already there."""
    for relative in files:
        target = dest / relative
        if target.exists():
            raise LoreError(
                f"{target} already exists; lore will not overwrite it.",
                fix="Choose an empty folder.",
            )
    for relative, data in files.items():
        target = dest / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
