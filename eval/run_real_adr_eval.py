"""The curator on real decisions: public ADR repositories, each ADR proposed in turn.

    python eval/run_real_adr_eval.py --mirrors DIR                    # every read batch
    python eval/run_real_adr_eval.py --mirrors DIR --split held-out-2 --show
    python eval/run_real_adr_eval.py --mirrors DIR --record NAME      # into results.json
    python eval/run_real_adr_eval.py --mirrors DIR --prompts OUT      # the model's prompts
    python eval/run_real_adr_eval.py --mirrors DIR --prompts OUT --sample 0.3  # a sample
    python eval/run_real_adr_eval.py --mirrors DIR --answers IN       # replay answers
    python eval/run_real_adr_eval.py --mirrors DIR --split NAME --first-sight  # once
    python eval/run_real_adr_eval.py --mirrors DIR --list-recorded    # labels' source
    python eval/run_real_adr_eval.py --mirrors DIR --check-labels     # labels hold?

DIR holds one snapshot per repository of eval/curator/real/manifest.toml, as
`DIR/<owner>+<name>/repo` (eval/fetch_adr_snapshots.py fetches them at the manifest's
commits). Nothing of those repositories is committed to lore: only figures are kept.

Each repository's ADRs are converted by `lore import adr` itself (eval/real_adr_import.py)
and proposed one by one, in the order of the number in their file names (else their
dates), each as a pull request against a vault of the ADRs before it, without the
`supersedes` the import drew from the authors' status lines (eval/real_adr_propose.py);
every date is the data's. What `lore curate` says about each proposal is compared with
the labels (eval/curator/real/pairs.toml):

- a recorded supersession is *flagged* when a judgement warning on the new ADR
  (`duplicate/*`, `contradiction/*`, `lifecycle/may-supersede`, and with the model's
  answers `convention/semantic-*`) names the old one;
- a judgement warning on an ADR that replaces nothing is a *false alarm*;
- the old ADR is *reached* when a rule's warning names it or the model was asked about
  it (it is among the candidates of the request the model review sent);
- *in top 3*: the old ADR is among the three notes `lore review` lists as most alike.

The model review goes to a stand-in of GitHub Models on 127.0.0.1 (eval/model_stand_in.py):
without `--answers` it records each request and answers none, so the figures are the
rules' alone (and `--prompts OUT` keeps the requests, to be answered blind); with
`--answers` it replays the recorded answers, and the figures are given for the rules
alone and for the rules with the model.

Batches (`--split`) are the manifest's. A batch the manifest lists as unread runs only
with `--first-sight`, once: its figures are recorded as `first-sight-<batch>` as they
come, and the run is refused if that record exists.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))
sys.path.insert(0, str(HERE))

from model_stand_in import KEY_ENV, load_answers, running, settings, user_config  # noqa: E402
from real_adr_import import import_repository, make_vault  # noqa: E402
from real_adr_labels import check_repository, print_check, print_recorded  # noqa: E402
from real_adr_manifest import (  # noqa: E402
    REAL,
    ManifestError,
    load_batches,
    load_labels,
    load_manifest,
)
from real_adr_propose import Proposal, propose_all  # noqa: E402
from real_adr_texts import folder_files, read_texts, titles_of  # noqa: E402

RESULTS = REAL / "results.json"
TARGETS = {"recall": 0.8, "false_alarms": 0.02, "reached": 0.95}
LINT = ("convention/what-not-standalone", "convention/body-too-long", "injection/link-domain")


# ---- one run of the curator over the chosen repositories ----


def evaluate(
    mirrors: Path,
    splits: Iterable[str],
    only: str | None = None,
    *,
    answers: dict[str, dict[str, Any]] | None = None,
    prompts: Path | None = None,
    sample: float | None = None,
    max_related: int | None = None,
    progress: bool = False,
) -> dict[str, Any]:
    """Propose every ADR of the chosen repositories; the figures of each batch.

    With `sample`, `prompts` keeps every request of an ADR that replaces another (by the
    labels) and that share of the others, chosen by their ids (`sampled`)."""
    splits = tuple(splits)
    labels = load_labels()
    found: dict[str, list[Proposal]] = {}
    skipped: dict[str, dict[str, str]] = {}
    missing: dict[str, str] = {}
    started = time.perf_counter()
    chosen = [
        repository
        for repository in load_manifest()
        if repository["split"] in splits and (not only or repository["name"] == only)
    ]
    unanswered = 0
    with running(answers) as stand_in, tempfile.TemporaryDirectory(prefix="lore-adr-") as tmp:
        saved = {name: os.environ.get(name) for name in ("LORE_HOME", "LORE_CONFIG", KEY_ENV)}
        os.environ["LORE_HOME"] = str(Path(tmp) / "lore-home")
        config = Path(tmp) / "config.toml"
        config.write_text(user_config(stand_in), encoding="utf-8")
        os.environ["LORE_CONFIG"] = str(config)
        os.environ[KEY_ENV] = "eval-stand-in"
        try:
            for number, repository in enumerate(chosen, 1):
                scratch = Path(tmp) / str(number)
                scratch.mkdir()
                vault = scratch / "vault"
                make_vault(vault, repository["scope"], settings(max_related=max_related))
                imported = import_repository(mirrors, repository, scratch, vault)
                if isinstance(imported, str):
                    missing[repository["name"]] = imported
                    continue
                if progress:
                    print(
                        f"[{number}/{len(chosen)}] {repository['name']}: {len(imported.adrs)} ADRs",
                        file=sys.stderr,
                        flush=True,
                    )
                since = len(stand_in.calls)
                proposals, _ = propose_all(imported, labels, vault, stand_in)
                found[repository["name"]] = proposals
                skipped[repository["name"]] = imported.skipped
                if prompts is not None:
                    calls = stand_in.take(since)
                    if sample is not None:
                        kept = sampled(proposals, labels, sample)
                        calls = [call for call in calls if call.id in kept]
                    stand_in.write_prompts(prompts / f"{repository['split']}.jsonl", calls)
            unanswered = stand_in.unanswered if answers is not None else 0
        finally:
            for name, value in saved.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value
    summary = {}
    for split in splits:
        names = [n for n, ps in found.items() if ps and ps[0].split == split]
        if names:
            summary[split] = score(
                [p for n in names for p in found[n]],
                labels,
                names,
                {n: skipped[n] for n in names},
                answered=frozenset(answers) if answers is not None else None,
            )
    return {
        "version": 2,
        "seconds": round(time.perf_counter() - started, 1),
        "missing": missing,
        "model": "replayed" if answers is not None else "rules alone (requests recorded)",
        "unanswered": unanswered,
        "sample": sample,
        "max_related": max_related,
        "summary": summary,
        "targets": TARGETS,
    }


def _replacing(labels: dict[str, list[dict[str, Any]]]) -> set[tuple[str, str]]:
    """The (repo, file) of every ADR the labels say replaces another, wholly or in part."""
    return {(p["repo"], p["new"]) for p in [*labels["supersession"], *labels["related"]]}


def sampled(
    proposals: list[Proposal], labels: dict[str, list[dict[str, Any]]], share: float
) -> set[str]:
    """The request ids a sample keeps: every request of an ADR that replaces another, and
    `share` of the others, chosen by the request's id (a SHA-256 of its messages, so the
    choice is the same on every run and knows nothing of the ADR but its label)."""
    replacing = _replacing(labels)
    return {
        p.prompt
        for p in proposals
        if p.prompt
        and ((p.repo, p.file) in replacing or int(p.prompt[:8], 16) / 0x100000000 < share)
    }


# ---- scoring ----


def _ratio(part: int, whole: int) -> float | None:
    return round(part / whole, 3) if whole else None


def _figures(
    proposals: list[Proposal],
    pairs: list[dict[str, Any]],
    labels: dict[str, list[dict[str, Any]]],
    id_of: dict[tuple[str, str], str],
    by: tuple[str, ...],
) -> dict[str, Any]:
    """Recall, precision and false alarms counting the warnings given `by` the rules (and
    the model, when `by` names it)."""
    by_file = {(p.repo, p.file): p for p in proposals}
    related = {(p["repo"], p["new"], p["old"]) for p in labels["related"]}
    replacing = {(p["repo"], p["new"]) for p in [*pairs, *labels["related"]]}
    file_of = {(repo, nid): file for (repo, file), nid in id_of.items()}
    flagged: list[bool] = []
    for pair in pairs:
        new = by_file[(pair["repo"], pair["new"])]
        old_id = id_of[(pair["repo"], pair["old"])]
        flagged.append(any(old_id in f["names"] for f in new.judgement if f["by"] in by))
    verdicts: Counter[str] = Counter()
    for proposal in proposals:
        warnings = [f for f in proposal.judgement if f["by"] in by]
        named = {n for f in warnings for n in f["names"]}
        if any(not f["names"] for f in warnings):
            named.add("")
        for name in named:
            old = file_of.get((proposal.repo, name), "")
            if any(p["new"] == proposal.file and p["old"] == old for p in pairs):
                verdicts["correct"] += 1
            elif (proposal.repo, proposal.file, old) in related:
                verdicts["arguable"] += 1
            else:
                verdicts["wrong"] += 1
    nothing = [p for p in proposals if (p.repo, p.file) not in replacing]
    alarms = [p for p in nothing if any(f["by"] in by for f in p.judgement)]
    rules = Counter(f["rule"] for p in alarms for f in p.judgement if f["by"] in by)
    return {
        "flagged": sum(flagged),
        "flagged_full": sum(
            1 for hit, p in zip(flagged, pairs, strict=True) if hit and p["kind"] == "full"
        ),
        "recall": _ratio(sum(flagged), len(pairs)),
        "flagged_pairs": dict(verdicts),
        "precision": _ratio(verdicts["correct"], verdicts["correct"] + verdicts["wrong"]),
        "replace_nothing": len(nothing),
        "false_alarm_notes": len(alarms),
        "false_alarm_rate": _ratio(len(alarms), len(nothing)),
        "false_alarms_by_rule": dict(sorted(rules.items())),
        "alarms": [
            {
                "repo": p.repo,
                "file": p.file,
                "findings": [f for f in p.judgement if f["by"] in by],
            }
            for p in alarms
        ],
        "hits": flagged,
    }


def score(
    proposals: list[Proposal],
    labels: dict[str, list[dict[str, Any]]],
    repositories: list[str],
    skipped: dict[str, dict[str, str]],
    *,
    answered: frozenset[str] | None = None,
) -> dict[str, Any]:
    """The batch's figures: the rules alone, and (replayed) the rules with the model.

    When some requests had no answer (a sample was answered), the rules with the model are
    also scored on the ADRs whose request was answered, beside the rules alone on the same
    ADRs (`answered`): the like-for-like comparison a sample allows."""
    id_of = {(p.repo, p.file): p.id for p in proposals}
    by_file = {(p.repo, p.file): p for p in proposals}
    labelled = [pair for pair in labels["supersession"] if pair["repo"] in repositories]
    position = {(p.repo, p.file): index for index, p in enumerate(proposals)}
    pairs, left_out = [], []
    for pair in labelled:
        new, old = (pair["repo"], pair["new"]), (pair["repo"], pair["old"])
        if new in position and old in position:
            if position[old] < position[new]:
                pairs.append(pair)
            else:
                left_out.append({**pair, "not_imported": ["the old ADR is proposed after the new"]})
            continue
        reasons = [
            f"{file}: {skipped.get(pair['repo'], {}).get(file, 'not in the folders read')}"
            for file in (pair["new"], pair["old"])
            if (pair["repo"], file) not in id_of
        ]
        left_out.append({**pair, "not_imported": reasons})
    rules = _figures(proposals, pairs, labels, id_of, ("rules",))
    model = (
        _figures(proposals, pairs, labels, id_of, ("rules", "model"))
        if answered is not None
        else None
    )
    on_answered = None
    if answered is not None and any(p.prompt and p.prompt not in answered for p in proposals):
        asked = [p for p in proposals if p.prompt in answered]
        asked_files = {(p.repo, p.file) for p in asked}
        asked_pairs = [pair for pair in pairs if (pair["repo"], pair["new"]) in asked_files]
        on_answered = {
            who: {
                k: v
                for k, v in _figures(asked, asked_pairs, labels, id_of, by).items()
                if k != "hits"
            }
            for who, by in (("rules", ("rules",)), ("rules + model", ("rules", "model")))
        }
    rows = []
    for index, pair in enumerate(pairs):
        new = by_file[(pair["repo"], pair["new"])]
        old_id = id_of[(pair["repo"], pair["old"])]
        named = [f["rule"] for f in new.judgement if old_id in f["names"]]
        rows.append(
            {
                **pair,
                "flagged": rules["hits"][index],
                "flagged_with_model": model["hits"][index] if model else None,
                "rules": sorted(set(named)),
                "reached": old_id in new.shown or rules["hits"][index],
                "shown": old_id in new.shown,
                "shown_rank": new.shown.index(old_id) + 1 if old_id in new.shown else None,
                "candidates": len(new.shown),
                "in_top3": old_id in new.similar,
                "rank": new.similar.index(old_id) + 1 if old_id in new.similar else None,
            }
        )
    negatives = []
    for pair in labels["hard_negative"]:
        new = by_file.get((pair["repo"], pair["new"]))
        old_id = id_of.get((pair["repo"], pair["old"]))
        if pair["repo"] in repositories and new is not None and old_id is not None:
            named = sorted({f["rule"] for f in new.judgement if old_id in f["names"]})
            negatives.append({**pair, "flagged": bool(named), "rules": named})
    reached = sum(1 for row in rows if row["reached"])
    figures = {k: v for k, v in rules.items() if k != "hits"}
    return {
        "repositories": len(repositories),
        "adrs_proposed": len(proposals),
        "adrs_skipped_by_import": sum(len(skipped.get(name, {})) for name in repositories),
        "supersessions": len(pairs),
        "full": sum(1 for p in pairs if p["kind"] == "full"),
        "labelled_not_imported": len(left_out),
        **figures,
        "with_model": {k: v for k, v in model.items() if k != "hits"} if model else None,
        "on_answered": on_answered,
        "reached": reached,
        "reach": _ratio(reached, len(pairs)),
        "in_top3": sum(1 for row in rows if row["in_top3"]),
        "prompts": sum(1 for p in proposals if p.prompt),
        "candidates_shown": _ratio(sum(len(p.shown) for p in proposals), len(proposals)),
        "hard_negatives": len(negatives),
        "hard_negatives_flagged": sum(1 for n in negatives if n["flagged"]),
        "lint_notes": {rule: sum(1 for p in proposals if rule in p.lint) for rule in LINT},
        "pairs": rows,
        "not_imported": left_out,
        "negatives": negatives,
        "said": {f"{p.repo} {p.file}": p.said for p in proposals if p.said},
    }


# ---- output ----


def _row(split: str, s: dict[str, Any], figures: dict[str, Any], who: str) -> str:
    return (
        f"| {split} | {who} | {s['repositories']} | {s['adrs_proposed']} | "
        f"{s['supersessions']} ({s['full']}) | {figures['flagged']} ({figures['flagged_full']}) | "
        f"{figures['recall']} | {s['reached']} ({s['reach']}) | {s['in_top3']} | "
        f"{figures['precision']} | {figures['false_alarm_notes']} of "
        f"{figures['replace_nothing']} ({figures['false_alarm_rate']}) |"
    )


def print_results(results: dict[str, Any], show: str | None) -> None:
    for name, why in results["missing"].items():
        print(f"skipped {name}: {why}")
    print(
        "| batch | judged by | repositories | ADRs | supersessions (full) | flagged (full) | "
        "recall | reached | in top 3 | precision | false alarms on ADRs that replace nothing |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for split, s in results["summary"].items():
        print(_row(split, s, s, "rules"))
        if s["with_model"]:
            print(_row(split, s, s["with_model"], "rules + model"))
        for who, figures in (s.get("on_answered") or {}).items():
            print(_row(split, s, figures, f"{who}, answered ADRs only"))
    if results.get("unanswered"):
        print(f"{results['unanswered']} requests had no recorded answer (not judged)")
    for split, s in results["summary"].items():
        print(
            f"{split}: {s['labelled_not_imported']} labelled pairs not imported; "
            f"{s['adrs_skipped_by_import']} ADRs skipped by the import; {s['prompts']} "
            f"requests, {s['candidates_shown']} candidates each; false alarms by rule "
            f"{s['false_alarms_by_rule']}; hard negatives flagged "
            f"{s['hard_negatives_flagged']} of {s['hard_negatives']}; lint {s['lint_notes']}"
        )
        if not show:
            continue
        for row in s["pairs"]:
            mark = "ok" if row["flagged"] else ("m+" if row["flagged_with_model"] else "--")
            print(
                f"  {mark} {row['repo']} {row['new']} <- {row['old']} ({row['kind']}) "
                f"{row['rules']} shown {row['shown_rank']}/{row['candidates']} "
                f"top3 {row['rank']}"
            )
        for left in s["not_imported"]:
            print(f"  .. {left['repo']} {left['new']} <- {left['old']}: {left['not_imported']}")
        alarms = s["with_model"]["alarms"] if s["with_model"] else s["alarms"]
        if s.get("on_answered"):
            alarms = s["on_answered"]["rules + model"]["alarms"]
        for alarm in alarms:
            print(f"  !! {alarm['repo']} {alarm['file']}: {alarm['findings']}")
            if show == "words":
                for said in s["said"].get(f"{alarm['repo']} {alarm['file']}", []):
                    print(f"       {said[:600]}")


def record(results: dict[str, Any], name: str) -> None:
    stored = json.loads(RESULTS.read_text(encoding="utf-8")) if RESULTS.exists() else {}
    stored.setdefault("version", 1)
    kept = json.loads(json.dumps(results))
    for figures in kept["summary"].values():
        figures.pop("said", None)  # it quotes the ADRs: never committed
    stored.setdefault("runs", {})[name] = kept
    RESULTS.write_text(json.dumps(stored, indent=1) + "\n", encoding="utf-8")


def recorded_runs() -> set[str]:
    if not RESULTS.exists():
        return set()
    return set(json.loads(RESULTS.read_text(encoding="utf-8")).get("runs", {}))


# ---- the labels, without the curator ----


def _chosen(splits: Iterable[str], only: str | None) -> list[dict[str, Any]]:
    return [
        repository
        for repository in load_manifest()
        if repository["split"] in splits and (not only or repository["name"] == only)
    ]


def list_recorded(mirrors: Path, splits: Iterable[str], only: str | None = None) -> int:
    """Print the supersessions the ADRs' status lines record, as pairs.toml entries to
    check (by the status line and the two titles) before they are labelled."""
    for repository in _chosen(splits, only):
        texts = read_texts(mirrors, repository)
        if isinstance(texts, str):
            print(f"skipped {repository['name']}: {texts}")
            continue
        print_recorded(repository["name"], texts, titles_of(texts))
    return 0


def check_labels(mirrors: Path, splits: Iterable[str], only: str | None = None) -> dict[str, Any]:
    """The labels of the chosen repositories against their snapshots (see label_problems)."""
    labels = load_labels()
    batches = load_batches()
    known = {repository["name"] for repository in load_manifest()}
    from real_adr_labels import unknown_repositories

    problems = unknown_repositories(labels, known)
    missing: dict[str, str] = {}
    checked: dict[str, dict[str, int]] = {}
    for repository in _chosen(splits, only):
        files = folder_files(mirrors, repository)
        texts = read_texts(mirrors, repository)
        if isinstance(files, str) or isinstance(texts, str):
            missing[repository["name"]] = files if isinstance(files, str) else str(texts)
            continue
        recorded_only = repository["split"] in batches.recorded_only
        found, counts = check_repository(repository, files, texts, labels, recorded_only)
        problems += found
        checked[repository["name"]] = counts
    return {"problems": problems, "missing": missing, "checked": checked}


# ---- the command ----


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="\n\n".join(__doc__.split("\n\n")[1:]),
    )
    try:
        batches = load_batches()
    except ManifestError as exc:
        parser.exit(2, f"{exc}\n")
    parser.add_argument("--mirrors", type=Path, required=True, help="folder of the snapshots")
    parser.add_argument(
        "--split",
        choices=batches.order,
        help=f"one batch only (default: every read batch; {', '.join(sorted(batches.unread))} "
        "only with --first-sight)"
        if batches.unread
        else "one batch only (default: every batch)",
    )
    parser.add_argument("--repo", help="one repository only (owner/name)")
    parser.add_argument(
        "--show",
        nargs="?",
        const="pairs",
        choices=("pairs", "words"),
        help="every pair and false alarm ('words': with what the curator said)",
    )
    parser.add_argument("--record", metavar="NAME", help="store the figures in results.json")
    parser.add_argument(
        "--prompts",
        type=Path,
        metavar="OUT",
        help="write the model's requests to OUT/<batch>.jsonl",
    )
    parser.add_argument(
        "--sample",
        type=float,
        metavar="SHARE",
        help="with --prompts: keep every request of an ADR that replaces another and SHARE "
        "(0 to 1) of the others, chosen by request id",
    )
    parser.add_argument(
        "--answers", type=Path, metavar="IN", help="replay the answers in IN (a .jsonl or a folder)"
    )
    parser.add_argument(
        "--max-related",
        type=int,
        metavar="N",
        help="the vault's curator.semantic.max_related (default: lore's own)",
    )
    parser.add_argument(
        "--first-sight",
        action="store_true",
        help="run an unread batch, once, and record it as first-sight-<batch>",
    )
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument(
        "--list-recorded",
        action="store_true",
        help="print the supersessions the ADRs' status lines record (no curator)",
    )
    mode.add_argument(
        "--check-labels",
        action="store_true",
        help="check pairs.toml against the snapshots (no curator); exit 1 on a problem",
    )
    args = parser.parse_args()
    if not args.mirrors.is_dir():
        parser.exit(2, f"{args.mirrors} is not a folder of snapshots (see --help).\n")
    if args.list_recorded or args.check_labels:
        if args.record or args.show or args.prompts or args.answers or args.first_sight:
            parser.error("this mode runs no curator: it takes --split and --repo only")
        every = (args.split,) if args.split else batches.order
        if args.list_recorded:
            sys.exit(list_recorded(args.mirrors, every, args.repo))
        sys.exit(print_check(check_labels(args.mirrors, every, args.repo)))
    splits = (args.split,) if args.split else batches.read
    unread = [split for split in splits if split in batches.unread]
    if args.first_sight:
        if not unread or args.repo or args.record:
            parser.error(
                "--first-sight runs one unread batch whole: give --split NAME of an unread "
                "batch, and no --repo or --record (it records first-sight-NAME)"
            )
        args.record = f"first-sight-{args.split}"
        if args.record in recorded_runs():
            parser.exit(2, f"{args.record} is recorded already: a batch has one first sight.\n")
    elif unread:
        parser.exit(
            2,
            f"{unread[0]} is unread: it runs once, with --first-sight, and its figures are "
            "recorded as they come.\n",
        )
    if args.sample is not None and (args.prompts is None or not 0 < args.sample <= 1):
        parser.error("--sample SHARE takes a share between 0 and 1, with --prompts OUT")
    answers = load_answers(args.answers) if args.answers else None
    results = evaluate(
        args.mirrors,
        splits,
        args.repo,
        answers=answers,
        prompts=args.prompts,
        sample=args.sample,
        max_related=args.max_related,
        progress=True,
    )
    print_results(results, args.show)
    if args.record:
        record(results, args.record)
    if args.first_sight:
        print(
            f"recorded as {args.record}; now move {args.split} out of `unread` in the manifest",
            file=sys.stderr,
        )


if __name__ == "__main__":
    main()
