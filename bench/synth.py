"""Generate a synthetic vault of N engineering notes as a real git repository.

Notes follow DESIGN.md 2.1: a title of 5-10 words and 40-200 words of body, tags
from the default taxonomy, a repository for 60 % of notes, files_touched for 30 %,
and a few supersessions. Text is topical, as in a real vault: each note is about one
of 400 topics and draws 60 % of its words from that topic's 25 words and 40 % from
a shared engineering vocabulary with a Zipf distribution (the most common word in
about a fifth of the notes, most words rare). Queries pick a topic and ask with
2-6 of its words plus a common word. Deterministic for a given seed.

    python bench/synth.py 10000 /tmp/vault-10k
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from lore.taxonomy import parse_taxonomy  # noqa: E402
from lore.vault.seed import seed_files, write_files  # noqa: E402

BASE_WORDS = """
postgres migration index timeout retry backoff queue worker celery kafka consumer
producer partition offset lag redis cache ttl eviction key session cookie token jwt
oauth login deploy rollback canary kubernetes pod node helm terraform module state lock
plan apply docker image layer build registry tag pipeline github actions workflow runner
secret env variable config flag feature toggle rollout experiment metric dashboard alert
pager oncall incident outage latency p99 throughput error rate budget slo sli trace span
log sentry datadog billing invoice charge refund ledger reconcile batch job cron
schedule nightly export import csv parquet warehouse dbt model schema column constraint
foreign key transaction isolation deadlock vacuum analyze replica failover backup
restore snapshot search query ranking relevance analyzer tokenizer api endpoint
pagination cursor limit rate gateway nginx proxy tls certificate dns domain webhook
signature idempotency header request response status code client server sdk library
dependency upgrade version pin python typescript react component hook state render test
fixture mock integration unit e2e playwright pytest coverage flaky ci cd lint format
type check mypy ruff eslint memory leak cpu profile heap gc thread async await event
loop pool connection socket
""".split()  # noqa: SIM905 - a word list reads best as text
REPOS = [f"service-{i:02d}" for i in range(20)]


def vocabulary(rng: random.Random, size: int = 12000) -> list[str]:
    words = list(BASE_WORDS)
    random.Random(3).shuffle(words)  # engineering words first (common), invented ones after
    syllables = ["ka", "lo", "mi", "ren", "tor", "ba", "zen", "ql", "fy", "dex", "pro", "vis"]
    while len(words) < size:
        words.append("".join(rng.choice(syllables) for _ in range(rng.randint(2, 4))))
    return words


def zipf_sampler(rng: random.Random, words: list[str]):  # type: ignore[no-untyped-def]
    # Zipf from rank 30 on: the ranks above it are the stop words real text has and
    # queries drop, so the most common content word appears in about a fifth of notes.
    weights = [1.0 / (rank + 30) for rank in range(len(words))]

    def sample(count: int) -> list[str]:
        return rng.choices(words, weights=weights, k=count)

    return sample


TOPICS = 400
TOPIC_WORDS = 25


def topics(words: list[str]) -> list[list[str]]:
    rng = random.Random(5)
    return [rng.sample(words, TOPIC_WORDS) for _ in range(TOPICS)]


def make_vault(count: int, dest: Path, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    words = vocabulary(random.Random(7))
    general = zipf_sampler(rng, words)
    topic_list = topics(words)

    def sample(size: int, topic: list[str] | None = None) -> list[str]:
        if topic is None:
            return general(size)
        from_topic = sum(1 for _ in range(size) if rng.random() < 0.6)
        chosen = [*(rng.choice(topic) for _ in range(from_topic)), *general(size - from_topic)]
        rng.shuffle(chosen)
        return chosen

    files = seed_files()
    taxonomy_text = files["_taxonomy.md"].decode()
    repo_lines = "\n".join(f"- `{r}` — Synthetic repository {r}." for r in REPOS)
    files["_taxonomy.md"] = taxonomy_text.replace(
        "- `example-service` — Replace with your repositories.", repo_lines
    ).encode()
    taxonomy = parse_taxonomy(files["_taxonomy.md"].decode())
    tags = sorted(taxonomy.tags)
    types = sorted(taxonomy.types)
    dest.mkdir(parents=True, exist_ok=True)
    write_files(dest, files)
    ids: list[str] = []
    for number in range(count):
        topic = topic_list[rng.randrange(TOPICS)]
        title_words = sample(rng.randint(5, 10), topic)
        year, month, day = rng.randint(2023, 2026), rng.randint(1, 12), rng.randint(1, 28)
        note_id = (
            f"{title_words[0]}--{'-'.join(title_words[1:4])}-{number}--{year}-{month:02d}-{day:02d}"
        )
        ids.append(note_id)
        lines = [
            "---",
            f"title: {' '.join(title_words).capitalize()}",
            f"type: {rng.choice(types)}",
            f"tags: [{', '.join(rng.sample(tags, rng.randint(1, 3)))}]",
            f"confidence: {rng.choice(['high', 'high', 'medium', 'low'])}",
            f"date: {year}-{month:02d}-{day:02d}",
        ]
        if rng.random() < 0.6:
            lines.append(f"repo: {rng.choice(REPOS)}")
        if rng.random() < 0.3:
            lines.append(f"files_touched: [src/{sample(1)[0]}/{sample(1)[0]}.py]")
        if number > 10 and rng.random() < 0.02:
            lines.append(f"supersedes: [{ids[rng.randrange(number)]}]")
        lines.append(f"author: dev{rng.randint(1, 60)}")
        lines.append("---")
        body_words = sample(rng.randint(40, 200), topic)
        what = " ".join(body_words[:15]).capitalize() + "."
        why = " ".join(body_words[15:]).capitalize() + "."
        text = "\n".join(lines) + f"\n## What\n{what}\n\n## Why\n{why}\n"
        (dest / "notes" / f"{note_id}.md").write_text(text, encoding="utf-8")
    git(dest, "init", "-q", "-b", "main")
    git(dest, "add", "-A")
    git(dest, "commit", "-q", "-m", f"synthetic vault of {count} notes")
    return ids


def git(cwd: Path, *args: str) -> str:
    identity = [
        "-c",
        "user.name=bench",
        "-c",
        "user.email=bench@example.invalid",
        "-c",
        "commit.gpgsign=false",
    ]
    return subprocess.run(
        ["git", *identity, *args], cwd=cwd, check=True, capture_output=True, text=True
    ).stdout.strip()


def queries(count: int = 60, seed: int = 11) -> list[str]:
    """Natural-length queries over the same vocabulary (common and rare words mixed)."""
    rng = random.Random(seed)
    words = vocabulary(random.Random(7))
    common = words[:40]
    topic_list = topics(words)
    lead = ["why does", "how do we", "what is the", "when should we", ""]
    result = []
    for _ in range(count):
        topic = topic_list[rng.randrange(TOPICS)]
        asked = [*rng.sample(topic, rng.randint(2, 5)), rng.choice(common)]
        result.append(f"{rng.choice(lead)} {' '.join(asked)}".strip())
    return result


def common_queries(count: int, seed: int = 13) -> list[str]:
    """Queries of the commonest words only (each in about a fifth of the notes), the first
    the one the agents' example gives."""
    rng = random.Random(seed)
    common = vocabulary(random.Random(7))[:24]
    asked = ["p99 latency alert dashboard"]
    while len(asked) < count:
        asked.append(" ".join(rng.sample(common, rng.randint(3, 5))))
    return asked


FILTERS = ["--repo", REPOS[3], "--type", "gotcha"]  # what the agents' skills pass


def query_classes(count: int) -> dict[str, tuple[list[str], list[str]]]:
    """The benchmarks' query classes: name -> (queries, extra `lore recall` arguments).

    Typical queries (topic words and a common word), queries of common words only, and
    both with `--repo` and `--type`, the call the agents' skills and digest make.
    """
    typical = queries(count, seed=17)
    common = common_queries(count)
    return {
        "typical": (typical, []),
        "common-words": (common, []),
        "typical --repo --type": (typical, FILTERS),
        "common-words --repo --type": (common, FILTERS),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("count", type=int)
    parser.add_argument("dest", type=Path)
    args = parser.parse_args()
    make_vault(args.count, args.dest)
    print(f"{args.count} notes in {args.dest}")


if __name__ == "__main__":
    main()
