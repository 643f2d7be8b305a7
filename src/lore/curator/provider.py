"""One chat call to a model provider over HTTPS, with the standard library only.

Two request shapes: OpenAI chat completions (asking for a JSON object) and the
Anthropic messages API. One attempt with a timeout, no retries; every failure is a
`ProviderError` whose message never contains the API key.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

DEFAULT_ENDPOINTS = {
    "openai": "https://api.openai.com/v1",
    "anthropic": "https://api.anthropic.com/v1",
}
ANTHROPIC_VERSION = "2023-06-01"
MAX_RESPONSE_BYTES = 1024 * 1024
MAX_OUTPUT_TOKENS = 2048


class ProviderError(Exception):
    """The call failed; the message says why in one line, without the key."""


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
    """The model's reply text; raises `ProviderError` for any failure."""
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
