"""The `llm` provider: any model the `llm` library reaches, hosted or local (an extra).

`llm` (https://llm.datasette.io) is imported here only, and only when a vault's
`[curator.semantic]` says `provider = "llm"`: it is the optional extra
`gh-lore[llm]`, never needed by recall, the hooks or the rest of the curator. Its
plugins (llm-anthropic, llm-ollama, llm-gemini, ...) add models; lore.toml names one
by its llm model id or alias.

What the vault decides and what the machine decides: lore.toml chooses the model id,
the NAME of the environment variable holding the key, the timeout and the call caps.
Where a model connects is the business of the plugin that provides it and of llm's
configuration on the machine running the curator (in CI, the workflow that installs
the plugin), so lore.toml takes no `endpoint` for llm and lore cannot check that the
plugin speaks https. The key comes only from the variable lore.toml names: it is
handed to models that declare they need one (`needs_key`), so llm's own key store and
provider variables are never consulted for them; a model that needs no key (a local
one) gets none. No text of an llm exception reaches a finding, only its type.
"""

from __future__ import annotations

from typing import Any

from lore.curator.review.provider import ProviderError, ProviderUnavailable

INSTALL = "pip install 'gh-lore[llm]'"
MAX_ANSWER_CHARS = 1024 * 1024


class LlmClient:
    """One llm model, with the key from lore.toml's variable when the model needs one."""

    def __init__(self, model: Any, key: str | None) -> None:
        self._model = model
        self._key = key

    def __repr__(self) -> str:
        return f"LlmClient({self._model.model_id!r})"

    def answer(self, system: str, user: str, schema: dict[str, Any]) -> str:
        options: dict[str, Any] = {"system": system, "stream": False}  # one whole answer
        if getattr(self._model, "supports_schema", False):
            options["schema"] = schema
        if self._key is not None:
            options["key"] = self._key
        try:
            text = self._model.prompt(user, **options).text()
        except Exception as exc:  # noqa: BLE001 - a plugin may raise anything
            raise ProviderError(f"the llm model failed ({type(exc).__name__})") from None
        if not isinstance(text, str) or not text.strip():
            raise ProviderError("the model returned no text")
        if len(text) > MAX_ANSWER_CHARS:
            raise ProviderError("the model's answer is longer than 1 MB")
        return text


def open_llm(model_id: str, key: str) -> LlmClient | None:
    """The client for `model_id`, or None when the model needs a key and `key` is empty.

    Raises `ProviderUnavailable` when llm is not installed or knows no such model.
    """
    try:
        import llm
    except ImportError:
        raise ProviderUnavailable(
            'the vault chose provider = "llm", and the llm library is not installed where '
            f"the curator runs; install lore's llm extra ({INSTALL}) and the plugin for the "
            "model (e.g. llm install llm-anthropic)"
        ) from None
    try:
        model = llm.get_model(model_id)
    except llm.UnknownModelError:
        raise ProviderUnavailable(
            f'llm knows no model "{model_id}"; install the plugin that provides it '
            "(llm install llm-…) and check its id with `llm models`"
        ) from None
    except Exception as exc:  # noqa: BLE001 - a broken plugin must not crash the curator
        raise ProviderUnavailable(f"llm could not load its models ({type(exc).__name__})") from None
    if not getattr(model, "needs_key", None):
        return LlmClient(model, None)
    if not key:
        return None
    return LlmClient(model, key)
