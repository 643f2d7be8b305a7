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
ORDER = ("tune", "held-out-9")
BATCHES = """
[batches]
order = ["tune", "held-out-9"]
unread = []
recorded_only = ["held-out-9"]
"""
MANIFEST = (
    BATCHES
    + f"""
[[repository]]
name = "{REPO}"
commit = "COMMIT"
folder = "docs/adr"
licence = "written for this test"
scope = "acme"
split = "SPLIT"
skip = ["template.md"]
"""
)


def _load() -> Any:
    return load_script(EVAL, "run_real_adr_eval")


def _point(monkeypatch: pytest.MonkeyPatch, manifest: Path, pairs: Path) -> Any:
    """The eval module, with its manifest and labels read from these files."""
    module = _load()
    data = sys.modules["real_adr_manifest"]  # imported by the script, from eval/
    monkeypatch.setattr(data, "MANIFEST", manifest)
    monkeypatch.setattr(data, "PAIRS", pairs)
    return module


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


@pytest.fixture(params=["held-out-9", "tune"])
def snapshot(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> tuple[Any, Path, str]:
    """The eval module pointed at a manifest and labels of a snapshot made here, its
    repository in a batch labelled from the status lines alone (`recorded_only`), or in
    one that is not; and that batch."""
    work = tmp_path / "work"
    (work / "docs" / "adr").mkdir(parents=True)
    for name, text in ADRS.items():
        (work / "docs" / "adr" / name).write_text(text, encoding="utf-8")
    git(work, "init", "-q")
    git(work, "add", "-A")
    git(work, "commit", "-q", "-m", "decisions")
    mirrors = tmp_path / "mirrors"
    git(tmp_path, "clone", "-q", "--bare", str(work), str(mirrors / "acme+decisions" / "repo"))
    manifest = tmp_path / "manifest.toml"
    manifest.write_text(
        MANIFEST.replace("COMMIT", git(work, "rev-parse", "HEAD")).replace("SPLIT", request.param),
        "utf-8",
    )
    module = _point(monkeypatch, manifest, tmp_path / "pairs.toml")
    (tmp_path / "pairs.toml").write_text(_labels(), encoding="utf-8")
    return module, mirrors, request.param


def _pairs_file() -> Path:
    path = sys.modules["real_adr_manifest"].PAIRS
    assert isinstance(path, Path)
    return path


def test_the_status_lines_give_every_recorded_supersession_and_nothing_from_the_body(
    snapshot: tuple[Any, Path, str],
) -> None:
    module, mirrors, _ = snapshot
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
    snapshot: tuple[Any, Path, str],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    module, mirrors, _ = snapshot
    result = module.check_labels(mirrors, ORDER)
    assert result["problems"] == [] and result["missing"] == {}
    assert result["checked"][REPO] == {"adrs": 9, "supersessions": 4, "full": 3}
    monkeypatch.setattr(sys, "argv", ["eval", "--mirrors", str(mirrors), "--check-labels"])
    with pytest.raises(SystemExit) as exit_:
        module.main()
    assert exit_.value.code == 0
    assert "the labels of 1 repositories hold" in capsys.readouterr().out


RECORDED_ONLY_PROBLEMS = ("recorded-but-unlabelled", "related-in-a-recorded-only-batch")


@pytest.mark.parametrize(
    ("labels", "problem"),
    [
        (_labels().replace("0002-store-jobs-in-redis.md", "0002-gone.md"), "is not in docs/adr"),
        (
            _labels().replace(
                'new = "0006-send-mail-directly.md"\nold = "0003-send-mail-with-relay.md"',
                'new = "0003-send-mail-with-relay.md"\nold = "0006-send-mail-directly.md"',
            ),
            "is numbered after 0003-send-mail-with-relay.md",
        ),
        (_labels().replace('"0004-one-cluster.md"', '"template.md"'), "skipped by the manifest"),
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
        "recorded-but-unlabelled",
        "related-in-a-recorded-only-batch",
        "not-recorded",
        "bad-kind",
        "unknown-repository",
    ],
)
def test_a_wrong_label_is_named_and_the_check_fails(
    snapshot: tuple[Any, Path, str],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    request: pytest.FixtureRequest,
    labels: str,
    problem: str,
) -> None:
    module, mirrors, batch = snapshot
    only_recorded = any(name in request.node.name for name in (*RECORDED_ONLY_PROBLEMS, "not-rec"))
    _pairs_file().write_text(labels, encoding="utf-8")
    monkeypatch.setattr(sys, "argv", ["eval", "--mirrors", str(mirrors), "--check-labels"])
    with pytest.raises(SystemExit) as exit_:
        module.main()
    out = capsys.readouterr().out
    if only_recorded and batch == "tune":  # a batch that may carry labels of its own
        assert exit_.value.code == 0 and problem not in out
        return
    assert exit_.value.code == 1
    assert problem in out


def test_a_dismissed_pair_covers_a_recorded_one_it_names_with_a_reason(
    snapshot: tuple[Any, Path, str],
) -> None:
    module, mirrors, _ = snapshot
    dismissed = (
        f'[[dismissed]]\nrepo = "{REPO}"\nnew = "{MAIL[0]}"\nold = "{MAIL[1]}"\n'
        'why = "checked: the two titles are about other things"\n'
    )
    _pairs_file().write_text(_labels(dismissed, without=MAIL), encoding="utf-8")
    assert MAIL not in {(p["new"], p["old"]) for p in module.load_labels()["supersession"]}
    assert module.check_labels(mirrors, ORDER)["problems"] == []
    unexplained = dismissed.replace('why = "checked: the two titles are about other things"\n', "")
    _pairs_file().write_text(_labels(unexplained, without=MAIL), encoding="utf-8")
    problems = module.check_labels(mirrors, ORDER)["problems"]
    assert [p for p in problems if "needs a `why`" in p]


@pytest.mark.parametrize(
    ("manifest", "refused"),
    [
        (BATCHES + '[[repository]]\nname = "a/b"\nsplit = "held-out-7"\n', "does not list"),
        (
            BATCHES + '[[repository]]\nname = "a/b"\nsplit = "tune"\n' * 2,
            "listed twice",
        ),
        ('[batches]\norder = ["tune"]\nunread = ["held-out-9"]\n', "must be listed in `order`"),
        ("[batches]\norder = []\n", "must be listed in `order`"),
    ],
)
def test_the_batches_live_in_the_manifest_and_a_repository_outside_them_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, manifest: str, refused: str
) -> None:
    path = tmp_path / "manifest.toml"
    path.write_text(manifest, encoding="utf-8")
    module = _point(monkeypatch, path, tmp_path / "pairs.toml")
    with pytest.raises(sys.modules["real_adr_manifest"].ManifestError, match=refused):
        module.load_manifest()


