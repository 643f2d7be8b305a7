"""The semantic review through `llm`: real llm models, registered in-process by a plugin.

The stand-in models are real `llm.Model` / `llm.KeyModel` subclasses, registered with
llm's own plugin hook (`register_models`), so lore goes through `llm.get_model`,
`Model.prompt` and llm's key handling exactly as with a hosted model's plugin; only
the network is missing. The vault is test_semantic's: a reworded duplicate of the
Kafka note that the rules miss, and the lag-alert note as a second candidate.
"""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import llm
import pytest

from lore.curator.report.formats import to_github, to_json, to_markdown
from lore.curator.review.pairs import ANSWER_SCHEMA, SYSTEM_PROMPT
from tests.curator.test_curate_cli import in_process
from tests.curator.test_semantic import (
    KAFKA,
    KAFKA_CLAUSE,
    KEY,
    LAG,
    NEW,
    NEW_CLAUSE,
    Provider,
    batch_data,
    configure,
    every_candidate,
    judge_kafka_duplicate,
    new_note,
    pair_vault,
    propose,
    provider,
    review,
    semantic,
)
from tests.support import Vault, note_text

__all__ = ["pair_vault", "provider"]  # fixtures shared with test_semantic

NEAR = "events--kafka-offsets-committed-after-processing--2026-02-02"
NEAR_NOTE = note_text(
    "Kafka consumers commit offsets after processing the message",
    tags="[tool/kafka, pattern/background-jobs]",
    repo="payments-api",
    date="2026-02-02",
    body="## What\nKafka consumers commit the offset only after the message has been "
    "processed, never before.\n",
)
PLUGIN = "lore-test-models"


class Answering:
    """What both stand-in models do: record the prompt, answer `decide(prompt text)`."""

    def __init__(self) -> None:
        self.prompts: list[llm.Prompt] = []
        self.keys: list[str | None] = []  # the keys llm handed to execute()
        self.decide: Callable[[str], Any] = judge_kafka_duplicate
        self.hang = threading.Event()  # set: the model does not answer (until released)
        self.release = threading.Event()
        self.answered = 0

    def answer(self, prompt: llm.Prompt) -> str:
        self.prompts.append(prompt)
        if self.hang.is_set():
            self.release.wait(60)  # a bound only against a test that never ends
        self.answered += 1
        reply = self.decide(prompt.prompt or "")
        return reply if isinstance(reply, str) else json.dumps(reply)


class Judge(Answering, llm.Model):
    """A model that needs no key, as a local one."""

    model_id = "lore-test-judge"
    can_stream = False
    supports_schema = True

    def execute(self, prompt, stream, response, conversation):  # type: ignore[no-untyped-def]
        yield self.answer(prompt)


class KeyedJudge(Answering, llm.KeyModel):
    """A hosted model's shape: it needs a key, and llm finds one unless given one."""

    model_id = "lore-test-keyed"
    can_stream = False
    needs_key = "lore-test"
    key_env_var = "LORE_TEST_LLM_PROVIDER_KEY"

    def execute(self, prompt, stream, response, conversation, key):  # type: ignore[no-untyped-def]
        self.keys.append(key)
        yield self.answer(prompt)


class Models:
    def __init__(self) -> None:
        self.judge = Judge()
        self.keyed = KeyedJudge()


@pytest.fixture
def models(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Models]:
    monkeypatch.setenv("LLM_USER_PATH", str(tmp_path / "llm-user"))
    registered = Models()

    class Plugin:
        @llm.hookimpl
        def register_models(self, register: Callable[..., None]) -> None:
            register(registered.judge)
            register(registered.keyed)

    llm.plugins.pm.register(Plugin(), name=PLUGIN)
    try:
        yield registered
    finally:
        llm.plugins.pm.unregister(name=PLUGIN)
        registered.judge.release.set()
        registered.keyed.release.set()


def use_llm(vault: Vault, model: str = "lore-test-judge", **overrides: Any) -> None:
    values = {
        "enabled": True,
        "provider": "llm",
        "model": model,
        "api_key_env": "LORE_TEST_SEMANTIC_KEY",
        "timeout_seconds": 5,
    }
    configure(vault, **{**values, **overrides})


def batches_sent(model: Answering) -> list[tuple[str, list[str]]]:
    """(the proposed note, its candidates) of each call, in order."""
    return [
        (data["proposed"]["id"], [c["id"] for c in data["candidates"]])
        for data in (batch_data(prompt.prompt or "") for prompt in model.prompts)
    ]


