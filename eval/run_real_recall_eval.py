"""Recall on real decisions: can an agent find the ADR another ADR points to?

    python eval/run_real_recall_eval.py --mirrors DIR             # figures on stdout
    python eval/run_real_recall_eval.py --mirrors DIR --show      # every query and rank
    python eval/run_real_recall_eval.py --mirrors DIR --record NAME   # into results.json

DIR holds the snapshots of the public ADR repositories of the curator's real-decision
eval (eval/curator/real/manifest.toml, the `tune` and `held-out` batches; the later
batches are kept for the curator and not read here), as `DIR/<owner>+<name>/repo`
(eval/fetch_adr_snapshots.py fetches them). Nothing of them is committed: only figures
are kept (eval/real_recall/results.json; the queries quote the ADRs, so `--show`
prints them and they are never stored).

The notes are what `lore import adr` makes of the ADRs, as in the curator's eval
(`real_adr_import.import_repository`: the manifest's folders at its commit, the ADRs
the import skips left out), each written as the import renders it without `supersedes`
or `## Related` (so every note is active), in ONE vault, a real git repository, with
each repository as a repo of the taxonomy, as a team that keeps several repositories'
decisions would have it. Should the import keep an ADR's Consequences (as `## Gotchas`,
say), the note indexed here is without them (`real_recall_prompts.without_consequences`):
the agent-query mode's consequence prompts are sentences the note must not hold.

Nobody judged these notes for recall, so the judgement is the authors' own, read from
the ADRs' own text and never through lore (eval/real_recall_prompts.py): where one ADR
refers to another ("as decided in ADR-7", a link to its file), the sentence around the
reference, with the reference itself taken out (its link text, the ADR's number, any
URL), is a query whose answer is the ADR referred to. That is a known-item query in
another author's words, the way an agent asks about a decision it has only heard of.
The method is the citation-context one of the IR literature; it has no graded
relevance, so the figures are hit@k and MRR@10 of the one answer. A reference to an
ADR the import skips asks nothing. Each query is asked three ways, the citing ADR left
out of the answers (it holds the very sentence):

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
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))
sys.path.insert(0, str(HERE))
os.environ["LORE_TODAY"] = "2026-12-01"

from lore.index.build import open_index  # noqa: E402
from lore.recall.engine import query_terms, recall  # noqa: E402
from lore.recall.model import RecallRequest  # noqa: E402
from real_adr_import import ImportedAdr, git, import_repository, make_vault, taxonomy  # noqa: E402
from real_adr_manifest import load_manifest, snapshot_dir  # noqa: E402
from real_adr_texts import folder_paths, read_texts  # noqa: E402
from real_recall_prompts import (  # noqa: E402
    RawAdr,
    citations,
    consequence_prompt,
    number_of,
    prompt_key,
    query_of,
    read_adr,
    references,
    stem_of,
    title_share,
    without_consequences,
    written_date,
)

RESULTS = HERE / "real_recall" / "results.json"
SPLITS = ("tune", "held-out")  # never the later held-out batches: kept for the curator
K = 10
# 1: the eval's own converter made the notes; 2: `lore import adr` makes them; 3: the import
# as issue 32 left it (supersession read from either side, fewer ADRs skipped)
VERSION = 3
VAULT_DAY = {  # the one vault's commit, on the eval's day
    "GIT_AUTHOR_DATE": "2026-12-01T00:00:00Z",
    "GIT_COMMITTER_DATE": "2026-12-01T00:00:00Z",
}


@dataclass
class Query:
    repo: str
    citing: str  # the citing ADR's note id ("" for a consequence)
    answer: str  # the note id of the ADR it should find
    text: str
    by: str  # "link", "number" or "consequence"
    title_words: float  # share of the answer's title words the query holds
    key: str = ""  # the two ADRs' `prompt_key`s, "citing|answer": what a prompt id is made of


@contextmanager
def _lore_home(folder: Path) -> Iterator[None]:
    """`LORE_HOME` in `folder` while the imports run, as the curator's eval has it."""
    saved = os.environ.get("LORE_HOME")
    os.environ["LORE_HOME"] = str(folder)
    try:
        yield
    finally:
        if saved is None:
            os.environ.pop("LORE_HOME", None)
        else:
            os.environ["LORE_HOME"] = saved


