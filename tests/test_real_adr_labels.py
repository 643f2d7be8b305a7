"""The real-decision eval's labels: read from status lines, checked against the snapshots.

The ADRs here are written for the test, in the status-line formats public ADR folders use
(a Nygard `## Status` section, MADR front matter, a note above the first section, a
notice as a heading, a metadata table); they sit in a real bare git repository laid out
as the snapshot fetcher leaves one. The last test runs on the real snapshots when
LORE_ADR_MIRRORS names a folder of them, and skips otherwise.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support import git, load_script

EVAL = Path(__file__).resolve().parent.parent / "eval" / "run_real_adr_eval.py"

ADRS = {
    "0001-record-decisions.md": "# 1. Record decisions\n\n## Status\n\nAccepted\n\n"
    "## Context\n\nWe forget why.\n\n## Decision\n\nWe write them down.\n",
    "0002-store-jobs-in-redis.md": "# 2. Store jobs in Redis\n\nDate: 2021-02-01\n\n"
    "## Status\n\nSuperseded by [5. Store jobs in Postgres](0005-store-jobs-in-postgres.md)\n\n"
    "## Decision\n\nJobs live in Redis lists.\n",
    "0003-send-mail-with-relay.md": "---\nstatus: superseded by ADR-0006\ndate: 2021-03-01\n"
    "---\n# Send mail with the relay\n\n## Decision\n\nThe relay sends every mail.\n",
    "0004-one-cluster.md": "# 4. One cluster\n\nParts of this ADR were superseded by "
    "[ADR-7](./0007-a-cluster-per-region.md).\n\n## Decision\n\nEverything runs in one "
    "cluster. An old plan supersedes 0001 here, in the body, which is not a status line.\n",
    "0005-store-jobs-in-postgres.md": "# 5. Store jobs in Postgres\n\n## Status\n\nAccepted. "
    "Supersedes [2. Store jobs in Redis](0002-store-jobs-in-redis.md)\n\n## Decision\n\n"
    "Jobs live in a table.\n",
    "0006-send-mail-directly.md": "# 6. Send mail directly\n\n| Status | Accepted |\n"
    "| Supersedes | N/A |\n\n## Decision\n\nThe service sends mail itself.\n",
    "0007-a-cluster-per-region.md": "# 7. A cluster per region\n\n## This ADR has been "
    "superseded by [ADR 9](0009-renamed-file.md)\n\n## Decision\n\nOne cluster a region.\n",
    "0008-regional-clusters-share-a-registry.md": "# 8. Regional clusters share a registry\n\n"
    "## Status\n\nRejected\n\n## Decision\n\nOne registry.\n",
    "0009-run-on-a-managed-service.md": "# 9. Run on a managed service\n\n## Status\n\n"
    "Accepted\n\n## Decision\n\nThe provider runs the clusters.\n",
    "template.md": "# NUMBER. TITLE\n\n## Status\n\nSuperseded by [ADR-0005](0005-example.md)\n",
}
RECORDED = {
    ("0005-store-jobs-in-postgres.md", "0002-store-jobs-in-redis.md", "full"),
    ("0006-send-mail-directly.md", "0003-send-mail-with-relay.md", "full"),
    ("0007-a-cluster-per-region.md", "0004-one-cluster.md", "partial"),
    ("0009-run-on-a-managed-service.md", "0007-a-cluster-per-region.md", "full"),
}
REPO = "acme/decisions"
MANIFEST = f"""
[[repository]]
name = "{REPO}"
commit = "COMMIT"
folder = "docs/adr"
licence = "written for this test"
scope = "acme"
split = "SPLIT"
skip = ["template.md"]
"""


def _load() -> Any:
    return load_script(EVAL, "run_real_adr_eval")


def _labels(*extra: str, without: tuple[str, str] | None = None) -> str:
    """pairs.toml labelling every recorded pair (but `without`), and `extra` entries."""
    pairs = "".join(
        f'[[supersession]]\nrepo = "{REPO}"\nnew = "{new}"\nold = "{old}"\nkind = "{kind}"\n'
        'recorded = "status"\n\n'
        for new, old, kind in sorted(RECORDED)
        if (new, old) != without
    )
    return pairs + "".join(extra)


MAIL = ("0006-send-mail-directly.md", "0003-send-mail-with-relay.md")


@pytest.fixture(params=["held-out-5", "held-out-4", "held-out-3", "held-out-2"])
def snapshot(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> tuple[Any, Path]:
    """The eval module pointed at a manifest and labels of a snapshot made here, its
    repository in any batch labelled from the status lines alone: a repository added now
    is held-out-5 by construction; as held-out-2, held-out-3 or held-out-4 it must be
    named in that batch's list."""
    work = tmp_path / "work"
    (work / "docs" / "adr").mkdir(parents=True)
    for name, text in ADRS.items():
        (work / "docs" / "adr" / name).write_text(text, encoding="utf-8")
    git(work, "init", "-q")
    git(work, "add", "-A")
    git(work, "commit", "-q", "-m", "decisions")
    mirrors = tmp_path / "mirrors"
    git(tmp_path, "clone", "-q", "--bare", str(work), str(mirrors / "acme+decisions" / "repo"))
    module = _load()
    manifest = tmp_path / "manifest.toml"
    if request.param == "held-out-2":
        monkeypatch.setattr(module, "HELD_OUT_2", module.HELD_OUT_2 | {REPO})
    if request.param == "held-out-3":
        monkeypatch.setattr(module, "HELD_OUT_3", module.HELD_OUT_3 | {REPO})
    if request.param == "held-out-4":
        monkeypatch.setattr(module, "HELD_OUT_4", module.HELD_OUT_4 | {REPO})
    manifest.write_text(
        MANIFEST.replace("COMMIT", git(work, "rev-parse", "HEAD")).replace("SPLIT", request.param),
        "utf-8",
    )
    monkeypatch.setattr(module, "MANIFEST", manifest)
    monkeypatch.setattr(module, "PAIRS", tmp_path / "pairs.toml")
    module.PAIRS.write_text(_labels(), encoding="utf-8")
    return module, mirrors