def test_one_call_judges_a_note_against_its_candidates(pair_vault: Vault, models: Models) -> None:
    use_llm(pair_vault)
    propose(pair_vault)
    result = review(pair_vault)

    ((note, others),) = batches_sent(models.judge)
    assert (note, sorted(others)) == (NEW, [KAFKA, LAG])
    (prompt,) = models.judge.prompts
    assert prompt.system == SYSTEM_PROMPT
    assert prompt.schema == ANSWER_SCHEMA  # the model supports schemas
    (found,) = semantic(result)
    assert (found.rule, found.severity) == ("convention/semantic-duplicate", "warning")
    assert "model lore-test-judge" in found.message
    assert KAFKA in found.message and NEW_CLAUSE in found.message and KAFKA_CLAUSE in found.message
    assert result.model_review is not None and result.model_review.state == "ran"
    assert result.exit_code == 0


def test_pairs_the_rules_report_are_asked_about_too(pair_vault: Vault, models: Models) -> None:
    """The model is asked the reviewer's question about every close note, the one a rule
    flagged included: its verdict on that pair joins the rule's finding (review/merge)."""
    use_llm(pair_vault)
    propose(pair_vault, {NEAR: NEAR_NOTE})
    result = review(pair_vault)
    assert [f.rule for f in result.findings if KAFKA in f.message] == ["duplicate/near"]
    assert batches_sent(models.judge) == [(NEAR, [KAFKA, LAG])]


def test_the_cap_is_per_run_and_said_in_the_comment(pair_vault: Vault, models: Models) -> None:
    use_llm(pair_vault, max_calls=1)
    propose(pair_vault, {NEW: new_note(), NEAR: NEAR_NOTE})
    result = review(pair_vault)
    # Two notes to judge, one call a run: the first note with all its candidates.
    assert [note for note, _ in batches_sent(models.judge)] == [NEW]
    run = result.model_review
    assert run is not None and (run.state, run.calls, run.judged, run.notes) == ("partial", 1, 1, 2)
    assert "max_calls = 1" in run.line and f"Not judged: notes/{NEAR}.md" in run.line
    assert "Model review" in to_markdown(result) and "max\\_calls = 1" in to_markdown(result)
    assert result.exit_code == 0


def test_a_timeout_stops_the_calls(pair_vault: Vault, models: Models) -> None:
    use_llm(pair_vault, timeout_seconds=0.2)
    propose(pair_vault, {NEW: new_note(), NEAR: NEAR_NOTE})
    models.judge.hang.set()
    result = review(pair_vault)
    assert models.judge.answered == 0  # the review ended while the model still held its answer
    assert semantic(result) == []
    run = result.model_review
    assert run is not None and run.state == "skipped"
    assert "no answer within 0.2 seconds" in run.line
    assert len(models.judge.prompts) == 1  # the second note is not sent to a hung model
    assert result.exit_code == 0


@pytest.mark.parametrize(
    ("reply", "why"),
    [
        ("They look like duplicates to me.", "not valid JSON"),
        (
            {
                "verdicts": [
                    {
                        "candidate": 1,
                        "verdict": "duplicate",
                        "proposed_clause": 1,
                        "existing_clause": 40,
                        "reason": "r",
                    }
                ]
            },
            "clause 40 of the candidate 1's note",
        ),
        ({"verdicts": [{"candidate": 1, "verdict": "same", "reason": "r"}]}, '"verdict"'),
    ],
)
def test_a_bad_answer_loses_only_its_note(
    reply: Any, why: str, pair_vault: Vault, models: Models
) -> None:
    use_llm(pair_vault)
    propose(pair_vault, {NEW: new_note(), NEAR: NEAR_NOTE})
    models.judge.decide = lambda prompt: (
        reply if batch_data(prompt)["proposed"]["id"] == NEW else every_candidate("neither")(prompt)
    )
    result = review(pair_vault)
    assert [f.rule for f in semantic(result)] == []
    run = result.model_review
    assert run is not None and (run.state, run.judged, run.notes) == ("partial", 1, 2)
    assert why in run.line and f"answer for notes/{NEW}.md broke the schema" in run.line
    assert [note for note, _ in batches_sent(models.judge)] == [NEW, NEAR]


