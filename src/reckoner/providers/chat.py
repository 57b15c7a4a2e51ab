"""A model's client for a purpose, and the article writer's conversation with it.

The article writer and the lookup both open their clients here; the SDK module is imported
only when a client of that provider is opened, so the template writer and the pure preset
never load one.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from reckoner.host.extras import Extra, MissingExtra, require

from .budget import ARTICLE_OUTPUT_TOKENS
from .config import RETRIES, TIMEOUTS_S, Endpoint, Kind, Purpose, endpoint
from .failures import ProviderFailure
from .replies import Reply, Searched, Turn

EXTRA_FOR: dict[Purpose, Extra] = {"lookup": "search", "article": "models"}
"""The distribution's extra that brings a purpose's SDKs (reckoner.host.extras)."""


class Client(Protocol):
    """One provider's endpoint behind its official SDK."""

    endpoint: Endpoint

    def chat(self, model: str, system: str, turns: Sequence[Turn], max_tokens: int) -> Reply:
        """A conversation's next reply."""
        ...

    def complete(
        self, model: str, system: str, user: str, max_tokens: int, within: float | None = None
    ) -> Reply:
        """One bare call with no tools; the reply's text and usage. With ``within``, the
        request and its retries end within that many seconds (providers.attempts)."""
        ...

    def web_search(
        self, model: str, system: str, question: str, within: float | None = None
    ) -> Searched:
        """The sources the provider's web-search turn cited, in its order, and its usage
        (``within`` as for ``complete``)."""
        ...

    def close(self) -> None: ...


def open_client(
    where: Endpoint,
    purpose: Purpose,
    *,
    timeout: float | None = None,
    retries: int | None = None,
) -> Client:
    """The SDK client for ``where``, with the purpose's timeout and retries unless given;
    ProviderFailure naming the install command when the purpose's extra is missing."""
    try:
        require(EXTRA_FOR[purpose])
    except MissingExtra as why:
        raise ProviderFailure(str(why)) from None
    wait = TIMEOUTS_S[purpose] if timeout is None else timeout
    tries = RETRIES[purpose] if retries is None else retries
    if where.kind == "anthropic":
        from .anthropic_api import AnthropicClient

        return AnthropicClient(where, timeout=wait, retries=tries)
    from .openai_api import OpenAIClient

    return OpenAIClient(where, timeout=wait, retries=tries)


@dataclass(frozen=True)
class ChatProvider:
    """The article writer's provider: a model, the URL and key the user chose for this job
    (``typed_url``/``typed_key``, from the dialog) and the URLs they configured (saved or
    on the command line). ``ask`` raises ProviderFailure with one sentence."""

    kind: Kind
    model: str
    typed_url: str | None = None
    typed_key: str | None = field(default=None, repr=False)
    configured: tuple[str, ...] = ()
    timeout: float = TIMEOUTS_S["article"]

    @property
    def label(self) -> str:
        return f"{self.kind}:{self.model}"

    @property
    def output_tokens(self) -> int:
        return ARTICLE_OUTPUT_TOKENS

    def ask(self, system: str, turns: Sequence[Turn]) -> Reply:
        where = endpoint(
            self.kind,
            os.environ,
            configured=self.configured,
            typed_url=self.typed_url,
            typed_key=self.typed_key,
        )
        client = open_client(where, "article", timeout=self.timeout)
        try:
            return client.chat(self.model, system, turns, ARTICLE_OUTPUT_TOKENS)
        finally:
            client.close()