def test_the_list_mode_prints_labels_to_check_without_running_the_curator(
    snapshot: tuple[Any, Path, str],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    module, mirrors, _ = snapshot
    monkeypatch.setattr(module, "evaluate", None)  # a call would fail: the mode never makes one
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
    """The eval module pointed at a manifest reading docs/adr and its deprecated/
    subfolder as one set, over a snapshot of `files` made here."""
    work = tmp_path / "work"
    for path, text in files.items():
        (work / path).parent.mkdir(parents=True, exist_ok=True)
        (work / path).write_text(text, encoding="utf-8")
    git(work, "init", "-q")
    git(work, "add", "-A")
    git(work, "commit", "-q", "-m", "decisions")
    git(tmp_path, "clone", "-q", "--bare", str(work), str(tmp_path / "m" / "acme+moved" / "repo"))
    manifest = tmp_path / "manifest.toml"
    manifest.write_text(
        BATCHES
        + f'[[repository]]\nname = "acme/moved"\ncommit = "{git(work, "rev-parse", "HEAD")}"\n'
        'folder = "docs/adr"\nfolders = ["docs/adr/deprecated"]\nlicence = "written for this '
        'test"\nscope = "moved"\nsplit = "held-out-9"\n',
        "utf-8",
    )
    module = _point(monkeypatch, manifest, tmp_path / "pairs.toml")
    (tmp_path / "pairs.toml").write_text(
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
    result = module.check_labels(mirrors, ORDER)
    assert result["problems"] == [] and result["missing"] == {}
    assert result["checked"]["acme/moved"] == {"adrs": 3, "supersessions": 1, "full": 1}
    # without the second folder the old ADR is not there, and the check says where it looked
    manifest = sys.modules["real_adr_manifest"].MANIFEST
    manifest.write_text(
        manifest.read_text("utf-8").replace('folders = ["docs/adr/deprecated"]\n', ""), "utf-8"
    )
    problems = module.check_labels(mirrors, ORDER)["problems"]
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
    assert module.check_labels(tmp_path / "m", ORDER)["missing"] == {"acme/moved": said}


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
    """Needs the public ADR snapshots (eval/fetch_adr_snapshots.py fetches them); CI has
    none. Reads status lines and checks labels only: the curator never runs here."""
    mirrors = os.environ.get("LORE_ADR_MIRRORS")
    if not mirrors or not Path(mirrors).is_dir():
        pytest.skip(
            "the labels are checked against public repositories' snapshots, which are not "
            "committed: set LORE_ADR_MIRRORS to a folder of them to run it"
        )
    module = _load()
    batches = module.load_batches()
    result = module.check_labels(Path(mirrors), batches.order)
    if result["missing"]:
        pytest.skip(f"snapshots missing: {sorted(result['missing'])}")
    assert result["problems"] == []
    split_of = {repository["name"]: repository["split"] for repository in module.load_manifest()}
    for split, repositories, adrs, supersessions in (
        ("held-out-2", 6, 250, 20),
        ("held-out-3", 8, 300, 15),
        ("held-out-4", 6, 250, 15),
        ("held-out-5", 5, 300, 30),
    ):
        batch = [c for name, c in result["checked"].items() if split_of[name] == split]
        assert len(batch) >= repositories, split
        assert sum(c["adrs"] for c in batch) >= adrs, split
        assert sum(c["supersessions"] for c in batch) >= supersessions, split
    # the labels of every batch labelled from status lines alone are exactly the recorded pairs
    labels = sys.modules["real_adr_labels"]
    dismissed = {(p["repo"], p["new"], p["old"]) for p in module.load_labels()["dismissed"]}
    for repository in module.load_manifest():
        if repository["split"] not in batches.recorded_only:
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
