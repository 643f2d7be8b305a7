"""Is every candidate `lore import adr` makes of real ADRs ready for review?

    python eval/imports/run_adr_import_eval.py --mirrors DIR                 # every split
    python eval/imports/run_adr_import_eval.py --mirrors DIR --split tune --show
    python eval/imports/run_adr_import_eval.py --mirrors DIR --record NAME   # into results.json

DIR (default `$LORE_ADR_MIRRORS`) holds one snapshot per repository as
`DIR/<owner>+<name>/repo`, the layout the `fetch` tool leaves. The repositories are those
of eval/curator/real/manifest.toml (the curator's real-decision eval: the batches already
read, `READ_SPLITS`; an unread batch such as held-out-6 runs only when named) and of
eval/imports/held_out.toml (this eval's own unread batch, run with `--split
import-held-out`). Nothing of them is committed: each snapshot is cloned sharing its
objects (so git's history dates an ADR that carries none), only its ADR folders are
checked out at the manifest's commit, and `lore import adr` runs on them as a dry run
against a fresh vault made from lore's seed (`plan_import`, the library function the CLI
calls), so every finding is the curator's own.

Three figures, against the targets of issue 32:

- **ADRs that become notes** (target 95 %): an ADR is a markdown file of the manifest's
  folders that the manifest does not `skip` (templates, index pages); the ones whose
  status says rejected, declined, withdrawn, deprecated, obsolete or retired are counted
  apart — by their authors' word they do not hold, and the import leaves them out on
  purpose, since recall serves every note as what holds (a superseded ADR counts: it
  becomes a note its successor makes inactive).
- **candidates that pass the curator** (target 95 %): no finding of severity error.
- **full supersessions kept** (target 90 %): of the supersessions the authors recorded
  as full (eval/curator/real/pairs.toml, `kind = "full"`, or held_out.toml), those where
  the newer ADR's note lists the older one's in `supersedes`.

`--show` prints every ADR that did not become a note and every candidate with an error,
with the reason: the reading that guides a change. Only figures are written.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "src"))

from lore.team.imports.run import open_vault, plan_import  # noqa: E402
from lore.vault.seed import seed_files, write_files  # noqa: E402

MANIFEST = HERE.parent / "curator" / "real" / "manifest.toml"
PAIRS = HERE.parent / "curator" / "real" / "pairs.toml"
HELD_OUT = HERE / "held_out.toml"
RESULTS = HERE / "results.json"
INDEXES = ("readme.md", "index.md")
TARGETS = {"notes": 0.95, "pass": 0.95, "supersessions": 0.90}
_WITHDRAWN = re.compile(
    r"^\W*(?:status\W*)?(?:rejected|declined|withdrawn|abandoned|deprecated|obsolete|retired)\b",
    re.IGNORECASE,
)
ENV = {
    "GIT_AUTHOR_NAME": "eval",
    "GIT_AUTHOR_EMAIL": "eval@example.invalid",
    "GIT_COMMITTER_NAME": "eval",
    "GIT_COMMITTER_EMAIL": "eval@example.invalid",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_SYSTEM": os.devnull,
}


def git(args: list[str], cwd: Path) -> str:
    done = subprocess.run(
        ["git", *args], cwd=cwd, env={**os.environ, **ENV}, capture_output=True, check=True
    )
    return done.stdout.decode("utf-8", "replace")


# The curator eval's batches that have been read (eval/README.md); a later one stays
# unread until its own first run, so a run without --split leaves it out.
READ_SPLITS = ("tune", "held-out", "held-out-2", "held-out-3", "held-out-4", "held-out-5")


def repositories(split: str | None) -> list[dict[str, Any]]:
    """The manifest's repositories (with their split), and the held-out batch's."""
    found = list(tomllib.loads(MANIFEST.read_text(encoding="utf-8"))["repository"])
    if HELD_OUT.exists():
        found += tomllib.loads(HELD_OUT.read_text(encoding="utf-8")).get("repository", [])
    if split is None:
        return [r for r in found if r["split"] in READ_SPLITS]
    return [r for r in found if r["split"] == split]


def recorded_pairs(kind: str) -> dict[str, list[tuple[str, str]]]:
    """(new file, old file) of every supersession of `kind` ("full" or "partial") the
    authors recorded, by repository."""
    pairs: dict[str, list[tuple[str, str]]] = {}
    for source in (PAIRS, HELD_OUT):
        if not source.exists():
            continue
        for pair in tomllib.loads(source.read_text(encoding="utf-8")).get("supersession", []):
            if pair.get("kind") == kind:
                pairs.setdefault(pair["repo"], []).append((pair["new"], pair["old"]))
    return pairs


def folders_of(repository: dict[str, Any]) -> list[str]:
    return [repository["folder"], *repository.get("folders", [])]


def adr_files(clone: Path, repository: dict[str, Any]) -> dict[str, str]:
    """file name -> path of the ADRs: markdown files of the folders, less the `skip` list."""
    skip = set(repository.get("skip", []))
    found: dict[str, str] = {}
    for folder in folders_of(repository):
        base = clone / folder if folder else clone
        for path in sorted(base.iterdir()):
            wanted = path.suffix.lower() in (".md", ".markdown") and path.is_file()
            if wanted and path.name not in skip and path.name.lower() not in INDEXES:
                found.setdefault(path.name, path.relative_to(clone).as_posix())
    return found


def withdrawn(text: str) -> bool:
    """The ADR's status says rejected, declined or withdrawn (a status line or section)."""
    lines = text.split("\n")
    for number, line in enumerate(lines):
        plain = line.strip().strip("*_#|>- ").lower()
        if plain.startswith("status"):
            rest = plain[len("status") :].strip(" :*_|")
            if not rest:
                rest = next((s.strip().strip("*_-") for s in lines[number + 1 :] if s.strip()), "")
            if _WITHDRAWN.match(rest):
                return True
    return False


