"""The real-decision eval end to end, on ADRs written for the test.

A real git repository of ADRs, cloned bare into the layout the snapshot fetcher leaves,
goes through what eval/run_real_adr_eval.py does with the public ones: `lore import adr`
converts it, each ADR is proposed as a pull request against the ADRs before it and
checked by `lore curate`, whose model review goes to the eval's stand-in for GitHub
Models on 127.0.0.1 (GitHub Models cannot be reached from a test; the stand-in speaks
its documented chat-completions API: `lore.curator.review.github_models`). The answers
replayed here are written by the test, as a blind answerer's would be written to a file.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support import git, load_script

EVAL = Path(__file__).resolve().parent.parent / "eval" / "run_real_adr_eval.py"
FETCH = Path(__file__).resolve().parent.parent / "eval" / "fetch_adr_snapshots.py"
REPO = "acme/decisions"

ADRS = {
    "0001-record-decisions.md": "# 1. Record decisions\n\nDate: 2021-01-05\n\n## Status\n\n"
    "Accepted\n\n## Context\n\nWe forget why we chose things.\n\n## Decision\n\n"
    "We write every architecture decision down as a record in this folder.\n",
    "0002-store-jobs-in-redis.md": "# 2. Store jobs in Redis\n\nDate: 2021-02-01\n\n"
    "## Status\n\nSuperseded by [4. Store jobs in Postgres](0004-store-jobs-in-postgres.md)\n\n"
    "## Context\n\nThe workers need a queue of background jobs.\n\n## Decision\n\n"
    "Background jobs live in Redis lists, and the workers pop them from there.\n",
    "0003-send-mail-with-the-relay.md": "# 3. Send mail with the relay\n\nDate: 2021-03-01\n\n"
    "## Status\n\nAccepted\n\n## Decision\n\nThe mail relay sends every notification mail.\n",
    "0004-store-jobs-in-postgres.md": "# 4. Store jobs in Postgres\n\nDate: 2021-04-01\n\n"
    "## Status\n\nAccepted. Supersedes [2. Store jobs in Redis](0002-store-jobs-in-redis.md)\n\n"
    "## Context\n\nRedis lost jobs on a restart.\n\n## Decision\n\nBackground jobs live in a "
    "Postgres table instead of Redis lists; the workers lock a row to take a job.\n",
    "run-the-workers-on-the-managed-service.md": "# Run the workers on the managed service\n\n"
    "Date: 2021-05-01\n\n## Status\n\nAccepted\n\n## Decision\n\nThe provider's managed "
    "service runs the workers.\n",
}
PAIR = ("0004-store-jobs-in-postgres.md", "0002-store-jobs-in-redis.md")


@pytest.fixture
def eval_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, Path]:
    """The eval pointed at a manifest and labels of a snapshot made here."""
    work = tmp_path / "work"
    (work / "docs" / "adr").mkdir(parents=True)
    for name, text in ADRS.items():
        (work / "docs" / "adr" / name).write_text(text, encoding="utf-8")
    git(work, "init", "-q")
    git(work, "add", "-A")
    git(work, "commit", "-q", "-m", "decisions")
    mirrors = tmp_path / "mirrors"
    git(tmp_path, "clone", "-q", "--bare", str(work), str(mirrors / "acme+decisions" / "repo"))
    module = load_script(EVAL, "run_real_adr_eval")
    data = sys.modules["real_adr_manifest"]
    manifest = tmp_path / "manifest.toml"
    manifest.write_text(
        '[batches]\norder = ["held-out-9"]\nunread = []\nrecorded_only = ["held-out-9"]\n\n'
        f'[[repository]]\nname = "{REPO}"\ncommit = "{git(work, "rev-parse", "HEAD")}"\n'
        'folder = "docs/adr"\nlicence = "written for this test"\nscope = "acme"\n'
        'split = "held-out-9"\n',
        encoding="utf-8",
    )
    pairs = tmp_path / "pairs.toml"
    pairs.write_text(
        f'[[supersession]]\nrepo = "{REPO}"\nnew = "{PAIR[0]}"\nold = "{PAIR[1]}"\n'
        'kind = "full"\nrecorded = "status of both"\n',
        encoding="utf-8",
    )
    monkeypatch.setattr(data, "MANIFEST", manifest)
    monkeypatch.setattr(data, "PAIRS", pairs)
    return module, mirrors


def _requests(folder: Path) -> list[dict[str, Any]]:
    return [
        json.loads(line)
        for line in (folder / "held-out-9.jsonl").read_text(encoding="utf-8").splitlines()
    ]


def test_each_adr_is_imported_and_proposed_against_the_ones_before_it(
    eval_module: tuple[Any, Path], tmp_path: Path
) -> None:
    module, mirrors = eval_module
    prompts = tmp_path / "prompts"
    results = module.evaluate(mirrors, ("held-out-9",), prompts=prompts)
    assert results["missing"] == {}
    figures = results["summary"]["held-out-9"]
    assert figures["adrs_proposed"] == 5 and figures["supersessions"] == 1
    # the proposal carries no `supersedes`: the rules found the replacement in its prose
    (row,) = figures["pairs"]
    assert row["flagged"] and row["reached"] and row["rules"]
    assert figures["false_alarm_notes"] == 0
    # numbered ADRs by number, the unnumbered one after them by date; each request shows
    # only notes proposed before its own
    order = [
        "acme--record-decisions--2021-01-05",
        "acme--store-jobs-in-redis--2021-02-01",
        "acme--send-mail-with-the-relay--2021-03-01",
        "acme--store-jobs-in-postgres--2021-04-01",
        "acme--run-the-workers-on-the-managed-service--2021-05-01",
    ]
    stand_in = sys.modules["model_stand_in"]
    requests = _requests(prompts)
    assert requests
    for request in requests:
        proposed, shown = stand_in.shown_ids(request["messages"])
        assert shown and set(shown) <= set(order[: order.index(proposed)]), proposed


def test_the_requests_are_recorded_word_for_word_with_an_id_and_nothing_of_the_labels(
    eval_module: tuple[Any, Path], tmp_path: Path
) -> None:
    module, mirrors = eval_module
    prompts = tmp_path / "prompts"
    module.evaluate(mirrors, ("held-out-9",), prompts=prompts)
    stand_in = sys.modules["model_stand_in"]
    requests = _requests(prompts)
    assert requests
    for request in requests:
        assert set(request) == {"id", "model", "messages", "response_format"}
        assert request["id"] == stand_in.prompt_id(request["messages"])
        assert [m["role"] for m in request["messages"]] == ["system", "user"]
    text = (prompts / "held-out-9.jsonl").read_text(encoding="utf-8")
    for label in (*PAIR, "pairs.toml", "supersession", REPO):
        assert label not in text  # the files the labels name, and the labels' own words
    assert (prompts / "HOW-TO-ANSWER.md").is_file()
    # a second run adds nothing: each request is kept once
    module.evaluate(mirrors, ("held-out-9",), prompts=prompts)
    assert _requests(prompts) == requests


def test_the_dates_are_the_datas(
    eval_module: tuple[Any, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each proposal is committed on, and curated as of, the latest date of the ADRs so
    far: never the day the eval runs."""
    module, mirrors = eval_module
    importing = sys.modules["real_adr_import"]
    proposing = sys.modules["real_adr_propose"]
    stand_in = sys.modules["model_stand_in"]
    (repository,) = module.load_manifest()
    vault = tmp_path / "vault"
    with stand_in.running() as server:
        config = tmp_path / "config.toml"
        config.write_text(stand_in.user_config(server), encoding="utf-8")
        monkeypatch.setenv("LORE_CONFIG", str(config))
        importing.make_vault(vault, "acme", stand_in.settings())
        imported = importing.import_repository(mirrors, repository, tmp_path, vault)
        assert not isinstance(imported, str)
        proposing.propose_all(imported, module.load_labels(), vault, server)
    days = git(vault, "log", "--reverse", "--format=%ad", "--date=short").split()[1:]
    assert days == [d for d in ("2021-01-05", "2021-02-01", "2021-03-01", "2021-04-01",
                                "2021-05-01") for _ in range(2)]  # fmt: skip


