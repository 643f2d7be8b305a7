"""What `lore import adr` makes of real ADR sets: notes, skips, dates, links, findings.

    python eval/adr/run_adr_eval.py SNAPSHOT…           # a table; eval/adr/results.json
    python eval/adr/run_adr_eval.py SNAPSHOT… --show    # each ADR's outcome

A SNAPSHOT is a local git repository (bare or not) of a public repository, in a folder
named `owner+name` (as `fetch` leaves them) or given as `owner/name=PATH`; manifest.json
lists the ones measured, with their commit and licence. Nothing of them is committed:
each is cloned sharing its objects (`git clone --shared --no-checkout`, so git's history
is there for the dates) into a temporary folder, only its ADR folders are checked out,
and the whole import runs as a dry run against a fresh vault made from lore's seed
(`lore.team.imports.run.plan_import`), so the curator's findings are real. A snapshot
that is not there is skipped with a line saying so.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "src"))
sys.path.insert(0, str(HERE.parent))  # eval/: what the evals of real repositories share

from lore.team.imports.run import open_vault, plan_import  # noqa: E402
from lore.vault.seed import seed_files, write_files  # noqa: E402
from snapshot_args import snapshots  # noqa: E402

ADR_PART = re.compile(r"adr|decision", re.IGNORECASE)
ADR_NAME = re.compile(r"^adr[-_ ]?\d", re.IGNORECASE)
IDENTITY = {
    "GIT_AUTHOR_NAME": "eval",
    "GIT_AUTHOR_EMAIL": "eval@example.invalid",
    "GIT_COMMITTER_NAME": "eval",
    "GIT_COMMITTER_EMAIL": "eval@example.invalid",
}


def git(args: list[str], cwd: Path) -> str:
    env = {**os.environ, **IDENTITY, "GIT_CONFIG_NOSYSTEM": "1"}
    done = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, check=True)
    return done.stdout.decode("utf-8", "replace")


def adr_folders(paths: list[str]) -> list[str]:
    """The folders that hold ADRs: a folder named like `adr`/`decisions`, or one holding
    `adr-001-….md`-style files (the shortest such folders; `.` for the root)."""
    folders: set[str] = set()
    for path in paths:
        if not path.lower().endswith((".md", ".markdown")):
            continue
        parts = path.split("/")
        for depth, part in enumerate(parts[:-1]):
            if ADR_PART.search(part):
                folders.add("/".join(parts[: depth + 1]))
                break
        else:
            if ADR_NAME.match(parts[-1]):
                folders.add("/".join(parts[:-1]) or ".")
    if "." in folders:
        return ["."]
    return sorted(f for f in folders if not any(f != o and f.startswith(o + "/") for o in folders))


def measure(name: str, snapshot: Path, scratch: Path, show: bool) -> dict[str, Any]:
    clone = scratch / name.replace("/", "+")
    git(["clone", "-q", "--shared", "--no-checkout", str(snapshot), str(clone)], scratch)
    git(["remote", "set-url", "origin", f"https://github.com/{name}.git"], clone)
    commit = git(["rev-parse", "HEAD"], clone).strip()
    listed = git(["ls-tree", "-r", "--name-only", "HEAD"], clone).splitlines()
    folders = adr_folders(listed)
    if folders:
        git(["checkout", "-q", "HEAD", "--", *folders], clone)
    vault = scratch / f"vault-{clone.name}"
    vault.mkdir()
    write_files(vault, seed_files())
    git(["init", "-q", "-b", "main"], vault)
    git(["add", "-A"], vault)
    git(["commit", "-q", "-m", "seed"], vault)
    view = open_vault(vault)
    plan = plan_import(view, "adr", [clone / f for f in folders], author_lookup=lambda r, g: None)
    dated = Counter[str]()
    for candidate in plan.candidates:
        source = next((n for n in candidate.draft.unmapped if n.startswith("dated from ")), None)
        dated[
            source.removeprefix("dated from ") if source else "the file (frontmatter or Date line)"
        ] += 1
    skipped = Counter(skip.reason.split(":", 1)[0].split(" (", 1)[0] for skip in plan.skipped)
    unresolved = sum(
        1 for c in plan.candidates for n in c.draft.unmapped if "names no ADR in this import" in n
    )
    result = {
        "repository": name,
        "commit": commit,
        "folders": folders,
        "notes": len(plan.candidates),
        "skipped": dict(skipped.most_common()),
        "dated_from": dict(dated.most_common()),
        "confidence": dict(Counter(c.note.confidence for c in plan.candidates).most_common()),
        "supersedes_links": sum(len(c.note.supersedes) for c in plan.candidates),
        "related_links": sum(c.text.count("[[") for c in plan.candidates),
        "unresolved_links": unresolved,
        "untagged": sum(1 for c in plan.candidates if not c.note.tags),
        "findings": dict(sorted(plan.findings_by_rule().items())),
    }
    if show:
        print(f"## {name}")
        for candidate in plan.candidates:
            print(
                f"  + {candidate.draft.source} -> {candidate.note.id} "
                f"{list(candidate.note.supersedes)}"
            )
        for skip in plan.skipped:
            print(f"  - {skip.source}: {skip.reason}")
    return result


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("snapshots", nargs="*", help="owner+name folders (or owner/name=PATH)")
    parser.add_argument("--show", action="store_true", help="print each ADR's outcome")
    parser.add_argument("--out", type=Path, default=HERE / "results.json")
    args = parser.parse_args()
    results = []
    with tempfile.TemporaryDirectory() as scratch:
        os.environ["LORE_HOME"] = str(Path(scratch) / "lore-home")
        for name, path in snapshots(args.snapshots):
            if not path.exists():
                print(f"skipped {name}: no snapshot at {path}", file=sys.stderr)
                continue
            results.append(measure(name, path, Path(scratch), args.show))
    if not results:
        print("No snapshot was found: nothing measured.", file=sys.stderr)
        return 0
    print(f"{'repository':<48} {'notes':>5} {'skip':>5} {'super':>5} {'rel':>4} {'git date':>8}")
    totals: Counter[str] = Counter()
    for r in results:
        git_dated = r["dated_from"].get("the date git first recorded the file", 0)
        print(f"{r['repository']:<48} {r['notes']:>5} {sum(r['skipped'].values()):>5} "
              f"{r['supersedes_links']:>5} {r['related_links']:>4} {git_dated:>8}")  # fmt: skip
        totals["notes"] += r["notes"]
        totals["skipped"] += sum(r["skipped"].values())
        totals["supersedes_links"] += r["supersedes_links"]
        totals["related_links"] += r["related_links"]
        totals["unresolved_links"] += r["unresolved_links"]
        totals["untagged"] += r["untagged"]
        totals["git_dated"] += git_dated
    summary: dict[str, Any] = dict(totals)
    summary["skipped_by_reason"] = dict(
        sum((Counter(r["skipped"]) for r in results), Counter()).most_common()
    )
    summary["findings_by_rule"] = dict(
        sorted(sum((Counter(r["findings"]) for r in results), Counter()).items())
    )
    print(json.dumps(summary, indent=2))
    args.out.write_text(
        json.dumps({"summary": summary, "repositories": results}, indent=2) + "\n", encoding="utf-8"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