@dataclass
class Adr:
    """One ADR of the eval: the note `lore import adr` made of it, the file as its authors
    wrote it, and the name its prompts' ids are made of."""

    imported: ImportedAdr
    raw: RawAdr
    key: str


def imported_adrs(
    mirrors: Path, repository: dict[str, Any], scratch: Path
) -> tuple[list[Adr], dict[str, str]] | str:
    """Each ADR `lore import adr` keeps of the repository, in the eval's order, and the
    files the import skipped with its reason; or why the repository cannot be read."""
    vault = scratch / "vault"
    make_vault(vault, repository["scope"])
    imported = import_repository(mirrors, repository, scratch, vault)
    if isinstance(imported, str):
        return imported
    texts = read_texts(mirrors, repository)
    paths = folder_paths(mirrors, repository)
    if isinstance(texts, str) or isinstance(paths, str):
        return str(texts if isinstance(texts, str) else paths)
    raw = {file: read_adr(file, text) for file, text in texts}
    lost = [adr.file for adr in imported.adrs if adr.file not in raw]
    if lost:  # the two readers disagree on the folders: say so, never guess
        return f"{lost[0]} was imported but is not among the files of the manifest's folders"
    adrs = []
    for adr in imported.adrs:
        named = written_date(raw[adr.file]) or _first_added(mirrors, repository, paths[adr.file])
        key = prompt_key(repository["scope"], adr.file, named)
        adrs.append(Adr(adr, raw[adr.file], key))
    return adrs, imported.skipped


def _first_added(mirrors: Path, repository: dict[str, Any], path: str) -> str:
    """The day git first recorded the file at `path` (a `prompt_key` date only)."""
    git_dir = snapshot_dir(mirrors, repository["name"])
    days = subprocess.run(
        ["git", f"--git-dir={git_dir}", "log", "--format=%as", "--diff-filter=A",
         repository["commit"], "--", path],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()  # fmt: skip
    return days[-1] if days else "2000-01-01"


def _words(text: str) -> str:
    return " ".join(text.lower().split())


def build(
    mirrors: Path,
    root: Path,
    consequences: list[Query] | None = None,
    *,
    splits: Iterable[str] = SPLITS,
) -> tuple[list[Query], dict[str, Any]]:
    """The one vault of every repository's imported ADRs at `root`, and the queries; with
    `consequences`, each note's Consequences prompt is added to it (`consequence_prompt`)."""
    queries: list[Query] = []
    counts: dict[str, Any] = {
        "repositories": 0,
        "notes": 0,
        "missing": {},
        "skipped_by_import": {},
        "consequence_held_by_note": 0,
    }
    scopes: list[str] = []
    notes_dir = root / "notes"
    notes_dir.mkdir(parents=True)
    chosen = [r for r in load_manifest() if r["split"] in tuple(splits)]
    with (
        tempfile.TemporaryDirectory(prefix="lore-real-recall-import-") as folder,
        _lore_home(Path(folder) / "lore-home"),
    ):
        for number, repository in enumerate(chosen, 1):
            scratch = Path(folder) / str(number)
            scratch.mkdir()
            found = imported_adrs(mirrors, repository, scratch)
            if isinstance(found, str):
                counts["missing"][repository["name"]] = found
                continue
            adrs, skipped = found
            scopes.append(repository["scope"])
            counts["repositories"] += 1
            for reason in skipped.values():
                why = reason.split(":", 1)[0]
                counts["skipped_by_import"][why] = counts["skipped_by_import"].get(why, 0) + 1
            queries += _repository_queries(
                repository["scope"], adrs, notes_dir, counts, consequences
            )
    (root / "_taxonomy.md").write_text(taxonomy(*scopes), encoding="utf-8")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "every repository's ADRs", env=VAULT_DAY)
    return queries, counts


