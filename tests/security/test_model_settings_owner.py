"""A checked-out pull request never chooses where lore sends a key, a note or a log.

Route 1 of issue 28: `lore curate PATH` (what a reviewer runs after `gh pr checkout`)
and `lore capture` read `[curator.semantic]` from the work tree, so a pull request that
added an `endpoint` it controls and `api_key_env = "AWS_SECRET_ACCESS_KEY"` received that
variable's value as a bearer token, with the note or the session log, from the
reviewer's next command; capture also called the model with `enabled = false`. Now the
settings that send data come from the reviewed branch's tip or the user's own config
(`lore.vault.settings`), a key goes only to the provider's public API or to an endpoint
the user's config names, a model is called from a local command only when it is turned
on, and a checkout whose `lore.toml` is not the reviewed one gets one line and no call.

Real git: a bare repository plays GitHub, the reviewer's clone fetches the pull
request's branch and checks it out as `gh pr checkout` does (gh itself needs GitHub's
API). The attacker's endpoint is a real HTTP server on 127.0.0.1 that records every
request it gets; it is also every process's HTTP and HTTPS proxy, so a request lore sent
anywhere else — GitHub Models, OpenAI — would reach it too. "Nothing was sent" is its
request log being empty.
"""

# ruff: noqa: F811 - the team loop's fixtures are imported (tests/team/conftest.py)

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest

from tests.curator.test_semantic import NEW, VAULT_NOTES, new_note
from tests.support import git, local_http_server, set_user_model
from tests.team.conftest import (  # noqa: F401 - pytest fixtures
    Remote,
    clone_of,
    remote,
    team_env,
)

AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY9"  # the reviewer's own credential
TEAM_KEY = "sk-team-key-for-the-model-review-0123456789"
TRANSCRIPTS = Path(__file__).resolve().parents[1] / "team" / "fixtures" / "transcripts"


class Recorder:
    """The attacker's server, and every process's proxy: it records whatever reaches it."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.port = 0

    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def environment(self) -> dict[str, str]:
        """The reviewer's shell: credentials, and every request routed through here."""
        proxy = f"http://127.0.0.1:{self.port}"
        return {
            "AWS_SECRET_ACCESS_KEY": AWS_SECRET,
            "LORE_SEMANTIC_API_KEY": TEAM_KEY,
            "GITHUB_TOKEN": "ghs_reviewersOwnTokenThatMustStayHere0",
            **dict.fromkeys(("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY"), proxy),
            "no_proxy": "",
            "NO_PROXY": "",
        }


@pytest.fixture
def recorder() -> Iterator[Recorder]:
    state = Recorder()

    class Handler(BaseHTTPRequestHandler):
        def _record(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            state.requests.append(
                {
                    "method": self.command,
                    "path": self.path,
                    "headers": {k.lower(): v for k, v in self.headers.items()},
                    "body": body.decode("utf-8", "replace"),
                }
            )
            answer = json.dumps(
                {"choices": [{"message": {"role": "assistant", "content": '{"notes": []}'}}]}
            ).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

        def do_POST(self) -> None:
            self._record()

        def do_GET(self) -> None:
            self._record()

        def do_CONNECT(self) -> None:
            self._record()

        def log_message(self, format: str, *args: Any) -> None:
            pass

    with local_http_server(Handler) as port:
        state.port = port
        yield state


def lore(cwd: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "lore", *args],
        cwd=cwd, env={**os.environ, **env}, capture_output=True, text=True, timeout=120,
    )  # fmt: skip


def model_review(**values: Any) -> str:
    return "\n[curator.semantic]\n" + "".join(
        f"{key} = {json.dumps(value)}\n" for key, value in values.items()
    )


def push(work: Path, branch: str, files: dict[str, str], message: str) -> None:
    for name, text in files.items():
        path = work / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    git(work, "add", "-A")
    git(work, "commit", "-q", "-m", message)
    git(work, "push", "-q", "origin", f"HEAD:{branch}")


@pytest.fixture
def vault_remote(remote: Remote) -> Remote:
    """The team's vault on "GitHub": the notes a new Kafka note is a reworded copy of
    (the rules miss it, so a model review would be asked about it)."""
    work = remote.work()
    notes = {f"notes/{note_id}.md": text for note_id, text in VAULT_NOTES.items()}
    push(work, "main", notes, "the team's notes")
    return remote


def check_out_pull_request(
    remote: Remote, clone_of: Callable[..., Path], lore_toml_tail: str
) -> Path:
    """Mallory's pull request adds the Kafka note and edits lore.toml; the reviewer clones
    the vault and checks the pull request out (`gh pr checkout 7`: fetch its head,
    switch to a branch of it)."""
    work = remote.work()
    git(work, "switch", "-q", "-c", "mallory/kafka-acks")
    lore_toml = (work / "lore.toml").read_text(encoding="utf-8") + lore_toml_tail
    files = {"lore.toml": lore_toml, f"notes/{NEW}.md": new_note()}
    push(work, "mallory/kafka-acks", files, "Acknowledge Kafka records once done")
    reviewer = clone_of("reviewer")
    git(reviewer, "fetch", "-q", "origin", "mallory/kafka-acks")
    git(reviewer, "switch", "-q", "-c", "kafka-acks", "FETCH_HEAD")
    return reviewer


def attackers_model_review(recorder: Recorder, **more: Any) -> str:
    return model_review(
        enabled=True,
        provider="openai",
        model="gpt-4o-mini",
        endpoint=recorder.endpoint(),
        api_key_env="AWS_SECRET_ACCESS_KEY",
        **more,
    )


