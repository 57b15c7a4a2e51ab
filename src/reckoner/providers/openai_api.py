"""The OpenAI APIs through the official ``openai`` SDK: the one module that imports it, and
only inside ``OpenAIClient`` (docs/guide/lookup.md).

An article is a Chat Completions conversation, the API every OpenAI-compatible server
(DeepSeek, Ollama, vLLM, llama.cpp) speaks. A lookup uses the Responses API: its search is
one call with the ``web_search`` tool, whose ``url_citation`` annotations are the sources,
each with the span of text it supports. Every Responses request sends ``store: false``: a
lookup's question and material are not kept on the provider's side for later retrieval.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .attempts import SdkClient
from .config import Endpoint
from .failures import unexpected_shape
from .replies import Citation, Reply, Searched, Turn, Usage


class OpenAIClient(SdkClient):
    """One SDK client for one endpoint; every failure is a ProviderFailure."""

    kind = "openai"

    def __init__(self, endpoint: Endpoint, *, timeout: float, retries: int) -> None:
        super().__init__(endpoint, timeout=timeout, retries=retries)
        import openai

        self._sdk = openai
        self._client = openai.OpenAI(
            api_key=endpoint.key, base_url=endpoint.base_url, timeout=timeout, max_retries=retries
        )

    def chat(self, model: str, system: str, turns: Sequence[Turn], max_tokens: int) -> Reply:
        messages: list[Any] = [{"role": "system", "content": system}]
        messages.extend({"role": role, "content": text} for role, text in turns)
        reply = self._send(
            model,
            lambda c: c.chat.completions.create(
                model=model, messages=messages, max_completion_tokens=max_tokens
            ),
        )
        try:
            choice = reply.choices[0] if reply.choices else None
            text = (choice.message.content if choice else None) or ""
            return Reply(text, cut_off=choice is not None and choice.finish_reason == "length")
        except (AttributeError, TypeError) as error:
            raise unexpected_shape("openai", "Chat Completions", error) from None

    def complete(
        self, model: str, system: str, user: str, max_tokens: int, within: float | None = None
    ) -> Reply:
        response = self._send(
            model,
            lambda c: c.responses.create(
                model=model,
                instructions=system,
                input=user,
                max_output_tokens=max_tokens,
                store=False,
            ),
            within,
        )
        try:
            return Reply(str(response.output_text), usage=_usage(response))
        except (AttributeError, TypeError) as error:
            raise unexpected_shape("openai", "Responses", error) from None

    def web_search(
        self, model: str, system: str, question: str, within: float | None = None
    ) -> Searched:
        """The sources the search call cited, in first-cited order (repeats kept)."""
        response = self._send(
            model,
            lambda c: c.responses.create(
                model=model,
                instructions=system,
                input=question,
                tools=[{"type": "web_search"}],
                store=False,
            ),
            within,
        )
        try:
            return Searched(self._citations(response.output), _usage(response))
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


def _usage(response: Any) -> Usage | None:
    """The response's token usage; its web searches are its ``web_search_call`` output items,
    since the Responses API's ``usage`` counts tokens only."""
    usage = getattr(response, "usage", None)
    if usage is None:
        return None
    searches = sum(1 for item in response.output or () if item.type == "web_search_call")
    return Usage(int(usage.input_tokens or 0), int(usage.output_tokens or 0), searches)