def test_the_fetch_script_brings_each_repository_at_its_recorded_commit(
    eval_module: tuple[Any, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The source is a local folder standing in for GitHub (no network in tests); the
    script fetches the commit by its hash, as GitHub serves it."""
    _, mirrors = eval_module
    fetch = load_script(FETCH, "fetch_adr_snapshots")
    target = tmp_path / "fetched"
    monkeypatch.setattr(sys, "argv", ["fetch", str(target), "--source", f"file://{mirrors}"])
    with pytest.raises(SystemExit) as refused:
        fetch.main()
    assert refused.value.code == 2 and "must contain {name}" in capsys.readouterr().err
    source = f"file://{mirrors}/{{name}}"
    (mirrors / "acme").mkdir()
    (mirrors / "acme" / "decisions").symlink_to(mirrors / "acme+decisions" / "repo")
    monkeypatch.setattr(sys, "argv", ["fetch", str(target), "--source", source])
    assert fetch.main() == 0
    (repository,) = sys.modules["real_adr_manifest"].load_manifest()
    fetched = target / "acme+decisions" / "repo"
    assert fetch.has_commit(fetched, repository["commit"])
    assert fetch.fetch_one(target, repository, source) == "already here"


def test_answers_recorded_blind_replay_through_lore_curate(
    eval_module: tuple[Any, Path], tmp_path: Path
) -> None:
    """A request answered in a file (as the blind answerer writes them) reaches `lore
    curate` through the stand-in and counts for "rules + model"; a request with no
    recorded answer is counted, never judged."""
    module, mirrors = eval_module
    stand_in = sys.modules["model_stand_in"]
    prompts = tmp_path / "prompts"
    module.evaluate(mirrors, ("held-out-9",), prompts=prompts)
    requests = _requests(prompts)
    workers = "acme--run-the-workers-on-the-managed-service--2021-05-01"
    lines = []
    for request in requests:
        proposed, shown = stand_in.shown_ids(request["messages"])
        if proposed == "acme--store-jobs-in-postgres--2021-04-01":
            continue  # left unanswered
        verdicts = [
            {
                "candidate": number,
                "verdict": "replaces" if proposed == workers and number == 1 else "neither",
                "proposed_clause": 1 if proposed == workers and number == 1 else None,
                "existing_clause": 1 if proposed == workers and number == 1 else None,
                "still_holds": "",
                "reason": "Written for the test.",
            }
            for number in range(1, len(shown) + 1)
        ]
        content = json.dumps({"verdicts": verdicts})
        lines.append(json.dumps({"id": request["id"], "model": "test", "content": content}))
    answers = tmp_path / "answers.jsonl"
    answers.write_text("\n".join(lines) + "\n", encoding="utf-8")
    results = module.evaluate(mirrors, ("held-out-9",), answers=stand_in.load_answers(answers))
    figures = results["summary"]["held-out-9"]
    assert results["unanswered"] == len(requests) - len(lines) == 1
    assert figures["false_alarm_notes"] == 0  # the rules alone, as before
    model = figures["with_model"]
    assert model["false_alarm_notes"] == 1
    (alarm,) = model["alarms"]
    assert alarm["file"] == "run-the-workers-on-the-managed-service.md"
    assert [f["rule"] for f in alarm["findings"]] == ["convention/semantic-replacement"]
    assert model["flagged"] >= figures["flagged"]
    # a request was left unanswered, so both are scored again on the answered ADRs alone:
    # the one that replaces nothing, and no supersession
    answered = figures["on_answered"]
    assert answered["rules + model"]["replace_nothing"] == 1
    assert answered["rules + model"]["false_alarm_notes"] == 1
    assert answered["rules"]["false_alarm_notes"] == 0
    assert answered["rules + model"]["recall"] is None


def test_a_sample_keeps_every_replacing_adr_and_a_share_of_the_others(
    eval_module: tuple[Any, Path], tmp_path: Path
) -> None:
    """`--sample`: what a blind answerer is given when not every request can be answered.
    The ADR that replaces another is always kept; the others by their request's id."""
    module, mirrors = eval_module
    stand_in = sys.modules["model_stand_in"]
    every, few, all_of_them = tmp_path / "every", tmp_path / "few", tmp_path / "all"
    module.evaluate(mirrors, ("held-out-9",), prompts=every)
    module.evaluate(mirrors, ("held-out-9",), prompts=few, sample=1e-9)
    module.evaluate(mirrors, ("held-out-9",), prompts=all_of_them, sample=1.0)
    (kept,) = _requests(few)
    proposed, _ = stand_in.shown_ids(kept["messages"])
    assert proposed == "acme--store-jobs-in-postgres--2021-04-01"
    assert _requests(all_of_them) == _requests(every)


def test_max_related_is_the_vaults_own_setting(
    eval_module: tuple[Any, Path], tmp_path: Path
) -> None:
    """`--max-related 0`: the model is asked only about the notes a proposal points at,
    so the ADRs found by likeness alone send no request."""
    module, mirrors = eval_module
    every, pointed = tmp_path / "every", tmp_path / "pointed"
    module.evaluate(mirrors, ("held-out-9",), prompts=every)
    results = module.evaluate(mirrors, ("held-out-9",), prompts=pointed, max_related=0)
    assert results["max_related"] == 0
    assert len(_requests(pointed) if (pointed / "held-out-9.jsonl").exists() else []) < len(
        _requests(every)
    )
