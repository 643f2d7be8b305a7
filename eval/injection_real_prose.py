"""How often the `injection/` warnings fire on real prose: public ADRs, the eval vault,
the curator's good fixtures.

    python eval/injection_real_prose.py MIRROR_DIR [--out eval/injection/results.json]

MIRROR_DIR holds local bare clones named `owner+name/repo` (the repositories, commits
and licences are in eval/injection/manifest.toml). A repository that is not there is
skipped, and with none of them the real-ADR part is skipped cleanly. Nothing is copied
from the repositories: the script reads each ADR from git, runs the rule helpers on it
in memory and counts. Counted per document:

- `link-domain` under the old github.com-only allow-list (`strict`) and under the
  default (only links that can carry data out or hide where they lead), with the
  reason of each default warning;
- `encoded-blob`, `mixed-script`, and the instruction rules in prose and in code.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from lore.curator.rules.instructions import scan  # noqa: E402
from lore.curator.rules.link_risk import link_warnings, located_links  # noqa: E402

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

MANIFEST = ROOT / "eval" / "injection" / "manifest.toml"
ADR_PATH = re.compile(r"(?:^|/)(?:adrs?|decisions?|architecture-decisions?)/", re.IGNORECASE)
NOT_AN_ADR = re.compile(r"(?:^|/)(?:readme|index|template|toc)[^/]*\.md$", re.IGNORECASE)


def _git(git_dir: Path, *args: str) -> bytes:
    return subprocess.run(
        ["git", f"--git-dir={git_dir}", *args], capture_output=True, check=True
    ).stdout


def adrs(git_dir: Path, commit: str) -> dict[str, str]:
    """path -> text of each ADR at `commit` (markdown under an adr/decisions folder)."""
    names = _git(git_dir, "ls-tree", "-r", "--name-only", "-z", commit).split(b"\0")
    found: dict[str, str] = {}
    for raw in names:
        path = raw.decode("utf-8", "replace")
        if path.endswith(".md") and ADR_PATH.search(path) and not NOT_AN_ADR.search(path):
            text = _git(git_dir, "show", f"{commit}:{path}").decode("utf-8", "replace")
            found[path] = text
    return found


def _reason(message: str) -> str:
    for key in (
        "plain", "raw address", "shortener", "query", "path segment", "link text names",
        "before '@'", "internationalised", "runs or embeds",
    ):  # fmt: skip
        if key in message:
            return key
    return "other"


def measure(documents: dict[str, str]) -> dict[str, Any]:
    counts: Counter[str] = Counter()
    reasons: Counter[str] = Counter()
    examples: dict[str, list[str]] = {}
    for name, text in documents.items():
        links = list(located_links(text, 1))
        strict = list(link_warnings(links, ("github.com",), strict=True))
        default = list(link_warnings(links, ("github.com",), strict=False))
        counts["documents"] += 1
        counts["link-domain strict"] += bool(strict)
        counts["link-domain default"] += bool(default)
        for _, message in default:
            reasons[_reason(message)] += 1
        for hit in scan(text, 1):
            key = hit.rule.removeprefix("injection/") + (" (in code)" if hit.in_code else "")
            counts[key] += 1
            examples.setdefault(key, []).append(f"{name}:{hit.line}")
    return {
        "counts": dict(sorted(counts.items())),
        "default_link_reasons": dict(sorted(reasons.items())),
        "hits": {key: value[:10] for key, value in sorted(examples.items())},
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("mirrors", type=Path, nargs="?", help="folder of owner+name/repo clones")
    parser.add_argument("--out", type=Path, help="write the figures as JSON here")
    args = parser.parse_args()
    manifest = tomllib.loads(MANIFEST.read_text(encoding="utf-8"))
    results: dict[str, Any] = {}
    real: dict[str, str] = {}
    used = []
    for entry in manifest["repository"]:
        git_dir = args.mirrors / entry["name"].replace("/", "+") / "repo" if args.mirrors else None
        if git_dir is None or not git_dir.is_dir():
            continue
        try:
            found = adrs(git_dir, entry["commit"])
        except subprocess.CalledProcessError:
            continue
        used.append(entry["name"])
        real.update({f"{entry['name']}/{path}": text for path, text in found.items()})
    if real:
        results["real_adrs"] = {"repositories": used, **measure(real)}
    else:
        print("no ADR clones found: the real-ADR part is skipped", file=sys.stderr)
    vault = {
        p.name: p.read_text(encoding="utf-8") for p in (ROOT / "eval/vault/notes").glob("*.md")
    }
    results["eval_vault"] = measure(vault)
    good = ROOT / "tests/curator/fixtures/good"
    results["curator_good_fixtures"] = measure(
        {p.name: p.read_text(encoding="utf-8") for p in good.glob("*.md")}
    )
    text = json.dumps(results, indent=2, ensure_ascii=False) + "\n"
    if args.out:
        args.out.write_text(text, encoding="utf-8")
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
