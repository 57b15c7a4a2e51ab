"""Fetching an allowed page for its main text (docs/guide/lookup.md, step 3): httpx and trafilatura.

The guards a fetch on a model's behalf needs: only http(s); every redirect re-checked
against the policy; no private, loopback, link-local or otherwise non-global address unless
the policy's ``enrich.allowPrivateAddresses`` says so (checked on the address actually
connected to, so a name that resolves inward is refused too); a wall-clock limit on the
whole fetch, redirects included, besides the per-read timeout (a server that drips a byte a
second never trips a per-read timeout); a size cap; text content types only. A page that
fails any of them is simply not enriched.

Every fetch goes through ``PageFetcher.text``, which takes a URL lookup.urls has already
read; a redirect's location is read by the same parser before it is checked or followed,
so the host the policy allowed is the host httpx connects to.
"""

from __future__ import annotations

import contextlib
import ipaddress
import socket
import ssl
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import certifi
import httpcore
import httpx

from reckoner.host.extras import MissingExtra, require

from .providers import PageSkipped
from .urls import UrlRefused, WebUrl, join

MAX_PAGE_BYTES = 2_000_000
MAX_REDIRECTS = 5
TIMEOUT_SECONDS = 10.0
"""The longest one read may wait."""
PAGE_LIMIT_SECONDS = 20.0
"""The longest one page's whole fetch may take (a lookup's time left may cut it shorter)."""
TEXT_TYPES = ("text/html", "application/xhtml+xml", "text/plain")


