"""What a search provider is, and which one the environment configures (manual 12.3).

Configuration is the provider's own variables and nothing else: ``ANTHROPIC_API_KEY``
(or ``ANTHROPIC_AUTH_TOKEN``) with an optional ``ANTHROPIC_BASE_URL``, or
``OPENAI_API_KEY`` with an optional ``OPENAI_BASE_URL``; the SDKs read them themselves.
When both are configured Anthropic is used, because its server-side ``web_search_20250305``
turn is the manual's shipped provider; ``RECKONER_SEARCH_PROVIDER`` (``anthropic`` or
``openai``) overrides that choice. ``ANTHROPIC_MODEL`` / ``OPENAI_MODEL`` name the model
(an Anthropic-compatible endpoint such as DeepSeek's needs its own model name).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from .policy import PROVIDERS

PROVIDER_ENV = "RECKONER_SEARCH_PROVIDER"
KEY_VARIABLES: dict[str, tuple[str, ...]] = {
    "anthropic": ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"),
    "openai": ("OPENAI_API_KEY",),
}
MODEL_VARIABLES: dict[str, str] = {"anthropic": "ANTHROPIC_MODEL", "openai": "OPENAI_MODEL"}
BASE_URL_VARIABLES: dict[str, str] = {
    "anthropic": "ANTHROPIC_BASE_URL",
    "openai": "OPENAI_BASE_URL",
}
DEFAULT_MODELS: dict[str, str] = {"anthropic": "claude-haiku-4-5", "openai": "gpt-5-mini"}
SECRET_VARIABLES = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "OPENAI_API_KEY")
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
    """One source the provider cited (manual 12.5's candidate)."""

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


class ProviderFailure(Exception):
    """A provider call that did not answer; ``str()`` is a clause safe for row, log and
    message (it never carries a key or the provider's own error body)."""


class PageSkipped(Exception):
    """A page that was not enriched; ``str()`` says why, in a clause."""


class PageSource(Protocol):
    """Fetches an allowed page's main text (lookup.pages)."""

    def text(self, url: str, chars: int) -> str:
        """The page's main text cut to ``chars``; PageSkipped when there is none."""
        ...


class Provider(Protocol):
    """One provider through its official SDK: a cited web search and a bare completion."""

    name: str
    model: str

    def search(self, question: str, max_results: int) -> list[Candidate]:
        """The sources the provider's web-search turn cited, in its order."""
        ...

    def complete(self, system: str, user: str, model: str, max_tokens: int) -> str:
        """One bare model call with no tools; the reply's text."""
        ...


def configured(env: Mapping[str, str]) -> list[str]:
    """The providers whose key is set, in the order of preference."""
    return [name for name in PROVIDERS if any(env.get(v, "").strip() for v in KEY_VARIABLES[name])]


class NotConfigured(Exception):
    """No usable provider; ``str()`` names what to set."""


def choose(env: Mapping[str, str], wanted: str | None = None) -> str:
    """The provider to use: ``wanted`` (a policy's synthesis.provider), else
    RECKONER_SEARCH_PROVIDER, else the first configured; NotConfigured names what to set."""
    keys = configured(env)
    asked = wanted or env.get(PROVIDER_ENV, "").strip().lower() or None
    if asked is not None:
        if asked not in PROVIDERS:
            raise NotConfigured(
                f"{PROVIDER_ENV} is {asked[:40]!r}, which is no provider; set it to "
                f"{' or '.join(PROVIDERS)}"
            )
        if asked not in keys:
            raise NotConfigured(
                f"the {asked} provider is chosen but {KEY_VARIABLES[asked][0]} is not set; "
                f"set it in the server's environment"
            )
        return asked
    if not keys:
        raise NotConfigured(
            "no search provider is configured; set ANTHROPIC_API_KEY (and ANTHROPIC_BASE_URL "
            "for a compatible endpoint) or OPENAI_API_KEY in the server's environment"
        )
    return keys[0]


def model_for(name: str, env: Mapping[str, str]) -> str:
    """The provider's model: its MODEL variable, else this build's default."""
    return env.get(MODEL_VARIABLES[name], "").strip() or DEFAULT_MODELS[name]


def scrub(text: str, env: Mapping[str, str]) -> str:
    """The text with every configured key replaced, for anything bound for a log."""
    for variable in SECRET_VARIABLES:
        secret = env.get(variable, "").strip()
        if len(secret) >= 4:
            text = text.replace(secret, "[key]")
    return text


def status_clause(provider: str, status: int) -> str:
    """An HTTP failure in words; the provider's own body is never quoted (it may echo a key)."""
    variable = "ANTHROPIC_API_KEY" if provider == "anthropic" else "OPENAI_API_KEY"
    if status in (401, 403):
        return f"the {provider} provider refused the key (HTTP {status}); check {variable}"
    if status == 429:
        return f"the {provider} provider is rate-limiting (HTTP 429); ask again later"
    if status >= 500:
        return f"the {provider} provider failed (HTTP {status})"
    return f"the {provider} provider refused the request (HTTP {status})"


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


Reply = TypeVar("Reply")


def sdk_request(provider: str, sdk: Any, host: str, send: Callable[[], Reply]) -> Reply:
    """Send one request through an official SDK (``sdk`` is the ``anthropic`` or ``openai``
    module: both name their errors alike) and turn each failure into our own clause."""
    try:
        return send()
    except sdk.APIStatusError as error:
        raise ProviderFailure(status_clause(provider, error.status_code)) from None
    except sdk.APITimeoutError:
        raise ProviderFailure(f"the {provider} provider did not answer in time") from None
    except sdk.APIConnectionError:
        raise ProviderFailure(f"the {provider} provider could not be reached at {host}") from None
    except ValueError:  # a 200 whose body is not JSON
        raise ProviderFailure(
            f"the {provider} provider's reply could not be read (its body is not JSON)"
        ) from None
    except sdk.APIError as error:
        raise ProviderFailure(
            f"the {provider} provider's reply could not be read ({type(error).__name__})"
        ) from None
