"""One model call for the semantic review: a provider over HTTPS, with a hard deadline.

`HttpClient` speaks three request shapes with the standard library only: OpenAI chat
completions (asking for a JSON object), the Anthropic messages API, and GitHub Models
(OpenAI-compatible, with GitHub's headers and a JSON-schema answer:
`lore.curator.review.github_models`); one attempt, no retries. `lore.curator.review.provider_llm`
is the other `ModelClient`, for any model the optional `llm` library reaches. `within`
runs one call in a worker thread and stops waiting after the vault's `timeout_seconds`,
whatever the client does inside (a socket timeout bounds each read, not a slow trickle;
llm has no timeout of its own). Every failure is a `ProviderError` whose `kind` says
what went wrong ("timeout", "rate-limited", "no-access", ...) and whose message never
contains the API key or anything the provider wrote.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from lore.curator.context.settings import PUBLIC_ENDPOINTS
from lore.curator.review import github_models

GITHUB = "github"
DEFAULT_ENDPOINTS = PUBLIC_ENDPOINTS  # each provider's public API
ANTHROPIC_VERSION = "2023-06-01"
MAX_RESPONSE_BYTES = 1024 * 1024
MAX_OUTPUT_TOKENS = 2048  # under GitHub Models' 4,000 tokens out per request


class ProviderError(Exception):
    """The call failed; the message says why in one line, without the key.

    `kind`: "timeout", "unreachable", "rate-limited", "no-access", "unauthorized",
    "too-large", "http", "bad-response" or "failed".
    """

    def __init__(self, message: str, kind: str = "failed") -> None:
        super().__init__(message)
        self.kind = kind


class ProviderUnavailable(ProviderError):
    """The chosen model cannot be used at all in this run (e.g. its library is missing)."""


class ModelClient(Protocol):
    """One configured model: `answer` sends one prompt and returns the model's text."""

    def answer(self, system: str, user: str, schema: dict[str, Any]) -> str: ...


def within(seconds: float, call: Callable[[], str]) -> str:
    """`call()`'s result, waiting at most `seconds`; `ProviderError` when it takes longer.

    The call runs in a daemon thread: a call that never returns is abandoned (it cannot
    keep the process alive), and the review moves on.
    """
    outcome: list[str | Exception] = []

    def run() -> None:
        try:
            outcome.append(call())
        except Exception as exc:  # noqa: BLE001 - re-raised in the caller's thread
            outcome.append(exc)

    worker = threading.Thread(target=run, name="lore-model-call", daemon=True)
    worker.start()
    worker.join(seconds)
    if worker.is_alive():
        raise ProviderError(f"no answer within {seconds:g} seconds", "timeout")
    if not outcome:
        raise ProviderError("the model call stopped without an answer")
    result = outcome[0]
    if isinstance(result, Exception):
        raise result
    return result


def request_url(provider: str, endpoint: str, org: str = "") -> str:
    """The address a call goes to: under `endpoint`, else the provider's public API."""
    if provider == GITHUB:
        return github_models.chat_url(endpoint, org)
    base = endpoint or DEFAULT_ENDPOINTS[provider]
    return f"{base}/messages" if provider == "anthropic" else f"{base}/chat/completions"


def _request(
    provider: str,
    model: str,
    call: tuple[str, str, dict[str, Any]],
    *,
    endpoint: str,
    key: str,
    org: str = "",
) -> Any:
    system, user, schema = call
    url = request_url(provider, endpoint, org)
    if provider == GITHUB:
        body = github_models.request_body(model, system, user, schema, MAX_OUTPUT_TOKENS)
        headers = github_models.request_headers(key)
    elif provider == "anthropic":
        body = {
            "model": model,
            "max_tokens": MAX_OUTPUT_TOKENS,
            "temperature": 0,
            "system": system,
            "messages": [{"role": "user", "content": user}],
        }
        headers = {"x-api-key": key, "anthropic-version": ANTHROPIC_VERSION}
    else:
        body = {
            "model": model,
            "temperature": 0,
            "response_format": {"type": "json_object"},
            "messages": [
                {"role": "system", "content": system},
                {"role": "user", "content": user},
            ],
        }
        headers = {"Authorization": f"Bearer {key}"}
    headers["Content-Type"] = "application/json"
    headers["User-Agent"] = "lore-curator"
    import urllib.request  # only when a model is called (see `complete`)

    return urllib.request.Request(  # noqa: S310 - the scheme is checked in settings
        url, data=json.dumps(body).encode("utf-8"), headers=headers, method="POST"
    )