def _repository_queries(
    scope: str,
    found: list[Adr],
    notes_dir: Path,
    counts: dict[str, Any],
    consequences: list[Query] | None,
) -> list[Query]:
    """Write the repository's notes into `notes_dir`; its citation queries (and, with
    `consequences`, its consequence prompts added to that list)."""
    ids = {adr.imported.file: adr.imported.id for adr in found}
    key_of = {adr.imported.id: adr.key for adr in found}
    by_stem = {stem_of(file): note_id for file, note_id in ids.items()}
    numbers = Counter(number_of(file) for file in ids)
    by_number = {number_of(f): note_id for f, note_id in ids.items() if numbers[number_of(f)] == 1}
    titles = {adr.imported.id: adr.imported.note.title for adr in found}
    queries: list[Query] = []
    for each in found:
        adr, raw = each.imported, each.raw
        text = without_consequences(adr.text(), raw)
        (notes_dir / f"{adr.id}.md").write_text(text, encoding="utf-8")
        counts["notes"] += 1
        if consequences is not None and (prompt := consequence_prompt(raw)) is not None:
            if _words(prompt) in _words(text):
                counts["consequence_held_by_note"] += 1
            else:
                share = title_share(prompt, titles[adr.id])
                key = f"|{key_of[adr.id]}"
                consequences.append(Query(scope, "", adr.id, prompt, "consequence", share, key))
        asked: set[str] = set()
        for sentence in citations(raw):
            for answer, by in references(sentence, by_stem, by_number):
                if answer == adr.id or answer in asked:
                    continue
                query = query_of(sentence)
                if query is None:
                    continue
                asked.add(answer)
                share = title_share(query, titles[answer])
                key = f"{key_of[adr.id]}|{key_of[answer]}"
                queries.append(Query(scope, adr.id, answer, query, by, share, key))
    return queries


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


def evaluate(mirrors: Path, splits: Iterable[str] = SPLITS) -> dict[str, Any]:
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="lore-real-recall-") as folder:
        root = Path(folder) / "vault"
        queries, counts = build(mirrors, root, splits=splits)
        if not queries:
            return {"version": VERSION, **counts, "queries": 0}
        ranks = ask(root, queries)
    per_repo = Counter(q.repo for q in queries)
    easy = [i for i, q in enumerate(queries) if q.title_words >= 0.5]
    hard = [i for i, q in enumerate(queries) if q.title_words < 0.5]
    results: dict[str, Any] = {
        "version": VERSION,
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
    splits: Iterable[str] = SPLITS,
) -> dict[str, Any] | None:
    """The agent-query mode (eval/real_recall_agents.py): write the blind writer's
    material to `material`, or score the writer's `answers`. Answers to prompts this build
    no longer makes (their ADR is no longer a note, or its sentence changed) are counted
    and left out: only the prompts that still exist are scored."""
    import real_recall_agents as agents

    with tempfile.TemporaryDirectory(prefix="lore-real-recall-") as folder:
        root = Path(folder) / "vault"
        consequences: list[Query] = []
        citations, counts = build(mirrors, root, consequences, splits=splits)
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
        gone: list[str] = []
        given = agents.read_answers(answers, {prompt.id for prompt in made}, gone=gone)
        asked = [(prompt, given[prompt.id]) for prompt in made if prompt.id in given]
        if not asked:
            raise agents.AnswersError(f"{answers.name} answers none of the prompts.")
        conn, _ = open_index(root)
        try:
            ranks = agents.ask(root, conn, asked)
        finally:
            conn.close()
    return {
        "version": VERSION,
        "today": os.environ["LORE_TODAY"],
        **counts,
        "prompts": len(made),
        "answered": len(asked),
        "answers_to_gone_prompts": len(gone),
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

        if args.record and not args.written_by:
            parser.exit(2, "--record needs --written-by: say how the queries were written.\n")
        try:
            results = agent_mode(
                args.mirrors, answers=args.agent_queries, written_by=args.written_by
            )
        except agents.AnswersError as exc:
            parser.exit(2, f"{exc}\n")
        assert results is not None
        agents.print_report(results)
        if args.record:
            kept = _keep_answers(agents.ANSWERS_DIR, args.agent_queries, args.record)
            results["answers_file"] = kept
            _record(f"agent-queries-{args.record}", results)
        return
    results = evaluate(args.mirrors)
    _print(results, args.show)
    if args.record:
        results.pop("_shown", None)
        _record(args.record, results)


def _keep_answers(folder: Path, answers: Path, name: str) -> str:
    """The answers kept with the figures, as NAME.jsonl in `folder`, unless the same
    answers are kept there already (another run of them): that file's name."""
    data = answers.read_bytes()
    folder.mkdir(parents=True, exist_ok=True)
    for kept in sorted(folder.glob("*.jsonl")):
        if kept.read_bytes() == data:
            return kept.name
    (folder / f"{name}.jsonl").write_bytes(data)
    return f"{name}.jsonl"


if __name__ == "__main__":
    main()
