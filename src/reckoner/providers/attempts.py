"""How one provider request is sent: within a caller's time, retried only while time is left.

Without a time limit the SDK's own timeout and retries apply, as the client was opened. With
one (a lookup's deadline), each attempt's timeout is the client's or the time left, whichever
is smaller, and the SDK's retries are turned off for that request so that the retries here
are the only ones: an SDK retry would start a fresh full timeout after the time ran out.
A call its client cancelled sends no further attempt: the lookup waiting on this request has
stopped already, and a retry would spend a request whose answer nobody reads.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, TypeVar

from reckoner.host.calls import current_call

from .config import Endpoint
from .failures import Asked, ProviderFailure, sdk_failure

Answer = TypeVar("Answer")

RETRY_PAUSE_S = 0.5
"""The pause before the first retry, doubling after each (as the SDKs back off)."""


def send_within(
    send: Callable[[Any], Answer],
    *,
    client: Any,
    timeout: float,
    retries: int,
    within: float | None,
    failure: Callable[[Exception, float], ProviderFailure],
) -> Answer:
    """``send(client)``'s answer; ``failure(error, timeout)`` names a fault. ``client`` is an
    ``anthropic`` or ``openai`` client (both copy themselves with ``with_options``)."""
    if within is None:
        try:
            return send(client)
        except Exception as error:
            raise failure(error, timeout) from None
    end = time.monotonic() + within
    cancelled = current_call().cancelled
    last: ProviderFailure | None = None
    for attempt in range(retries + 1):
        wait = min(timeout, end - time.monotonic())
        if wait <= 0 or cancelled.is_set():
            break
        try:
            return send(client.with_options(timeout=wait, max_retries=0))
        except Exception as error:
            last = failure(error, wait)
        if not last.retryable:
            raise last
        pause = min(RETRY_PAUSE_S * 2**attempt, end - time.monotonic())
        if attempt < retries and pause > 0:
            cancelled.wait(pause)  # the back-off, cut short by a cancellation
    if last is not None:
        raise last
    if cancelled.is_set():
        raise ProviderFailure(
            "the call was cancelled before its provider request was sent", fix="call again"
        )
    raise ProviderFailure(
        f"no time was left for the provider's request (within {within:.3g} s)",
        fix="allow the call more time",
    )


class SdkClient:
    """What both SDK clients share: their endpoint, timeout and retries, and how one request
    is sent and its fault named (``_sdk`` is the ``anthropic`` or ``openai`` module)."""

    kind: str
    _sdk: Any
    _client: Any

    def __init__(self, endpoint: Endpoint, *, timeout: float, retries: int) -> None:
        self.endpoint = endpoint
        self.timeout = timeout
        self.retries = retries

    def _send(
        self, model: str, send: Callable[[Any], Answer], within: float | None = None
    ) -> Answer:
        return send_within(
            send,
            client=self._client,
            timeout=self.timeout,
            retries=self.retries,
            within=within,
            failure=lambda error, timeout: sdk_failure(
                self._sdk,
                error,
                Asked(self.kind, self.endpoint.shown, self.endpoint.key_variable, model),
                timeout,
            ),
        )

    def close(self) -> None:
        self._client.close()