def test_the_status_lines_give_every_recorded_supersession_and_nothing_from_the_body(
    snapshot: tuple[Any, Path],
) -> None:
    module, mirrors = snapshot
    (repository,) = module.load_manifest()
    texts = module.read_texts(mirrors, repository)
    labels = sys.modules["real_adr_labels"]  # imported by the script, from eval/
    pairs, unresolved = labels.recorded_pairs(texts)
    found = {(pair.new, pair.old, pair.kind) for pair in pairs}
    assert found == RECORDED  # the body's "supersedes 0001" is not a status line
    both = labels.merged(pairs)[("0005-store-jobs-in-postgres.md", "0002-store-jobs-in-redis.md")]
    assert {pair.said_in for pair in both} == {"old", "new"}
    assert unresolved == []  # "| Supersedes | N/A |" names nothing and says so


def test_the_labels_hold_and_the_check_says_so(
    snapshot: tuple[Any, Path], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    module, mirrors = snapshot
    result = module.check_labels(mirrors, module.SPLITS)
    assert result["problems"] == [] and result["missing"] == {}
    assert result["checked"][REPO] == {"adrs": 8, "supersessions": 4, "full": 3}
    monkeypatch.setattr(sys, "argv", ["eval", "--mirrors", str(mirrors), "--check-labels"])
    with pytest.raises(SystemExit) as exit_:
        module.main()
    assert exit_.value.code == 0
    assert "the labels of 1 repositories hold" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("labels", "problem"),
    [
        (_labels().replace("0002-store-jobs-in-redis.md", "0002-gone.md"), "is not in docs/adr"),
        (
            _labels().replace(
                'new = "0006-send-mail-directly.md"\nold = "0003-send-mail-with-relay.md"',
                'new = "0003-send-mail-with-relay.md"\nold = "0006-send-mail-directly.md"',
            ),
            "comes after 0003-send-mail-with-relay.md",
        ),
        (_labels().replace('"0004-one-cluster.md"', '"template.md"'), "skipped by the manifest"),
        (
            _labels(
                f'[[supersession]]\nrepo = "{REPO}"\nnew = "0009-run-on-a-managed-service.md"\n'
                'old = "0008-regional-clusters-share-a-registry.md"\nkind = "full"\n'
            ),
            "is not proposed (rejected",
        ),
        (_labels(without=MAIL), "which pairs.toml neither labels nor dismisses"),
        (
            _labels(
                f'[[related]]\nrepo = "{REPO}"\nnew = "0006-send-mail-directly.md"\n'
                'old = "0001-record-decisions.md"\n'
            ),
            "takes recorded supersessions only",
        ),
        (
            _labels(
                f'[[supersession]]\nrepo = "{REPO}"\nnew = "0009-run-on-a-managed-service.md"\n'
                'old = "0001-record-decisions.md"\nkind = "full"\n'
            ),
            "no status line records it",
        ),
        (_labels().replace('kind = "partial"', 'kind = "some"'), 'kind must be "full"'),
        (
            _labels().replace(f'repo = "{REPO}"', 'repo = "acme/elsewhere"', 1),
            "not in the manifest",
        ),
    ],
    ids=[
        "missing-file",
        "old-after-new",
        "skipped-file",
        "rejected-adr",
        "recorded-but-unlabelled",
        "related-in-a-recorded-only-batch",
        "not-recorded",
        "bad-kind",
        "unknown-repository",
    ],
)
def test_a_wrong_label_is_named_and_the_check_fails(
    snapshot: tuple[Any, Path],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    labels: str,
    problem: str,
) -> None:
    module, mirrors = snapshot
    module.PAIRS.write_text(labels, encoding="utf-8")
    monkeypatch.setattr(sys, "argv", ["eval", "--mirrors", str(mirrors), "--check-labels"])
    with pytest.raises(SystemExit) as exit_:
        module.main()
    assert exit_.value.code == 1
    assert problem in capsys.readouterr().out


