"""The layering of DESIGN.md section 4, read from the imports of every module.

Imports point one way (a module imports only from its own layer or the layers
below it); only `vault/` imports GitPython; only `cli/` imports rich; and the
recall path loads neither GitPython, rich nor YAML.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

from tests.support import Vault, note_text

SRC = Path(__file__).resolve().parent.parent / "src" / "lore"

# Lowest first. A module may import from its own layer and the layers above it here.
LAYERS: list[set[str]] = [
    {"errors", "sanitize", "clock", "record", "files", "__init__"},
    {"paths", "config", "yamlio", "vaults"},
    {"note"},
    {"taxonomy"},
    {"vault"},
    {"index"},
    {"recall"},
    {"curator"},
    {"team", "demo"},
    {"integrations"},
    {"cli", "__main__"},
]


def layer_of(module: str) -> int:
    top = module.split(".")[1] if module.startswith("lore.") else module
    for index, names in enumerate(LAYERS):
        if top in names:
            return index
    raise AssertionError(f"{module} is in no layer; add it to LAYERS")


def modules() -> Iterator[tuple[str, ast.Module]]:
    for path in sorted(SRC.rglob("*.py")):
        relative = path.relative_to(SRC.parent).with_suffix("")
        name = ".".join(relative.parts)
        if name.endswith(".__init__"):
            name = name[: -len(".__init__")]
        yield name, ast.parse(path.read_text(encoding="utf-8"))


def imports(tree: ast.Module) -> Iterator[str]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.module


def test_every_module_has_a_docstring() -> None:
    missing = [
        name
        for name, tree in modules()
        if not ast.get_docstring(tree) and not name.endswith("__main__")
    ]
    assert missing == []


def test_imports_point_one_way() -> None:
    wrong = []
    for name, tree in modules():
        if name == "lore":
            continue
        own = layer_of(name)
        for imported in imports(tree):
            if imported.startswith("lore.") and layer_of(imported) > own:
                wrong.append(f"{name} imports {imported}")
    assert wrong == []


def test_only_vault_imports_gitpython_and_only_cli_imports_rich() -> None:
    wrong = []
    for name, tree in modules():
        for imported in imports(tree):
            top = imported.split(".")[0]
            if top == "git" and not name.startswith("lore.vault"):
                wrong.append(f"{name} imports GitPython")
            if top == "rich" and not name.startswith("lore.cli"):
                wrong.append(f"{name} imports rich")
    assert wrong == []


def test_recall_path_imports_no_heavy_modules(make_vault: Callable[..., Vault]) -> None:
    vault = make_vault({"scope--topic--2026-01-01": note_text()})
    env = {**os.environ, "LORE_VAULT": str(vault.root)}
    command = [sys.executable, "-X", "importtime", "-m", "lore", "recall", "--json", "httpx"]
    subprocess.run(command, env=env, capture_output=True, check=True)  # builds the index
    result = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
    loaded = {line.split("|")[-1].strip() for line in result.stderr.splitlines() if "|" in line}
    assert json.loads(result.stdout)["results"]
    heavy = {m for m in loaded if m.split(".")[0] in {"yaml", "git", "rich", "tomllib", "tomli"}}
    assert heavy == set()
    # Each of these costs milliseconds at start-up that a plain recall does not need:
    # argparse (with gettext and locale) is left for calls `recall_args` does not read,
    # shutil came with argparse's default help formatter.
    costly = {"argparse", "gettext", "shutil", "subprocess", "typing", "dataclasses"}
    assert loaded & costly == set()
