"""The OpenAI Responses API through the official `openai` SDK (manual 12.3).

Retrieval is one Responses call with the ``web_search`` tool; the ``url_citation``
annotations of its output text become the candidates, each with the span of text it
supports as the snippet. The SDK reads ``OPENAI_API_KEY`` and ``OPENAI_BASE_URL`` itself.
"""

from __future__ import annotations

from typing import Any

import openai

from .providers import (
    RETRIEVAL_SYSTEM,
    Candidate,
    ProviderFailure,
    gather_citation,
    sdk_request,
)


class OpenAIProvider:
    """Search and completion on one OpenAI client."""

    name = "openai"

    def __init__(
        self,
        model: str,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        timeout: float = 45.0,
        max_retries: int = 1,
    ) -> None:
        self.model = model
        self._client = openai.OpenAI(
            api_key=api_key, base_url=base_url, timeout=timeout, max_retries=max_retries
        )

    def search(self, question: str, max_results: int) -> list[Candidate]:
        response = self._create(
            model=self.model,
            instructions=RETRIEVAL_SYSTEM,
            input=question,
            tools=[{"type": "web_search"}],
        )
        cited: dict[str, Candidate] = {}
        try:
            for item in response.output:
                if item.type != "message":
                    continue
                for part in item.content:
                    if part.type != "output_text":
                        continue
                    for note in part.annotations:
                        if note.type != "url_citation":
                            continue
                        span = part.text[note.start_index : note.end_index]
                        gather_citation(cited, note.url, note.title, span)
        except (AttributeError, TypeError) as error:
            raise ProviderFailure(
                f"the openai provider answered a Responses reply of an unexpected shape "
                f"({type(error).__name__})"
            ) from None
        return list(cited.values())[:max_results]

    def complete(self, system: str, user: str, model: str, max_tokens: int) -> str:
        response = self._create(
            model=model, instructions=system, input=user, max_output_tokens=max_tokens
        )
        try:
            return str(response.output_text)
        except (AttributeError, TypeError):
            raise ProviderFailure(
                "the openai provider answered a Responses reply of an unexpected shape"
            ) from None

    def _create(self, **request: Any) -> Any:
        client = self._client
        return sdk_request(
            self.name, openai, client.base_url.host, lambda: client.responses.create(**request)
        )
