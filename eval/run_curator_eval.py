"""The curator's judgement on a judged public set: precision and recall of its warnings.

    python eval/run_curator_eval.py          # a table; figures in eval/curator/results.json
    python eval/run_curator_eval.py --json   # the figures as JSON
    python eval/run_curator_eval.py --show   # every pair with its verdict and score

Each labelled pair (eval/curator/pairs.toml) is judged with the library's own
verdict (`lore.curator.judgement.verdict.judge`), the function the `duplicate/near`
and `contradiction/` rules call for each candidate pair, with the default
`near_duplicate_threshold` and an IDF computed from the notes of eval/vault plus every
note of the set as the curator computes it from the vault it checks: from an index of
them (`lore.curator.context.vault_index.idf_of`). The new note
of a pair is the one under review.

A pair counts as flagged for duplicates when the verdict is a near duplicate, and for
contradictions when it holds a conflict. Precision = flagged pairs with that label /
flagged pairs; recall = flagged pairs with that label / pairs with that label.
Figures are given for the whole set and for its `tune` and `held-out` parts.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

from lore.curator.context.vault_index import idf_of  # noqa: E402
from lore.curator.judgement.notes import profile  # noqa: E402
from lore.curator.judgement.verdict import judge  # noqa: E402
from lore.note.parse import parse_note  # noqa: E402
from lore.text.clauses import claims  # noqa: E402
from lore.vault.settings import section_values  # noqa: E402

PAIRS = HERE / "curator" / "pairs.toml"
RESULTS = HERE / "curator" / "results.json"
NOTES = HERE / "vault" / "notes"
LABELS = ("duplicate", "contradiction", "distinct")
TARGETS = {"precision": 0.90, "recall": 0.80}
SPLITS = ("tune", "held-out", "held-out-2")


@dataclass(frozen=True)
class PairNote:
    """An inline note of the set, with the fields the judgement reads."""

    id: str
    title: str | None
    body: str
    tags: tuple[str, ...] = ()
    repo: tuple[str, ...] = ()
    services: tuple[str, ...] = ()
    files_touched: tuple[str, ...] = ()
    source: str | None = None
    supersedes: tuple[str, ...] = field(default=())


def _as_tuple(value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    return (value,) if isinstance(value, str) else tuple(value)


def load_vault() -> dict[str, Any]:
    return {
        path.stem: parse_note(path.read_bytes(), f"notes/{path.name}")
        for path in sorted(NOTES.glob("*.md"))
    }


def note_of(value: Any, fallback_id: str, vault: dict[str, Any]) -> Any:
    if isinstance(value, str):
        return vault[value]
    return PairNote(
        id=value.get("id", fallback_id),
        title=value.get("title"),
        body=value["body"],
        tags=_as_tuple(value.get("tags")),
        repo=_as_tuple(value.get("repo")),
        services=_as_tuple(value.get("services")),
        files_touched=_as_tuple(value.get("files_touched")),
    )


def load_pairs() -> list[dict[str, Any]]:
    data = tomllib.loads(PAIRS.read_text(encoding="utf-8"))
    return list(data["pair"])


def _scores(flags: list[tuple[bool, bool]]) -> dict[str, Any]:
    """precision/recall from (flagged, labelled) per pair."""
    flagged = sum(1 for f, _ in flags if f)
    labelled = sum(1 for _, lab in flags if lab)
    hits = sum(1 for f, lab in flags if f and lab)
    return {
        "labelled": labelled,
        "flagged": flagged,
        "correct": hits,
        "precision": round(hits / flagged, 3) if flagged else None,
        "recall": round(hits / labelled, 3) if labelled else None,
    }


def evaluate(threshold: float | None = None) -> dict[str, Any]:
    vault = load_vault()
    pairs = load_pairs()
    if threshold is None:
        threshold = float(section_values({}, "curator")["near_duplicate_threshold"])
    judged: list[tuple[dict[str, Any], Any, Any]] = []
    documents: dict[str, Any] = dict(vault)
    for pair in pairs:
        existing = note_of(pair["existing"], f"{pair['id']}--existing", vault)
        new = note_of(pair["new"], f"{pair['id']}--new", vault)
        documents[existing.id] = existing
        documents[new.id] = new
        judged.append((pair, existing, new))
    profiles = {nid: profile(note) for nid, note in documents.items()}
    idf = idf_of(documents.values())
    rows = []
    for pair, existing, new in judged:
        verdict = judge(
            profiles[new.id],
            partial(claims, new),
            profiles[existing.id],
            partial(claims, existing),
            idf,
            threshold,
        )
        conflict = verdict.conflict
        rows.append(
            {
                "id": pair["id"],
                "label": pair["label"],
                "kind": pair["kind"],
                "split": pair["split"],
                "likeness": round(verdict.likeness.score, 3),
                "duplicate": verdict.near_duplicate,
                "contradiction": conflict is not None,
                "conflict": None
                if conflict is None
                else {
                    "kind": conflict.kind,
                    "new": conflict.mine,
                    "existing": conflict.theirs,
                    "detail": conflict.detail,
                },
            }
        )
    summary: dict[str, Any] = {}
    for split in ("all", *SPLITS):
        chosen = [row for row in rows if split == "all" or row["split"] == split]
        summary[split] = {
            "pairs": len(chosen),
            "duplicate": _scores([(r["duplicate"], r["label"] == "duplicate") for r in chosen]),
            "contradiction": _scores(
                [(r["contradiction"], r["label"] == "contradiction") for r in chosen]
            ),
        }
    return {
        "version": 1,
        "threshold": threshold,
        "pairs": len(rows),
        "labels": dict(Counter(row["label"] for row in rows)),
        "summary": summary,
        "targets": TARGETS,
        "rows": rows,
    }


def _show(rows: list[dict[str, Any]]) -> None:
    for row in rows:
        said = (
            "contradiction"
            if row["contradiction"]
            else ("duplicate" if row["duplicate"] else "distinct")
        )
        mark = "  " if said == row["label"] else "XX"
        detail = row["conflict"]["detail"] if row["conflict"] else ""
        print(f"{mark} {row['likeness']:.2f} {row['label']:13} {said:13} {row['id']} {detail}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--show", action="store_true", help="print every pair's verdict")
    parser.add_argument("--threshold", type=float, help="override near_duplicate_threshold")
    args = parser.parse_args()
    results = evaluate(args.threshold)
    if args.threshold is None:
        RESULTS.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    if args.json:
        print(json.dumps(results, indent=1))
        return
    if args.show:
        _show(results["rows"])
    print(f"{results['pairs']} pairs {results['labels']}, threshold {results['threshold']}")
    print("| part | warning | pairs labelled | flagged | precision | recall |")
    print("|---|---|---|---|---|---|")
    for split, figures in results["summary"].items():
        if not figures["pairs"]:
            continue
        for warning in ("duplicate", "contradiction"):
            found = figures[warning]
            print(
                f"| {split} | {warning} | {found['labelled']} | {found['flagged']} | "
                f"{found['precision']} | {found['recall']} |"
            )


if __name__ == "__main__":
    main()