def _http_error(provider: str, exc: Any) -> ProviderError:
    """The error for an HTTP status; nothing of the provider's own text is kept."""
    headers = {name.lower(): value for name, value in (exc.headers or {}).items()}
    try:
        empty = not exc.read(4096).strip()
    except Exception:  # noqa: BLE001 - the body only tells an empty 403 from another
        empty = True
    if provider == GITHUB:
        kind, sentence = github_models.refusal(exc.code, headers, empty, time.time())
        return ProviderError(sentence, kind)
    if exc.code == 429:
        wait = github_models.retry_after(headers, time.time())
        after = f"; retry after {wait:.0f} s" if wait is not None else ""
        message = f"the provider's rate limit was reached (HTTP 429{after})"
        return ProviderError(message, "rate-limited")
    kind = {401: "unauthorized", 403: "no-access"}.get(exc.code, "http")
    return ProviderError(f"the provider answered HTTP {exc.code}", kind)


def _content(provider: str, payload: Any) -> str:
    """The model's text from a provider response."""
    try:
        if provider == "anthropic":
            parts = [
                part["text"]
                for part in payload["content"]
                if isinstance(part, dict) and part.get("type") == "text"
            ]
            text = "".join(parts)
        else:
            text = payload["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError) as exc:
        raise ProviderError(
            f"the response has no model output ({type(exc).__name__})", "bad-response"
        ) from None
    if not isinstance(text, str) or not text.strip():
        raise ProviderError("the model returned no text", "bad-response")
    return text


def complete(
    *,
    provider: str,
    model: str,
    system: str,
    user: str,
    endpoint: str,
    key: str,
    timeout: float,
    schema: dict[str, Any] | None = None,
    org: str = "",
) -> str:
    """The model's reply text; raises `ProviderError` for any failure.

    urllib is imported here, not at the top: every `lore remember` and curator run loads
    this module, and urllib's 12 ms were a twentieth of a dry run (docs/performance.md).
    """
    import urllib.error
    import urllib.request

    call = (system, user, schema or {"type": "object"})
    request = _request(provider, model, call, endpoint=endpoint, key=key, org=org)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310
            raw = response.read(MAX_RESPONSE_BYTES + 1)
    except urllib.error.HTTPError as exc:
        raise _http_error(provider, exc) from None
    except urllib.error.URLError as exc:
        reason = exc.reason
        if isinstance(reason, TimeoutError):
            raise ProviderError(f"no answer within {timeout:g} seconds", "timeout") from None
        raise ProviderError(
            f"the provider could not be reached ({type(reason).__name__})", "unreachable"
        ) from None
    except TimeoutError:
        raise ProviderError(f"no answer within {timeout:g} seconds", "timeout") from None
    except OSError as exc:
        raise ProviderError(
            f"the connection failed ({type(exc).__name__})", "unreachable"
        ) from None
    if len(raw) > MAX_RESPONSE_BYTES:
        raise ProviderError("the response is larger than 1 MB", "bad-response")
    try:
        payload = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise ProviderError("the provider's response is not JSON", "bad-response") from None
    return _content(provider, payload)


@dataclass(frozen=True)
class HttpClient:
    """The openai, anthropic or github provider at `endpoint` (empty: its public API).

    `org`: GitHub Models only, the organisation the calls are attributed to."""

    provider: str
    model: str
    endpoint: str
    timeout: float
    key: str = field(repr=False)
    org: str = ""

    def answer(self, system: str, user: str, schema: dict[str, Any]) -> str:
        # GitHub Models takes the schema itself; for OpenAI's json_object mode and for
        # Anthropic the JSON shape is in the prompt, and lore's parser checks the answer.
        return complete(
            provider=self.provider,
            model=self.model,
            system=system,
            user=user,
            endpoint=self.endpoint,
            key=self.key,
            timeout=self.timeout,
            schema=schema if self.provider == GITHUB else None,
            org=self.org,
        )
