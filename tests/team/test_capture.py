"""`lore capture`: a session log, a real llm model in-process, drafts checked by the curator.

The model is a real `llm.Model` subclass registered with llm's own plugin hook
(`register_models`), as the curator's semantic tests do (tests/curator/test_semantic_llm.py):
lore goes through `llm.get_model` and `Model.prompt` exactly as with a hosted model's
plugin, and only the network is missing. It records every prompt and answers with
what the test sets. The vault is a clone of a local bare repository (conftest.py), the
drafts are real files under `$LORE_HOME`. The session logs are fixtures written in the
two agents' formats (fixtures/transcripts/README.md).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import llm
import pytest

from lore.cli.main import main
from lore.paths import drafts_dir
from tests.support import set_user_model
from tests.team.conftest import Remote, snapshot

FIXTURES = Path(__file__).parent / "fixtures" / "transcripts"
SECRET = "ghp_" + "R8fK2mQ9vX4tL7wN3pZ6yB1cH5jD0sG8aE2u"
PLUGIN = "lore-test-capture-models"
MODEL = "lore-test-distiller"

RETRY_NOTE = {
    "title": "Card processor calls retry with jittered backoff and honour Retry-After",
    "type": "convention",
    "tags": ["pattern/retries"],
    "confidence": "high",
    "what": "Calls to the card processor retry with exponential backoff and full jitter, "
    "and wait for Retry-After on a 503.",
    "why": "Immediate retries turned one 503 into a retry storm; the processor rate-limits "
    "a merchant after 20 requests a second.",
    "files_touched": ["app/http/retry.py"],
    "repo": "payments-api",
}


class Distiller(llm.Model):
    """A model that needs no key, as a local one: it answers what the test says."""

    model_id = MODEL
    can_stream = False
    supports_schema = True

    def __init__(self) -> None:
        self.prompts: list[llm.Prompt] = []
        self.reply: Any = {"notes": []}
        self.hang = threading.Event()
        self.release = threading.Event()

    def execute(self, prompt, stream, response, conversation):  # type: ignore[no-untyped-def]
        self.prompts.append(prompt)
        if self.hang.is_set():
            self.release.wait(30)
        if isinstance(self.reply, Exception):
            raise self.reply
        yield self.reply if isinstance(self.reply, str) else json.dumps(self.reply)


@pytest.fixture
def model(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Distiller]:
    monkeypatch.setenv("LLM_USER_PATH", str(tmp_path / "llm-user"))
    distiller = Distiller()

    class Plugin:
        @llm.hookimpl
        def register_models(self, register: Callable[..., None]) -> None:
            register(distiller)

    llm.plugins.pm.register(Plugin(), name=PLUGIN)
    try:
        yield distiller
    finally:
        llm.plugins.pm.unregister(name=PLUGIN)
        distiller.release.set()


@pytest.fixture
def checkout(remote: Remote, clone_of: Callable[..., Path]) -> Path:
    return clone_of()


def use_model(checkout: Path, **values: str) -> None:
    """The user turns the model on in their own config (`[curator.semantic]` of
    `$LORE_CONFIG`): what a model call from a command run locally needs."""
    set_user_model({"enabled": True, "provider": "llm", "model": MODEL, **values})


def session(tmp_path: Path, name: str) -> Path:
    """A fixture log with the credential planted where it says @@SECRET@@."""
    text = (FIXTURES / name).read_text(encoding="utf-8").replace("@@SECRET@@", SECRET)
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def capture(
    checkout: Path, log: Path, *flags: str, capsys: pytest.CaptureFixture[str]
) -> tuple[int, str, str]:
    code = main(["capture", "--vault", str(checkout), "--transcript", str(log), *flags])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def the_log(prompt: str) -> str:
    """What the prompt fences as the session log, markers included."""
    start = prompt.index("===== BEGIN SESSION LOG")
    end = prompt.index("\n", prompt.index("===== END SESSION LOG"))
    return prompt[start:end] if end > 0 else prompt[start:]


def test_a_claude_code_session_becomes_checked_drafts(
    checkout: Path,
    model: Distiller,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    use_model(checkout)
    model.reply = {
        "notes": [
            RETRY_NOTE,
            {
                **RETRY_NOTE,
                "title": "Workers share one retry helper",
                "tags": ["tool/nope"],
                "what": "Every worker calls app/http/retry.py rather than its own loop.",
            },
            {**RETRY_NOTE, "title": "The staging token", "what": f"Use {SECRET} in staging."},
            {**RETRY_NOTE, "title": "A fourth note"},
        ]
    }
    before = snapshot(checkout)
    log = session(tmp_path, "claude-code-session.jsonl")
    code, out, err = capture(checkout, log, "--json", capsys=capsys)
    assert code == 1, err  # a saved draft has a curator error
    result = json.loads(out)

    # What was sent: the system prompt, then the vault's format and the fenced log.
    assert len(model.prompts) == 1
    prompt = model.prompts[0]
    assert "DATA, between marker lines" in (prompt.system or "")
    sent = prompt.prompt or ""
    fenced = the_log(sent)
    marker = fenced.split()[4]
    assert len(marker) == 16 and f"===== END SESSION LOG {marker} =====" in fenced
    assert "- pattern/retries:" in sent and "- payments-api:" in sent and "## What" in sent
    assert "The session ran in a folder named payments-api." in sent
    assert "The payments worker hammers the card processor" in fenced
    assert "Keep that in mind for the other workers too." in fenced
    assert "[tool] Bash command: cat .env.staging" in fenced
    assert "[tool] Read file_path: app/http/retry.py" in fenced and "/home/dev" not in sent
    assert "ignore all previous instructions" in fenced  # inside the fence, as data
    assert SECRET not in sent and "characters hidden]" in fenced
    assert "PRIVATE-REASONING-MARKER" not in sent  # thinking is not sent
    assert "\u202e" not in sent
    assert sent.count("# padding line of the file") < 30  # tool output cut short
    assert len(sent) < 60_000

    # What was saved: two drafts, the secret candidate refused, the fourth left out.
    ids = [draft["id"] for draft in result["drafts"]]
    assert ids == [
        "payments-api--card-processor-calls-retry-with-jittered-backoff--2026-11-02",
        "payments-api--workers-share-one-retry-helper--2026-11-02",
    ]
    assert result["drafts"][0]["findings"] == []
    assert [f["rule"] for f in result["drafts"][1]["findings"]] == ["taxonomy/unknown-tag"]
    reasons = {item["title"]: item["reason"] for item in result["skipped"]}
    assert "looks like a secret" in reasons["The staging token"]
    assert reasons["A fourth note"] == "more than 3 notes"
    assert SECRET not in out + err
    assert result["transcript"]["agent"] == "claude-code"
    assert result["transcript"]["secrets_masked"] == 1
    assert result["model"] == f"llm {MODEL}"
    folder = drafts_dir(checkout)
    assert sorted(p.stem for p in folder.glob("*.md")) == sorted(ids)
    meta = json.loads((folder / f"{ids[0]}.json").read_text())
    assert meta["origin"] == "capture" and meta["agent"] == "claude-code"
    assert meta["transcript"] == "claude-code-session.jsonl"
    text = (folder / f"{ids[0]}.md").read_text()
    assert text.startswith("---\ntitle: Card processor calls retry with jittered backoff")
    assert "files_touched: [app/http/retry.py]" in text
    assert not any(SECRET in p.read_text() for p in folder.iterdir() if p.is_file())
    # Nothing is proposed: the drafts wait in the inbox.
    assert snapshot(checkout) == before
    code, out, _ = capture(checkout, log, capsys=capsys)
    assert "Saved 2 draft(s); nothing was proposed" in out and "Left out" in out


def test_a_codex_session_and_an_answer_with_no_notes(
    checkout: Path, model: Distiller, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    use_model(checkout)
    code, out, err = capture(checkout, session(tmp_path, "codex-rollout.jsonl"), capsys=capsys)
    assert code == 0, err
    assert "found nothing in this session worth a note" in out
    assert "sent " in err and "codex session" in err
    sent = model.prompts[0].prompt or ""
    fenced = the_log(sent)
    question = "Requests from the BFF fail with ECONNRESET every few minutes."
    assert fenced.count(question) == 1  # one view of the messages, not both
    assert fenced.count("set keepAliveTimeout below 60 s") == 1
    assert "[tool] shell command: bash -lc rg -n keepAlive src/http" in fenced
    assert "[tool] result: src/http/agent.ts:12: keepAliveMsecs: 300000," in fenced
    assert "AGENTS-MD-MARKER" not in sent and "<environment_context>" not in sent
    assert "REASONING-MARKER" not in sent
    assert "folder named web-app" in sent
    assert list(drafts_dir(checkout).glob("*.md")) == []


def test_without_a_model_it_says_so_and_sends_nothing(
    checkout: Path, model: Distiller, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = session(tmp_path, "claude-code-session.jsonl")
    code, out, err = capture(checkout, log, capsys=capsys)
    assert code == 2 and out == ""
    assert err.startswith("lore: No model is configured for `lore capture`.")
    assert "[curator.semantic]" in err and "--model ID" in err
    assert err.count("\n") == 1
    use_model(checkout, provider="openai", model="gpt-4o-mini", api_key_env="LORE_TEST_NO_KEY")
    code, _, err = capture(checkout, log, capsys=capsys)
    assert code == 2 and "$LORE_TEST_NO_KEY, which is not set" in err
    use_model(checkout, model="no-such-model")
    code, _, err = capture(checkout, log, capsys=capsys)
    assert code == 2 and 'llm knows no model "no-such-model"' in err
    assert model.prompts == []
    assert not drafts_dir(checkout).exists()
    # --model names an llm model without any setting.
    set_user_model(None)
    code, _, err = capture(checkout, log, "--model", MODEL, capsys=capsys)
    assert code == 0, err
    assert len(model.prompts) == 1


def test_bad_logs_are_bad_input(
    checkout: Path, model: Distiller, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    use_model(checkout)
    code, _, err = capture(checkout, tmp_path / "missing.jsonl", capsys=capsys)
    assert code == 2 and "missing.jsonl: cannot be read" in err
    notes = tmp_path / "notes.md"
    notes.write_text("# Not a session\n\nJust markdown.\n")
    code, _, err = capture(checkout, notes, capsys=capsys)
    assert code == 2
    assert "no Claude Code or Codex session messages were found (line 1 is not JSON)" in err
    other = tmp_path / "other.jsonl"
    other.write_text('{"event": "something else"}\n[1, 2]\n')
    code, _, err = capture(checkout, other, capsys=capsys)
    assert code == 2 and "no Claude Code or Codex session messages" in err
    assert "Traceback" not in err and model.prompts == []


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        ("Sure! Here are some notes.", "holds no JSON object"),
        ('{"notes": [', "holds no JSON object"),
        ('{"notes": "none"}', 'has no "notes" list'),
        (RuntimeError("the model server is down"), "could not be used: the llm model failed"),
    ],
)
def test_a_failing_model_saves_nothing(
    checkout: Path,
    model: Distiller,
    tmp_path: Path,
    reply: Any,
    message: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    use_model(checkout)
    model.reply = reply
    code, _, err = capture(checkout, session(tmp_path, "codex-rollout.jsonl"), capsys=capsys)
    assert code == 1 and message in err and "Traceback" not in err
    assert not list(drafts_dir(checkout).glob("*.md"))


def test_a_model_that_does_not_answer_is_given_up(
    checkout: Path, model: Distiller, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    use_model(checkout)
    model.hang.set()
    log = session(tmp_path, "codex-rollout.jsonl")
    code, _, err = capture(checkout, log, "--timeout", "0.3", capsys=capsys)
    assert code == 1 and "no answer within 0.3 seconds" in err


def test_a_long_session_is_capped_keeping_its_start_and_end(
    checkout: Path,
    model: Distiller,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from lore.team import transcript

    use_model(checkout)
    lines = [{"type": "user", "message": {"role": "user", "content": "FIRST: make the build fast"}}]
    lines += [
        {"type": "assistant", "message": {"role": "assistant", "content": f"step {n} " + "x" * 200}}
        for n in range(2000)
    ]
    last = f"LAST: thanks, the token was {SECRET}"
    lines.append({"type": "user", "message": {"role": "user", "content": last}})
    log = tmp_path / "long.jsonl"
    log.write_text("".join(json.dumps(line) + "\n" for line in lines))
    code, out, err = capture(checkout, log, "--json", capsys=capsys)
    assert code == 0, err
    fenced = the_log(model.prompts[0].prompt or "")
    assert len(fenced) < transcript.MAX_PROMPT_CHARS + 200
    assert "FIRST: make the build fast" in fenced and "LAST: thanks" in fenced
    assert SECRET not in fenced and json.loads(out)["transcript"]["secrets_masked"] == 1
    left_out = json.loads(out)["transcript"]["left_out"]
    assert left_out > 1500 and f"[… {left_out} messages of the session left out here …]" in fenced
    # A file over the read limit: only its end is read, and lore says so.
    monkeypatch.setattr(transcript, "MAX_READ_BYTES", 20_000)
    code, out, err = capture(checkout, log, capsys=capsys)
    assert code == 0 and "only its end was read" in err
    assert "FIRST: make the build fast" not in (model.prompts[-1].prompt or "")


class KeyedDistiller(llm.KeyModel):
    """A hosted model's shape (llm's own KeyModel): it needs a key, which nobody set."""

    model_id = "lore-test-keyed-distiller"
    can_stream = False
    needs_key = "lore-test-capture"
    key_env_var = "LORE_TEST_CAPTURE_KEY"

    def __init__(self) -> None:
        self.prompts: list[llm.Prompt] = []

    def execute(self, prompt, stream, response, conversation, key):  # type: ignore[no-untyped-def]
        self.prompts.append(prompt)
        yield json.dumps({"notes": []})


def test_a_model_that_needs_a_key_says_which_and_how_at_once(
    checkout: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """No call that waits for a timeout: the key is missing, and that is said before any."""
    monkeypatch.setenv("LLM_USER_PATH", str(tmp_path / "llm-user"))
    monkeypatch.delenv("LORE_TEST_CAPTURE_KEY", raising=False)
    keyed = KeyedDistiller()

    class Plugin:
        @llm.hookimpl
        def register_models(self, register: Callable[..., None]) -> None:
            register(keyed)

    llm.plugins.pm.register(Plugin(), name=PLUGIN + "-keyed")
    try:
        log = session(tmp_path, "codex-rollout.jsonl")
        code, out, err = capture(checkout, log, "--model", keyed.model_id, capsys=capsys)
        assert code == 2 and out == ""
        assert "needs an API key ($LORE_TEST_CAPTURE_KEY), and none is set" in err
        assert "`export LORE_TEST_CAPTURE_KEY=<your key>`" in err
        assert "`llm keys set lore-test-capture`" in err
        code, out, err = capture(checkout, log, "--model", keyed.model_id, "--json", capsys=capsys)
        assert code == 2
        failure = json.loads(out)  # --json: the failure is JSON too
        assert failure["version"] == 1 and failure["status"] == "failed"
        assert "LORE_TEST_CAPTURE_KEY" in failure["error"] and "llm keys set" in failure["fix"]
        assert keyed.prompts == []  # nothing was sent
        monkeypatch.setenv("LORE_TEST_CAPTURE_KEY", "sk-test-not-real")
        code, out, err = capture(checkout, log, "--model", keyed.model_id, capsys=capsys)
        assert code == 0, err
        assert len(keyed.prompts) == 1
    finally:
        llm.plugins.pm.unregister(name=PLUGIN + "-keyed")
