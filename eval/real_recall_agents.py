"""The real-recall eval's agent-query mode: queries written blind, scored side by side.

    python eval/run_real_recall_eval.py --mirrors DIR --write-material FILE
    python eval/run_real_recall_eval.py --mirrors DIR --agent-queries ANSWERS
    python eval/run_real_recall_eval.py --mirrors DIR --agent-queries ANSWERS \\
        --record NAME --written-by "how the queries were written"

lore's thesis is that the agent is the retrieval engine: it writes the query. So this
mode asks how well recall does on queries an agent writes, not on sentences it was
handed. The prompts are known-item prompts over the eval's one vault of real ADRs:

- `consequence`: the first prose sentence of each ADR's Consequences, which the note
  made of it does not hold (`lore import adr` keeps the decision and its context, and
  whatever it keeps of the Consequences is taken out of the note the eval indexes:
  `real_recall_prompts.without_consequences`), the answer being that ADR;
- `citation`: the eval's citation-context sentences (one ADR referring to another,
  the reference taken out), the answer being the ADR referred to.

Nobody who has seen the notes may write the queries. `--write-material FILE` writes
exactly what the blind writer sees — the task, the `lore-recall` skill as shipped, and
each prompt under an opaque id — and nothing else (no note, title or id of the vault).
The writer answers with one JSON object per line, `{"id", "query", "or": [...]}`: the
words they would give `lore recall`, and up to three `--or` phrasings. The material
quotes the ADRs, so it is written outside the repository and never committed; the
answers are the writer's own words and are committed with the figures
(eval/real_recall/agent-queries/NAME.jsonl). A prompt's id is a hash of its kind and
its ADRs' `real_recall_prompts.prompt_key`s, so it stays while the ADRs are notes; an
answer to a prompt a later build no longer makes is counted and left out.

`--agent-queries ANSWERS` scores them. Each answered prompt is asked as an agent
outside any repository asks (no `--repo`; every note is a decision), seven ways:

- `raw`: the prompt sentence itself, as recall is asked today;
- `one`: the writer's query alone;
- `fused`: the query and its `--or` phrasings, fused (`lore recall Q --or A …`);
- `raw+fused`: the sentence, the query and the phrasings, fused;
- `baseline raw`, `baseline one`, `baseline fused`: the idf-overlap baseline on the
  same texts (below), fused the same way (reciprocal rank, k = 60, each ranking read
  20 deep).

The idf-overlap baseline scores a note by the sum of the idf, ln(N / df), of the
distinct query words its title and body hold (words as the index splits and folds
them, recall's stop words dropped, the index's Porter stem on both sides:
`lore.text.words`; runs before 2026-12-05 used a light suffix stem and a shorter stop
list): no BM25, no field
weights, no boosts. It is what a plain word-overlap search gives the same queries.
The figures are hit@1, hit@3, hit@10 and MRR@10 of the one answer, by kind of prompt
and over all. The targets (issue 30): `fused` beats `raw` by at least 0.08 MRR@10 and
`baseline fused` by at least 0.05.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import sqlite3
import statistics
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lore.recall.engine import recall
from lore.recall.fusion import RRF_K, depth
from lore.recall.model import RecallRequest
from lore.text.words import QUERY_STOP_WORDS, index_tokens, stem

HERE = Path(__file__).resolve().parent
SKILL = HERE.parent / "src" / "lore" / "integrations" / "skills" / "lore-recall" / "SKILL.md"
ANSWERS_DIR = HERE / "real_recall" / "agent-queries"
K = 10
MAX_OTHER = 3  # `--or` phrasings a writer may give, as `lore recall` takes
WAYS = ("raw", "one", "fused", "raw+fused", "baseline raw", "baseline one", "baseline fused")
TARGETS = {"fused over raw": 0.08, "fused over baseline fused": 0.05}
_PROMPT_ID = re.compile(r"^p-[0-9a-f]{8}$")

TASK = """\
# Finding a team decision with `lore recall` (blind query writing)

You are a coding agent working for a team that keeps its architecture decisions as notes
in a lore vault. The `lore-recall` skill below is how you search it.

Each prompt further down is one sentence about one of the team's recorded decisions: it
may say what the decision led to, or refer to it from somewhere else. Somewhere in the
vault is that decision's note, and you want to find it. For each prompt, write the
`lore recall` call you would make, following the skill:

- `query`: the words you would give `lore recall` (what comes after `lore recall`);
- `or`: zero to three other phrasings you would give with `--or`.

Do not use `--type`, `--tag`, `--repo` or `--since`: every note here is a decision
record, and you do not know which repository it belongs to. Write each prompt's call
from that prompt and the skill alone.

