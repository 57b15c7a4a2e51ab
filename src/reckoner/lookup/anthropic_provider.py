"""The Anthropic Messages API through the official `anthropic` SDK (manual 12.3).

Retrieval is one Messages turn carrying the server-side ``web_search_20250305`` tool; the
sources its text cites (``web_search_result_location`` citations) become the candidates,
with the publication age the search result block gives. The SDK reads
``ANTHROPIC_API_KEY``/``ANTHROPIC_AUTH_TOKEN`` and ``ANTHROPIC_BASE_URL`` itself, so a base
URL also reaches an Anthropic-compatible endpoint such as DeepSeek's.
"""

from __future__ import annotations

from typing import Any

import anthropic

from .providers import (
    RETRIEVAL_SYSTEM,
    Candidate,
    ProviderFailure,
    gather_citation,
    sdk_request,
)

_RETRIEVAL_TOKENS = 1024
_MAX_SEARCH_USES = 3


class AnthropicProvider:
    """Search and completion on one Anthropic client."""

    name = "anthropic"

    def __init__(
        self,
        model: str,
        *,
        api_key: str | None = None,
        auth_token: str | None = None,
        base_url: str | None = None,
        timeout: float = 45.0,
        max_retries: int = 1,
    ) -> None:
        self.model = model
        self._client = anthropic.Anthropic(
            api_key=api_key,
            auth_token=auth_token,
            base_url=base_url,
            timeout=timeout,
            max_retries=max_retries,
        )

    def search(self, question: str, max_results: int) -> list[Candidate]:
        message = self._create(
            model=self.model,
            max_tokens=_RETRIEVAL_TOKENS,
            system=RETRIEVAL_SYSTEM,
            tools=[
                {"type": "web_search_20250305", "name": "web_search", "max_uses": _MAX_SEARCH_USES}
            ],
            messages=[{"role": "user", "content": question}],
        )
        ages: dict[str, str] = {}
        search_error: str | None = None
        cited: dict[str, Candidate] = {}
        try:
            for block in message.content:
                if block.type == "web_search_tool_result":
                    content = block.content
                    if isinstance(content, list):
                        for result in content:
                            if result.page_age:
                                ages[result.url] = result.page_age
                    else:
                        search_error = str(getattr(content, "error_code", "unknown"))
                elif block.type == "text":
                    for citation in block.citations or ():
                        if citation.type != "web_search_result_location":
                            continue
                        gather_citation(cited, citation.url, citation.title, citation.cited_text)
        except (AttributeError, TypeError) as error:
            raise ProviderFailure(
                f"the anthropic provider answered a Messages reply of an unexpected shape "
                f"({type(error).__name__})"
            ) from None
        if not cited and search_error is not None:
            raise ProviderFailure(
                f"the anthropic provider's web search failed with {search_error[:60]!r}"
            )
        return [
            Candidate(c.url, c.title, c.snippet, ages.get(c.url))
            for c in list(cited.values())[:max_results]
        ]

    def complete(self, system: str, user: str, model: str, max_tokens: int) -> str:
        message = self._create(
            model=model,
            max_tokens=max_tokens,
            system=system,
            messages=[{"role": "user", "content": user}],
        )
        return "".join(block.text for block in message.content if block.type == "text")

    def _create(self, **request: Any) -> Any:
        client = self._client
        return sdk_request(
            self.name, anthropic, client.base_url.host, lambda: client.messages.create(**request)
        )
