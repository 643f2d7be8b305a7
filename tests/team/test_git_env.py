"""git from lore keeps the user's environment, and only that (HOUSE_STYLE.md, State).

Kept, each with a test that goes through a real git: identity (GIT_AUTHOR_*,
GIT_COMMITTER_*), GIT_CONFIG_* (COUNT/KEY/VALUE and GIT_CONFIG_GLOBAL), SSH
(GIT_SSH_COMMAND: a fake ssh that runs git's own upload/receive-pack on the bare
repository) and askpass (GIT_ASKPASS, asked by git for a local HTTP server that wants a
password). Dropped: the variables that point git at another repository — a GIT_DIR,
GIT_WORK_TREE and GIT_INDEX_FILE from outside never make lore touch that repository,
neither through plain git nor through GitPython.
"""

from __future__ import annotations

import http.server
import json
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from lore.cli.main import main
from lore.vault.git import REDIRECTING, git_env
from tests.support import git
from tests.team.conftest import GITHUB_URL, PR_URL, FakeGh, Remote, snapshot

NOTE_ID = "payments-api--retries-use-jittered-backoff--2026-11-02"
FLAGS = [
    "--title", "Retries use jittered backoff",
    "--type", "convention",
    "--tag", "pattern/retries",
    "--repo", "payments-api",
    "--confidence", "high",
    "--what", "Outbound HTTP retries use exponential backoff with full jitter.",
]  # fmt: skip
IDENTITY = {
    "GIT_AUTHOR_NAME": "Env Author",
    "GIT_AUTHOR_EMAIL": "env-author@example.invalid",
    "GIT_COMMITTER_NAME": "Env Committer",
    "GIT_COMMITTER_EMAIL": "env-committer@example.invalid",
}
KEPT = {
    **IDENTITY,
    "GIT_CONFIG_COUNT": "1",
    "GIT_CONFIG_KEY_0": "core.abbrev",
    "GIT_CONFIG_VALUE_0": "12",
    "GIT_CONFIG_GLOBAL": "/somewhere/gitconfig",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_SSH": "/usr/bin/ssh",
    "GIT_SSH_COMMAND": "ssh -i key",
    "GIT_SSH_VARIANT": "ssh",
    "SSH_AUTH_SOCK": "/tmp/agent.sock",
    "GIT_ASKPASS": "/usr/bin/askpass",
    "SSH_ASKPASS": "/usr/bin/ssh-askpass",
    "HTTPS_PROXY": "http://proxy.invalid:3128",
    "no_proxy": "localhost",
    "GIT_SSL_CAINFO": "/etc/ca.pem",
    "SSL_CERT_FILE": "/etc/ca.pem",
    "GIT_HTTP_USER_AGENT": "ci",
}


