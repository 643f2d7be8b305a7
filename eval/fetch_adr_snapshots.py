"""Fetch the public ADR repositories of the real-decision eval at their recorded commits.

    python eval/fetch_adr_snapshots.py DIR                   # every repository
    python eval/fetch_adr_snapshots.py DIR --split held-out-6
    python eval/fetch_adr_snapshots.py DIR --source TEMPLATE  # another host or a mirror

For each repository of eval/curator/real/manifest.toml, DIR/<owner>+<name>/repo becomes
a bare git repository holding the manifest's commit and its history (the import dates
an ADR that names no date by the commit that added it), in the layout the eval reads
(`--mirrors DIR`, or LORE_ADR_MIRRORS=DIR for the tests). A repository whose folder
already holds the commit is left as it is; a fetch that fails is reported and the
others go on. It needs the network (GitHub serves a commit by its hash to a fetch);
`--source` takes a URL template with `{name}` (owner/name), e.g. a local folder of
mirrors, `file:///srv/mirrors/{name}.git`.

Nothing fetched is committed to lore: the eval reads the ADRs with `git show` and keeps
only figures.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from real_adr_manifest import load_manifest, snapshot_dir  # noqa: E402

GITHUB = "https://github.com/{name}.git"
GIT_ENV = {"GIT_TERMINAL_PROMPT": "0", "GIT_CONFIG_NOSYSTEM": "1"}


def _git(git_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", f"--git-dir={git_dir}", *args],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, **GIT_ENV},
    )


def has_commit(git_dir: Path, commit: str) -> bool:
    if not git_dir.is_dir():
        return False
    return _git(git_dir, "cat-file", "-e", f"{commit}^{{commit}}").returncode == 0


def fetch_one(mirrors: Path, repository: dict[str, Any], source: str) -> str:
    """Fetch one repository's commit into its snapshot folder; what happened, in words."""
    name, commit = repository["name"], repository["commit"]
    git_dir = snapshot_dir(mirrors, name)
    if has_commit(git_dir, commit):
        return "already here"
    if not git_dir.is_dir():
        git_dir.mkdir(parents=True)
        made = _git(git_dir, "init", "-q", "--bare")
        if made.returncode:
            return f"failed: git init: {made.stderr.strip()[:200]}"
    url = source.format(name=name)
    fetched = _git(git_dir, "fetch", "-q", "--no-tags", url, f"+{commit}:refs/heads/eval")
    if fetched.returncode:
        return f"failed: git fetch {url} {commit}: {fetched.stderr.strip()[:300]}"
    _git(git_dir, "symbolic-ref", "HEAD", "refs/heads/eval")
    if not has_commit(git_dir, commit):
        return f"failed: {url} did not give {commit}"
    return "fetched"


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="\n\n".join(__doc__.split("\n\n")[1:]),
    )
    parser.add_argument("mirrors", type=Path, help="the folder of snapshots to fill")
    parser.add_argument("--split", help="only the repositories of this batch")
    parser.add_argument("--repo", help="only this repository (owner/name)")
    parser.add_argument(
        "--source", default=GITHUB, help="URL template with {name} (default: GitHub over https)"
    )
    args = parser.parse_args()
    if "{name}" not in args.source:
        parser.exit(2, "--source must contain {name}, e.g. https://github.com/{name}.git\n")
    args.mirrors.mkdir(parents=True, exist_ok=True)
    failed = 0
    chosen = [
        repository
        for repository in load_manifest()
        if (not args.split or repository["split"] == args.split)
        and (not args.repo or repository["name"] == args.repo)
    ]
    if not chosen:
        parser.exit(2, "no repository of the manifest matches --split/--repo\n")
    for number, repository in enumerate(chosen, 1):
        outcome = fetch_one(args.mirrors, repository, args.source)
        failed += outcome.startswith("failed")
        print(f"[{number}/{len(chosen)}] {repository['name']}: {outcome}", flush=True)
    if failed:
        print(f"{failed} of {len(chosen)} repositories could not be fetched", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
