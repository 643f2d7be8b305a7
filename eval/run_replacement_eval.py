"""The curator's replacement judgement on a small judged set that runs anywhere (CI too).

    python eval/run_replacement_eval.py          # a table; figures in eval/curator/
    python eval/run_replacement_eval.py --show   # every pair with its verdict

Each pair of eval/curator/replacements.toml (written for this project in the styles of
lore notes and of imported public ADRs) is judged with the function the rules call,
`lore.curator.judgement.verdict.judge`, with both notes' replacement cues
(`judgement.replacement.cues`) and an IDF over the notes of eval/vault plus every note
of the set, taken from an index of them as the curator takes it from a vault's. A
`replaces` pair is *flagged* when the verdict is a replacement (`lifecycle/may-supersede`)
and *warned* when it is any warning that names the old note (a duplicate or a
contradiction also suggests `supersedes`); a `distinct` pair is a false alarm when it
gets any warning. The real-ADR eval (run_real_adr_eval.py) needs snapshots; this one
does not.
"""

from __future__ import annotations

import argparse
import json
import sys
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
from lore.curator.judgement.verdict import REPLACEMENT, judge  # noqa: E402
from lore.text.clauses import claims  # noqa: E402
from lore.text.cue_sentences import cues  # noqa: E402
from lore.vault.settings import section_values  # noqa: E402
from run_curator_eval import load_vault, note_of  # noqa: E402

PAIRS = HERE / "curator" / "replacements.toml"
RESULTS = HERE / "curator" / "replacement_results.json"
TARGETS = {"recall": 0.8, "false_alarms": 0.1}


def evaluate() -> dict[str, Any]:
    vault = load_vault()
    pairs = list(tomllib.loads(PAIRS.read_text(encoding="utf-8"))["pair"])
    threshold = float(section_values({}, "curator")["near_duplicate_threshold"])
    documents: dict[str, Any] = dict(vault)
    judged = []
    for pair in pairs:
        existing = note_of(pair["existing"], f"{pair['id']}--existing", vault)
        new = note_of(pair["new"], f"{pair['id']}--new", vault)
        documents[existing.id] = existing
        documents[new.id] = new
        judged.append((pair, existing, new))
    idf = idf_of(documents.values())
    rows = []
    for pair, existing, new in judged:
        verdict = judge(
            profile(new),
            partial(claims, new),
            profile(existing),
            partial(claims, existing),
            idf,
            threshold,
            cues(new),
            cues(existing),
        )
        replaced = verdict.replacement
        rows.append(
            {
                "id": pair["id"],
                "label": pair["label"],
                "kind": pair["kind"],
                "split": pair["split"],
                "verdict": verdict.kind or None,
                "how": replaced.how if replaced is not None else None,
                "similarity": round(verdict.similarity, 3),
            }
        )
    replaces = [row for row in rows if row["label"] == "replaces"]
    distinct = [row for row in rows if row["label"] == "distinct"]
    flagged = sum(1 for row in replaces if row["verdict"] == REPLACEMENT)
    warned = sum(1 for row in replaces if row["verdict"])
    alarms = sum(1 for row in distinct if row["verdict"])
    return {
        "version": 1,
        "pairs": len(rows),
        "replaces": len(replaces),
        "distinct": len(distinct),
        "recall": round(flagged / len(replaces), 3) if replaces else None,
        "warned": round(warned / len(replaces), 3) if replaces else None,
        "false_alarms": round(alarms / len(distinct), 3) if distinct else None,
        "targets": TARGETS,
        "rows": rows,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--show", action="store_true", help="print every pair's verdict")
    args = parser.parse_args()
    results = evaluate()
    RESULTS.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    if args.show:
        for row in results["rows"]:
            wrong = (row["label"] == "replaces") != (row["verdict"] == REPLACEMENT)
            print(
                f"{'XX' if wrong else '  '} {row['similarity']:.2f} {row['label']:9} "
                f"{row['verdict'] or '-':13} {row['how'] or '':8} {row['id']}"
            )
    print(
        f"{results['pairs']} pairs: replacements flagged {results['recall']} "
        f"(any warning {results['warned']}) of {results['replaces']}; false alarms "
        f"{results['false_alarms']} of {results['distinct']}"
    )


if __name__ == "__main__":
    main()