def test_a_dismissed_pair_covers_a_recorded_one_it_names_with_a_reason(
    snapshot: tuple[Any, Path],
) -> None:
    module, mirrors = snapshot
    dismissed = (
        f'[[dismissed]]\nrepo = "{REPO}"\nnew = "{MAIL[0]}"\nold = "{MAIL[1]}"\n'
        'why = "checked: the two titles are about other things"\n'
    )
    module.PAIRS.write_text(_labels(dismissed, without=MAIL), encoding="utf-8")
    assert MAIL not in {(p["new"], p["old"]) for p in module.load_labels()["supersession"]}
    assert module.check_labels(mirrors, module.SPLITS)["problems"] == []
    unexplained = dismissed.replace('why = "checked: the two titles are about other things"\n', "")
    module.PAIRS.write_text(_labels(unexplained, without=MAIL), encoding="utf-8")
    problems = module.check_labels(mirrors, module.SPLITS)["problems"]
    assert [p for p in problems if "needs a `why`" in p]


def test_a_repository_in_the_wrong_split_is_refused(snapshot: tuple[Any, Path]) -> None:
    module, _ = snapshot
    wrong = (
        ("acme/decisions", "tune"),
        ("npryce/adr-tools", "held-out-2"),
        ("npryce/adr-tools", "held-out-3"),
        ("npryce/adr-tools", "held-out-4"),
        ("npryce/adr-tools", "held-out-5"),
        ("nationalarchives/tdr-dev-documentation", "held-out-3"),
        ("nationalarchives/tdr-dev-documentation", "held-out-4"),
        ("konflux-ci/architecture", "held-out-2"),
        ("konflux-ci/architecture", "held-out-4"),
        ("HHS/OPRE-OPS", "held-out-3"),
        ("HHS/OPRE-OPS", "held-out-5"),
        ("alphagov/gsp", "held-out-4"),
    )
    # the fixture put acme/decisions in one of the later batches: any other is refused
    mine = module.split_of("acme/decisions")
    wrong += tuple(
        ("acme/decisions", split)
        for split in ("held-out-2", "held-out-3", "held-out-4", "held-out-5")
        if split != mine
    )
    for name, split in wrong:
        module.MANIFEST.write_text(
            f'[[repository]]\nname = "{name}"\ncommit = "0"\nfolder = ""\nlicence = ""\n'
            f'scope = "x"\nsplit = "{split}"\n',
            "utf-8",
        )
        with pytest.raises(SystemExit, match="fixed split"):
            module.load_manifest()