def remember(vault: Path, *flags: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(["remember", "--vault", str(vault), *flags])
    return code, capsys.readouterr().err


def without_identity(home: Path) -> None:
    """Keep the test's git config (the URL mapping, the default branch) but drop [user]."""
    config = home / ".gitconfig"
    text = config.read_text(encoding="utf-8")
    config.write_text(
        text.replace("[user]\n\tname = Test User\n\temail = test@example.invalid\n", ""),
        encoding="utf-8",
    )
    assert "[user]" not in config.read_text(encoding="utf-8")


def test_git_env_drops_only_what_points_git_elsewhere(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in KEPT.items():
        monkeypatch.setenv(name, value)
    for name in REDIRECTING:
        monkeypatch.setenv(name, "/another/repository")
    env = git_env()
    assert {name: env.get(name) for name in KEPT} == KEPT
    assert [name for name in REDIRECTING if name in env] == []
    assert env["GIT_TERMINAL_PROMPT"] == "0"  # git never prompts on a terminal


def test_init_commits_as_the_identity_in_the_environment(
    team_env: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    without_identity(team_env)
    for name, value in IDENTITY.items():
        monkeypatch.setenv(name, value)
    target = tmp_path / "vault"
    assert main(["init", str(target)]) == 0
    assert git(target, "log", "-1", "--format=%an <%ae>|%cn <%ce>") == (
        "Env Author <env-author@example.invalid>|Env Committer <env-committer@example.invalid>"
    )


def test_init_reads_the_config_file_named_by_git_config_global(
    team_env: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (team_env / ".gitconfig").unlink()
    ci_config = tmp_path / "ci.gitconfig"
    ci_config.write_text("[user]\n\tname = CI Bot\n\temail = ci@example.invalid\n")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(ci_config))
    target = tmp_path / "vault"
    assert main(["init", str(target)]) == 0
    assert git(target, "log", "-1", "--format=%an <%ae>") == "CI Bot <ci@example.invalid>"


def test_no_identity_anywhere_is_one_clear_sentence(
    team_env: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    without_identity(team_env)
    monkeypatch.setenv("GIT_CONFIG_COUNT", "1")  # no guessing from the host name either
    monkeypatch.setenv("GIT_CONFIG_KEY_0", "user.useConfigOnly")
    monkeypatch.setenv("GIT_CONFIG_VALUE_0", "true")
    target = tmp_path / "vault"
    assert main(["init", str(target)]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "git could not commit them: git does not know who you are" in err
    assert "Traceback" not in err and (target / "_taxonomy.md").is_file()


def test_remember_commits_as_the_identity_in_the_environment(
    remote: Remote,
    clone_of: Callable[..., Path],
    fake_gh: FakeGh,
    team_env: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    checkout = clone_of()
    without_identity(team_env)
    for name, value in IDENTITY.items():
        monkeypatch.setenv(name, value)
    code, err = remember(checkout, *FLAGS, "--yes", capsys=capsys)
    assert code == 0, err
    committed = git(remote.bare, "log", "-1", "--format=%an <%ae>|%cn <%ce>", f"lore/{NOTE_ID}")
    assert committed == (
        "Env Author <env-author@example.invalid>|Env Committer <env-committer@example.invalid>"
    )


def test_git_config_in_the_environment_reaches_every_git(
    remote: Remote,
    fake_gh: FakeGh,
    team_env: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The GitHub URL reaches the bare repository only through GIT_CONFIG_* (as CI sets it)."""
    checkout = tmp_path / "checkout"
    git(tmp_path, "clone", "-q", str(remote.bare), checkout.name)
    git(checkout, "remote", "set-url", "origin", GITHUB_URL)
    config = team_env / ".gitconfig"
    config.write_text(config.read_text().split("[url ")[0], encoding="utf-8")  # no mapping
    monkeypatch.setenv("GIT_CONFIG_COUNT", "1")
    monkeypatch.setenv("GIT_CONFIG_KEY_0", f"url.{remote.bare}.insteadOf")
    monkeypatch.setenv("GIT_CONFIG_VALUE_0", GITHUB_URL)
    remote.commit_note(  # something new to fetch: the proposal must start from it
        "web-app--cdn-caches-for-an-hour--2026-11-01",
        "---\ntitle: The CDN caches for an hour\ntype: gotcha\ntags: [pattern/caching]\n"
        "confidence: high\ndate: 2026-11-01\n---\n## What\nAssets are cached for an hour.\n",
    )
    code, err = remember(checkout, *FLAGS, "--yes", capsys=capsys)
    assert code == 0, err
    assert "Could not fetch" not in err
    assert f"lore/{NOTE_ID}" in remote.branches()
    files = git(remote.bare, "ls-tree", "--name-only", f"lore/{NOTE_ID}", "notes/").split()
    assert "notes/web-app--cdn-caches-for-an-hour--2026-11-01.md" in files
    assert fake_gh.calls_to("pr", "create")


FAKE_SSH = """\
#!{python}
# ssh to nowhere: records how git called it, then serves git's request from the bare repo.
import json, os, shlex, sys
with open({log!r}, "a", encoding="utf-8") as log:
    log.write(json.dumps(sys.argv[1:]) + "\\n")
if sys.argv[1:2] == ["-G"]:  # git asks which ssh this is
    sys.exit(0)
service = shlex.split(sys.argv[-1])[0]  # git-upload-pack or git-receive-pack
os.execvp("git", ["git", service.removeprefix("git-"), {bare!r}])
"""


def test_ssh_command_in_the_environment_reaches_git(
    remote: Remote,
    fake_gh: FakeGh,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    log = tmp_path / "ssh.jsonl"
    fake_ssh = tmp_path / "fake-ssh"
    fake_ssh.write_text(FAKE_SSH.format(python=sys.executable, log=str(log), bare=str(remote.bare)))
    fake_ssh.chmod(0o755)
    monkeypatch.setenv("GIT_SSH_COMMAND", str(fake_ssh))
    url = "ssh://git@github.com/acme/team-vault.git"
    checkout = tmp_path / "checkout"
    git(tmp_path, "clone", "-q", url, checkout.name)
    log.unlink()
    code, err = remember(checkout, *FLAGS, "--yes", "--json", capsys=capsys)
    assert code == 0, err
    services = [json.loads(line)[-1].split()[0] for line in log.read_text().splitlines()]
    assert "git-upload-pack" in services  # lore's fetch
    assert "git-receive-pack" in services  # lore's push
    assert f"lore/{NOTE_ID}" in remote.branches()
    assert PR_URL in capsys.readouterr().out or fake_gh.calls_to("pr", "create")


@pytest.fixture
def vault_checkout(remote: Remote, clone_of: Callable[..., Path]) -> Path:
    return clone_of()


class _WantsPassword(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(401)
        self.send_header("WWW-Authenticate", 'Basic realm="vault"')
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def password_server() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _WantsPassword)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/acme/team-vault.git"
    finally:
        server.shutdown()
        server.server_close()


def test_askpass_in_the_environment_answers_git(
    vault_checkout: Path,
    password_server: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    for name in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    asked = tmp_path / "asked.txt"
    askpass = tmp_path / "askpass"
    askpass.write_text(f'#!/bin/sh\necho "$1" >> {asked}\necho not-the-password\n')
    askpass.chmod(0o755)
    monkeypatch.setenv("GIT_ASKPASS", str(askpass))
    git(vault_checkout, "remote", "set-url", "origin", password_server)
    assert main(["sync", "--vault", str(vault_checkout), "--json"]) == 1
    result = json.loads(capsys.readouterr().out)["vaults"][0]
    assert result["status"] == "offline"  # the server wanted another password
    prompts = asked.read_text()
    assert "Username for 'http://127.0.0.1:" in prompts
    assert "Password for 'http://" in prompts


def test_a_git_dir_from_outside_never_redirects_lore(
    remote: Remote,
    clone_of: Callable[..., Path],
    fake_gh: FakeGh,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """As when lore runs inside another repository's git hook: GIT_DIR and friends set."""
    checkout = clone_of()
    other = clone_of("other")
    before = snapshot(other)
    refs_before = git(other, "for-each-ref")
    monkeypatch.setenv("GIT_DIR", str(other / ".git"))
    monkeypatch.setenv("GIT_WORK_TREE", str(other))
    monkeypatch.setenv("GIT_INDEX_FILE", str(other / ".git" / "index"))
    monkeypatch.setenv("GIT_OBJECT_DIRECTORY", str(other / ".git" / "objects"))
    monkeypatch.setenv("GIT_COMMON_DIR", str(other / ".git"))
    code, err = remember(checkout, *FLAGS, "--yes", capsys=capsys)
    assert code == 0, err
    for name in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("GIT_OBJECT_DIRECTORY", raising=False)
    monkeypatch.delenv("GIT_COMMON_DIR", raising=False)
    assert snapshot(other) == before
    assert git(other, "for-each-ref") == refs_before
    assert not (other / ".lore").exists()
    assert git(remote.bare, "show", f"lore/{NOTE_ID}:notes/{NOTE_ID}.md").startswith("---")
