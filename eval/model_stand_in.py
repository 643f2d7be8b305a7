"""A stand-in for GitHub Models that records what `lore curate` asks and replays answers.

The curator's model review is measured without a model here: the eval points the
vault's `[curator.semantic]` (provider `github`, `endpoint` this server on 127.0.0.1)
at `StandIn`, and `lore curate` sends its requests exactly as it sends them to GitHub's
chat-completions endpoint (`lore.curator.review.github_models`).

The vault's `lore.toml` turns the review on (`settings`); the endpoint, which decides
where a key goes, comes from the evaluator's own config (`user_config`, the file
`LORE_CONFIG` names), the only place lore takes an endpoint other than a provider's
public API from (`lore.curator.context.settings`).

- **record** (`answers=None`): every request is kept — its `messages` (the system and
  the user prompt, word for word), `model` and `response_format` — under an id that is
  the SHA-256 of the messages (`prompt_id`), and the server answers HTTP 503, so the
  review is skipped and the curator's findings are the rules' alone. `write_prompts`
  writes them, one JSON object a line, with nothing else: no label, no batch figure,
  no file name of the eval. Those files are what a blind answerer is given.
- **replay** (`answers` given): the answer recorded for a request's id is returned as
  the model's message, as GitHub Models returns one; a request with no recorded answer
  gets HTTP 503 and is counted (`unanswered`), so a prompt that changed since it was
  answered is never judged by a stale answer.

Answers are JSON lines `{"id": "<prompt id>", "content": "<the model's reply>"}` (a
`"model"` key names the answering model); `load_answers` reads a file or every
`*.jsonl` of a folder. `shown_ids` reads, from a recorded prompt, the ids of the notes
the model was asked about: what the eval's "reached" counts.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

CHAT_PATH = "/inference/chat/completions"
KEY_ENV = "LORE_EVAL_MODEL_KEY"  # the variable `api_key_env` names; any value will do
_NOTES = re.compile(r"<notes>\n(`{3,})json\n(.*?)\n\1\n</notes>", re.DOTALL)

HOW_TO_ANSWER = """\
# Prompts of lore's model review, to be answered blind

Each line of each `*.jsonl` file here is one request `lore curate` sent to GitHub Models:
`{"id": ..., "model": ..., "messages": [system, user], "response_format": ...}`.
Answer each one as the model would, reading only that line: send `messages` to the
model with `response_format` (a JSON schema; GitHub Models and OpenAI's API take it as
it is), or answer it yourself from the messages alone. Nothing else may be read: not
the eval's labels, not the repositories, not other answers.

Write the answers as JSON lines, one per prompt, in any file(s) ending in `.jsonl`:

    {"id": "<the prompt's id>", "model": "<who answered>", "content": "<the reply, as text>"}