def measure(repository: dict[str, Any], snapshot: Path, scratch: Path, show: bool) -> dict:
    name = repository["name"]
    clone = scratch / name.replace("/", "+")
    git(["clone", "-q", "--shared", "--no-checkout", str(snapshot), str(clone)], scratch)
    git(["remote", "set-url", "origin", f"https://github.com/{name}.git"], clone)
    folders = folders_of(repository)
    git(["sparse-checkout", "set", "--no-cone", *[f"/{f}/" if f else "/*" for f in folders]], clone)
    git(["checkout", "-q", "--detach", repository["commit"]], clone)
    adrs = adr_files(clone, repository)
    withdrawn_files = {
        n for n, p in adrs.items() if withdrawn((clone / p).read_text("utf-8", "replace"))
    }
    vault = scratch / f"vault-{clone.name}"
    vault.mkdir()
    write_files(vault, seed_files())
    git(["init", "-q", "-b", "main"], vault)
    git(["add", "-A"], vault)
    git(["commit", "-q", "-m", "seed"], vault)
    view = open_vault(vault)
    started = time.perf_counter()
    plan = plan_import(
        view, "adr", [clone / f if f else clone for f in folders], author_lookup=lambda r, g: None
    )
    elapsed = time.perf_counter() - started
    by_file = {c.draft.source.rsplit("/", 1)[-1]: c for c in plan.candidates}
    skipped = {s.source.rsplit("/", 1)[-1]: s.reason for s in plan.skipped}
    held = [n for n in adrs if n not in withdrawn_files]
    made = [n for n in held if n in by_file]
    passing = [c for c in plan.candidates if not c.errors]
    pairs = recorded_pairs("full").get(name, [])
    partial = recorded_pairs("partial").get(name, [])
    file_of = {c.note.id: f for f, c in by_file.items()}
    links = [
        (file, file_of.get(old, old)) for file, c in by_file.items() for old in c.note.supersedes
    ]
    unrecorded = [p for p in links if p not in pairs]
    partial_as_full = [p for p in links if p in partial]
    kept = [
        (new, old)
        for new, old in pairs
        if new in by_file
        and old in by_file
        and by_file[old].note.id in by_file[new].note.supersedes
    ]
    result = {
        "repository": name,
        "split": repository["split"],
        "adrs": len(adrs),
        "withdrawn": len(withdrawn_files),
        "withdrawn_made_notes": len([n for n in withdrawn_files if n in by_file]),
        "held": len(held),
        "notes": len(made),
        "candidates": len(plan.candidates),
        "passing": len(passing),
        "full_supersessions": len(pairs),
        "kept": len(kept),
        "supersedes_made": len(links),
        "supersedes_unrecorded": len(unrecorded),
        "partial_made_full": len(partial_as_full),
        "untagged": sum(1 for c in plan.candidates if not c.note.tags),
        "errors_by_rule": dict(Counter(f.rule for c in plan.candidates for f in c.errors)),
        "skipped_by_reason": dict(Counter(r.split(":", 1)[0] for r in skipped.values())),
        "added_tags": len(getattr(plan, "added_tags", [])),
        "seconds": round(elapsed, 2),
    }
    if show:
        print(f"## {name} ({repository['split']})")
        for file in held:
            if file not in by_file:
                print(f"  not a note: {file}: {skipped.get(file, '(not seen by the import)')}")
        for candidate in plan.candidates:
            for finding in candidate.errors:
                print(f"  error: {candidate.draft.source}: {finding.rule} {finding.message}")
        for new, old in pairs:
            if (new, old) not in kept:
                print(f"  supersession lost: {new} -> {old}")
                for file in (new, old):
                    if file in by_file:
                        draft = by_file[file].draft
                        print(f"    {file}: supersedes {list(by_file[file].note.supersedes)}")
                        for note in draft.unmapped:
                            print(f"      · {note}")
                    else:
                        print(f"    {file}: not a note ({skipped.get(file, '?')})")
        for new, old in unrecorded:
            print(f"  supersedes, not recorded as full: {new} -> {old}")
        for candidate in plan.candidates:
            note = candidate.note
            print(f"  tags: {candidate.draft.source}: {note.title!r} {list(note.tags)}")
    return result


