"""Retrieval eval: nDCG@10 and MRR@10 of `lore recall` on the judged fixture vault.

    python eval/run_eval.py            # table on stdout, figures in eval/results.json
    python eval/run_eval.py --json     # the figures as JSON

The fixture vault (eval/vault) is copied into a temporary folder and committed as a
real git repository; each judged query (eval/queries.json) is asked through the
same library call as `lore recall` (with the query's `repo` as the current
repository), and compared with a plain term-overlap baseline: notes ranked by how
many of the query's words they contain, with no stemming, weights, aliases, boosts
or knowledge of superseded and expired notes.

Metrics: nDCG@10 with gains 2^grade - 1 (grade 2 = the answer, 1 = useful);
MRR@10 = 1 / rank of the first grade-2 note (0 when it is not in the top 10).
Today is pinned to 2026-11-30, the date the judgments were made.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

os.environ["LORE_TODAY"] = "2026-11-30"
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))

from lore.note.parse import parse_note  # noqa: E402
from lore.recall.engine import recall  # noqa: E402
from lore.recall.model import RecallRequest  # noqa: E402

K = 10
_WORD = re.compile(r"[^\W_]+", re.UNICODE)


def load_queries() -> list[dict[str, Any]]:
    data = json.loads((HERE / "queries.json").read_text(encoding="utf-8"))
    return list(data["queries"])


def make_vault(dest: Path) -> Path:
    root = dest / "vault"
    shutil.copytree(HERE / "vault", root)
    identity = [
        "-c",
        "user.name=eval",
        "-c",
        "user.email=eval@example.invalid",
        "-c",
        "commit.gpgsign=false",
    ]
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "eval vault"]):
        subprocess.run(["git", *identity, *args], cwd=root, check=True, capture_output=True)
    return root


def dcg(grades: list[int]) -> float:
    return sum((2**g - 1) / math.log2(i + 2) for i, g in enumerate(grades[:K]))


def ndcg(ranked: list[str], judged: dict[str, int]) -> float:
    ideal = dcg(sorted(judged.values(), reverse=True))
    return dcg([judged.get(i, 0) for i in ranked]) / ideal if ideal else 0.0


def reciprocal_rank(ranked: list[str], judged: dict[str, int]) -> float:
    for position, note_id in enumerate(ranked[:K], start=1):
        if judged.get(note_id, 0) >= 2:
            return 1.0 / position
    return 0.0


def lore_rankings(root: Path, queries: list[dict[str, Any]]) -> dict[str, list[str]]:
    result = {}
    for query in queries:
        found = recall(root, RecallRequest(query=query["query"], repo=query.get("repo"), limit=K))
        assert found.engine == "fts5", found.notices
        result[query["id"]] = [hit.id for hit in found.hits]
    return result


def baseline_rankings(root: Path, queries: list[dict[str, Any]]) -> dict[str, list[str]]:
    notes = {}
    for path in sorted((root / "notes").glob("*.md")):
        note = parse_note(path.read_bytes(), f"notes/{path.name}")
        text = " ".join([note.title, " ".join(note.tags), note.body, " ".join(note.files_touched)])
        notes[note.id] = {w.lower() for w in _WORD.findall(text)}
    result = {}
    for query in queries:
        words = {w.lower() for w in _WORD.findall(query["query"])}
        scored = [(len(words & vocab), note_id) for note_id, vocab in notes.items()]
        scored = [s for s in scored if s[0] > 0]
        scored.sort(key=lambda s: (-s[0], s[1]))
        result[query["id"]] = [note_id for _, note_id in scored[:K]]
    return result


def score(rankings: dict[str, list[str]], queries: list[dict[str, Any]]) -> dict[str, Any]:
    by_kind: dict[str, list[tuple[float, float]]] = defaultdict(list)
    per_query = {}
    for query in queries:
        ranked, judged = rankings[query["id"]], query["relevant"]
        pair = (ndcg(ranked, judged), reciprocal_rank(ranked, judged))
        by_kind[query["kind"]].append(pair)
        by_kind["all"].append(pair)
        per_query[query["id"]] = {"ndcg@10": round(pair[0], 4), "rr@10": round(pair[1], 4)}
    summary = {
        kind: {
            "queries": len(pairs),
            "ndcg@10": round(sum(p[0] for p in pairs) / len(pairs), 4),
            "mrr@10": round(sum(p[1] for p in pairs) / len(pairs), 4),
        }
        for kind, pairs in sorted(by_kind.items())
    }
    return {"summary": summary, "per_query": per_query}


def evaluate() -> dict[str, Any]:
    queries = load_queries()
    with tempfile.TemporaryDirectory(prefix="lore-eval-") as tmp:
        root = make_vault(Path(tmp))
        lore = score(lore_rankings(root, queries), queries)
        baseline = score(baseline_rankings(root, queries), queries)
        notes = len(list((root / "notes").glob("*.md")))
    return {
        "version": 1,
        "today": os.environ["LORE_TODAY"],
        "notes": notes,
        "queries": len(queries),
        "lore": lore,
        "baseline": baseline,
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--no-save", action="store_true", help="do not write eval/results.json")
    args = parser.parse_args()
    results = evaluate()
    if not args.no_save:
        (HERE / "results.json").write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    if args.json:
        print(json.dumps(results, indent=2))
        return
    print(
        f"{results['queries']} judged queries over {results['notes']} notes "
        f"(today = {results['today']})\n"
    )
    print(
        f"{'kind':<12}{'n':>4}  {'lore nDCG@10':>13}{'lore MRR@10':>12}  "
        f"{'baseline nDCG@10':>17}{'baseline MRR@10':>16}"
    )
    for kind, lore in results["lore"]["summary"].items():
        base = results["baseline"]["summary"][kind]
        print(
            f"{kind:<12}{lore['queries']:>4}  {lore['ndcg@10']:>13.3f}{lore['mrr@10']:>12.3f}  "
            f"{base['ndcg@10']:>17.3f}{base['mrr@10']:>16.3f}"
        )
    misses = [q for q, v in results["lore"]["per_query"].items() if v["rr@10"] < 1]
    print(f"\nqueries whose answer is not first: {', '.join(misses) or 'none'}")


if __name__ == "__main__":
    main()