Answer with one JSON object per line, in any order, one line per prompt:

    {"id": "p-0a1b2c3d", "query": "words for lore recall", "or": ["other words", "more words"]}

## The skill

"""


@dataclass
class Prompt:
    """A prompt the writer sees, and what it is scored against."""

    id: str
    kind: str  # "consequence" or "citation"
    text: str
    answer: str  # the note id it should find
    citing: str = ""  # a citation's citing note, left out of the answers


@dataclass
class Answer:
    """One line of the writer's answers."""

    id: str
    query: str
    also: list[str] = field(default_factory=list)


class AnswersError(ValueError):
    """An answers file that cannot be read: one sentence naming the file and the line."""


def prompts(citations: list[Any], consequences: list[Any]) -> list[Prompt]:
    """Every prompt, with an id that names neither the note nor the repository: eight hex
    digits of a hash of its kind and its two ADRs (`Query.key`: each ADR's
    `real_recall_prompts.prompt_key`, the citing one empty for a consequence)."""
    made = []
    for kind, found in (("consequence", consequences), ("citation", citations)):
        for query in found:
            digest = hashlib.sha256(f"{kind}|{query.key}".encode()).hexdigest()[:8]
            made.append(Prompt(f"p-{digest}", kind, query.text, query.answer, query.citing))
    assert len({prompt.id for prompt in made}) == len(made), "two prompts share an id"
    return sorted(made, key=lambda prompt: prompt.id)


def material(all_prompts: list[Prompt], skill: str) -> str:
    """Exactly what the blind writer sees: the task, the skill, and each prompt by id."""
    lines = [TASK + skill.rstrip() + "\n", f"## The prompts ({len(all_prompts)})\n"]
    for prompt in all_prompts:
        lines.append(f"- `{prompt.id}`: {prompt.text}")
    return "\n".join(lines) + "\n"


def read_answers(path: Path, known: set[str], gone: list[str] | None = None) -> dict[str, Answer]:
    """The writer's answers by prompt id; `AnswersError` names the line of a bad one.

    An answer to a prompt not in `known` is refused, unless `gone` is given: then a
    well-formed answer to a prompt id this build no longer makes (written for an earlier
    build of the prompts) is added to `gone` and left out."""
    answers: dict[str, Answer] = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{path.name}, line {number}"
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            raise AnswersError(f"{where} is not JSON ({exc.msg}).") from None
        if not isinstance(data, dict):
            raise AnswersError(f'{where} is not an object like {{"id", "query", "or"}}.')
        prompt_id, query, also = data.get("id"), data.get("query"), data.get("or", [])
        if prompt_id not in known and (
            gone is None or not isinstance(prompt_id, str) or not _PROMPT_ID.match(prompt_id)
        ):
            raise AnswersError(f"{where} answers no prompt of the material: {prompt_id!r}.")
        if prompt_id in answers or (gone and prompt_id in gone):
            raise AnswersError(f"{where} answers {prompt_id} a second time.")
        if not isinstance(query, str) or not query.split():
            raise AnswersError(f"{where}: query must be words for lore recall.")
        if isinstance(also, str):
            also = [also]
        if (
            not isinstance(also, list)
            or len(also) > MAX_OTHER
            or not all(isinstance(a, str) and a.split() for a in also)
        ):
            raise AnswersError(f"{where}: or must be a list of at most {MAX_OTHER} phrasings.")
        if prompt_id not in known:
            assert gone is not None
            gone.append(prompt_id)
            continue
        answers[prompt_id] = Answer(
            prompt_id, " ".join(query.split()), [" ".join(a.split()) for a in also]
        )
    return answers


