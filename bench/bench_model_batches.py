"""What the model review would send for each note of a vault: calls, and how big they are.

No model is called. Each note of the vault is checked as a proposal on its own (`lore
curate notes/x.md`, paths mode: judged against the rest of the vault), and the review's
own code picks the notes to ask about (`notes_to_judge`: the notes it points at, then
`max_related`, the setting's default, alike ones) and builds the one request for that
note (`build_batch`). Reported:

- calls: one per note with a candidate to ask about (before: one per candidate pair);
- the request's size: the user prompt plus the system prompt, in characters, and in
  tokens by lore's own bound (`estimated_tokens`; eval/prompt_tokens.py compares it with
  gpt-4.1-mini's tokenizer); GitHub Models takes 8,000 tokens in per request on its free
  tier
  (https://docs.github.com/en/github-models/use-github-models/prototyping-with-ai-models#rate-limits);
- how many batches had to leave a candidate out to stay under MAX_INPUT_TOKENS.

    python bench/bench_model_batches.py                 # eval/vault, every note
    python bench/bench_model_batches.py --vault PATH --limit 100

Results go to bench/results/model-batches-<vault folder name>.json.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT / "src"))

from common import save_result  # noqa: E402
from lore.curator.context.vault_index import with_vault  # noqa: E402
from lore.curator.review.pairs import (  # noqa: E402
    MAX_INPUT_TOKENS,
    SYSTEM_PROMPT,
    build_batch,
    estimated_tokens,
    side_of,
)
from lore.curator.review.semantic import notes_to_judge  # noqa: E402
from lore.curator.run import build_context  # noqa: E402
from lore.curator.target import Paths  # noqa: E402
from lore.vault.settings import section_values  # noqa: E402

MAX_RELATED = section_values({}, "curator.semantic")["max_related"]


def measure(root: Path, note: Path) -> dict[str, Any] | None:
    context = build_context(root, Paths([str(note)]), read_vault=False)

    def work(context: Any) -> dict[str, Any] | None:
        corpus, todo = notes_to_judge(context, MAX_RELATED)
        if not todo:
            return None
        (item,) = todo
        sides = [side_of(corpus.entries[index].view, ()) for index in (item.note, *item.others)]
        batch = build_batch(sides[0], sides[1:])
        return {
            "pairs": len(item.others),
            "asked": len(batch.candidates),
            "left_out": len(batch.left_out),
            "chars": len(batch.prompt) + len(SYSTEM_PROMPT),
            "tokens": estimated_tokens(batch.prompt) + estimated_tokens(SYSTEM_PROMPT),
        }

    result: dict[str, Any] | None = with_vault(context, work, use_index=False)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--vault", type=Path, default=ROOT / "eval" / "vault")
    parser.add_argument("--limit", type=int, default=0, help="the first N notes only")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch) / "vault"
        shutil.copytree(args.vault, root)
        notes = sorted((root / "notes").glob("*.md"))
        if args.limit:
            notes = notes[: args.limit]
        started = time.monotonic()
        rows = [row for row in (measure(root, note) for note in notes) if row is not None]
        seconds = time.monotonic() - started
    chars = sorted(row["chars"] for row in rows)
    summary = {
        "vault": args.vault.name,  # e.g. "vault" for eval/vault
        "notes": len(notes),
        "notes_with_candidates": len(rows),
        "calls_now_one_per_note": len(rows),
        "calls_before_one_per_pair": sum(row["pairs"] for row in rows),
        "batches_leaving_candidates_out": sum(1 for row in rows if row["left_out"]),
        "max_input_tokens": MAX_INPUT_TOKENS,
        "max_related": MAX_RELATED,
        "request_chars": {
            "median": statistics.median(chars) if chars else 0,
            "p95": chars[min(len(chars) - 1, int(len(chars) * 0.95))] if chars else 0,
            "max": chars[-1] if chars else 0,
        },
        "request_tokens_bound_max": max((row["tokens"] for row in rows), default=0),
        "seconds": round(seconds, 1),
    }
    save_result(f"model-batches-{args.vault.name}", summary)
    print(json.dumps(summary, indent=1))


if __name__ == "__main__":
    main()
