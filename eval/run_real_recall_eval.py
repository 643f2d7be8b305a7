"""Recall on real decisions: can an agent find the ADR another ADR points to?

    python eval/run_real_recall_eval.py --mirrors DIR             # figures on stdout
    python eval/run_real_recall_eval.py --mirrors DIR --show      # every query and rank
    python eval/run_real_recall_eval.py --mirrors DIR --record NAME   # into results.json

DIR holds the snapshots of the public ADR repositories of the curator's real-decision
eval (eval/curator/real/manifest.toml, the `tune` and `held-out` repositories; the
later `held-out-2` to `held-out-5` batches are kept for the curator and not read
here), as `DIR/<owner>+<name>/repo`. Nothing of them is committed: the ADRs
are read with `git show` at the manifest's commit and only figures are kept
(eval/real_recall/results.json; the queries quote the ADRs, so `--show` prints them and
they are never stored).

Nobody judged these notes for recall, so the judgement is the authors' own: where one
ADR refers to another ("as decided in ADR-7, …", a link to its file), the sentence
around the reference, with the reference itself taken out (its link text, the ADR's
number, any URL), is a query whose answer is the ADR referred to. That is a known-item
query in another author's words, the way an agent asks about a decision it has only
heard of. The method is the citation-context one of the IR literature; it has no
graded relevance, so the figures are hit@k and MRR@10 of the one answer.

Every ADR of the fifteen repositories that is not rejected becomes a note (the same
converter as the curator's eval: `run_real_adr_eval.note_text`, links to sibling ADRs
as `[[id]]`, no `supersedes`, so every note is active) in ONE vault, a real git
repository, with each repository as a repo of the taxonomy, as a team that keeps
several repositories' decisions would have it. Each query is asked three ways, the
citing ADR left out of the answers (it holds the very sentence):

- `lore`: `lore recall` as an agent outside any repository calls it (no `--repo`);
- `lore --repo`: with the citing ADR's repository as the current one (the repo boost);
- `bm25`: the floor, FTS5's `bm25()` over the same MATCH expression with the same
  column weights, and nothing else (no statuses, boosts or idf correction).

Recall was never tuned on these ADRs: the first recorded run is a first-sight figure.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))
sys.path.insert(0, str(HERE))
os.environ["LORE_TODAY"] = "2026-12-01"

import run_real_adr_eval as adr_eval  # noqa: E402
from lore.index.build import open_index  # noqa: E402
from lore.recall.engine import query_terms, recall  # noqa: E402
from lore.recall.model import RecallRequest  # noqa: E402

RESULTS = HERE / "real_recall" / "results.json"
SPLITS = ("tune", "held-out")  # never the later held-out batches: kept for the curator
K = 10
MIN_WORDS = 4  # words of three letters or more left in a query once the reference is out
MAX_WORDS = 30

_LINK = re.compile(r"!?\[([^\]\n]*)\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
_NUMBERED = re.compile(
    r"\b(?:ADR|AD|decision(?: record)?|record)[-_ #]?0*(\d{1,4})\b(?:[a-z])?", re.IGNORECASE
)
_URL = re.compile(r"<?https?://\S+>?")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z(\[])|\n\s*\n|\n\s*[-*+]\s+|\n(?=#)")
_WORD = re.compile(r"[^\W\d_][\w'-]*")
_MARKUP = re.compile(r"[`*_>|#]+")


@dataclass
class Query:
    repo: str
    citing: str  # the citing ADR's note id
    answer: str  # the cited ADR's note id
    text: str
    by: str  # "link" or "number"
    title_words: float  # share of the answer's title words the query holds


def stem_of(file: str) -> str:
    for suffix in (".html.md", ".md", ".html"):
        file = file.removesuffix(suffix)
    return file


def _target_stem(target: str) -> str:
    return stem_of(target.split("#", 1)[0].rstrip("/").rsplit("/", 1)[-1])


def sentences(text: str) -> list[str]:
    """A section's sentences (and list items), as plain lines."""
    parts = (re.sub(r"^\s*[-*+]\s+", "", part) for part in _SENTENCE_END.split(text))
    return [" ".join(part.split()) for part in parts if part.strip()]


def _not_prose(sentence: str) -> bool:
    """A metadata line or table row (status, date, authors), or a later-status note."""
    return bool(
        adr_eval._META_LINE.match(sentence)
        or adr_eval._LATER_STATUS.search(sentence)
        or "|" in sentence
        or "---" in sentence
    )


