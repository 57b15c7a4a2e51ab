"""Asking a model for text through the official SDKs: the one module that reaches a provider.

``openai`` speaks Chat Completions (its base URL also reaches DeepSeek, Ollama, vLLM,
llama.cpp and other OpenAI-compatible servers); ``anthropic`` speaks Messages. Keys come
only from the environment (``OPENAI_API_KEY``, ``ANTHROPIC_API_KEY``), and the SDKs'
``*_BASE_URL`` variables are honoured. A failure is one sentence that never quotes the
provider's reply, which may echo the key back.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

PROVIDERS = ("openai", "anthropic")
DEFAULT_MODELS = {"openai": "gpt-5.5", "anthropic": "claude-sonnet-5-5"}
KEY_VARIABLES = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}
BASE_URL_VARIABLES = {"openai": "OPENAI_BASE_URL", "anthropic": "ANTHROPIC_BASE_URL"}
DEFAULT_TIMEOUT_S = 120.0
MAX_OUTPUT_TOKENS = 8192


class ProviderFailure(RuntimeError):
    """A provider that gave no answer; the message is one sentence with no secret in it."""


# One message of the conversation: ("user" or "assistant", its text).
Turn = tuple[str, str]


@dataclass(frozen=True)
class ChatProvider:
    """One provider, model and base URL; ``ask`` sends a conversation and returns the reply."""

    kind: str
    model: str
    base_url: str | None = None
    timeout: float = DEFAULT_TIMEOUT_S

    @property
    def label(self) -> str:
        return f"{self.kind}:{self.model}"

    def ask(self, system: str, turns: Sequence[Turn]) -> str:
        base_url = self.base_url or os.environ.get(BASE_URL_VARIABLES[self.kind]) or None
        key = os.environ.get(KEY_VARIABLES[self.kind]) or None
        if key is None and base_url is None:
            raise ProviderFailure(
                f"No {KEY_VARIABLES[self.kind]} is set in the environment, so the {self.kind} "
                "writer cannot start; set it (or a base URL for a local server), or use the "
                "template writer."
            )
        try:
            if self.kind == "openai":
                return self._openai(system, turns, key, base_url)
            return self._anthropic(system, turns, key, base_url)
        except ProviderFailure:
            raise
        except Exception as failure:
            raise ProviderFailure(self._sentence(failure, base_url)) from None

    def _openai(
        self, system: str, turns: Sequence[Turn], key: str | None, base_url: str | None
    ) -> str:
        import openai

        # A local OpenAI-compatible server takes no key; the SDK still wants one to send.
        client = openai.OpenAI(
            api_key=key or "unused", base_url=base_url, timeout=self.timeout, max_retries=0
        )
        messages: list[Any] = [{"role": "system", "content": system}]
        messages.extend({"role": role, "content": text} for role, text in turns)
        with client:
            reply = client.chat.completions.create(model=self.model, messages=messages)
        choices = reply.choices or []
        content = choices[0].message.content if choices else None
        return content or ""

    def _anthropic(
        self, system: str, turns: Sequence[Turn], key: str | None, base_url: str | None
    ) -> str:
        import anthropic

        client = anthropic.Anthropic(
            api_key=key or "unused", base_url=base_url, timeout=self.timeout, max_retries=0
        )
        messages: list[Any] = [{"role": role, "content": text} for role, text in turns]
        with client:
            reply = client.messages.create(
                model=self.model, max_tokens=MAX_OUTPUT_TOKENS, system=system, messages=messages
            )
        return "".join(
            getattr(block, "text", "") for block in reply.content if block.type == "text"
        )

    def _sentence(self, failure: Exception, base_url: str | None) -> str:
        where = f" at {base_url}" if base_url else ""
        name = type(failure).__name__
        status = getattr(failure, "status_code", None)
        variable = KEY_VARIABLES[self.kind]
        if "Timeout" in name:
            return (
                f"The {self.kind} provider{where} did not answer within {self.timeout:g} s; "
                "try again later, or choose a faster model or the template writer."
            )
        if status == 401 or status == 403:
            return (
                f"The {self.kind} provider{where} refused the API key (HTTP {status}); set a "
                f"valid {variable} in the environment."
            )
        if status == 429:
            return (
                f"The {self.kind} provider{where} is rate-limiting this key (HTTP 429); wait a "
                "minute and generate again."
            )
        if status == 404:
            return (
                f"The {self.kind} provider{where} does not know the model {self.model!r} "
                "(HTTP 404); check the model name in the writer settings."
            )
        if isinstance(status, int) and status >= 500:
            return (
                f"The {self.kind} provider{where} failed with a server error (HTTP {status}); "
                "try again later or use the template writer."
            )
        if isinstance(status, int):
            return (
                f"The {self.kind} provider{where} rejected the request (HTTP {status}); check "
                "the model name and the base URL in the writer settings."
            )
        if "Connection" in name:
            return (
                f"The {self.kind} provider{where} could not be reached; check the network and "
                "the base URL, or use the template writer."
            )
        return (
            f"The {self.kind} provider{where} gave no usable answer ({name}); try again or use "
            "the template writer."
        )
