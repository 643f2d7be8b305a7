"""The curator pin: which gh-lore commit a new vault's workflows run, and what happens without one.

`lore init` resolves the commit from how lore was installed — the gh extension's clone,
pip's PEP 610 record (`direct_url.json`), a local clone — and pins both workflows that
call lore's action to it. Without one it names the exact lines to edit, `--protect`
refuses (a required check that never starts blocks every pull request:
https://docs.github.com/en/pull-requests/collaborating-with-pull-requests/collaborating-on-repositories-with-code-quality-features/troubleshooting-required-status-checks),
and `lore doctor` flags it. Git is real throughout: the "GitHub" clones are clones of
local bare repositories through git's `url.<base>.insteadOf`.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lore.cli.main import main
from lore.team import curator_pin
from lore.team.curator_pin import PIN_WORKFLOWS, UNSET_COMMIT, pin_lines
from tests.support import git
from tests.team.conftest import FakeGh, map_github_url

GH_LORE_URL = "https://github.com/lore-dev/gh-lore.git"


def _workflows(vault: Path) -> dict[str, str]:
    return {path: (vault / path).read_text(encoding="utf-8") for path in PIN_WORKFLOWS}


def _gh_lore_on_github(tmp_path: Path, home: Path) -> Path:
    """A bare repository standing for github.com/lore-dev/gh-lore, with one commit on main."""
    seed = tmp_path / "gh-lore-seed"
    seed.mkdir()
    (seed / "pyproject.toml").write_text('[project]\nname = "gh-lore"\n', encoding="utf-8")
    (seed / "gh-lore").write_text("#!/bin/sh\n", encoding="utf-8")
    git(seed, "init", "-q", "-b", "main")
    git(seed, "add", "-A")
    git(seed, "commit", "-q", "-m", "release")
    bare = tmp_path / "gh-lore.git"
    git(tmp_path, "clone", "-q", "--bare", str(seed), str(bare))
    map_github_url(home, GH_LORE_URL, bare)
    return bare


def _clone_gh_lore(tmp_path: Path, home: Path, name: str) -> Path:
    _gh_lore_on_github(tmp_path, home)
    git(tmp_path, "clone", "-q", GH_LORE_URL, name)
    return tmp_path / name


def test_plain_init_names_the_lines_to_edit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "vault"
    assert main(["init", str(target), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["curator"] is None
    lines = pin_lines(_workflows(target))
    assert [(line.path, line.unresolved) for line in lines] == [
        (".github/workflows/lore-curator.yml", True),  # the curate job
        (".github/workflows/lore-curator.yml", True),  # the comment job
        (".github/workflows/lore-garden.yml", True),
        (".github/workflows/lore-site.yml", True),
    ]
    for line in lines:  # each named by file and line number, and that line is the one
        (edit,) = [text for text in result["edit"] if text.startswith(f"{line.where}:")]
        assert edit.startswith(f"{line.where}: replace OWNER/gh-lore@{UNSET_COMMIT} with ")
        text = (target / line.path).read_text(encoding="utf-8").splitlines()[line.line - 1]
        assert text.strip() == f"uses: OWNER/gh-lore@{UNSET_COMMIT} # v0.1.0"
    assert any("cannot tell which gh-lore commit" in notice for notice in result["notices"])

    assert main(["init", str(tmp_path / "text")]) == 0
    out = capsys.readouterr().out
    for line in lines:
        assert line.where in out


def test_protect_refuses_while_the_pin_is_unresolved(
    tmp_path: Path, fake_gh: FakeGh, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "vault"
    code = main(["init", str(target), "--github", "acme/team-vault", "--protect"])
    assert code == 2
    err = capsys.readouterr().err
    assert "could never start" in err and "--curator" in err
    for line in pin_lines(_workflows_of_the_seed()):
        assert line.where in err
    assert not target.exists()  # refused before anything was created
    assert fake_gh.calls_to("repo", "create") == []


def _workflows_of_the_seed() -> dict[str, str]:
    from lore.vault.seed import seed_files

    files = seed_files()
    return {path: files[path].decode("utf-8") for path in PIN_WORKFLOWS}


def test_a_placeholder_is_no_curator(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for bad in (f"OWNER/gh-lore@{'a' * 40}", f"acme/gh-lore@{UNSET_COMMIT}", f"acme/x@{'a' * 40}"):
        assert main(["init", str(tmp_path / "vault"), "--curator", bad]) == 2
        assert "does not name a commit" in capsys.readouterr().err
    assert not (tmp_path / "vault").exists()


def test_the_gh_extension_clone_pins_its_head(
    tmp_path: Path, team_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    extension = _clone_gh_lore(tmp_path, team_env, "gh-lore")
    head = git(extension, "rev-parse", "HEAD")
    monkeypatch.setenv("LORE_GH_EXTENSION_DIR", str(extension))
    assert main(["init", str(tmp_path / "vault"), "--no-register"]) == 0
    for line in pin_lines(_workflows(tmp_path / "vault")):
        assert (line.repo, line.ref, line.pinned) == ("lore-dev/gh-lore", head, True)


def test_a_commit_github_does_not_have_is_not_pinned(
    tmp_path: Path,
    team_env: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    extension = _clone_gh_lore(tmp_path, team_env, "gh-lore")
    (extension / "local.txt").write_text("not pushed\n", encoding="utf-8")
    git(extension, "add", "-A")
    git(extension, "commit", "-q", "-m", "a local change")
    monkeypatch.setenv("LORE_GH_EXTENSION_DIR", str(extension))
    assert main(["init", str(tmp_path / "vault"), "--no-register", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["curator"] is None
    assert any("push it first" in notice for notice in result["notices"])


def _dist_info(site: Path, direct_url: dict[str, object]) -> None:
    """What pip writes for an installed gh-lore, with its PEP 610 record."""
    info = site / "gh_lore-0.1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: gh-lore\nVersion: 0.1.0\n", encoding="utf-8"
    )
    (info / "direct_url.json").write_text(json.dumps(direct_url), encoding="utf-8")


def test_pip_install_from_a_github_commit_pins_that_commit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`pip install git+https://github.com/OWNER/gh-lore@<sha>` records the commit (PEP 610)."""
    commit = "1f2e3d4c5b6a79881f2e3d4c5b6a79881f2e3d4c"
    site = tmp_path / "site-packages"
    _dist_info(
        site,
        {
            "url": "https://github.com/lore-dev/gh-lore.git",
            "vcs_info": {"vcs": "git", "commit_id": commit, "requested_revision": commit},
        },
    )
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setattr(curator_pin, "DISTRIBUTION", "gh-lore")
    assert main(["init", str(tmp_path / "vault"), "--no-register", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["curator"] == f"lore-dev/gh-lore@{commit} # v0.1.0"
    assert "direct_url.json" in result["curator_source"]
    assert all(line.ref == commit for line in pin_lines(_workflows(tmp_path / "vault")))


def test_pip_install_from_a_local_clone_pins_the_clone_head(
    tmp_path: Path,
    team_env: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    clone = _clone_gh_lore(tmp_path, team_env, "my-gh-lore")
    site = tmp_path / "site-packages"
    _dist_info(site, {"url": clone.as_uri(), "dir_info": {"editable": True}})
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setattr(curator_pin, "DISTRIBUTION", "gh-lore")
    assert main(["init", str(tmp_path / "vault"), "--no-register", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["curator"] == f"lore-dev/gh-lore@{git(clone, 'rev-parse', 'HEAD')} # v0.1.0"


def test_lore_running_from_a_clone_pins_the_clone_head(
    tmp_path: Path,
    team_env: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    clone = _clone_gh_lore(tmp_path, team_env, "source")
    monkeypatch.setattr(curator_pin, "SOURCE_TREE", clone)
    assert main(["init", str(tmp_path / "vault"), "--no-register", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["curator"] == f"lore-dev/gh-lore@{git(clone, 'rev-parse', 'HEAD')} # v0.1.0"


def test_doctor_inside_a_vault_flags_an_unresolved_pin(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    loose, pinned = tmp_path / "loose", tmp_path / "pinned"
    assert main(["init", str(loose), "--no-register"]) == 0
    commit = "1f2e3d4c5b6a79881f2e3d4c5b6a79881f2e3d4c"
    assert main(["init", str(pinned), "--no-register", "--curator", f"acme/gh-lore@{commit}"]) == 0
    capsys.readouterr()

    monkeypatch.chdir(loose)
    assert main(["doctor", "--offline", "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    (check,) = [c for c in report["checks"] if c["name"] == "curator pin"]
    assert check["ok"] is False
    for line in pin_lines(_workflows(loose)):
        assert line.where in check["value"]
    assert any(problem.startswith("curator pin: unresolved") for problem in report["problems"])

    monkeypatch.chdir(pinned)
    main(["doctor", "--offline", "--json"])
    report = json.loads(capsys.readouterr().out)
    (check,) = [c for c in report["checks"] if c["name"] == "curator pin"]
    assert check["ok"] is True and check["value"].startswith(f"acme/gh-lore@{commit[:12]}")

    workflow = pinned / PIN_WORKFLOWS[1]
    workflow.write_text(workflow.read_text().replace(commit, "v0.1.0"), encoding="utf-8")
    main(["doctor", "--offline", "--json"])
    report = json.loads(capsys.readouterr().out)
    (check,) = [c for c in report["checks"] if c["name"] == "curator pin"]
    assert check["ok"] is False and "lore-garden.yml" in check["value"]