def references(
    sentence: str, by_stem: dict[str, str], by_number: dict[int, str]
) -> list[tuple[str, str]]:
    """(note id, "link" | "number") of each sibling ADR the sentence refers to."""
    found: list[tuple[str, str]] = []
    for match in _LINK.finditer(sentence):
        other = by_stem.get(_target_stem(match[2]))
        if other:
            found.append((other, "link"))
    plain = _LINK.sub(" ", sentence)
    for match in _NUMBERED.finditer(plain):
        other = by_number.get(int(match[1]))
        if other:
            found.append((other, "number"))
    return list(dict.fromkeys(found))


def query_of(sentence: str) -> str | None:
    """The sentence with every reference taken out, or None when too little is left."""
    text = _LINK.sub(" ", sentence)
    text = _URL.sub(" ", text)
    text = _NUMBERED.sub(" ", text)
    text = _MARKUP.sub(" ", text)
    text = re.sub(r"\[\[[^\]]*\]\]|[()\[\]{}]", " ", text)
    words = text.split()
    if sum(1 for w in words if len(w) >= 3 and _WORD.fullmatch(w.strip(".,;:!?\"'"))) < MIN_WORDS:
        return None
    return " ".join(words[:MAX_WORDS])


def _title_share(query: str, title: str) -> float:
    wanted = {w.lower() for w in _WORD.findall(title) if len(w) >= 3}
    if not wanted:
        return 0.0
    held = {w.lower() for w in _WORD.findall(query)}
    return len(wanted & held) / len(wanted)


_CONSEQUENCES = re.compile(r"^(?:positive |negative )?consequences?\b", re.IGNORECASE)


def consequence_prompt(adr: Any) -> str | None:
    """The first prose sentence of the ADR's Consequences (references taken out), or None.

    The note made of the ADR holds its decision and context, never its Consequences
    (`run_real_adr_eval.note_text`), so the sentence is a known-item prompt in the
    author's words that the note does not contain.
    """
    for heading, body in adr.sections:
        if _CONSEQUENCES.match(heading):
            for sentence in sentences(body):
                if not _not_prose(sentence) and (text := query_of(sentence)) is not None:
                    return text
            return None
    return None


def build(
    mirrors: Path, root: Path, consequences: list[Query] | None = None
) -> tuple[list[Query], dict[str, Any]]:
    """The one vault of every repository's ADRs at `root`, and the queries; with
    `consequences`, each note's Consequences prompt is added to it (`consequence_prompt`)."""
    queries: list[Query] = []
    counts: dict[str, Any] = {"repositories": 0, "notes": 0, "missing": {}, "duplicate_ids": 0}
    scopes: list[str] = []
    notes_dir = root / "notes"
    notes_dir.mkdir(parents=True)
    for repository in adr_eval.load_manifest():
        if repository["split"] not in SPLITS:
            continue
        adrs = adr_eval.read_repository(mirrors, repository)
        if isinstance(adrs, str):
            counts["missing"][repository["name"]] = adrs
            continue
        scope = repository["scope"]
        scopes.append(scope)
        counts["repositories"] += 1
        kept = [adr for adr in adrs if not adr.rejected]
        ids: dict[str, str] = {}
        for adr in kept:
            nid = adr_eval.note_id(scope, adr)
            if nid in ids.values():
                counts["duplicate_ids"] += 1
                continue
            ids[adr.file] = nid
        kept = [adr for adr in kept if adr.file in ids]
        by_stem = {stem_of(adr.file): ids[adr.file] for adr in kept}
        numbers = Counter(adr.number for adr in kept)
        by_number = {adr.number: ids[adr.file] for adr in kept if numbers[adr.number] == 1}
        titles = {ids[adr.file]: adr.title for adr in kept}
        for adr in kept:
            nid = ids[adr.file]
            text = adr_eval.note_text(adr, scope, by_stem, [])
            (notes_dir / f"{nid}.md").write_text(text, encoding="utf-8")
            counts["notes"] += 1
            if consequences is not None:
                prompt = consequence_prompt(adr)
                if prompt and " ".join(prompt.lower().split()) not in " ".join(
                    text.lower().split()
                ):
                    share = _title_share(prompt, titles[nid])
                    consequences.append(Query(scope, "", nid, prompt, "consequence", share))
            asked: set[str] = set()
            for heading, body in [("", adr.preamble), *adr.sections]:
                if heading.lower().startswith("status"):
                    continue  # "superseded by ADR-9" records what happened later
                for sentence in sentences(body):
                    if _not_prose(sentence):
                        continue
                    for answer, by in references(sentence, by_stem, by_number):
                        if answer == nid or answer in asked:
                            continue
                        text = query_of(sentence)
                        if text is None:
                            continue
                        asked.add(answer)
                        queries.append(
                            Query(scope, nid, answer, text, by, _title_share(text, titles[answer]))
                        )
    (root / "_taxonomy.md").write_text(adr_eval.taxonomy(*scopes), encoding="utf-8")
    adr_eval._git(root, "init", "-q", "-b", "main")
    adr_eval._git(root, "add", "-A")
    adr_eval._git(root, "commit", "-q", "-m", "every repository's ADRs")
    return queries, counts


