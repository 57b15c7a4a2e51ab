"""The lookup's provider: a search and a completion through ``reckoner.providers`` (manual
12.3). The package owns the SDK, the endpoint and the failures; this module only turns the
search turn's citations into the lookup's candidates, one per URL.
"""

from __future__ import annotations

from collections.abc import Mapping

from reckoner.providers.chat import open_client
from reckoner.providers.config import Kind, endpoint, model_for

from .providers import RETRIEVAL_SYSTEM, Candidate, Found, Reply, gather_citation


class SdkProvider:
    """The lookup's Provider (lookup.providers) on one client of the providers package."""

    def __init__(
        self,
        name: Kind,
        env: Mapping[str, str],
        *,
        timeout: float | None = None,
        retries: int | None = None,
    ) -> None:
        self.kind = name
        self.name: str = name
        self.model = model_for(name, "lookup", env)
        self._client = open_client(endpoint(name, env), "lookup", timeout=timeout, retries=retries)

    def search(self, question: str, max_results: int, within: float | None = None) -> Found:
        searched = self._client.web_search(self.model, RETRIEVAL_SYSTEM, question, within)
        ages: dict[str, str] = {}
        cited: dict[str, Candidate] = {}
        for citation in searched.citations:
            if citation.page_age:
                ages.setdefault(citation.url, citation.page_age)
            gather_citation(cited, citation.url, citation.title, citation.text)
        candidates = [
            Candidate(c.url, c.title, c.snippet, ages.get(c.url))
            for c in list(cited.values())[:max_results]
        ]
        return Found(candidates, searched.usage)

    def complete(
        self, system: str, user: str, model: str, max_tokens: int, within: float | None = None
    ) -> Reply:
        return self._client.complete(model, system, user, max_tokens, within)
