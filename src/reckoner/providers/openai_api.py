"""The OpenAI APIs through the official ``openai`` SDK: the one module that imports it, and
only inside ``OpenAIClient`` (manual 12.3).

An article is a Chat Completions conversation, the API every OpenAI-compatible server
(DeepSeek, Ollama, vLLM, llama.cpp) speaks. A lookup uses the Responses API: its search is
one call with the ``web_search`` tool, whose ``url_citation`` annotations are the sources,
each with the span of text it supports.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from .config import Endpoint
from .failures import sdk_failure, unexpected_shape
from .replies import Citation, Reply, Turn

Answer = TypeVar("Answer")


class OpenAIClient:
    """One SDK client for one endpoint; every failure is a ProviderFailure."""

    def __init__(self, endpoint: Endpoint, *, timeout: float, retries: int) -> None:
        import openai

        self._sdk = openai
        self.endpoint = endpoint
        self.timeout = timeout
        self._client = openai.OpenAI(
            api_key=endpoint.key, base_url=endpoint.base_url, timeout=timeout, max_retries=retries
        )

    def chat(self, model: str, system: str, turns: Sequence[Turn], max_tokens: int) -> Reply:
        messages: list[Any] = [{"role": "system", "content": system}]
        messages.extend({"role": role, "content": text} for role, text in turns)
        reply = self._send(
            model,
            lambda: self._client.chat.completions.create(
                model=model, messages=messages, max_completion_tokens=max_tokens
            ),
        )
        try:
            choice = reply.choices[0] if reply.choices else None
            text = (choice.message.content if choice else None) or ""
            return Reply(text, cut_off=choice is not None and choice.finish_reason == "length")
        except (AttributeError, TypeError) as error:
            raise unexpected_shape("openai", "Chat Completions", error) from None

    def complete(self, model: str, system: str, user: str, max_tokens: int) -> str:
        response = self._send(
            model,
            lambda: self._client.responses.create(
                model=model, instructions=system, input=user, max_output_tokens=max_tokens
            ),
        )
        try:
            return str(response.output_text)
        except (AttributeError, TypeError) as error:
            raise unexpected_shape("openai", "Responses", error) from None

    def web_search(self, model: str, system: str, question: str) -> list[Citation]:
        """The sources the search call cited, in first-cited order (repeats kept)."""
        response = self._send(
            model,
            lambda: self._client.responses.create(
                model=model, instructions=system, input=question, tools=[{"type": "web_search"}]
            ),
        )
        try:
            return self._citations(response.output)
        except (AttributeError, TypeError) as error:
            raise unexpected_shape("openai", "Responses", error) from None

    @staticmethod
    def _citations(output: Sequence[Any]) -> list[Citation]:
        cited: list[Citation] = []
        for item in output:
            if item.type != "message":
                continue
            for part in item.content:
                if part.type != "output_text":
                    continue
                for note in part.annotations:
                    if note.type == "url_citation":
                        span = part.text[note.start_index : note.end_index]
                        cited.append(Citation(note.url, note.title, span))
        return cited

    def _send(self, model: str, send: Callable[[], Answer]) -> Answer:
        try:
            return send()
        except Exception as error:
            raise sdk_failure(
                self._sdk,
                error,
                kind="openai",
                shown_url=self.endpoint.shown,
                timeout=self.timeout,
                key_variable=self.endpoint.key_variable,
                model=model,
            ) from None

    def close(self) -> None:
        self._client.close()
