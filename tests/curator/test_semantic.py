"""The optional semantic review, against a real HTTP server on 127.0.0.1 playing the provider."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from lore.curator.formats import to_github, to_json, to_markdown
from lore.curator.run import CurateResult, curate
from lore.curator.semantic import parse_answer, rule_id
from lore.curator.settings import load_curator_settings
from tests.curator.conftest import TODAY
from tests.curator.test_curate_cli import run_lore
from tests.support import Vault, git, note_text

KEY = "test-key-Zq8vN3xR7tW2yL5pK9mC4"
NEW = "billing--integration-tests-need-the-container--2026-02-01"
RELATED = "billing--integration-tests-use-httpx--2025-11-02"


class Provider:
    """What the fake provider answers, and every request it received."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.status = 200
        self.reply: Any = {"findings": []}  # the model's JSON (or raw text when a str)
        self.raw_body: bytes | None = None  # overrides the whole HTTP body
        self.delay = 0.0
        self.port = 0

    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def body_for(self, path: str) -> bytes:
        if self.raw_body is not None:
            return self.raw_body
        text = self.reply if isinstance(self.reply, str) else json.dumps(self.reply)
        if path.endswith("/messages"):
            payload: dict[str, Any] = {"content": [{"type": "text", "text": text}]}
        else:
            payload = {"choices": [{"message": {"role": "assistant", "content": text}}]}
        return json.dumps(payload).encode()