`content` is the reply exactly as returned (the JSON object the schema asks for, as a
string). Then replay them: `python eval/run_real_adr_eval.py --mirrors DIR --split NAME
--answers FOLDER`.
"""


def prompt_id(messages: Any) -> str:
    """The id of a request: the SHA-256 of its messages (canonical JSON), 16 hex digits."""
    canonical = json.dumps(messages, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:16]


def shown_ids(messages: list[dict[str, Any]]) -> tuple[str, list[str]]:
    """(the proposed note's id, the candidates' ids, in order) of a recorded request."""
    user = next((m.get("content", "") for m in messages if m.get("role") == "user"), "")
    found = _NOTES.search(user)
    if not found:
        return "", []
    data = json.loads(found[2].replace("\\u003c", "<"))
    proposed = data.get("proposed", {}).get("id", "")
    return proposed, [c.get("id", "") for c in data.get("candidates", [])]


def load_answers(path: Path) -> dict[str, dict[str, Any]]:
    """The recorded answers by prompt id, from a JSONL file or every `*.jsonl` of a folder."""
    files = sorted(path.glob("*.jsonl")) if path.is_dir() else [path]
    answers: dict[str, dict[str, Any]] = {}
    for file in files:
        for number, line in enumerate(file.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            try:
                entry = json.loads(line)
            except ValueError:
                raise SystemExit(f"{file}:{number}: not a JSON line") from None
            if not isinstance(entry, dict) or not isinstance(entry.get("id"), str):
                raise SystemExit(f'{file}:{number}: an answer needs an "id"')
            if not isinstance(entry.get("content"), str):
                raise SystemExit(f'{file}:{number}: an answer needs its "content" as text')
            answers[entry["id"]] = entry
    return answers


@dataclass
class Call:
    """One request the curator sent."""

    id: str
    model: str
    messages: list[dict[str, Any]]
    response_format: Any
    answered: bool


@dataclass
class StandIn:
    """The server's state: the calls received, the answers to replay (None: record)."""

    answers: dict[str, dict[str, Any]] | None = None
    calls: list[Call] = field(default_factory=list)
    port: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def unanswered(self) -> int:
        return sum(1 for call in self.calls if not call.answered)

    def take(self, since: int) -> list[Call]:
        """The calls received after the first `since`."""
        with self.lock:
            return self.calls[since:]

    def respond(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        messages = body.get("messages", [])
        key = prompt_id(messages)
        answer = None if self.answers is None else self.answers.get(key)
        with self.lock:
            self.calls.append(
                Call(
                    key,
                    str(body.get("model", "")),
                    messages,
                    body.get("response_format"),
                    answer is not None,
                )
            )
        if answer is None:
            return 503, {"error": {"message": "recorded, not answered (eval stand-in)"}}
        return 200, {
            "id": f"stand-in-{key}",
            "object": "chat.completion",
            "model": answer.get("model", ""),
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "stop",
                    "message": {"role": "assistant", "content": answer["content"]},
                }
            ],
        }

    def write_prompts(self, path: Path, calls: list[Call]) -> int:
        """Append the calls' requests to a JSONL file (each id once); how many were new."""
        path.parent.mkdir(parents=True, exist_ok=True)
        guide = path.parent / "HOW-TO-ANSWER.md"
        if not guide.exists():
            guide.write_text(HOW_TO_ANSWER, encoding="utf-8")
        known: set[str] = set()
        if path.exists():
            for line in path.read_text(encoding="utf-8").splitlines():
                if line.strip():
                    known.add(json.loads(line)["id"])
        added = 0
        with path.open("a", encoding="utf-8") as out:
            for call in calls:
                if call.id in known:
                    continue
                known.add(call.id)
                entry = {
                    "id": call.id,
                    "model": call.model,
                    "messages": call.messages,
                    "response_format": call.response_format,
                }
                out.write(json.dumps(entry, ensure_ascii=False) + "\n")
                added += 1
        return added


def _handler(state: StandIn) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            size = int(self.headers.get("Content-Length") or 0)
            try:
                body = json.loads(self.rfile.read(size) or b"{}")
            except ValueError:
                body = None
            if self.path != CHAT_PATH or not isinstance(body, dict):
                status, payload = 404, {"error": {"message": "not a chat completion"}}
            else:
                status, payload = state.respond(body)
            data = json.dumps(payload).encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            return

    return Handler


@contextmanager
def running(answers: dict[str, dict[str, Any]] | None = None) -> Iterator[StandIn]:
    """A stand-in listening on 127.0.0.1 for as long as the block runs."""
    state = StandIn(answers)
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    server.daemon_threads = True
    state.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()


def settings(model: str = "openai/gpt-4.1-mini", max_related: int | None = None) -> str:
    """The vault's `lore.toml`: the model review on, with GitHub Models' provider (and
    `max_related`, when given; else lore's default)."""
    return (
        "[curator.semantic]\n"
        "enabled = true\n"
        'provider = "github"\n'
        f'model = "{model}"\n'
        f'api_key_env = "{KEY_ENV}"\n'
        "timeout_seconds = 60\n"
        + (f"max_related = {max_related}\n" if max_related is not None else "")
    )


def user_config(state: StandIn) -> str:
    """The evaluator's own config (`LORE_CONFIG`): the stand-in as the endpoint."""
    return "[curator.semantic]\n" + f'endpoint = "{state.endpoint}"\n'