def test_a_failing_model_shows_only_the_error_type(
    pair_vault: Vault, models: Models, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LORE_TEST_SEMANTIC_KEY", KEY)
    use_llm(pair_vault, model="lore-test-keyed")
    propose(pair_vault)

    def fail(prompt: str) -> Any:
        raise RuntimeError(f"HTTP 401: key {KEY} rejected; prompt was {prompt[:40]}")

    models.keyed.decide = fail
    result = review(pair_vault)
    assert semantic(result) == []
    run = result.model_review
    assert run is not None and run.state == "skipped"
    assert "the llm model failed (RuntimeError)" in run.line
    assert KEY not in json.dumps(to_json(result)) and "rejected" not in run.line


def test_without_the_extra_one_line_says_how_to_install_it(
    pair_vault: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    use_llm(pair_vault)
    propose(pair_vault)
    monkeypatch.setitem(sys.modules, "llm", None)  # `import llm` raises ImportError
    result = review(pair_vault)
    assert semantic(result) == []
    run = result.model_review
    assert run is not None and run.state == "skipped"
    assert "the llm library is not installed" in run.line
    assert "pip install 'gh-lore[llm]'" in run.line
    assert result.exit_code == 0


def test_an_unknown_model_is_one_line(pair_vault: Vault, models: Models) -> None:
    use_llm(pair_vault, model="no-such-model-anywhere")
    propose(pair_vault)
    run = review(pair_vault).model_review
    assert run is not None and run.state == "skipped"
    assert 'llm knows no model "no-such-model-anywhere"' in run.line
    assert "llm models" in run.line


def test_the_key_comes_only_from_the_named_variable_and_never_shows(
    pair_vault: Vault, models: Models, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # llm's own places for a key hold decoys: its key store and the model's variable.
    user_dir = tmp_path / "llm-user"
    user_dir.mkdir(exist_ok=True)
    (user_dir / "keys.json").write_text(json.dumps({"lore-test": "decoy-from-keys-json"}))
    monkeypatch.setenv("LORE_TEST_LLM_PROVIDER_KEY", "decoy-from-the-provider-variable")
    use_llm(pair_vault, model="lore-test-keyed")
    propose(pair_vault)

    # The variable lore.toml names is unset (a fork's pull request): nothing is sent.
    monkeypatch.delenv("LORE_TEST_SEMANTIC_KEY", raising=False)
    keyless = review(pair_vault)
    assert semantic(keyless) == []
    assert keyless.model_review is not None
    assert "no key: $LORE_TEST_SEMANTIC_KEY is not set" in keyless.model_review.line
    assert models.keyed.prompts == []

    monkeypatch.setenv("LORE_TEST_SEMANTIC_KEY", KEY)
    models.keyed.decide = every_candidate("contradicts", f"Sent with {KEY}.")
    result = review(pair_vault)
    assert models.keyed.keys == [KEY]  # one call for the note
    found = semantic(result)
    assert [f.rule for f in found] == ["convention/semantic-contradiction"] * 2
    assert "[API key hidden]" in found[0].message
    outputs = [json.dumps(to_json(result)), "\n".join(to_github(result)), to_markdown(result)]
    assert all(KEY not in output for output in outputs)

    code, out, err = in_process("curate", "--vault", str(pair_vault.root), "--base", "main",
                                "--head", "proposal", "--format", "github")  # fmt: skip
    assert code == 0, err
    assert "convention/semantic-contradiction" in out
    assert KEY not in out + err


def test_a_model_that_needs_no_key_runs_without_one_and_gets_none(
    pair_vault: Vault, models: Models, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("LORE_TEST_SEMANTIC_KEY", raising=False)
    use_llm(pair_vault)
    propose(pair_vault)
    assert [f.rule for f in semantic(review(pair_vault))] == ["convention/semantic-duplicate"]
    assert len(models.judge.prompts) == 1


def test_llm_s_own_openai_plugin_reaches_the_server_its_configuration_names(
    pair_vault: Vault, provider: Provider, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """No stand-in model: llm's bundled OpenAI plugin and the openai SDK, pointed by llm's
    own configuration (not lore.toml) at an OpenAI-compatible server on this machine."""
    user_dir = tmp_path / "llm-user"
    user_dir.mkdir()
    (user_dir / "extra-openai-models.yaml").write_text(
        "- model_id: lore-local\n"
        "  model_name: local-model\n"
        f"  api_base: {provider.endpoint()}\n"
        "  supports_schema: true\n",
        encoding="utf-8",
    )
    monkeypatch.setenv("LLM_USER_PATH", str(user_dir))
    monkeypatch.delenv("LORE_TEST_SEMANTIC_KEY", raising=False)  # a local model needs none
    use_llm(pair_vault, model="lore-local")
    propose(pair_vault)
    result = review(pair_vault)

    assert [f.rule for f in semantic(result)] == ["convention/semantic-duplicate"]
    assert len(provider.requests) == 1
    request = provider.requests[0]
    assert request["path"] == "/v1/chat/completions"
    assert request["body"]["model"] == "local-model"
    assert request["body"]["messages"][0] == {"role": "system", "content": SYSTEM_PROMPT}
    assert request["body"]["response_format"]["json_schema"]["schema"] == ANSWER_SCHEMA