@pytest.fixture
def provider() -> Iterator[Provider]:
    state = Provider()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            body = json.loads(self.rfile.read(length))
            state.requests.append({"path": self.path, "headers": dict(self.headers), "body": body})
            if state.delay:
                time.sleep(state.delay)
            data = state.body_for(self.path)
            try:
                self.send_response(state.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except OSError:  # the client gave up (the timeout test)
                pass

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    state.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()


def configure(vault: Vault, server: Provider, **overrides: Any) -> None:
    """Enable the review in lore.toml (committed on main, so it is the base's policy)."""
    values: dict[str, Any] = {
        "enabled": True,
        "provider": "openai",
        "model": "test-model",
        "endpoint": server.endpoint(),
        "api_key_env": "LORE_TEST_SEMANTIC_KEY",
        "timeout_seconds": 5,
    }
    values.update(overrides)
    lines = "".join(f"{key} = {json.dumps(value)}\n" for key, value in values.items())
    settings = vault.root / "lore.toml"
    text = settings.read_text(encoding="utf-8").split("\n[curator.semantic]\n")[0]
    settings.write_text(f"{text}\n[curator.semantic]\n{lines}", encoding="utf-8")
    vault.commit("enable the semantic review")


def propose(vault: Vault, body: str | None = None, **fields: str) -> None:
    git(vault.root, "checkout", "-q", "-b", "proposal")
    text = body or (
        "## What\nBilling integration tests need the running container, not TestClient.\n\n"
        "## Why\nStart-up checks only run in the container.\n"
    )
    vault.write(NEW, note_text(title="Billing integration tests need the container", body=text,
                               **fields))  # fmt: skip
    vault.commit("add a note")


def review(vault: Vault, **kwargs: Any) -> CurateResult:
    return curate(vault.root, base="main", head="proposal", today=TODAY, semantic=True, **kwargs)


def semantic(result: CurateResult) -> list[Any]:
    return [f for f in result.findings if "/semantic-" in f.rule]


@pytest.fixture
def key(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("LORE_TEST_SEMANTIC_KEY", KEY)
    return KEY


GOOD_REPLY = {
    "findings": [
        {
            "rule": "overlaps-related-note",
            "severity": "warning",
            "line": 8,
            "message": f"This restates {RELATED}.",
            "suggestion": f"Add supersedes: [{RELATED}] or link it.",
        },
        {"rule": "Not Kebab!", "severity": "warning", "line": None, "message": "Vague title.",
         "suggestion": None},
    ]
}  # fmt: skip


@pytest.mark.parametrize("name", ["openai", "anthropic"])
def test_findings_become_advisory_warnings(
    name: str, curator_vault: Vault, provider: Provider, key: str
) -> None:
    configure(curator_vault, provider, provider=name)
    propose(curator_vault)
    provider.reply = GOOD_REPLY
    result = review(curator_vault)

    found = semantic(result)
    assert [(f.rule, f.severity, f.line) for f in found] == [
        ("convention/semantic-review", "warning", None),
        ("convention/semantic-overlaps-related-note", "warning", 8),
    ]
    assert all(f.path == f"notes/{NEW}.md" for f in found)
    assert result.exit_code == 0

    assert len(provider.requests) == 1
    request = provider.requests[0]
    headers = {k.lower(): v for k, v in request["headers"].items()}
    body = request["body"]
    assert body["model"] == "test-model"
    if name == "openai":
        assert request["path"] == "/v1/chat/completions"
        assert headers["authorization"] == f"Bearer {key}"
        assert body["response_format"] == {"type": "json_object"}
        system, user = body["messages"][0]["content"], body["messages"][1]["content"]
    else:
        assert request["path"] == "/v1/messages"
        assert headers["x-api-key"] == key
        assert headers["anthropic-version"]
        system, user = body["system"], body["messages"][0]["content"]
    assert "UNTRUSTED DATA" in system
    assert "JSON" in system
    # The note, fenced and labelled as data.
    assert "untrusted data" in user
    note_part = user.split("\n<note>\n", 1)[1].split("\n</note>", 1)[0]
    assert "```markdown\n---\ntitle: Billing integration tests need the container" in note_part
    assert "Start-up checks only run in the container." in note_part
    # The conventions, the taxonomy and the manifest of related notes at the base.
    assert "_conventions.md" in user
    assert "`service/billing`" in user
    manifest = json.loads(user.split("```json\n", 1)[1].split("\n```", 1)[0])
    assert RELATED in [entry["id"] for entry in manifest]
    assert set(manifest[0]) == {"id", "title", "summary"}
    assert NEW not in [entry["id"] for entry in manifest]


def test_one_run_gives_the_annotations_and_the_comment(
    curator_vault: Vault, provider: Provider, key: str, tmp_path: Path
) -> None:
    """The workflow runs `--format github --report FILE`: one model review, both outputs."""
    configure(curator_vault, provider)
    propose(curator_vault)
    provider.reply = GOOD_REPLY
    report = tmp_path / "lore-report" / "comment.md"
    cli = run_lore("curate", "--vault", str(curator_vault.root), "--base", "main", "--head",
                   "proposal", "--format", "github", "--report", str(report),
                   LORE_TEST_SEMANTIC_KEY=key, LORE_TODAY=TODAY)  # fmt: skip
    assert cli.returncode == 0, cli.stderr
    assert len(provider.requests) == 1
    assert "convention/semantic-overlaps-related-note" in cli.stdout  # an annotation
    comment = report.read_text(encoding="utf-8")
    assert "convention/semantic-overlaps-related-note" in comment
    assert RELATED in comment
    assert key not in comment


def test_the_model_cannot_raise_or_approve(
    curator_vault: Vault, provider: Provider, key: str
) -> None:
    configure(curator_vault, provider)
    propose(curator_vault, tags="[service/billing, tool/not-in-taxonomy]")
    provider.reply = {
        "approve": True,
        "verdict": "merge",
        "findings": [
            {"rule": "wrong", "severity": "error", "line": 2, "message": "Bad.", "suggestion": None},
            {"rule": "ok", "severity": "approve", "line": None, "message": "LGTM, approve.",
             "suggestion": None},
        ],
    }  # fmt: skip
    result = review(curator_vault)
    assert {f.severity for f in semantic(result)} == {"warning"}
    assert len(semantic(result)) == 2
    # The taxonomy error stays an error: nothing the model says turns it into a pass.
    assert any(f.rule.startswith("taxonomy/") and f.is_error for f in result.findings)
    assert result.exit_code == 1


@pytest.mark.parametrize(
    ("setup", "why"),
    [
        ({"reply": "this is not JSON"}, "not valid JSON"),
        ({"reply": {"result": []}}, '"findings"'),
        ({"reply": {"findings": [{"rule": "x", "line": "two", "message": "m"}]}}, "line"),
        ({"reply": {"findings": [{"rule": "x", "message": "m" * 501}]}}, "message"),
        ({"reply": {"findings": [{"rule": "x", "message": "m"}] * 11}}, "at most 10"),
        ({"raw_body": b"<html>oops</html>"}, "not JSON"),
        ({"raw_body": b'{"choices": []}'}, "no model output"),
        ({"status": 500}, "HTTP 500"),
        ({"status": 401, "raw_body": json.dumps({"error": f"bad key {KEY}"}).encode()}, "HTTP 401"),
        ({"delay": 1.5}, "no answer within 0.3 seconds"),
    ],
)
def test_any_failure_is_one_unavailable_warning(
    setup: dict[str, Any], why: str, curator_vault: Vault, provider: Provider, key: str
) -> None:
    configure(curator_vault, provider, timeout_seconds=0.3)
    propose(curator_vault)
    for attribute, value in setup.items():
        setattr(provider, attribute, value)
    result = review(curator_vault)
    found = semantic(result)
    assert [(f.rule, f.severity) for f in found] == [("convention/semantic-unavailable", "warning")]
    assert why in found[0].message
    assert result.exit_code == 0
    assert key not in json.dumps(to_json(result))


def test_nothing_is_sent_unless_enabled_with_a_key(
    curator_vault: Vault, provider: Provider, monkeypatch: pytest.MonkeyPatch
) -> None:
    configure(curator_vault, provider, enabled=False)
    propose(curator_vault)
    monkeypatch.setenv("LORE_TEST_SEMANTIC_KEY", KEY)
    assert semantic(review(curator_vault)) == []

    git(curator_vault.root, "checkout", "-q", "main")
    configure(curator_vault, provider)  # enabled, but no key in the environment
    git(curator_vault.root, "checkout", "-q", "proposal")
    git(curator_vault.root, "rebase", "-q", "main")
    monkeypatch.delenv("LORE_TEST_SEMANTIC_KEY")
    assert semantic(review(curator_vault)) == []

    monkeypatch.setenv("LORE_TEST_SEMANTIC_KEY", KEY)
    off = curate(curator_vault.root, base="main", head="proposal", today=TODAY)  # semantic=False
    assert semantic(off) == []
    audit = curate(curator_vault.root, all_notes=True, today=TODAY, semantic=True)
    assert semantic(audit) == []
    cli = run_lore("curate", "--vault", str(curator_vault.root), "--base", "main", "--head",
                   "proposal", "--format", "json", "--no-semantic")  # fmt: skip
    assert cli.returncode == 0, cli.stderr
    assert provider.requests == []

    # Enabled with a key: it runs (paths mode too).
    checked = curate(curator_vault.root, paths=[f"notes/{NEW}.md"], today=TODAY, semantic=True)
    assert semantic(checked) == []  # the provider found nothing
    assert len(provider.requests) == 1


def test_the_key_never_reaches_any_output(
    curator_vault: Vault, provider: Provider, key: str
) -> None:
    configure(curator_vault, provider)
    propose(curator_vault)
    provider.reply = {
        "findings": [
            {"rule": "leak", "line": None, "message": f"The key is {key}.", "suggestion": key}
        ]
    }
    result = review(curator_vault)
    outputs = [
        json.dumps(to_json(result)),
        "\n".join(to_github(result)),
        to_markdown(result),
    ]
    assert semantic(result)
    assert all(key not in output for output in outputs)
    assert "[API key hidden]" in semantic(result)[0].message

    cli = run_lore("curate", "--vault", str(curator_vault.root), "--base", "main", "--head",
                   "proposal", "--format", "github", LORE_TEST_SEMANTIC_KEY=key)  # fmt: skip
    assert cli.returncode == 0, cli.stderr
    assert "convention/semantic-leak" in cli.stdout
    assert key not in cli.stdout + cli.stderr
    assert len(provider.requests) == 2


def test_a_secret_in_the_note_is_masked_before_it_is_sent(
    curator_vault: Vault, provider: Provider, key: str
) -> None:
    from tests.curator.conftest import fake_secret

    token = fake_secret("github-token")
    configure(curator_vault, provider)
    propose(curator_vault, body=f"## What\nThe deploy bot uses {token} to tag releases.\n")
    result = review(curator_vault)
    assert result.exit_code == 1  # the secret rule still blocks
    assert token not in json.dumps(provider.requests[0]["body"])


def test_bad_semantic_settings_are_findings_not_crashes(
    curator_vault: Vault, provider: Provider, key: str
) -> None:
    for overrides in (
        {"provider": "acme"},
        {"endpoint": "http://example.com/v1"},
        {"api_key_env": "sk-live-this-is-a-key-not-a-name"},
        {"timeout_seconds": -1},
        {"max_related": "many"},
        {"model": ""},
    ):
        text = "[curator.semantic]\n" + "".join(
            f"{k} = {json.dumps(v)}\n"
            for k, v in {"enabled": True, "model": "m", **overrides}.items()
        )
        settings = load_curator_settings(text)
        assert settings.semantic.enabled is False, overrides
        assert [p.rule for p in settings.problems] == ["convention/invalid-settings"], overrides
        assert "sk-live" not in json.dumps([p.to_json() for p in settings.problems])
    typo = load_curator_settings("[curator.semantic]\nenabeld = true\n")
    assert [p.severity for p in typo.problems] == ["warning"]
    assert load_curator_settings(None).semantic.enabled is False

    configure(curator_vault, provider, provider="acme")
    propose(curator_vault)
    result = review(curator_vault)
    assert "convention/invalid-settings" in [f.rule for f in result.findings]
    assert provider.requests == []


def test_rule_names_and_the_schema() -> None:
    assert rule_id("missing-why") == "convention/semantic-missing-why"
    assert rule_id("Missing-Why") == "convention/semantic-missing-why"
    for bad in ("a b", "x" * 41, "", "unavailable", "--x", "a/b", "é"):
        assert rule_id(bad) == "convention/semantic-review"
    fenced = '```json\n{"findings": [{"rule": "x", "line": null, "message": "m"}]}\n```'
    assert parse_answer(fenced)[0]["rule"] == "x"
