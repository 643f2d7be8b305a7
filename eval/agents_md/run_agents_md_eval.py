"""How much of real agent-instruction files `lore import agents-md` keeps, file by file.

    python eval/agents_md/run_agents_md_eval.py SNAPSHOT…          # a table; results.json
    python eval/agents_md/run_agents_md_eval.py SNAPSHOT… --show   # every piece and its verdict

A SNAPSHOT is a local git repository (bare or not) of a public repository, in a folder
named `owner+name` (as `fetch` leaves them) or given as `owner/name=PATH`; the ones
measured are listed in manifest.json with their commit and licence. Nothing of them is
committed here: the script copies the agent files of HEAD into a temporary repository,
runs the importer's reader on it (`lore.team.imports.agents_md.read_agent_files`, with
the vault template's taxonomy), and counts, per file, the pieces kept and the pieces
dropped by each family of `lore.team.imports.agent_rules`. A snapshot that is not there
is skipped with a line saying so, so the script runs anywhere.

The keep fraction of a file is kept / (kept + dropped by a rule); pointer files, links
and files in skill folders are counted apart. The judgement of what the rules get wrong
is a person's, written in results.md from `--show`.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "src"))
sys.path.insert(0, str(HERE.parent))  # eval/: what the evals of real repositories share

from lore.taxonomy import parse_taxonomy  # noqa: E402
from lore.team.imports.agents_md import is_agent_file, read_agent_files  # noqa: E402
from lore.team.imports.model import ReadOptions  # noqa: E402
from lore.team.imports.tagging import Tagger  # noqa: E402
from lore.vault.seed import seed_files  # noqa: E402
from snapshot_args import snapshots  # noqa: E402

ENV = {
    "GIT_AUTHOR_NAME": "eval",
    "GIT_AUTHOR_EMAIL": "eval@example.invalid",
    "GIT_COMMITTER_NAME": "eval",
    "GIT_COMMITTER_EMAIL": "eval@example.invalid",
    "GIT_CONFIG_NOSYSTEM": "1",
    "HOME": tempfile.gettempdir(),
    "PATH": "/usr/bin:/bin",
}


def git(
    args: list[str], cwd: Path | None = None, git_dir: Path | None = None, data: bytes | None = None
) -> bytes:
    prefix = ["git", f"--git-dir={git_dir}"] if git_dir else ["git"]
    done = subprocess.run(
        [*prefix, *args], cwd=cwd, input=data, capture_output=True, env=ENV, check=True
    )
    return done.stdout


def git_dir_of(path: Path) -> Path:
    return path / ".git" if (path / ".git").exists() else path


def extract(name: str, snapshot: Path, into: Path) -> tuple[str, list[str]]:
    """The snapshot's agent files at HEAD in a fresh repository `into`; (commit, paths)."""
    gdir = git_dir_of(snapshot)
    commit = git(["rev-parse", "HEAD"], git_dir=gdir).decode().strip()
    listed = git(["ls-tree", "-r", "-z", "--name-only", "HEAD"], git_dir=gdir).decode().split("\0")
    paths = sorted(p for p in listed if p and is_agent_file(p))
    into.mkdir(parents=True)
    if paths:
        archive = git(["archive", "HEAD", "--", *paths], git_dir=gdir)
        subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    git(["init", "-q", "-b", "main"], cwd=into)
    git(["remote", "add", "origin", f"https://github.com/{name}.git"], cwd=into)
    git(["add", "-A"], cwd=into)
    git(["commit", "-q", "--allow-empty", "-m", f"agent files of {name} at {commit}"], cwd=into)
    return commit, paths


