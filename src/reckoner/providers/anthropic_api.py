"""The Anthropic Messages API through the official ``anthropic`` SDK: the one module that
imports it, and only inside ``AnthropicClient`` (docs/guide/lookup.md).

A web search is one Messages turn carrying the server-side ``web_search_20250305`` tool; the
``web_search_result_location`` citations of its text are the sources, each with the
publication age its search result block gives.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .attempts import SdkClient
from .config import Endpoint
from .failures import ProviderFailure, unexpected_shape
from .replies import Citation, Reply, Searched, Turn, Usage

SEARCH_TOKENS = 1024
MAX_SEARCH_USES = 3
_API = "Messages"


class AnthropicClient(SdkClient):
    """One SDK client for one endpoint; every failure is a ProviderFailure."""

    kind = "anthropic"

    def __init__(self, endpoint: Endpoint, *, timeout: float, retries: int) -> None:
        super().__init__(endpoint, timeout=timeout, retries=retries)
        import anthropic

        self._sdk = anthropic
        # An explicit credential keeps the SDK from reading the environment's own.
        self._client = anthropic.Anthropic(
            api_key=None if endpoint.bearer else endpoint.key,
            auth_token=endpoint.key if endpoint.bearer else None,
            base_url=endpoint.base_url,
            timeout=timeout,
            max_retries=retries,
        )

    def chat(self, model: str, system: str, turns: Sequence[Turn], max_tokens: int) -> Reply:
        return self._reply(model, system, turns, max_tokens, None)

    def _reply(
        self, model: str, system: str, turns: Sequence[Turn], max_tokens: int, within: float | None
    ) -> Reply:
        messages: list[Any] = [{"role": role, "content": text} for role, text in turns]
        message = self._send(
            model,
            lambda c: c.messages.create(
                model=model, max_tokens=max_tokens, system=system, messages=messages
            ),
            within,
        )
        return Reply(
            self._text(message),
            cut_off=message.stop_reason == "max_tokens",
            usage=_usage(message),
        )

    def complete(
        self, model: str, system: str, user: str, max_tokens: int, within: float | None = None
    ) -> Reply:
        return self._reply(model, system, [("user", user)], max_tokens, within)

    def web_search(
        self, model: str, system: str, question: str, within: float | None = None
    ) -> Searched:
        """The sources the search turn cited, in first-cited order (repeats kept)."""
        tool: Any = {
            "type": "web_search_20250305",
            "name": "web_search",
            "max_uses": MAX_SEARCH_USES,
        }
        message = self._send(
            model,
            lambda c: c.messages.create(
                model=model,
                max_tokens=SEARCH_TOKENS,
                system=system,
                tools=[tool],
                messages=[{"role": "user", "content": question}],
            ),
            within,
        )
        try:
            return Searched(self._citations(message.content), _usage(message))
        except (AttributeError, TypeError) as error:
            raise unexpected_shape("anthropic", _API, error) from None

    def _citations(self, content: Sequence[Any]) -> list[Citation]:
        ages: dict[str, str] = {}
        search_error: str | None = None
        cited: list[Citation] = []
        for block in content:
            if block.type == "web_search_tool_result":
                results = block.content
                if isinstance(results, list):
                    ages.update((r.url, r.page_age) for r in results if r.page_age)
                else:
                    search_error = str(getattr(results, "error_code", "unknown"))
            elif block.type == "text":
                for citation in block.citations or ():
                    if citation.type == "web_search_result_location":
                        cited.append(Citation(citation.url, citation.title, citation.cited_text))
        if not cited and search_error is not None:
            raise ProviderFailure(
                f"the anthropic provider's web search failed with {search_error[:60]!r}",
                fix="ask again later",
            )
        return [Citation(c.url, c.title, c.text, ages.get(c.url)) for c in cited]

    @staticmethod
    def _text(message: Any) -> str:
        try:
            return "".join(block.text for block in message.content if block.type == "text")
        except (AttributeError, TypeError) as error:
            raise unexpected_shape("anthropic", _API, error) from None


def _usage(message: Any) -> Usage | None:
    """The message's usage (``usage.server_tool_use.web_search_requests`` counts the server's
    searches); None when the endpoint sent none, as a compatible one may not."""
    usage = getattr(message, "usage", None)
    if usage is None:
        return None
    tools = getattr(usage, "server_tool_use", None)
    searches = getattr(tools, "web_search_requests", None) if tools is not None else None
    return Usage(
        int(usage.input_tokens or 0),
        int(usage.output_tokens or 0),
        int(searches) if isinstance(searches, int) else None,
    )
