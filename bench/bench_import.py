"""Time `lore import adr` as a whole process on 100 and 1,000 generated ADRs.

    python bench/bench_import.py                        # 100 and 1,000 ADRs, 1,000-note vault
    python bench/bench_import.py --adrs 100 --runs 5 --vault-notes 10000

A synthetic vault (bench/synth.py) is pushed to a local bare repository and cloned, as
a teammate's checkout. A code repository holds N generated ADRs in adr-tools' format
(`# N. Title`, `Date:`, `## Status`, `## Context`, `## Decision`, `## Consequences`;
one in twenty supersedes an earlier one, in the status line), committed, with a GitHub
`origin` (only its URL is read). With medians over the runs:

- `lore import adr PATH --dry-run --json`: fetch, read and parse every ADR, git's record
  of the folder, the vault and its open proposals, then the curator on the whole batch;
- `lore import adr PATH --yes --json`: the same, then the commit of every note (and the
  taxonomy line) on a branch in a worktree, and the push to the bare repository — a
  local path, not GitHub, so no pull request is opened. The branch is deleted on the
  remote after each run, so every run proposes the whole batch again.

The parts of the dry run are timed once in this process as well: reading the ADRs
(`read_adrs`) and the batch (ids, the curator, the duplicate judgement). Results go to
bench/results/import-<adrs>.json and a table on stdout.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "src"))

from common import lore_command, median_ms, print_table, save_result  # noqa: E402
from synth import git, make_vault, topics, vocabulary, zipf_sampler  # noqa: E402

TAG = "team/platform"


def environment(workdir: Path) -> dict[str, str]:
    home = workdir / "home"
    home.mkdir(exist_ok=True)
    (home / ".gitconfig").write_text(
        "[user]\n\tname = Bench User\n\temail = bench@example.invalid\n"
        "[commit]\n\tgpgsign = false\n[init]\n\tdefaultBranch = main\n",
        encoding="utf-8",
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "LORE_"))}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.update(
        HOME=str(home),
        LORE_HOME=str(home / "lore-home"),
        LORE_CONFIG=str(home / "config.toml"),
        XDG_CONFIG_HOME=str(home / ".config"),
        GIT_CONFIG_NOSYSTEM="1",
    )
    return env


def make_adrs(count: int, dest: Path, seed: int = 13) -> None:
    """`count` ADRs in adr-tools' format, in a committed repository with a GitHub origin."""
    rng = random.Random(seed)
    words = vocabulary(random.Random(7))
    general = zipf_sampler(rng, words)
    topic_list = topics(words)
    folder = dest / "doc" / "adr"
    folder.mkdir(parents=True)
    names: list[tuple[int, str, str]] = []
    for number in range(1, count + 1):
        topic = topic_list[rng.randrange(len(topic_list))]
        title = " ".join([rng.choice(topic) for _ in range(3)] + general(3)).capitalize()
        slug = "-".join(title.lower().split())
        name = f"{number:04d}-{slug}.md"
        day = f"20{rng.randint(18, 25)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
        status = "Accepted"
        if number > 20 and number % 20 == 0:
            older = names[rng.randrange(len(names))]
            status += f"\n\nSupercedes [{older[0]}. {older[1]}]({older[2]})"
        context = " ".join(_word(rng, topic, general) for _ in range(60))
        decision = " ".join(_word(rng, topic, general) for _ in range(40))
        (folder / name).write_text(
            f"# {number}. {title}\n\nDate: {day}\n\n## Status\n\n{status}\n\n"
            f"## Context\n\n{context.capitalize()}.\n\n## Decision\n\nWe will {decision}.\n\n"
            f"## Consequences\n\n{' '.join(general(30))}.\n",
            encoding="utf-8",
        )
        names.append((number, title, name))
    git(dest, "init", "-q", "-b", "main")
    git(dest, "remote", "add", "origin", "https://github.com/acme/bench-service.git")
    git(dest, "add", "-A")
    git(dest, "commit", "-q", "-m", f"{count} ADRs")


def _word(rng: random.Random, topic: list[str], general: Any) -> str:
    """A topic's word 60 % of the time, else a common one (as bench/synth.py's notes)."""
    return rng.choice(topic) if rng.random() < 0.6 else str(general(1)[0])