class Baseline:
    """The idf-overlap baseline over the index's notes (see the module docstring)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.words: dict[str, set[str]] = {
            note_id: _words(f"{title}\n{body}")
            for note_id, title, body in conn.execute("SELECT id, title, body FROM notes")
        }
        counts = Counter(word for found in self.words.values() for word in found)
        total = len(self.words)
        self.idf = {word: math.log(total / n) for word, n in counts.items()}

    def rank(self, text: str, deep: int) -> list[str]:
        asked = _words(text)
        scores = {
            note_id: sum(self.idf[word] for word in asked & found)
            for note_id, found in self.words.items()
            if asked & found
        }
        return sorted(scores, key=lambda note_id: (-scores[note_id], note_id))[:deep]

    def fused(self, texts: list[str], deep: int) -> list[str]:
        return rrf([self.rank(text, depth(deep)) for text in texts])[:deep]


def _words(text: str) -> set[str]:
    return {stem(w) for w in index_tokens(text) if len(w) > 1 and w not in QUERY_STOP_WORDS}


def rrf(rankings: list[list[str]]) -> list[str]:
    """Reciprocal rank fusion of rankings of note ids (k = `RRF_K`), best first."""
    scores: dict[str, float] = {}
    for ranking in rankings:
        for position, note_id in enumerate(ranking, start=1):
            scores[note_id] = scores.get(note_id, 0.0) + 1.0 / (RRF_K + position)
    return sorted(scores, key=lambda note_id: (-scores[note_id], note_id))


def rank_of(found: list[str], prompt: Prompt) -> int | None:
    """The answer's rank among the first K (the citing note left out), or None."""
    ranked = [note_id for note_id in found if note_id != prompt.citing][:K]
    return ranked.index(prompt.answer) + 1 if prompt.answer in ranked else None


def ask(
    root: Path, conn: sqlite3.Connection, asked: list[tuple[Prompt, Answer]]
) -> dict[str, list[int | None]]:
    """Each answered prompt's rank of its answer, each of the `WAYS`."""
    baseline = Baseline(conn)
    ranks: dict[str, list[int | None]] = {way: [] for way in WAYS}

    def lore(texts: list[str]) -> list[str]:
        request = RecallRequest(texts[0], also=tuple(texts[1:]), limit=K + 1)
        return [hit.id for hit in recall(root, request).hits]

    for prompt, answer in asked:
        phrasings = [answer.query, *answer.also]
        found = {
            "raw": lore([prompt.text]),
            "one": lore([answer.query]),
            "fused": lore(phrasings),
            "raw+fused": lore([prompt.text, *phrasings]),
            "baseline raw": baseline.rank(prompt.text, K + 1),
            "baseline one": baseline.rank(answer.query, K + 1),
            "baseline fused": baseline.fused(phrasings, K + 1),
        }
        for way in WAYS:
            ranks[way].append(rank_of(found[way], prompt))
    return ranks


def figures(ranks: list[int | None]) -> dict[str, float]:
    def hit(k: int) -> float:
        return round(sum(1 for r in ranks if r is not None and r <= k) / len(ranks), 3)

    mrr = statistics.fmean(1 / r if r else 0.0 for r in ranks)
    return {"hit@1": hit(1), "hit@3": hit(3), "hit@10": hit(10), "mrr@10": round(mrr, 3)}


def report(
    asked: list[tuple[Prompt, Answer]], ranks: dict[str, list[int | None]]
) -> dict[str, Any]:
    """Figures by kind of prompt and over all, and the targets' margins."""
    parts: dict[str, Any] = {}
    for kind in ("all", "consequence", "citation"):
        chosen = [i for i, (prompt, _) in enumerate(asked) if kind in ("all", prompt.kind)]
        if chosen:
            parts[kind] = {
                "prompts": len(chosen),
                **{way: figures([ranks[way][i] for i in chosen]) for way in WAYS},
            }
    every = parts["all"]
    margins = {
        "fused over raw": round(every["fused"]["mrr@10"] - every["raw"]["mrr@10"], 3),
        "fused over baseline fused": round(
            every["fused"]["mrr@10"] - every["baseline fused"]["mrr@10"], 3
        ),
    }
    phrasings = Counter(1 + len(answer.also) for _, answer in asked)
    return {
        **parts,
        "phrasings_per_answer": {str(n): count for n, count in sorted(phrasings.items())},
        "margins": margins,
        "targets": TARGETS,
        "targets_met": all(margins[name] >= bar for name, bar in TARGETS.items()),
    }


def print_report(results: dict[str, Any]) -> None:
    print(
        f"{results['answered']} of the {results['prompts']} prompts answered and scored"
        + (
            f"; {results['answers_to_gone_prompts']} answers name prompts this build no "
            "longer makes (left out)"
            if results.get("answers_to_gone_prompts")
            else ""
        )
    )
    print("| prompts | asked as | hit@1 | hit@3 | hit@10 | MRR@10 |")
    print("|---|---|---|---|---|---|")
    for kind in ("all", "consequence", "citation"):
        part = results.get(kind)
        if not part:
            continue
        for way in WAYS:
            f = part[way]
            print(
                f"| {kind} ({part['prompts']}) | {way} | {f['hit@1']} | {f['hit@3']} "
                f"| {f['hit@10']} | {f['mrr@10']} |"
            )
    for name, margin in results["margins"].items():
        print(f"{name}: {margin:+.3f} MRR@10 (target {TARGETS[name]:+.2f})")
