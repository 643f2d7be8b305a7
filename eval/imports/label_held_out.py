"""The supersession labels of the import eval's unread batch, from status lines alone.

    python eval/imports/label_held_out.py --mirrors DIR >> eval/imports/held_out.toml

Reads each repository of eval/imports/held_out.toml at its commit (`git show`, nothing
checked out) and prints, as TOML, every supersession `real_adr_labels.recorded_pairs`
finds in the ADRs' status lines — the labeller the curator's eval uses for its unread
batches, which never looks past those lines. The status lines themselves are not
printed, so labelling reads nothing of the batch.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from real_adr_labels import recorded_pairs  # noqa: E402


def _show(git_dir: Path, spec: str) -> str:
    done = subprocess.run(
        ["git", f"--git-dir={git_dir}", "show", spec], capture_output=True, text=True, check=True
    )
    return done.stdout


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mirrors", type=Path, default=os.environ.get("LORE_ADR_MIRRORS"))
    args = parser.parse_args()
    if args.mirrors is None:
        parser.error("give --mirrors DIR or set LORE_ADR_MIRRORS")
    manifest = tomllib.loads((HERE / "held_out.toml").read_text(encoding="utf-8"))
    for repository in manifest["repository"]:
        git_dir = Path(args.mirrors) / repository["name"].replace("/", "+") / "repo"
        spec = f"{repository['commit']}:{repository['folder']}"
        names = subprocess.run(
            ["git", f"--git-dir={git_dir}", "ls-tree", "--name-only", spec],
            capture_output=True, text=True, check=True,
        ).stdout.split()  # fmt: skip
        skip = set(repository.get("skip", []))
        texts = [
            (name, _show(git_dir, f"{spec}/{name}"))
            for name in names
            if name.endswith(".md") and name not in skip
        ]
        pairs, _ = recorded_pairs(texts)
        for pair in pairs:
            print("\n[[supersession]]")
            print(f'repo = "{repository["name"]}"')
            print(f'new = "{pair.new}"')
            print(f'old = "{pair.old}"')
            print(f'kind = "{pair.kind}"')
            print(f'recorded = "{pair.recorded}"')
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