def test_the_list_mode_prints_labels_to_check_without_running_the_curator(
    snapshot: tuple[Any, Path], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    module, mirrors = snapshot
    monkeypatch.setattr(module, "curate", None)  # a call would fail: the mode never makes one
    monkeypatch.setattr(sys, "argv", ["eval", "--mirrors", str(mirrors), "--list-recorded"])
    with pytest.raises(SystemExit) as exit_:
        module.main()
    assert exit_.value.code == 0
    out = capsys.readouterr().out
    assert f"# ---- {REPO}: 9 ADRs, 4 recorded ----" in out
    assert "#   old: Store jobs in Redis" in out and "#   new: Store jobs in Postgres" in out
    assert out.count("[[supersession]]") == 4


# A repository that moves its superseded ADRs into a subfolder (as docs/adr/deprecated/),
# with relative links across the two folders, in the forms such repositories use.
MOVED = {
    "docs/adr/0002-store-files-in-buckets.md": "# 2. Store files in buckets\n\n## Status\n\n"
    "Accepted. Replaces [1. Store files on disk](./deprecated/0001-store-files-on-disk.md).\n\n"
    "## Decision\n\nFiles go to a bucket.\n",
    "docs/adr/0003-scan-uploads.md": "# 3. Scan uploads\n\n## Status\n\nAccepted\n\n"
    "## Decision\n\nEvery upload is scanned.\n",
    "docs/adr/deprecated/0001-store-files-on-disk.md": "# 1. Store files on disk\n\n## Status"
    "\n\nSuperseded. [2. Store files in buckets](../0002-store-files-in-buckets.md) is newer."
    "\n\n## Decision\n\nFiles go to the disk.\n",
}
MOVED_PAIR = ("0002-store-files-in-buckets.md", "0001-store-files-on-disk.md")


def _moved(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, files: dict[str, str]) -> Any:
    """The eval module pointed at a held-out-5 manifest reading docs/adr and its
    deprecated/ subfolder as one set, over a snapshot of `files` made here."""
    work = tmp_path / "work"
    for path, text in files.items():
        (work / path).parent.mkdir(parents=True, exist_ok=True)
        (work / path).write_text(text, encoding="utf-8")
    git(work, "init", "-q")
    git(work, "add", "-A")
    git(work, "commit", "-q", "-m", "decisions")
    git(tmp_path, "clone", "-q", "--bare", str(work), str(tmp_path / "m" / "acme+moved" / "repo"))
    module = _load()
    monkeypatch.setattr(module, "MANIFEST", tmp_path / "manifest.toml")
    module.MANIFEST.write_text(
        f'[[repository]]\nname = "acme/moved"\ncommit = "{git(work, "rev-parse", "HEAD")}"\n'
        'folder = "docs/adr"\nfolders = ["docs/adr/deprecated"]\nlicence = "written for this '
        'test"\nscope = "moved"\nsplit = "held-out-5"\n',
        "utf-8",
    )
    monkeypatch.setattr(module, "PAIRS", tmp_path / "pairs.toml")
    module.PAIRS.write_text(
        f'[[supersession]]\nrepo = "acme/moved"\nnew = "{MOVED_PAIR[0]}"\n'
        f'old = "{MOVED_PAIR[1]}"\nkind = "full"\nrecorded = "status of both"\n',
        "utf-8",
    )
    return module


def test_a_second_folder_is_read_as_part_of_the_repository(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    module = _moved(tmp_path, monkeypatch, MOVED)
    mirrors = tmp_path / "m"
    (repository,) = module.load_manifest()
    texts = module.read_texts(mirrors, repository)
    assert [name for name, _ in texts] == [
        "0001-store-files-on-disk.md",
        "0002-store-files-in-buckets.md",
        "0003-scan-uploads.md",
    ]
    assert "Files go to the disk." in texts[0][1]  # read from the subfolder
    labels = sys.modules["real_adr_labels"]
    assert set(labels.merged(labels.recorded_pairs(texts)[0])) == {MOVED_PAIR}
    # the date of an undated ADR comes from the log of its own path, in the subfolder too
    adrs = module.read_repository(mirrors, repository)
    assert [adr.date for adr in adrs] == [git(tmp_path / "work", "log", "-1", "--format=%as")] * 3
    result = module.check_labels(mirrors, module.SPLITS)
    assert result["problems"] == [] and result["missing"] == {}
    assert result["checked"]["acme/moved"] == {"adrs": 3, "supersessions": 1, "full": 1}
    # without the second folder the old ADR is not there, and the check says where it looked
    module.MANIFEST.write_text(
        module.MANIFEST.read_text("utf-8").replace('folders = ["docs/adr/deprecated"]\n', ""),
        "utf-8",
    )
    problems = module.check_labels(mirrors, module.SPLITS)["problems"]
    assert any(f"{MOVED_PAIR[1]} is not in docs/adr at" in problem for problem in problems)


def test_two_folders_sharing_a_file_name_are_refused_with_both_paths(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    both = {**MOVED, "docs/adr/deprecated/0003-scan-uploads.md": "# 3. Scan uploads\n"}
    module = _moved(tmp_path, monkeypatch, both)
    (repository,) = module.load_manifest()
    said = module.read_texts(tmp_path / "m", repository)
    assert isinstance(said, str)
    assert "docs/adr/0003-scan-uploads.md and docs/adr/deprecated/0003-scan-uploads.md" in said
    assert module.check_labels(tmp_path / "m", module.SPLITS)["missing"] == {"acme/moved": said}


def test_supersedes_this_names_the_successor_not_the_replaced() -> None:
    """ "revisited in [ADR-7] which supersedes this decision", at the top of ADR 3: ADR 7
    replaces ADR 3, though the verb is the one a successor uses of what it replaces."""
    _load()
    labels = sys.modules["real_adr_labels"]
    texts = [
        (
            "adr-003-keep-data-for-ever.md",
            "# Keep data for ever\n\n> The retention was revisited in [ADR-7] which supersedes "
            "this decision.\n\n## Decision\n\nNothing is deleted.\n",
        ),
        ("adr-007-keep-data-a-year.md", "# Keep data a year\n\n## Status\n\nAccepted\n"),
    ]
    pairs, unresolved = labels.recorded_pairs(texts)
    assert [(p.new, p.old, p.kind, p.said_in) for p in pairs] == [
        ("adr-007-keep-data-a-year.md", "adr-003-keep-data-for-ever.md", "full", "old")
    ]
    assert unresolved == []


def test_the_real_labels_hold_when_the_snapshots_are_here() -> None:
    """Needs the public ADR snapshots (eval/README.md says how to get them); CI has none.
    Reads status lines and checks labels only: the curator never runs here."""
    mirrors = os.environ.get("LORE_ADR_MIRRORS")
    if not mirrors or not Path(mirrors).is_dir():
        pytest.skip(
            "the labels are checked against public repositories' snapshots, which are not "
            "committed: set LORE_ADR_MIRRORS to a folder of them to run it"
        )
    module = _load()
    result = module.check_labels(Path(mirrors), module.SPLITS)
    if result["missing"]:
        pytest.skip(f"snapshots missing: {sorted(result['missing'])}")
    assert result["problems"] == []
    for split, repositories, adrs, supersessions in (
        ("held-out-2", 6, 250, 20),
        ("held-out-3", 8, 300, 15),
        ("held-out-4", 6, 250, 15),
        ("held-out-5", 5, 300, 30),
    ):
        batch = [c for name, c in result["checked"].items() if module.split_of(name) == split]
        assert len(batch) >= repositories, split
        assert sum(c["adrs"] for c in batch) >= adrs, split
        assert sum(c["supersessions"] for c in batch) >= supersessions, split
    # the labels of every unseen-at-labelling batch are exactly the recorded pairs
    labels = sys.modules["real_adr_labels"]
    dismissed = {(p["repo"], p["new"], p["old"]) for p in module.load_labels()["dismissed"]}
    for repository in module.load_manifest():
        if repository["split"] not in labels.RECORDED_ONLY:
            continue
        name = repository["name"]
        texts = module.read_texts(Path(mirrors), repository)
        recorded = {(name, *pair) for pair in labels.merged(labels.recorded_pairs(texts)[0])}
        labelled = {
            (p["repo"], p["new"], p["old"])
            for p in module.load_labels()["supersession"]
            if p["repo"] == name
        }
        assert labelled | {d for d in dismissed if d[0] == name} == recorded, name
