"""What a search provider is, and which one the environment configures (docs/guide/lookup.md).

Configuration is the provider's own variables and nothing else: ``ANTHROPIC_API_KEY``
(or ``ANTHROPIC_AUTH_TOKEN``) with an optional ``ANTHROPIC_BASE_URL``, or
``OPENAI_API_KEY`` with an optional ``OPENAI_BASE_URL`` (reckoner.providers.config holds
them and sends a key nowhere but its provider's configured URL).
When both are configured Anthropic is used, because its server-side ``web_search_20250305``
turn is the manual's shipped provider; ``RECKONER_SEARCH_PROVIDER`` (``anthropic`` or
``openai``) overrides that choice. ``ANTHROPIC_MODEL`` / ``OPENAI_MODEL`` name the model
(an Anthropic-compatible endpoint such as DeepSeek's needs its own model name).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from reckoner.providers.config import (
    KEY_VARIABLES,
    PROVIDERS,
    Kind,
)
from reckoner.providers.failures import ProviderFailure
from reckoner.providers.replies import Reply, Usage

__all__ = [
    "PROVIDER_ENV",
    "Candidate",
    "Found",
    "NotConfigured",
    "PageSkipped",
    "PageSource",
    "Provider",
    "ProviderFailure",
    "Reply",
    "Stopped",
    "Usage",
    "choose",
    "configured",
    "gather_citation",
]

PROVIDER_ENV = "RECKONER_SEARCH_PROVIDER"
RETRIEVAL_SYSTEM = (
    "Search the web for sources that answer the user's question, and answer it briefly, "
    "citing the sources you used."
)


MAX_SNIPPET_CHARS = 2_000
"""Characters of one source's snippet kept (a provider's cited text can run to pages)."""
MAX_TITLE_CHARS = 300


def _cut(text: str | None, limit: int) -> str | None:
    return text if text is None or len(text) <= limit else text[: limit - 1] + "…"


@dataclass(frozen=True, slots=True)
class Candidate:
    """One source the provider cited (a candidate, docs/guide/lookup.md)."""

    url: str
    title: str | None = None
    snippet: str | None = None
    published_at: str | None = None

    def trimmed(self) -> Candidate:
        """The candidate with its title and snippet cut to what a row keeps."""
        return Candidate(
            self.url,
            _cut(self.title, MAX_TITLE_CHARS),
            _cut(self.snippet, MAX_SNIPPET_CHARS),
            _cut(self.published_at, 100),
        )

    def row(self) -> dict[str, Any]:
        """The candidate as the row keeps it: url always, the rest when supplied."""
        kept: dict[str, Any] = {"url": self.url}
        if self.title:
            kept["title"] = self.title
        if self.snippet:
            kept["snippet"] = self.snippet
        if self.published_at:
            kept["publishedAt"] = self.published_at
        return kept


@dataclass(frozen=True, slots=True)
class Found:
    """A search turn's candidates, in the provider's order, and the usage it reported."""

    candidates: list[Candidate]
    usage: Usage | None = None


class PageSkipped(Exception):
    """A page that was not enriched; ``str()`` says why, in a clause."""


class Stopped(Exception):
    """A lookup stopped before its end (its call cancelled, or its deadline passed);
    ``str()`` is the clause its row's error embeds."""

    def __init__(self, clause: str, *, cancelled: bool) -> None:
        super().__init__(clause)
        self.cancelled = cancelled


class PageSource(Protocol):
    """Fetches an allowed page's main text (lookup.pages)."""

    def text(self, url: str, chars: int) -> str:
        """The page's main text cut to ``chars``; PageSkipped when there is none."""
        ...


class Provider(Protocol):
    """One provider through its official SDK: a cited web search and a bare completion."""

    name: str
    model: str

    def search(self, question: str, max_results: int, within: float | None = None) -> Found:
        """The sources the provider's web-search turn cited, in its order; the request and
        its retries end within ``within`` seconds when given."""
        ...

    def complete(
        self, system: str, user: str, model: str, max_tokens: int, within: float | None = None
    ) -> Reply:
        """One bare model call with no tools; the reply's text and usage (within ``within``
        s)."""
        ...


def configured(env: Mapping[str, str]) -> list[Kind]:
    """The providers whose key is set, in the order of preference."""
    return [name for name in PROVIDERS if any(env.get(v, "").strip() for v in KEY_VARIABLES[name])]


class NotConfigured(Exception):
    """No usable provider; ``str()`` names what to set."""


def choose(env: Mapping[str, str], wanted: str | None = None) -> Kind:
    """The provider to use: ``wanted`` (a policy's synthesis.provider), else
    RECKONER_SEARCH_PROVIDER, else the first configured; NotConfigured names what to set."""
    keys = configured(env)
    asked = wanted or env.get(PROVIDER_ENV, "").strip().lower() or None
    if asked is None:
        if not keys:
            raise NotConfigured(
                "no search provider is configured; set ANTHROPIC_API_KEY (and "
                "ANTHROPIC_BASE_URL for a compatible endpoint) or OPENAI_API_KEY in the "
                "server's environment"
            )
        return keys[0]
    for name in PROVIDERS:
        if name == asked:
            if name in keys:
                return name
            raise NotConfigured(
                f"the {name} provider is chosen but {KEY_VARIABLES[name][0]} is not set; "
                f"set it in the server's environment"
            )
    raise NotConfigured(
        f"{PROVIDER_ENV} is {asked[:40]!r}, which is no provider; set it to "
        f"{' or '.join(PROVIDERS)}"
    )


def gather_citation(
    cited: dict[str, Candidate], url: str, title: str | None, text: str | None
) -> None:
    """Add one citation to ``cited`` (by URL, in first-cited order); several citing one URL
    join their cited texts."""
    text = (text or "").strip() or None
    seen = cited.get(url)
    if seen is None:
        cited[url] = Candidate(url, title or None, text)
        return
    snippet = seen.snippet
    if text and (snippet is None or text not in snippet):
        snippet = f"{snippet} … {text}" if snippet else text
    cited[url] = Candidate(url, seen.title or title or None, snippet)
