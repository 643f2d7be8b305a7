"""`lore init`, `lore connect`, `lore vaults`, `lore doctor`, and recall across vaults."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from lore.cli.main import main
from lore.config import Config, VaultEntry, configured_vaults, load_config, save_config
from lore.errors import UsageError
from lore.paths import index_path
from lore.team.curator_pin import pin_lines
from lore.team.init import protection_payload
from tests.support import Vault, git, note_text
from tests.team.conftest import FakeGh, Remote

RELEASE = "1f2e3d4c5b6a79881f2e3d4c5b6a79881f2e3d4c"


def test_init_a_local_vault(
    tmp_path: Path, isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "vault"
    assert main(["init", str(target), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["name"] == "vault" and result["default"] is True
    assert result["github"] is None and result["curator"] is None
    assert [line.split(":")[0] for line in result["edit"]] == [
        ".github/workflows/lore-curator.yml",  # the curate job's `uses:` line
        ".github/workflows/lore-curator.yml",  # the comment job's
        ".github/workflows/lore-garden.yml",
        ".github/workflows/lore-site.yml",  # the optional site, off until turned on
        ".github/CODEOWNERS",
        "_taxonomy.md",
    ]
    assert git(target, "log", "--format=%s") == "Create the team vault (lore init)"
    assert git(target, "status", "--porcelain") == ""  # the index stays out of git
    assert index_path(target).is_file()
    workflow = (target / ".github" / "workflows" / "lore-curator.yml").read_text()
    lines = pin_lines({"lore-curator.yml": workflow})
    assert len(lines) == 2 and all(line.unresolved for line in lines)
    assert load_config().default == "vault"
    assert main(["init", str(target)]) == 2
    assert "not empty" in capsys.readouterr().err


def test_init_pins_the_curator_release(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "pinned"
    code = main(["init", str(target), "--curator", f"lore-dev/gh-lore@{RELEASE}", "--json"])
    assert code == 0
    for name in ("lore-curator.yml", "lore-garden.yml", "lore-site.yml"):
        workflow = (target / ".github" / "workflows" / name).read_text()
        assert f"uses: lore-dev/gh-lore@{RELEASE} # v0.1.0" in workflow
        assert "OWNER/gh-lore" not in workflow
    edits = json.loads(capsys.readouterr().out)["edit"]
    assert not any(".github/workflows" in line for line in edits)
    assert main(["init", str(tmp_path / "bad"), "--curator", "lore-dev/gh-lore@main"]) == 2


def test_init_on_github_needs_gh_first(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "vault"
    assert main(["init", str(target), "--github", "acme/team-vault"]) == 2
    assert "GitHub CLI" in capsys.readouterr().err
    assert not target.exists()  # checked before anything was created


def test_init_protect_applies_the_branch_protection(
    tmp_path: Path,
    team_env: Path,
    fake_gh: FakeGh,
    remote: Remote,
    capsys: pytest.CaptureFixture[str],
) -> None:
    git(remote.bare, "update-ref", "-d", "refs/heads/main")  # an empty repository, as created
    target = tmp_path / "vault"
    code = main(
        ["init", str(target), "--github", "acme/team-vault", "--protect", "--public",
         "--curator", f"lore-dev/gh-lore@{RELEASE}"]
    )  # fmt: skip
    assert code == 0, capsys.readouterr().err
    assert "Branch protection applied" in capsys.readouterr().out
    # pushed, and main follows origin/main, which is also the remote's HEAD
    assert git(remote.bare, "rev-parse", "main") == git(target, "rev-parse", "main")
    assert git(target, "rev-parse", "--abbrev-ref", "main@{upstream}") == "origin/main"
    assert git(target, "symbolic-ref", "refs/remotes/origin/HEAD") == "refs/remotes/origin/main"
    assert fake_gh.calls_to("repo", "create")[0][3] == "--public"
    protect = fake_gh.calls_to("api")[-1]
    assert protect == [
        "api", "--method", "PUT", "repos/acme/team-vault/branches/main/protection",
        "--input", "-",
    ]  # fmt: skip
    payload = fake_gh.stdin_of(["api", "--method", "PUT"])
    assert payload == protection_payload()
    assert payload["required_pull_request_reviews"]["require_code_owner_reviews"] is True
    assert payload["required_pull_request_reviews"]["dismiss_stale_reviews"] is True
    assert payload["allow_force_pushes"] is False
    assert payload["required_pull_request_reviews"]["require_last_push_approval"] is True
    # the check `curate`, from GitHub Actions (app 15368), not a commit status of that name
    assert payload["required_status_checks"]["checks"] == [{"context": "curate", "app_id": 15368}]


def test_init_keeps_the_local_vault_when_github_refuses(
    tmp_path: Path, fake_gh: FakeGh, capsys: pytest.CaptureFixture[str]
) -> None:
    fake_gh.mode("repo-fails")
    target = tmp_path / "vault"
    assert main(["init", str(target), "--github", "acme/team-vault"]) == 2
    err = capsys.readouterr().err
    assert f"The vault is ready in {target}" in err and "Name already exists" in err
    assert f"git -C {target} push -u origin main" in err
    assert git(target, "log", "--format=%s") == "Create the team vault (lore init)"
    assert load_config().default == "team-vault"  # registered, usable locally


def test_connect_in_place_and_by_clone(
    tmp_path: Path,
    remote: Remote,
    make_vault: Callable[..., Vault],
    capsys: pytest.CaptureFixture[str],
) -> None:
    local = make_vault({"scope--topic--2026-01-01": note_text()})
    assert main(["connect", str(local.root), "--name", "mine", "--json"]) == 0
    first = json.loads(capsys.readouterr().out)
    assert first["cloned"] is False and first["default"] is True and first["notes"] == 1
    assert Path(first["path"]) == local.root.resolve()
    # A bare repository by path is cloned, under another name and a higher priority.
    dest = tmp_path / "clones" / "team"
    args = ["connect", str(remote.bare), "--path", str(dest), "--priority", "5", "--json"]
    assert main(args) == 0
    second = json.loads(capsys.readouterr().out)
    assert second["name"] == "team-vault" and second["cloned"] is True
    assert second["default"] is False
    assert git(dest, "remote", "get-url", "origin") == str(remote.bare)
    config = load_config()
    assert [entry.name for entry in config.ordered()] == ["mine", "team-vault"]
    assert config.vaults["team-vault"].priority == 5
    # Registering the same name twice is refused before anything is cloned.
    assert main(["connect", str(remote.bare)]) == 2
    assert "already registered" in capsys.readouterr().err


def test_connect_failures_leave_nothing_behind(
    tmp_path: Path,
    isolated_home: Path,
    make_vault: Callable[..., Vault],
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["connect", str(tmp_path / "no-such-repo.git"), "--name", "x"]) == 2
    assert "Could not clone" in capsys.readouterr().err
    not_a_vault = tmp_path / "plain"
    not_a_vault.mkdir()
    (not_a_vault / "README.md").write_text("hello\n")
    git(not_a_vault, "init", "-q")
    git(not_a_vault, "add", "-A")
    git(not_a_vault, "commit", "-q", "-m", "x")
    bare = tmp_path / "plain.git"
    git(tmp_path, "clone", "-q", "--bare", str(not_a_vault), str(bare))
    assert main(["connect", str(bare)]) == 2
    assert "is not a lore vault" in capsys.readouterr().err
    assert not (isolated_home / "lore-home" / "vaults").exists()
    assert not (isolated_home / "config.toml").exists()


def test_recall_searches_every_vault_and_labels_results(
    make_vault: Callable[..., Vault], isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    team = make_vault(
        {"billing--retries--2026-01-01": note_text("Billing retries use jittered backoff")}
    )
    org = make_vault(
        {"org--retries-policy--2026-01-01": note_text("Org policy says retries need backoff")}
    )
    for name, vault in (("team", team), ("org", org)):
        assert main(["connect", str(vault.root), "--name", name]) == 0
    capsys.readouterr()
    assert main(["recall", "retries backoff", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert {(hit["id"], hit["vault"]) for hit in data["results"]} == {
        ("billing--retries--2026-01-01", "team"),
        ("org--retries-policy--2026-01-01", "org"),
    }
    assert [v["name"] for v in data["vaults"]] == ["team", "org"]
    assert data["vault"]["name"] == "team"  # the default; the field keeps its shape
    assert main(["recall", "retries backoff", "--vault", "org", "--json"]) == 0
    assert [h["vault"] for h in json.loads(capsys.readouterr().out)["results"]] == ["org"]
    assert main(["recall", "retries", "backoff"]) == 0
    out = capsys.readouterr().out
    assert "team" in out and "org" in out
    # A vault whose folder went missing is skipped with a notice, not a failure.
    org_path = org.root.rename(org.root.with_name("moved"))
    assert main(["recall", "retries backoff", "--json"]) == 0
    captured = capsys.readouterr()
    assert len(json.loads(captured.out)["results"]) == 1
    assert "'org'" in captured.err and "does not exist" in captured.err
    assert org_path.exists()


def test_recall_across_vaults_imports_no_toml_parser(
    make_vault: Callable[..., Vault], isolated_home: Path
) -> None:
    config = isolated_home / "config.toml"
    roots = [make_vault({f"s{i}--topic--2026-01-01": note_text()}).root for i in range(2)]
    config.write_text(
        "".join(f'[vaults.v{i}]\npath = "{root}"\n' for i, root in enumerate(roots)),
        encoding="utf-8",
    )
    command = [sys.executable, "-X", "importtime", "-m", "lore", "recall", "--json", "httpx"]
    subprocess.run(command, capture_output=True, check=True, env=os.environ.copy())
    result = subprocess.run(
        command, capture_output=True, text=True, check=True, env=os.environ.copy()
    )
    assert len(json.loads(result.stdout)["results"]) == 2
    loaded = {line.split("|")[-1].strip() for line in result.stderr.splitlines() if "|" in line}
    heavy = {m for m in loaded if m.split(".")[0] in {"yaml", "git", "rich", "tomllib", "tomli"}}
    assert heavy == set()


def test_vaults_lists_state_and_changes_the_default(
    remote: Remote,
    clone_of: Callable[..., Path],
    make_vault: Callable[..., Vault],
    capsys: pytest.CaptureFixture[str],
) -> None:
    checkout = clone_of()
    other = make_vault()
    assert main(["connect", str(checkout), "--name", "team"]) == 0
    assert main(["connect", str(other.root), "--name", "org"]) == 0
    remote.commit_note("org--new--2026-11-01", note_text("New upstream note"))
    git(checkout, "fetch", "-q")
    capsys.readouterr()
    assert main(["vaults", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["default"] == "team"
    team = data["vaults"][0]
    assert (team["name"], team["upstream"], team["ahead"], team["behind"]) == (
        "team", "origin/main", 0, 1,
    )  # fmt: skip
    # The fetch moved origin/main, which is what is served: the next recall updates the index.
    assert team["index"]["fresh"] is False and team["last_sync"] is None
    assert team["served"]["branch"] == "origin/main"
    assert team["served"]["commit"] == git(checkout, "rev-parse", "origin/main")
    assert main(["vaults"]) == 0
    assert "↓1" in capsys.readouterr().out
    assert main(["vaults", "--default", "org", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["default"] == "org"
    assert main(["vaults", "--remove", "org", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [v["name"] for v in data["vaults"]] == ["team"] and data["default"] == "team"
    assert other.root.is_dir()  # the folder stays
    assert main(["vaults", "--remove", "org"]) == 2


def test_doctor(
    make_vault: Callable[..., Vault], fake_gh: FakeGh, capsys: pytest.CaptureFixture[str]
) -> None:
    vault = make_vault()
    assert main(["connect", str(vault.root), "--name", "team"]) == 0
    capsys.readouterr()
    # The seed's workflows still name OWNER/gh-lore@000…: the one thing to fix (doctor
    # checks the pin of the vault it uses, here the config's, not the folder it runs in).
    assert main(["doctor", "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    checks = {check["name"]: check for check in report["checks"]}
    assert checks["gh"]["value"].startswith("2.99.0")
    assert checks["gh auth github.com"]["ok"] is True
    assert checks["fts5"]["ok"] is True and checks["git"]["ok"] is True
    assert report["paths"]["vault"] == str(vault.root.resolve())
    assert report["paths"]["config"].endswith("config.toml")
    assert [problem.split(":")[0] for problem in report["problems"]] == ["curator pin"]
    fake_gh.mode("unauthenticated")
    assert main(["doctor"]) == 1
    assert "gh auth login" in capsys.readouterr().out


def test_doctor_without_gh(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["doctor", "--offline", "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    problems = " ".join(report["problems"])
    assert "gh: not found" in problems and "vault:" in problems


def test_config_round_trip_keeps_what_lore_does_not_know(isolated_home: Path) -> None:
    path = isolated_home / "config.toml"
    path.write_text(
        'default = "team"\ntheme = "dark"\n\n[vaults.team]\npath = "~/v/team"\n'
        'remote = "https://github.com/acme/v.git"\npriority = 3\nnote = "keep me"\n'
        '\n[vaults."odd name"]\npath = "/tmp/x"\n\n[hooks]\nenabled = true\nlist = [1, 2]\n',
        encoding="utf-8",
    )
    config = load_config()
    assert config.vaults["team"].path == str(isolated_home / "v" / "team")
    save_config(config)
    again = load_config()
    assert again == config
    assert again.extra == {"theme": "dark", "hooks": {"enabled": True, "list": [1, 2]}}
    assert again.vaults["team"].extra == {"note": "keep me"}
    assert list(isolated_home.glob(".config.toml.*")) == []  # no temporary file left


def test_configured_vaults_cache_follows_the_file(isolated_home: Path) -> None:
    path = isolated_home / "config.toml"
    save_config(Config(path, {"a": VaultEntry("a", "/tmp/a")}, "a"))
    assert [entry.name for entry in configured_vaults()] == ["a"]
    assert (isolated_home / "lore-home" / "config-vaults.json").is_file()
    save_config(
        Config(path, {"a": VaultEntry("a", "/tmp/a"), "b": VaultEntry("b", "/tmp/b", None, 9)})
    )
    assert [entry.name for entry in configured_vaults()] == ["b", "a"]
    path.write_text("broken = [\n", encoding="utf-8")
    with pytest.raises(UsageError, match="not valid TOML"):
        configured_vaults()
