"""One model call for the semantic review: a provider over HTTPS, with a hard deadline.

`HttpClient` speaks two request shapes with the standard library only: OpenAI chat
completions (asking for a JSON object) and the Anthropic messages API; one attempt,
no retries. `lore.curator.review.provider_llm` is the other `ModelClient`, for any model the
optional `llm` library reaches. `within` runs one call in a worker thread and stops
waiting after the vault's `timeout_seconds`, whatever the client does inside (a socket
timeout bounds each read, not a slow trickle; llm has no timeout of its own). Every
failure is a `ProviderError` whose message never contains the API key.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    pass

DEFAULT_ENDPOINTS = {
    "openai": "https://api.openai.com/v1",
    "anthropic": "https://api.anthropic.com/v1",
}
ANTHROPIC_VERSION = "2023-06-01"
MAX_RESPONSE_BYTES = 1024 * 1024
MAX_OUTPUT_TOKENS = 2048


class ProviderError(Exception):
    """The call failed; the message says why in one line, without the key."""


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
        raise ProviderError(f"no answer within {seconds:g} seconds")
    if not outcome:
        raise ProviderError("the model call stopped without an answer")
    result = outcome[0]
    if isinstance(result, Exception):
        raise result
    return result


def _request(provider: str, model: str, system: str, user: str, *, endpoint: str, key: str) -> Any:
    base = endpoint or DEFAULT_ENDPOINTS[provider]
    if provider == "anthropic":
        url = f"{base}/messages"
        body: dict[str, Any] = {
            "model": model,
            "max_tokens": MAX_OUTPUT_TOKENS,
            "temperature": 0,
            "system": system,
            "messages": [{"role": "user", "content": user}],
        }
        headers = {"x-api-key": key, "anthropic-version": ANTHROPIC_VERSION}
    else:
        url = f"{base}/chat/completions"
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
        raise ProviderError(f"the response has no model output ({type(exc).__name__})") from None
    if not isinstance(text, str) or not text.strip():
        raise ProviderError("the model returned no text")
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
) -> str:
    """The model's reply text; raises `ProviderError` for any failure.

    urllib is imported here, not at the top: every `lore remember` and curator run loads
    this module, and urllib's 12 ms were a twentieth of a dry run (docs/performance.md).
    """
    import urllib.error
    import urllib.request

    request = _request(provider, model, system, user, endpoint=endpoint, key=key)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310
            raw = response.read(MAX_RESPONSE_BYTES + 1)
    except urllib.error.HTTPError as exc:
        raise ProviderError(f"the provider answered HTTP {exc.code}") from None
    except urllib.error.URLError as exc:
        reason = exc.reason
        if isinstance(reason, TimeoutError):
            raise ProviderError(f"no answer within {timeout:g} seconds") from None
        raise ProviderError(
            f"the provider could not be reached ({type(reason).__name__})"
        ) from None
    except TimeoutError:
        raise ProviderError(f"no answer within {timeout:g} seconds") from None
    except OSError as exc:
        raise ProviderError(f"the connection failed ({type(exc).__name__})") from None
    if len(raw) > MAX_RESPONSE_BYTES:
        raise ProviderError("the response is larger than 1 MB")
    try:
        payload = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise ProviderError("the provider's response is not JSON") from None
    return _content(provider, payload)


@dataclass(frozen=True)
class HttpClient:
    """The openai or anthropic provider at `endpoint` (empty: its public API)."""

    provider: str
    model: str
    endpoint: str
    timeout: float
    key: str = field(repr=False)

    def answer(self, system: str, user: str, schema: dict[str, Any]) -> str:
        # The JSON shape is in the prompt; OpenAI's json_object mode enforces JSON itself.
        del schema
        return complete(
            provider=self.provider,
            model=self.model,
            system=system,
            user=user,
            endpoint=self.endpoint,
            key=self.key,
            timeout=self.timeout,
        )