def _rank(found: list[str], query: Query) -> int | None:
    ranked = [nid for nid in found if nid != query.citing]
    return ranked.index(query.answer) + 1 if query.answer in ranked[:K] else None


def ask(root: Path, queries: list[Query]) -> dict[str, list[int | None]]:
    """Each query's rank of its answer (None: not in the top K), three ways."""
    ranks: dict[str, list[int | None]] = {"lore": [], "lore --repo": [], "bm25": []}
    conn, _ = open_index(root)
    weights = json.loads(
        conn.execute("SELECT value FROM meta WHERE key = 'recall_settings'").fetchone()[0]
    )["weights"]
    bm25 = "bm25(notes_fts, {})".format(
        ", ".join(str(float(weights[c])) for c in ("title", "tags", "body", "files_touched"))
    )
    for query in queries:
        for name, repo in (("lore", None), ("lore --repo", query.repo)):
            hits = recall(root, RecallRequest(query=query.text, repo=repo, limit=K + 1)).hits
            ranks[name].append(_rank([hit.id for hit in hits], query))
        match = " OR ".join(term.fts() for term in query_terms(conn, query.text))
        rows = conn.execute(
            f"SELECT n.id FROM notes_fts JOIN notes n ON n.rowid = notes_fts.rowid "
            f"WHERE notes_fts MATCH ? ORDER BY {bm25} LIMIT ?",
            (match, K + 1),
        ).fetchall()
        ranks["bm25"].append(_rank([row[0] for row in rows], query))
    conn.close()
    return ranks


def figures(ranks: list[int | None]) -> dict[str, float]:
    def hit(k: int) -> float:
        return round(sum(1 for r in ranks if r is not None and r <= k) / len(ranks), 3)

    mrr = statistics.fmean(1 / r if r else 0.0 for r in ranks)
    return {"hit@1": hit(1), "hit@3": hit(3), "hit@10": hit(10), "mrr@10": round(mrr, 3)}


def evaluate(mirrors: Path) -> dict[str, Any]:
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="lore-real-recall-") as folder:
        root = Path(folder)
        queries, counts = build(mirrors, root)
        if not queries:
            return {"version": 1, **counts, "queries": 0}
        ranks = ask(root, queries)
    per_repo = Counter(q.repo for q in queries)
    easy = [i for i, q in enumerate(queries) if q.title_words >= 0.5]
    hard = [i for i, q in enumerate(queries) if q.title_words < 0.5]
    results: dict[str, Any] = {
        "version": 1,
        "today": os.environ["LORE_TODAY"],
        "seconds": round(time.perf_counter() - started, 1),
        **counts,
        "queries": len(queries),
        "queries_by_repository": dict(sorted(per_repo.items())),
        "by_link": sum(1 for q in queries if q.by == "link"),
        "by_number": sum(1 for q in queries if q.by == "number"),
        "all": {name: figures(r) for name, r in ranks.items()},
    }
    for label, chosen in (("half_title_or_more", easy), ("less_than_half_title", hard)):
        if chosen:
            results[label] = {
                "queries": len(chosen),
                **{name: figures([r[i] for i in chosen]) for name, r in ranks.items()},
            }
    results["_shown"] = [  # quotes the ADRs: printed by --show, never stored
        (q.repo, q.citing, q.answer, q.text, {n: r[i] for n, r in ranks.items()})
        for i, q in enumerate(queries)
    ]
    return results


def _print(results: dict[str, Any], show: bool) -> None:
    for name, why in results.get("missing", {}).items():
        print(f"skipped {name}: {why}")
    print(
        f"{results['queries']} queries from {results['repositories']} repositories "
        f"({results['notes']} notes in one vault)"
    )
    if not results["queries"]:
        return
    print("| queries | asked as | hit@1 | hit@3 | hit@10 | MRR@10 |")
    print("|---|---|---|---|---|---|")
    for label in ("all", "half_title_or_more", "less_than_half_title"):
        part = results.get(label)
        if not part:
            continue
        count = part.get("queries", results["queries"])
        for name in ("lore", "lore --repo", "bm25"):
            f = part[name]
            print(
                f"| {label} ({count}) | {name} | {f['hit@1']} | {f['hit@3']} | {f['hit@10']} "
                f"| {f['mrr@10']} |"
            )
    if show:
        for repo, citing, answer, text, ranks in results["_shown"]:
            print(f"  {ranks} {repo} {citing} -> {answer}\n      {text}")


