"""Which provider, model, URL and key a call uses, and the one rule on where a key may go.

Everything a provider call is shaped by lives here, keyed by provider and, where the lookup
and the article writer deserve different values, by purpose. Pure: the environment comes in
as a mapping, so this module reads no variable, file or clock of its own.

The key rule: a key from the environment is sent only to that provider's configured base
URL, which is the environment's ``*_BASE_URL``, a URL the user saved in the settings (or
gave on the command line), or the provider's own default URL when neither is set. A URL
typed for one call (the panel's article dialog) that is none of those must come with a key
typed beside it, or the call is refused before anything is sent.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Literal

from .failures import ProviderFailure

Kind = Literal["anthropic", "openai"]
Purpose = Literal["article", "lookup"]

PROVIDERS: tuple[Kind, ...] = ("anthropic", "openai")
"""Every provider, in the lookup's order of preference when several are configured."""

KEY_VARIABLES: dict[Kind, tuple[str, ...]] = {
    # ANTHROPIC_AUTH_TOKEN is the bearer-token form some Anthropic-compatible gateways use.
    "anthropic": ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"),
    "openai": ("OPENAI_API_KEY",),
}
BASE_URL_VARIABLES: dict[Kind, str] = {
    "anthropic": "ANTHROPIC_BASE_URL",
    "openai": "OPENAI_BASE_URL",
}
MODEL_VARIABLES: dict[Kind, str] = {"anthropic": "ANTHROPIC_MODEL", "openai": "OPENAI_MODEL"}
DEFAULT_BASE_URLS: dict[Kind, str] = {
    "anthropic": "https://api.anthropic.com",
    "openai": "https://api.openai.com/v1",
}
"""The providers' own endpoints, the same the official SDKs default to (a test holds it)."""

DEFAULT_MODELS: dict[Purpose, dict[Kind, str]] = {
    # An article is long, careful prose; a lookup is a search turn and a short extraction.
    "article": {"anthropic": "claude-sonnet-5-5", "openai": "gpt-5.5"},
    "lookup": {"anthropic": "claude-haiku-4-5", "openai": "gpt-5-mini"},
}
TIMEOUTS_S: dict[Purpose, float] = {"article": 120.0, "lookup": 45.0}
RETRIES: dict[Purpose, int] = {
    # A job's cancel button stays responsive when the SDK does not retry on its own.
    "article": 0,
    "lookup": 1,
}
SECRET_VARIABLES: tuple[str, ...] = tuple(v for kind in PROVIDERS for v in KEY_VARIABLES[kind])
PLACEHOLDER_KEY = "unused"
"""Sent to a keyless local server (Ollama, llama.cpp): the SDKs refuse to start without one."""


def is_provider(name: str) -> bool:
    return name in PROVIDERS


def key_in(kind: Kind, env: Mapping[str, str]) -> tuple[str, str] | None:
    """The first of the provider's key variables set in ``env``: (variable, value)."""
    for variable in KEY_VARIABLES[kind]:
        value = env.get(variable, "").strip()
        if value:
            return variable, value
    return None


def model_for(
    kind: Kind, purpose: Purpose, env: Mapping[str, str], chosen: str | None = None
) -> str:
    """The model: the one chosen for this call, else the provider's MODEL variable, else
    this build's default for the purpose."""
    return (
        (chosen or "").strip()
        or env.get(MODEL_VARIABLES[kind], "").strip()
        or DEFAULT_MODELS[purpose][kind]
    )


def same_url(first: str, second: str) -> bool:
    """Whether two base URLs name one endpoint (case of scheme and host, a trailing slash)."""
    return _normal(first) == _normal(second)


def _normal(url: str) -> str:
    scheme, sep, rest = url.strip().partition("://")
    if not sep:
        return url.strip().rstrip("/")
    authority, slash, path = rest.partition("/")
    return f"{scheme.lower()}://{authority.lower()}{slash}{path}".rstrip("/")


@dataclass(frozen=True)
class Endpoint:
    """Where one call goes and with which credential; ``repr`` never shows the key."""

    kind: Kind
    base_url: str
    key: str = field(repr=False)
    bearer: bool = False
    """Anthropic only: the key is an ANTHROPIC_AUTH_TOKEN, sent as ``Authorization: Bearer``."""
    key_variable: str | None = None
    """The environment variable the key came from; None for a typed key or the placeholder."""

    @property
    def shown(self) -> str:
        """The URL as a sentence names it: empty for the provider's own endpoint."""
        return "" if same_url(self.base_url, DEFAULT_BASE_URLS[self.kind]) else self.base_url


def configured_urls(
    kind: Kind, env: Mapping[str, str], configured: Iterable[str | None] = ()
) -> list[str]:
    """The base URLs the environment's key may go to: the environment's ``*_BASE_URL`` and
    the user's saved ones, else the provider's own default."""
    urls = [url.strip() for url in (env.get(BASE_URL_VARIABLES[kind]), *configured) if url]
    return [url for url in urls if url] or [DEFAULT_BASE_URLS[kind]]


def endpoint(
    kind: Kind,
    env: Mapping[str, str],
    *,
    configured: Iterable[str | None] = (),
    typed_url: str | None = None,
    typed_key: str | None = None,
) -> Endpoint:
    """The endpoint of one call under the key rule (module docstring); ProviderFailure with
    one sentence when the rule refuses it or nothing is configured."""
    allowed = configured_urls(kind, env, configured)
    url = (typed_url or "").strip() or allowed[0]
    typed_key = (typed_key or "").strip() or None
    if typed_key is not None:
        return Endpoint(kind, url, typed_key)
    found = key_in(kind, env)
    if found is None:
        if (typed_url or "").strip() or not same_url(url, DEFAULT_BASE_URLS[kind]):
            return Endpoint(kind, url, PLACEHOLDER_KEY)
        raise ProviderFailure(
            f"no {KEY_VARIABLES[kind][0]} is set in the environment, so the {kind} provider "
            "cannot be asked",
            fix=f"set {KEY_VARIABLES[kind][0]} (or a base URL for a local server), or use "
            "the template writer",
        )
    variable, key = found
    if not any(same_url(url, each) for each in allowed):
        raise ProviderFailure(
            f"the base URL {url[:200]} is not the {kind} provider's configured one "
            f"({', '.join(allowed)}), and the {variable} from the environment is sent only "
            "there, so nothing was sent",
            fix="type the key for that server beside its URL, or save the URL in the writer "
            f"settings (or set {BASE_URL_VARIABLES[kind]})",
        )
    return Endpoint(
        kind, url, key, bearer=variable == "ANTHROPIC_AUTH_TOKEN", key_variable=variable
    )


def scrub(text: str, env: Mapping[str, str], *extra: str | None) -> str:
    """The text with every configured key (and any ``extra`` secret) replaced, for a log."""
    secrets = [env.get(variable, "") for variable in SECRET_VARIABLES]
    for secret in (*secrets, *extra):
        secret = (secret or "").strip()
        if len(secret) >= 4:
            text = text.replace(secret, "[key]")
    return text