def ratio(part: int, whole: int) -> float | None:
    return round(part / whole, 3) if whole else None


def summarise(results: list[dict[str, Any]]) -> dict[str, Any]:
    total = Counter[str]()
    for r in results:
        for key in ("adrs", "withdrawn", "held", "notes", "candidates", "passing",
                    "full_supersessions", "kept", "supersedes_made", "supersedes_unrecorded",
                    "partial_made_full", "untagged", "added_tags"):  # fmt: skip
            total[key] += r[key]
    return {
        **dict(total),
        "notes_ratio": ratio(total["notes"], total["held"]),
        "pass_ratio": ratio(total["passing"], total["candidates"]),
        "supersessions_ratio": ratio(total["kept"], total["full_supersessions"]),
        "errors_by_rule": dict(
            sum((Counter(r["errors_by_rule"]) for r in results), Counter()).most_common()
        ),
    }


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--mirrors", type=Path, default=os.environ.get("LORE_ADR_MIRRORS"))
    parser.add_argument("--split", help="one split only (default: every split of the manifest)")
    parser.add_argument("--only", help="one repository only (owner/name)")
    parser.add_argument("--show", action="store_true", help="print what fell short, and why")
    parser.add_argument("--record", metavar="NAME", help="keep the figures in results.json")
    args = parser.parse_args()
    if args.mirrors is None:
        parser.error("give --mirrors DIR or set LORE_ADR_MIRRORS")
    results = []
    with tempfile.TemporaryDirectory() as scratch:
        os.environ["LORE_HOME"] = str(Path(scratch) / "lore-home")
        os.environ.setdefault("LORE_TODAY", "2026-12-01")
        for repository in repositories(args.split):
            if args.only and repository["name"] != args.only:
                continue
            snapshot = Path(args.mirrors) / repository["name"].replace("/", "+") / "repo"
            if not snapshot.exists():
                print(f"skipped {repository['name']}: no snapshot at {snapshot}", file=sys.stderr)
                continue
            results.append(measure(repository, snapshot, Path(scratch), args.show))
    if not results:
        print("No snapshot was found: nothing measured.", file=sys.stderr)
        return 0
    print(f"{'repository':<56} {'ADRs':>5} {'notes':>5} {'pass':>9} {'full kept':>9}")
    for r in results:
        print(
            f"{r['repository']:<56} {r['held']:>5} {r['notes']:>5} "
            f"{r['passing']:>4}/{r['candidates']:<4} {r['kept']:>4}/{r['full_supersessions']:<4}"
        )
    summary = summarise(results)
    print(json.dumps({k: v for k, v in summary.items() if k != "errors_by_rule"}))
    print("errors by rule:", summary["errors_by_rule"])
    if args.record:
        recorded = json.loads(RESULTS.read_text(encoding="utf-8")) if RESULTS.exists() else {}
        recorded[args.record] = {
            "command": "python eval/imports/run_adr_import_eval.py --mirrors DIR"
            + (f" --split {args.split}" if args.split else "")
            + f" --record {args.record}",
            "summary": summary,
            "repositories": results,
        }
        RESULTS.write_text(json.dumps(recorded, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