def agent_mode(
    mirrors: Path,
    *,
    material: Path | None = None,
    answers: Path | None = None,
    written_by: str | None = None,
) -> dict[str, Any] | None:
    """The agent-query mode (eval/real_recall_agents.py): write the blind writer's
    material to `material`, or score the writer's `answers`."""
    import real_recall_agents as agents

    with tempfile.TemporaryDirectory(prefix="lore-real-recall-") as folder:
        root = Path(folder)
        consequences: list[Query] = []
        citations, counts = build(mirrors, root, consequences)
        made = agents.prompts(citations, consequences)
        if material is not None:
            skill = agents.SKILL.read_text(encoding="utf-8")
            material.write_text(agents.material(made, skill), encoding="utf-8")
            kinds = Counter(prompt.kind for prompt in made)
            print(
                f"wrote {len(made)} prompts ({kinds['consequence']} consequences, "
                f"{kinds['citation']} citations) and the lore-recall skill to {material}"
            )
            return None
        assert answers is not None
        given = agents.read_answers(answers, {prompt.id for prompt in made})
        asked = [(prompt, given[prompt.id]) for prompt in made if prompt.id in given]
        if not asked:
            raise SystemExit(f"{answers} answers none of the prompts.")
        conn, _ = open_index(root)
        try:
            ranks = agents.ask(root, conn, asked)
        finally:
            conn.close()
    return {
        "version": 1,
        "today": os.environ["LORE_TODAY"],
        **counts,
        "prompts": len(made),
        "answered": len(asked),
        "written_by": written_by,
        "answers_sha256": hashlib.sha256(answers.read_bytes()).hexdigest(),
        **agents.report(asked, ranks),
    }


def _record(name: str, results: dict[str, Any]) -> None:
    stored = json.loads(RESULTS.read_text(encoding="utf-8")) if RESULTS.exists() else {}
    stored.setdefault("version", 1)
    stored.setdefault("runs", {})[name] = results
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps(stored, indent=1) + "\n", encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mirrors", type=Path, required=True, help="folder of the snapshots")
    parser.add_argument("--show", action="store_true", help="every query with its ranks")
    parser.add_argument("--record", metavar="NAME", help="store the figures in results.json")
    parser.add_argument(
        "--write-material",
        type=Path,
        metavar="FILE",
        help="agent-query mode: write what a blind query writer sees (outside this repository)",
    )
    parser.add_argument(
        "--agent-queries",
        type=Path,
        metavar="FILE",
        help="agent-query mode: score the blind writer's answers (one JSON object a line)",
    )
    parser.add_argument(
        "--written-by", metavar="TEXT", help="how the agent queries were written (recorded)"
    )
    args = parser.parse_args()
    if not args.mirrors.is_dir():
        raise SystemExit(f"{args.mirrors} is not a folder of snapshots (see the docstring).")
    if subprocess.run(["git", "--version"], capture_output=True, check=False).returncode:
        raise SystemExit("git is needed to read the snapshots.")
    if args.write_material is not None:
        if args.write_material.resolve().is_relative_to(HERE.parent.resolve()):
            raise SystemExit(
                f"{args.write_material} is inside this repository; the material quotes the "
                "ADRs, which are never committed: write it to a folder outside it."
            )
        agent_mode(args.mirrors, material=args.write_material)
        return
    if args.agent_queries is not None:
        import real_recall_agents as agents

        try:
            results = agent_mode(
                args.mirrors, answers=args.agent_queries, written_by=args.written_by
            )
        except agents.AnswersError as exc:
            raise SystemExit(str(exc)) from None
        assert results is not None
        agents.print_report(results)
        if args.record:
            if not args.written_by:
                raise SystemExit("--record needs --written-by: say how the queries were written.")
            agents.ANSWERS_DIR.mkdir(parents=True, exist_ok=True)
            kept = agents.ANSWERS_DIR / f"{args.record}.jsonl"
            kept.write_bytes(args.agent_queries.read_bytes())
            _record(f"agent-queries-{args.record}", results)
        return
    results = evaluate(args.mirrors)
    _print(results, args.show)
    if args.record:
        results.pop("_shown", None)
        _record(args.record, results)


if __name__ == "__main__":
    main()
