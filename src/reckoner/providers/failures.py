"""What a failed provider call says: one class, one set of sentences, for every caller.

A failure names the provider, the URL when it is not the provider's own, what went wrong and
the fix. It never quotes the provider's reply, which may echo the key back. Pure: the SDK's
exception classes are matched by the module handed in, never imported here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


class ProviderFailure(Exception):
    """A provider call that gave no usable answer.

    ``str()`` is what went wrong and its fix as a clause (lower case, no full stop) that a
    lookup row embeds in its own sentence; ``sentence`` is the same as a sentence of its
    own, as a job's error shows it. ``retryable`` when the same request may answer if sent
    again (a timeout, a lost connection, a rate limit, a server error)."""

    def __init__(self, clause: str, *, fix: str = "", retryable: bool = False) -> None:
        super().__init__(f"{clause}; {fix}" if fix else clause)
        self.retryable = retryable

    @property
    def sentence(self) -> str:
        text = str(self)
        return f"{text[:1].upper()}{text[1:]}."


@dataclass(frozen=True, slots=True)
class Asked:
    """Who a failed request asked, for what: the provider kind, its URL as shown (empty for
    the provider's own), the variable its key came from (None when typed), the model."""

    kind: str
    shown_url: str
    key_variable: str | None
    model: str

    @property
    def who(self) -> str:
        if self.shown_url:
            return f"the {self.kind} provider at {self.shown_url}"
        return f"the {self.kind} provider"


def status_failure(asked: Asked, status: int) -> ProviderFailure:
    """An HTTP error status in words; the provider's own body is never quoted."""
    who, model = asked.who, asked.model
    if status in (401, 403):
        key = asked.key_variable or "the key typed for it"
        return ProviderFailure(
            f"{who} refused the API key (HTTP {status})", fix=f"check {key} and try again"
        )
    if status == 429:
        return ProviderFailure(
            f"{who} is rate-limiting this key (HTTP 429)",
            fix="wait a minute and ask again",
            retryable=True,
        )
    if status == 404:
        return ProviderFailure(
            f"{who} does not know the model {model[:100]!r} (HTTP 404)",
            fix="check the model name and the base URL",
        )
    if status >= 500:
        return ProviderFailure(
            f"{who} failed with a server error (HTTP {status})",
            fix="try again later",
            retryable=True,
        )
    return ProviderFailure(
        f"{who} rejected the request (HTTP {status})",
        fix="check the model name and the base URL",
    )


def unexpected_shape(kind: str, api: str, error: Exception | None = None) -> ProviderFailure:
    detail = f" ({type(error).__name__})" if error is not None else ""
    return ProviderFailure(
        f"the {kind} provider answered a {api} reply of an unexpected shape{detail}",
        fix="check that the base URL serves the provider's own API",
    )


def sdk_failure(sdk: Any, error: Exception, asked: Asked, timeout: float) -> ProviderFailure:
    """One SDK exception as our failure (``sdk`` is the ``anthropic`` or ``openai`` module:
    both name their error classes alike)."""
    who = asked.who
    if isinstance(error, sdk.APIStatusError):
        return status_failure(asked, error.status_code)
    if isinstance(error, sdk.APITimeoutError):
        return ProviderFailure(
            f"{who} did not answer in time (within {timeout:.3g} s)",
            fix="try again later, or choose a faster model",
            retryable=True,
        )
    if isinstance(error, sdk.APIConnectionError):
        return ProviderFailure(
            f"{who} could not be reached",
            fix="check the network and the base URL",
            retryable=True,
        )
    if isinstance(error, ValueError):  # a 200 whose body is not JSON
        return ProviderFailure(
            f"{who}'s reply could not be read (its body is not JSON)",
            fix="check that the base URL serves the provider's own API",
        )
    return ProviderFailure(
        f"{who}'s reply could not be read ({type(error).__name__})", fix="try again"
    )
