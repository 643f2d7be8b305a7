"""GitHub Models for the semantic review: where a request goes, what it carries, and what
GitHub's refusals mean, in sentences a reviewer can act on.

GitHub Models is an OpenAI-compatible chat-completions endpoint that a workflow reaches
with its own `GITHUB_TOKEN` once the job grants `permissions: models: read`, so a vault
on GitHub needs no secret for the review. What this module follows, from GitHub's docs:

- The endpoint, `POST https://models.github.ai/inference/chat/completions`, and the form
  that attributes the calls to an organisation, `POST /orgs/{org}/inference/chat/completions`;
  model ids as `{publisher}/{model_name}` (e.g. `openai/gpt-4.1-mini`); the headers
  `Accept: application/vnd.github+json` and `X-GitHub-Api-Version: 2022-11-28`; a
  `response_format` asking for JSON that follows a schema:
  https://docs.github.com/en/rest/models/inference and
  https://docs.github.com/en/github-models/quickstart
- The workflow's token and `permissions: models: read`:
  https://docs.github.com/en/github-models/use-github-models/integrating-ai-models-into-your-development-workflow#using-ai-models-with-github-actions
- The free limits, per model tier: for the "low" tier (`openai/gpt-4.1-mini`) 15 requests
  a minute and 150 a day on Copilot Free and Pro (300 and 450 a day on Business and
  Enterprise), 8,000 tokens in and 4,000 out per request; the "high" tier 10 a minute
  and 50 a day. When a limit is hit, the caller waits for it to reset:
  https://docs.github.com/en/github-models/use-github-models/prototyping-with-ai-models#rate-limits
- A rate-limited answer is 429, or 403 with `retry-after` or `x-ratelimit-remaining: 0`;
  `retry-after` is the number of seconds to wait, `x-ratelimit-reset` the epoch second the
  limit resets: https://docs.github.com/en/rest/using-the-rest-api/rate-limits-for-the-rest-api#exceeding-the-rate-limit
- An organisation that has not enabled GitHub Models answers 403 with an empty body,
  even with `models: read` granted (MEASUREMENTS.md, "GitHub behaviour"). The
  organisation endpoint needs a member's token and Models enabled for the organisation
  (https://docs.github.com/en/rest/models/inference).

Nothing here touches the network: `lore.curator.review.provider` sends the request.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from lore.curator.context.settings import GITHUB, PUBLIC_ENDPOINTS

DEFAULT_ENDPOINT = PUBLIC_ENDPOINTS[GITHUB]
API_VERSION = "2022-11-28"
ACCEPT = "application/vnd.github+json"
SCHEMA_NAME = "lore_semantic_review"
ORG_LOGIN = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}")
MODELS_READ = "`permissions: models: read`"


def chat_url(endpoint: str, org: str) -> str:
    """The chat-completions URL under `endpoint` (empty: GitHub's), for `org` when set."""
    base = (endpoint or DEFAULT_ENDPOINT).rstrip("/")
    if org:
        return f"{base}/orgs/{org}/inference/chat/completions"
    return f"{base}/inference/chat/completions"


def is_github_host(endpoint: str) -> bool:
    """Whether calls go to GitHub's own endpoint (the only place a `gh` token is sent)."""
    return (endpoint or DEFAULT_ENDPOINT).rstrip("/") == DEFAULT_ENDPOINT


def request_headers(token: str) -> dict[str, str]:
    return {
        "Accept": ACCEPT,
        "Authorization": f"Bearer {token}",
        "X-GitHub-Api-Version": API_VERSION,
    }


def strict_ready(schema: Any) -> bool:
    """Whether `schema` fits strict structured output: every object closed
    (`additionalProperties: false`) with every property required, no length bounds."""
    if not isinstance(schema, dict):
        return True
    if any(key in schema for key in ("maxItems", "minItems", "maxLength", "minLength")):
        return False
    properties = schema.get("properties")
    if isinstance(properties, dict):
        closed = schema.get("additionalProperties") is False
        if not closed or set(schema.get("required", ())) != set(properties):
            return False
        if not all(strict_ready(value) for value in properties.values()):
            return False
    return strict_ready(schema.get("items"))


def request_body(
    model: str, system: str, user: str, schema: dict[str, Any], max_tokens: int
) -> dict[str, Any]:
    """A non-streaming chat completion whose answer must follow `schema` (strictly, when
    the schema allows it; else the schema guides and lore's own parser checks)."""
    return {
        "model": model,
        "messages": [
            {"role": "system", "content": system},
            {"role": "user", "content": user},
        ],
        "temperature": 0,
        "max_tokens": max_tokens,
        "response_format": {
            "type": "json_schema",
            "json_schema": {
                "name": SCHEMA_NAME,
                "strict": strict_ready(schema),
                "schema": schema,
            },
        },
    }


def retry_after(headers: Mapping[str, str], now: float) -> float | None:
    """Seconds to wait before the next call, from `retry-after` or `x-ratelimit-reset`."""
    wait = headers.get("retry-after", "").strip()
    if wait.isdigit():
        return float(wait)
    reset = headers.get("x-ratelimit-reset", "").strip()
    if reset.isdigit():
        return max(0.0, float(reset) - now)
    return None


def _seconds(wait: float | None) -> str:
    if wait is None:
        return ""
    return f"; retry after {wait:.0f} s" if wait < 120 else f"; retry after {wait / 60:.0f} min"


def refusal(status: int, headers: Mapping[str, str], empty: bool, now: float) -> tuple[str, str]:
    """(kind, sentence) for an HTTP error GitHub Models answered; `headers` lower-cased.

    Kinds: "rate-limited", "no-access", "unauthorized", "too-large", "http".
    """
    wait = retry_after(headers, now)
    limited = status == 429 or (
        status == 403 and (wait is not None or headers.get("x-ratelimit-remaining") == "0")
    )
    if limited:
        return "rate-limited", (
            f"GitHub Models' rate limit for this model was reached (HTTP {status}{_seconds(wait)})"
        )
    if status == 403:
        body = "an empty answer" if empty else "an answer"
        return "no-access", (
            f"GitHub Models refused the call (HTTP 403, {body}): GitHub Models is not enabled "
            f"for this account or organisation, or the job lacks {MODELS_READ}"
        )
    if status == 401:
        return "unauthorized", "GitHub Models did not accept the token (HTTP 401)"
    if status == 413:
        return "too-large", (
            "the request is over the model's per-request token limit on GitHub Models (HTTP 413)"
        )
    return "http", f"GitHub Models answered HTTP {status}"
