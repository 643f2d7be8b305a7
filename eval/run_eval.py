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

Small vaults: the same judged queries are also asked of vaults of 3, 5, 10 and 20
notes drawn from the fixture (seeded): one of the query's answers, the notes that
share the most words with the query, and random others, as a young team's vault
would hold. Each is indexed in memory with the same schema and settings and asked
through `recall_in_index`. Besides nDCG@10 and MRR@10, `zero_score` is the share of
these vaults in which the answer was found with a score that shows as 0.000.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
from collections import defaultdict
from datetime import date
from pathlib import Path
from typing import Any

os.environ["LORE_TODAY"] = "2026-11-30"
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))

from lore.index.build import index_in_memory  # noqa: E402
from lore.note.model import Note  # noqa: E402
from lore.note.parse import parse_note  # noqa: E402
from lore.note.status import Links, compute_status  # noqa: E402
from lore.recall.engine import recall, recall_in_index  # noqa: E402
from lore.recall.model import RecallRequest  # noqa: E402
from lore.taxonomy import parse_taxonomy  # noqa: E402

K = 10
SMALL_SIZES = (3, 5, 10, 20)
SMALL_SAMPLES = 5  # vaults per query and size
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


def _words(note: Note) -> set[str]:
    text = " ".join([note.title, " ".join(note.tags), note.body, " ".join(note.files_touched)])
    return {w.lower() for w in _WORD.findall(text)}


def small_vault_scores(root: Path, queries: list[dict[str, Any]]) -> dict[str, Any]:
    """nDCG@10, MRR@10 and the share of zero scores in small vaults drawn from the fixture."""
    today = os.environ["LORE_TODAY"]
    notes = {}
    for path in sorted((root / "notes").glob("*.md")):
        note = parse_note(path.read_bytes(), f"notes/{path.name}")
        notes[note.id] = note
    statuses = compute_status(
        (Links(n.id, n.supersedes, n.depends_on, n.expires) for n in notes.values()), today
    )
    # Active notes that stay active on their own (no `depends_on` to leave behind).
    usable = sorted(nid for nid, n in notes.items() if nid not in statuses and not n.depends_on)
    words = {nid: _words(notes[nid]) for nid in usable}
    aliases = parse_taxonomy((root / "_taxonomy.md").read_text(encoding="utf-8")).alias_map()
    rng = random.Random(11)
    by_size: dict[str, list[tuple[float, float, float]]] = defaultdict(list)
    for query in queries:
        answers = [nid for nid, grade in query["relevant"].items() if grade >= 2 and nid in words]
        if not answers:
            continue
        asked = {w.lower() for w in _WORD.findall(query["query"])}
        overlap = sorted(usable, key=lambda nid: (-len(asked & words[nid]), nid))
        for size in SMALL_SIZES:
            for _ in range(SMALL_SAMPLES):
                answer = rng.choice(answers)
                near = [nid for nid in overlap[: 4 * size] if nid != answer]
                picked = rng.sample(near, min(len(near), size // 2))
                rest = [nid for nid in usable if nid != answer and nid not in picked]
                picked += rng.sample(rest, size - 1 - len(picked))
                vault = [notes[nid] for nid in [answer, *picked]]
                conn = index_in_memory(vault, aliases=aliases, today=today)
                request = RecallRequest(query=query["query"], repo=query.get("repo"), limit=K)
                hits = recall_in_index(conn, request, today=date.fromisoformat(today)).hits
                conn.close()
                ranked = [hit.id for hit in hits]
                judged = {nid: g for nid, g in query["relevant"].items() if nid in ranked}
                judged[answer] = query["relevant"][answer]
                zero = any(h.id == answer and round(h.score, 3) == 0 for h in hits)
                pair = (ndcg(ranked, judged), reciprocal_rank(ranked, judged), float(zero))
                by_size[str(size)].append(pair)
    return {
        size: {
            "vaults": len(rows),
            "ndcg@10": round(sum(r[0] for r in rows) / len(rows), 4),
            "mrr@10": round(sum(r[1] for r in rows) / len(rows), 4),
            "zero_score": round(sum(r[2] for r in rows) / len(rows), 4),
        }
        for size, rows in by_size.items()
    }


def evaluate() -> dict[str, Any]:
    queries = load_queries()
    with tempfile.TemporaryDirectory(prefix="lore-eval-") as tmp:
        root = make_vault(Path(tmp))
        lore = score(lore_rankings(root, queries), queries)
        baseline = score(baseline_rankings(root, queries), queries)
        small = small_vault_scores(root, queries)
        notes = len(list((root / "notes").glob("*.md")))
    return {
        "version": 1,
        "today": os.environ["LORE_TODAY"],
        "notes": notes,
        "queries": len(queries),
        "lore": lore,
        "baseline": baseline,
        "small_vaults": small,
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
    print(f"\nsmall vaults ({SMALL_SAMPLES} per query and size, drawn from the fixture)\n")
    print(f"{'notes':<8}{'vaults':>7}  {'nDCG@10':>8}{'MRR@10':>8}  {'answer scored 0.000':>20}")
    for size, row in results["small_vaults"].items():
        print(
            f"{size:<8}{row['vaults']:>7}  {row['ndcg@10']:>8.3f}{row['mrr@10']:>8.3f}  "
            f"{row['zero_score']:>20.1%}"
        )


if __name__ == "__main__":
    main()