def timed(command: list[str], env: dict[str, str]) -> tuple[float, dict[str, Any]]:
    started = time.perf_counter()
    result = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - started
    if result.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(command[:4])} failed ({result.returncode}): {result.stderr}")
    return elapsed, json.loads(result.stdout)


def parts(checkout: Path, adrs: Path, env: dict[str, str]) -> dict[str, float]:
    """The dry run's parts, once, in this process."""
    os.environ.update({k: v for k, v in env.items() if k.startswith(("LORE_", "HOME"))})
    from lore.team.imports import adr
    from lore.team.imports.batch import plan_batch
    from lore.team.imports.model import ReadOptions
    from lore.team.imports.run import open_vault
    from lore.team.imports.tagging import Tagger

    started = time.perf_counter()
    view = open_vault(checkout)
    opened = time.perf_counter()
    options = ReadOptions(tagger=Tagger(view.taxonomy), max_words=200, tags=[TAG])
    drafts, skipped = adr.read_adrs([adrs], options)
    read = time.perf_counter()
    plan_batch(view, "adr", drafts, skipped, author=None)
    done = time.perf_counter()
    return {
        "open_vault_ms": round((opened - started) * 1000, 1),
        "read_adrs_ms": round((read - opened) * 1000, 1),
        "batch_and_curator_ms": round((done - read) * 1000, 1),
    }


def bench(count: int, vault_notes: int, runs: int, workdir: Path) -> dict[str, Any]:
    env = environment(workdir)
    source, bare = workdir / "vault", workdir / "remote.git"
    if not bare.exists():
        make_vault(vault_notes, source)
        git(workdir, "init", "-q", "--bare", "-b", "main", str(bare))
        git(source, "push", "-q", str(bare), "main")
    checkout = workdir / f"checkout-{count}"
    git(workdir, "clone", "-q", str(bare), checkout.name)
    code = workdir / f"code-{count}"
    make_adrs(count, code)
    adrs = str(code / "doc" / "adr")
    command = [*lore_command(), "import", "adr", adrs, "--vault", str(checkout), "--tag", TAG]
    dry: list[float] = []
    real: list[float] = []
    notes = 0
    for run in range(runs):
        elapsed, result = timed([*command, "--dry-run", "--json"], env)
        notes = len(result["notes"])
        assert notes > count * 0.9, (notes, result["skipped"][:3])
        dry.append(elapsed)
        elapsed, result = timed([*command, "--yes", "--json"], env)
        assert result["proposals"][0]["status"] == "pushed", result["proposals"]
        real.append(elapsed)
        for ref in git(bare, "for-each-ref", "--format=%(refname)", "refs/heads/lore/").split():
            git(bare, "update-ref", "-d", ref)
        git(checkout, "fetch", "-q", "--prune", "origin")
        for ref in git(checkout, "for-each-ref", "--format=%(refname)", "refs/heads/lore/").split():
            git(checkout, "update-ref", "-d", ref)
        print(
            f"  {count} ADRs, run {run + 1}: dry run {dry[-1]:.2f} s, proposed {real[-1]:.2f} s",
            flush=True,
        )
    return {
        "adrs": count,
        "notes": notes,
        "vault_notes": vault_notes,
        "runs": runs,
        "dry_run_ms": median_ms(dry),
        "dry_run_range_ms": [round(min(dry) * 1000, 1), round(max(dry) * 1000, 1)],
        "propose_ms": median_ms(real),
        "propose_range_ms": [round(min(real) * 1000, 1), round(max(real) * 1000, 1)],
        "per_adr_dry_run_ms": round(median_ms(dry) / count, 2),
        "parts": parts(checkout, code / "doc" / "adr", env),
        "load": os.getloadavg()[0],
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--adrs", type=int, nargs="+", default=[100, 1000])
    parser.add_argument("--vault-notes", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        for count in args.adrs:
            row = bench(count, args.vault_notes, args.runs, Path(scratch))
            save_result(f"import-{count}", dict(row))
            rows.append({**row, **row["parts"]})
    print_table(
        rows,
        ["adrs", "notes", "vault_notes", "dry_run_ms", "propose_ms", "per_adr_dry_run_ms",
         "read_adrs_ms", "batch_and_curator_ms", "load"],
    )  # fmt: skip


if __name__ == "__main__":
    main()
