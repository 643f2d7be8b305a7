"""Is every candidate `lore import agents-md` makes of real agent files ready for review?

    python eval/imports/run_agent_files_eval.py --mirrors DIR                # known + tune
    python eval/imports/run_agent_files_eval.py --mirrors DIR --split held-out --record NAME
    python eval/imports/run_agent_files_eval.py --mirrors DIR --split tune --show

The repositories are those of eval/imports/agent_files.toml (with their commit and split);
DIR (default `$LORE_ADR_MIRRORS`) holds their snapshots as `DIR/<owner>+<name>/repo`, the
layout the `fetch` tool leaves. Nothing of them is committed: the agent files of the
recorded commit (CLAUDE.md, AGENTS.md, GEMINI.md, Copilot's and Cursor's) are copied into a
fresh repository with the same GitHub origin, and `lore import agents-md` runs on it as a
dry run against a fresh vault made from lore's seed (`plan_import`, the function the CLI
calls), so every finding is the curator's own. Figures: the candidates, those that pass
the curator (no finding of severity error; target 95 %), those no taxonomy tag fitted (a
tag is proposed for them), and the pieces dropped as about the agent. `--show` prints
every candidate with an error and every candidate's title and tags: the reading that
guides a change. Only figures are written.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "src"))

from lore.team.imports.agents_md import is_agent_file  # noqa: E402
from lore.team.imports.run import open_vault, plan_import  # noqa: E402
from lore.vault.seed import seed_files, write_files  # noqa: E402

MANIFEST = HERE / "agent_files.toml"
RESULTS = HERE / "agent_files_results.json"
DEFAULT_SPLITS = ("known", "tune")
ENV = {
    "GIT_AUTHOR_NAME": "eval",
    "GIT_AUTHOR_EMAIL": "eval@example.invalid",
    "GIT_COMMITTER_NAME": "eval",
    "GIT_COMMITTER_EMAIL": "eval@example.invalid",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_SYSTEM": os.devnull,
}


def git(args: list[str], cwd: Path | None = None, data: bytes | None = None) -> bytes:
    done = subprocess.run(
        ["git", *args], cwd=cwd, input=data, env={**os.environ, **ENV}, capture_output=True,
        check=True,
    )  # fmt: skip
    return done.stdout


def extract(repository: dict[str, Any], snapshot: Path, into: Path) -> list[str]:
    """The agent files at the recorded commit, in a fresh repository `into`; their paths."""
    commit = repository["commit"]
    listed = git(["--git-dir", str(snapshot), "ls-tree", "-r", "-z", "--name-only", commit])
    paths = sorted(p for p in listed.decode().split("\0") if p and is_agent_file(p))
    into.mkdir(parents=True)
    if paths:
        archive = git(["--git-dir", str(snapshot), "archive", commit, "--", *paths])
        subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    git(["init", "-q", "-b", "main"], cwd=into)
    git(["remote", "add", "origin", f"https://github.com/{repository['name']}.git"], cwd=into)
    git(["add", "-A"], cwd=into)
    git(["commit", "-q", "--allow-empty", "-m", f"agent files at {commit}"], cwd=into)
    return paths


def measure(repository: dict[str, Any], snapshot: Path, scratch: Path, show: bool) -> dict:
    name = repository["name"]
    code = scratch / name.replace("/", "+")
    paths = extract(repository, snapshot, code)
    vault = scratch / f"vault-{code.name}"
    vault.mkdir()
    write_files(vault, seed_files())
    git(["init", "-q", "-b", "main"], cwd=vault)
    git(["add", "-A"], cwd=vault)
    git(["commit", "-q", "-m", "seed"], cwd=vault)
    view = open_vault(vault)
    plan = plan_import(view, "agents-md", [code], author_lookup=lambda r, g: None)
    passing = [c for c in plan.candidates if not c.errors]
    added = set(getattr(plan, "added_tags", []))  # (none before issue 32)
    about_agent = sum(1 for s in plan.skipped if s.reason.startswith("about the agent"))
    result = {
        "repository": name,
        "split": repository["split"],
        "files": len(paths),
        "candidates": len(plan.candidates),
        "passing": len(passing),
        "new_tag": sum(1 for c in plan.candidates if c.note.tags and set(c.note.tags) <= added),
        "untagged": sum(1 for c in plan.candidates if not c.note.tags),
        "added_tags": len(added),
        "dropped_about_agent": about_agent,
        "errors_by_rule": dict(Counter(f.rule for c in plan.candidates for f in c.errors)),
    }
    if show:
        print(f"## {name} ({repository['split']})")
        for candidate in plan.candidates:
            note = candidate.note
            for finding in candidate.errors:
                print(f"  error: {candidate.draft.source}: {finding.rule} {finding.message}")
            print(f"  tags: {candidate.draft.source}: {note.title!r} {list(note.tags)}")
    return result


def summarise(results: list[dict[str, Any]]) -> dict[str, Any]:
    total: Counter[str] = Counter()
    for r in results:
        for key in ("files", "candidates", "passing", "new_tag", "untagged", "added_tags",
                    "dropped_about_agent"):  # fmt: skip
            total[key] += r[key]
    candidates = total["candidates"]
    return {
        "repositories": len(results),
        **dict(total),
        "pass_ratio": round(total["passing"] / candidates, 3) if candidates else None,
        "errors_by_rule": dict(
            sum((Counter(r["errors_by_rule"]) for r in results), Counter()).most_common()
        ),
    }


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--mirrors", type=Path, default=os.environ.get("LORE_ADR_MIRRORS"))
    parser.add_argument("--split", help="known, tune or held-out (default: known and tune)")
    parser.add_argument("--show", action="store_true", help="print every candidate's title")
    parser.add_argument("--record", metavar="NAME", help="keep the figures in the results")
    args = parser.parse_args()
    if args.mirrors is None:
        parser.error("give --mirrors DIR or set LORE_ADR_MIRRORS")
    splits = (args.split,) if args.split else DEFAULT_SPLITS
    manifest = tomllib.loads(MANIFEST.read_text(encoding="utf-8"))["repository"]
    results = []
    with tempfile.TemporaryDirectory() as scratch:
        os.environ["LORE_HOME"] = str(Path(scratch) / "lore-home")
        os.environ.setdefault("LORE_TODAY", "2026-12-01")
        for repository in manifest:
            if repository["split"] not in splits:
                continue
            snapshot = Path(args.mirrors) / repository["name"].replace("/", "+") / "repo"
            if not snapshot.exists():
                print(f"skipped {repository['name']}: no snapshot at {snapshot}", file=sys.stderr)
                continue
            results.append(measure(repository, snapshot, Path(scratch), args.show))
    if not results:
        print("No snapshot was found: nothing measured.", file=sys.stderr)
        return 0
    print(f"{'repository':<44} {'files':>5} {'pass':>9} {'new tag':>7}")
    for r in results:
        print(f"{r['repository']:<44} {r['files']:>5} {r['passing']:>4}/{r['candidates']:<4} "
              f"{r['new_tag']:>7}")  # fmt: skip
    summary = summarise(results)
    print(json.dumps({k: v for k, v in summary.items() if k != "errors_by_rule"}))
    print("errors by rule:", summary["errors_by_rule"])
    if args.record:
        recorded = json.loads(RESULTS.read_text(encoding="utf-8")) if RESULTS.exists() else {}
        recorded[args.record] = {
            "command": "python eval/imports/run_agent_files_eval.py --mirrors DIR"
            + (f" --split {args.split}" if args.split else "")
            + f" --record {args.record}",
            "summary": summary,
            "repositories": results,
        }
        RESULTS.write_text(json.dumps(recorded, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