def measure(name: str, snapshot: Path, show: bool) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch) / name.replace("/", "+")
        commit, paths = extract(name, snapshot, root)
        taxonomy = parse_taxonomy(seed_files()["_taxonomy.md"].decode("utf-8"))
        options = ReadOptions(
            tagger=Tagger(taxonomy), max_words=200, types=frozenset(taxonomy.types)
        )
        drafts, skipped = read_agent_files([root], options)
    files: dict[str, Counter[str]] = defaultdict(Counter)
    shown: list[str] = []
    for draft in drafts:
        path = draft.source.rsplit(":", 1)[0]
        files[path]["kept"] += 1
        if show:
            shown.append(f"KEEP {draft.source} [{draft.type}] {draft.title}")
    for skip in skipped:
        path, _, line = skip.source.rpartition(":")
        if not line.isdigit():
            path = skip.source
        reason = skip.reason
        if reason.startswith("about the agent"):
            family = reason.split("(", 1)[1].split(":", 1)[0]
        elif reason.startswith("holds no claim"):
            family = "no-claim"
        elif "points to" in reason or reason.startswith("a link to"):
            family = "pointer"
        elif reason.startswith("inside an agent skill"):
            family = "skill-folder"
        else:
            family = "other"
        files[path][family] += 1
        if show and family not in ("pointer", "skill-folder"):
            shown.append(f"DROP {skip.source} {reason[:160]}")
    rows = []
    for path in paths:
        counts = files.get(path, Counter())
        dropped = sum(
            n
            for family, n in counts.items()
            if family not in ("kept", "pointer", "skill-folder", "other")
        )
        judged = counts["kept"] + dropped
        rows.append(
            {
                "path": path,
                "kept": counts["kept"],
                "dropped": {k: v for k, v in sorted(counts.items()) if k not in ("kept",)},
                "keep_fraction": round(counts["kept"] / judged, 2) if judged else None,
            }
        )
    if show:
        print(f"## {name}")
        print("\n".join(shown))
    return {"repository": name, "commit": commit, "files": rows}


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("snapshots", nargs="*", help="owner+name folders (or owner/name=PATH)")
    parser.add_argument("--show", action="store_true", help="print every piece and its verdict")
    parser.add_argument("--out", type=Path, default=HERE / "results.json")
    args = parser.parse_args()
    results = []
    for name, path in snapshots(args.snapshots):
        if not path.exists():
            print(f"skipped {name}: no snapshot at {path}", file=sys.stderr)
            continue
        results.append(measure(name, path, args.show))
    if not results:
        print("No snapshot was found: nothing measured.", file=sys.stderr)
        return 0
    total = Counter[str]()
    print(f"{'repository / file':<70} {'kept':>5} {'dropped':>8} {'keep':>6}")
    fractions = []
    for result in results:
        for row in result["files"]:
            dropped = sum(
                v
                for k, v in row["dropped"].items()
                if k not in ("pointer", "skill-folder", "other")
            )
            total["kept"] += row["kept"]
            total["dropped"] += dropped
            for family, count in row["dropped"].items():
                total[family] += count
            fraction = "—" if row["keep_fraction"] is None else f"{row['keep_fraction']:.2f}"
            if row["keep_fraction"] is not None:
                fractions.append(row["keep_fraction"])
            print(
                f"{(result['repository'] + ':' + row['path'])[:70]:<70} {row['kept']:>5} "
                f"{dropped:>8} {fraction:>6}"
            )
    judged = total["kept"] + total["dropped"]
    fractions.sort()
    summary = {
        "files": sum(len(r["files"]) for r in results),
        "files_with_pieces": len(fractions),
        "pieces_kept": total["kept"],
        "pieces_dropped": total["dropped"],
        "keep_fraction_overall": round(total["kept"] / judged, 3) if judged else None,
        "keep_fraction_median_file": fractions[len(fractions) // 2] if fractions else None,
        "dropped_by_family": {
            k: v for k, v in sorted(total.items()) if k not in ("kept", "dropped")
        },
    }
    print(json.dumps(summary, indent=2))
    args.out.write_text(
        json.dumps({"summary": summary, "repositories": results}, indent=2) + "\n", encoding="utf-8"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