def is_public(address: str) -> bool:
    """Whether an IP address is a global unicast one a fetch may reach by default."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_global and not ip.is_multicast


class _GuardedBackend(httpcore.SyncBackend):
    """Resolves the host itself and connects only to addresses the policy allows; ``cut``
    ends every connection it made, from any thread, even one blocked in a read."""

    def __init__(self, allow_private: bool) -> None:
        self._allow_private = allow_private
        self._lock = threading.Lock()
        # A duplicate of each connection's socket: shutting it down wakes a read blocked on
        # the original, and it stays valid after TLS wraps (and detaches) the original.
        self._sockets: list[socket.socket] = []
        self.was_cut = False

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.NetworkStream:
        try:
            infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except OSError as error:
            raise httpcore.ConnectError(f"{host} does not resolve ({error})") from None
        addresses = list(dict.fromkeys(str(info[4][0]) for info in infos))
        if not self._allow_private:
            inward = [a for a in addresses if not is_public(a)]
            if inward:
                raise httpcore.ConnectError(
                    f"{host} resolves to the non-public address {inward[0]}"
                )
        if not addresses:
            raise httpcore.ConnectError(f"{host} has no address")
        stream = super().connect_tcp(addresses[0], port, timeout, local_address, socket_options)
        with self._lock:
            if self.was_cut:
                stream.close()
                raise httpcore.ConnectError(f"{host} was reached after the page's time limit")
            self._sockets.append(stream.get_extra_info("socket").dup())
        return stream

    def cut(self) -> None:
        with self._lock:
            self.was_cut = True
            for sock in self._sockets:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)

    def release(self) -> None:
        with self._lock:
            for sock in self._sockets:
                sock.close()
            self._sockets.clear()


class _GuardedTransport(httpx.HTTPTransport):
    def __init__(self, backend: _GuardedBackend) -> None:
        super().__init__(trust_env=False)  # a proxy from the environment would skip the guard
        self._pool = httpcore.ConnectionPool(
            ssl_context=ssl.create_default_context(cafile=certifi.where()),
            network_backend=backend,
        )


@dataclass(frozen=True, slots=True)
class PageFetcher:
    """Fetches pages under one policy's guards."""

    allows: Callable[[WebUrl], bool]
    allow_private: bool
    max_bytes: int = MAX_PAGE_BYTES
    timeout: float = TIMEOUT_SECONDS

    limit: float = PAGE_LIMIT_SECONDS

    def text(self, url: WebUrl, chars: int, within: float | None = None) -> str:
        """The page's main text, cut to ``chars``, fetched in at most ``within`` seconds and
        the fetcher's limit; PageSkipped says why there is none."""
        limit = self.limit if within is None else max(0.0, min(self.limit, within))
        end = time.monotonic() + limit
        backend = _GuardedBackend(self.allow_private)
        # The timer ends a fetch stuck anywhere (connecting, headers, a body that drips).
        timer = threading.Timer(limit, backend.cut)
        timer.daemon = True
        timer.start()
        shown = url.text[:120]
        try:
            return self._fetch(url, chars, backend, end)
        except PageSkipped:
            if backend.was_cut or time.monotonic() >= end:
                raise PageSkipped(
                    f"{shown} was cut at the page's {limit:.3g} s time limit"
                ) from None
            raise
        finally:
            timer.cancel()
            backend.release()

    def _fetch(self, url: WebUrl, chars: int, backend: _GuardedBackend, end: float) -> str:
        with httpx.Client(
            transport=_GuardedTransport(backend),
            timeout=self.timeout,
            follow_redirects=False,
            trust_env=False,
            headers={"User-Agent": "reckoner-lookup/1", "Accept": "text/html, text/plain"},
        ) as client:
            for _ in range(MAX_REDIRECTS + 1):
                shown = url.text[:120]
                if not self.allows(url):
                    raise PageSkipped(f"{shown} is not a source the policy allows")
                wait = min(self.timeout, end - time.monotonic())
                try:
                    if wait <= 0:
                        raise httpx.TimeoutException("no time was left")
                    with client.stream("GET", url.text, timeout=wait) as response:
                        if response.is_redirect:
                            url = _redirected(url, response.headers.get("location", ""))
                            continue
                        return _main_text(self._body(response, end), response, chars)
                except (httpx.HTTPError, httpx.InvalidURL) as error:
                    raise PageSkipped(f"{shown} could not be fetched: {error}") from None
            raise PageSkipped(f"{shown} redirects more than {MAX_REDIRECTS} times")

    def _body(self, response: httpx.Response, end: float) -> bytes:
        if response.status_code != 200:
            raise PageSkipped(f"{response.url} answered HTTP {response.status_code}")
        kind = response.headers.get("content-type", "").split(";", 1)[0].strip().lower()
        if kind not in TEXT_TYPES:
            raise PageSkipped(f"{response.url} is {kind or 'of no stated type'}, not text")
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > self.max_bytes:
            raise PageSkipped(f"{response.url} is over the {self.max_bytes}-byte cap")
        body = bytearray()
        for chunk in response.iter_bytes():
            body += chunk
            if len(body) > self.max_bytes:
                raise PageSkipped(f"{response.url} is over the {self.max_bytes}-byte cap")
            if time.monotonic() >= end:
                raise PageSkipped(f"{response.url} took longer than its time limit")
        return bytes(body)


def _redirected(url: WebUrl, location: str) -> WebUrl:
    try:
        return join(url, location)
    except UrlRefused as why:
        raise PageSkipped(f"{url.text[:120]} redirects to a refused location: {why}") from None


def _main_text(body: bytes, response: httpx.Response, chars: int) -> str:
    if b"\x00" in body[:4096]:
        raise PageSkipped(f"{response.url} is binary despite its text type")
    encoding = response.charset_encoding or "utf-8"
    try:
        decoded = body.decode(encoding, errors="replace")
    except LookupError:
        decoded = body.decode("utf-8", errors="replace")
    kind = response.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if kind == "text/plain":
        text = decoded
    else:
        try:
            require("search")
        except MissingExtra as why:
            raise PageSkipped(str(why)) from None
        import trafilatura  # heavy: loaded on the first enriched page only

        text = trafilatura.extract(decoded, include_comments=False, include_tables=True) or ""
    text = " ".join(text.split())
    if not text:
        raise PageSkipped(f"{response.url} has no main text")
    return text[:chars]