@pytest.mark.parametrize(
    "main_has",
    [
        "",  # the team never turned the model review on
        model_review(enabled=True, provider="github"),  # the team uses GitHub Models
    ],
    ids=["review-off-on-main", "github-review-on-main"],
)
def test_curate_on_a_checked_out_pull_request_sends_nothing_anywhere_and_says_why(
    vault_remote: Remote, clone_of: Callable[..., Path], recorder: Recorder, main_has: str
) -> None:
    if main_has:
        work = vault_remote.work()
        lore_toml = (work / "lore.toml").read_text(encoding="utf-8") + main_has
        push(work, "main", {"lore.toml": lore_toml}, "turn the model review on")
    reviewer = check_out_pull_request(vault_remote, clone_of, attackers_model_review(recorder))
    done = lore(reviewer, recorder.environment(), "curate", f"notes/{NEW}.md")
    assert "Traceback" not in done.stderr
    assert recorder.requests == []  # not the attacker's endpoint, not GitHub, nothing
    said = done.stdout + done.stderr
    assert AWS_SECRET not in said
    (line,) = [line for line in done.stderr.splitlines() if "lore.toml here is not" in line]
    assert "origin/main" in line and "calls no model" in line


def test_a_vault_file_never_chooses_the_endpoint_a_key_goes_to(
    vault_remote: Remote, clone_of: Callable[..., Path], recorder: Recorder
) -> None:
    """Even merged: lore.toml on main names an endpoint, and lore sends a key there only
    once the reviewer's own config names the same endpoint."""
    work = vault_remote.work()
    tail = attackers_model_review(recorder)
    lore_toml = (work / "lore.toml").read_text(encoding="utf-8") + tail
    push(work, "main", {"lore.toml": lore_toml}, "a model review at our own endpoint")
    reviewer = clone_of("reviewer")
    (reviewer / "notes" / f"{NEW}.md").write_text(new_note(), encoding="utf-8")
    env = recorder.environment()
    done = lore(reviewer, env, "curate", f"notes/{NEW}.md")
    assert recorder.requests == []
    assert f"lore.toml names the endpoint {recorder.endpoint()}" in done.stdout
    assert "skipped" in done.stdout and "lore.toml here is not" not in done.stderr

    set_user_model({"endpoint": recorder.endpoint()})  # the reviewer's own choice
    done = lore(reviewer, env, "curate", f"notes/{NEW}.md")
    (request,) = recorder.requests
    assert request["method"] == "POST" and request["path"].endswith("/v1/chat/completions")
    assert request["headers"]["authorization"] == f"Bearer {AWS_SECRET}"


def session_log(tmp_path: Path) -> Path:
    text = (TRANSCRIPTS / "claude-code-session.jsonl").read_text(encoding="utf-8")
    log = tmp_path / "session.jsonl"
    log.write_text(text.replace("@@SECRET@@", "ghp_" + "R8fK2mQ9vX4tL7wN3pZ6yB1cH5jD0sG8aE2u"))
    return log


def test_capture_on_a_checked_out_pull_request_sends_nothing(
    vault_remote: Remote, clone_of: Callable[..., Path], recorder: Recorder, tmp_path: Path
) -> None:
    reviewer = check_out_pull_request(vault_remote, clone_of, attackers_model_review(recorder))
    log = session_log(tmp_path)
    done = lore(
        reviewer,
        recorder.environment(),
        "capture",
        "--vault",
        str(reviewer),
        "--transcript",
        str(log),
    )
    assert done.returncode == 2, done.stderr
    assert recorder.requests == []
    assert done.stderr.startswith(
        "lore: Nothing was sent: lore.toml here is not the reviewed branch's"
    )
    assert done.stderr.count("\n") == 1


def test_capture_calls_no_model_that_is_turned_off_and_dry_run_shows_what_is_sent(
    vault_remote: Remote, clone_of: Callable[..., Path], recorder: Recorder, tmp_path: Path
) -> None:
    """The team's lore.toml names a model but keeps it off: capture sends nothing until
    the user turns it on in their own config; --dry-run shows the very request."""
    work = vault_remote.work()
    off = model_review(enabled=False, provider="openai", model="gpt-4o-mini")
    lore_toml = (work / "lore.toml").read_text(encoding="utf-8") + off
    push(work, "main", {"lore.toml": lore_toml}, "name a model, off")
    reviewer = clone_of("reviewer")
    log = session_log(tmp_path)
    env = recorder.environment()
    done = lore(reviewer, env, "capture", "--vault", str(reviewer), "--transcript", str(log))
    assert done.returncode == 2 and recorder.requests == []
    assert "Nothing was sent: the model is turned off" in done.stderr

    set_user_model({"enabled": True, "endpoint": recorder.endpoint()})
    planned = lore(
        reviewer,
        env,
        "capture",
        "--vault",
        str(reviewer),
        "--transcript",
        str(log),
        "--dry-run",
        "--json",
    )
    assert planned.returncode == 0, planned.stderr
    assert recorder.requests == []  # a dry run sends nothing
    plan = json.loads(planned.stdout)
    assert plan["destination"]["url"] == f"{recorder.endpoint()}/chat/completions"
    assert plan["refused"] is None and "ghp_" not in plan["prompt"]

    done = lore(reviewer, env, "capture", "--vault", str(reviewer), "--transcript", str(log))
    assert done.returncode == 0, done.stderr
    (request,) = recorder.requests
    assert request["headers"]["authorization"] == f"Bearer {TEAM_KEY}"
    sent = json.loads(request["body"])["messages"]
    assert sent[0]["content"] == plan["system"]
    marker = plan["prompt"].split("===== BEGIN VOCABULARY ", 1)[1].split(" ", 1)[0]
    again = sent[1]["content"].split("===== BEGIN VOCABULARY ", 1)[1].split(" ", 1)[0]
    assert sent[1]["content"] == plan["prompt"].replace(marker, again)  # the same, but its marker
