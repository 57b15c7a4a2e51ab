"""Fetching an allowed page for its main text (manual 12.3, step 3): httpx and trafilatura.

The guards a fetch on a model's behalf needs: only http(s); every redirect re-checked
against the policy; no private, loopback, link-local or otherwise non-global address unless
the policy's ``enrich.allowPrivateAddresses`` says so (checked on the address actually
connected to, so a name that resolves inward is refused too); a time limit; a size cap;
text content types only. A page that fails any of them is simply not enriched.

Every fetch goes through ``PageFetcher.text``, which takes a URL lookup.urls has already
read; a redirect's location is read by the same parser before it is checked or followed,
so the host the policy allowed is the host httpx connects to.
"""

from __future__ import annotations

import ipaddress
import socket
import ssl
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
TEXT_TYPES = ("text/html", "application/xhtml+xml", "text/plain")


def is_public(address: str) -> bool:
    """Whether an IP address is a global unicast one a fetch may reach by default."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_global and not ip.is_multicast


class _GuardedBackend(httpcore.SyncBackend):
    """Resolves the host itself and connects only to addresses the policy allows."""

    def __init__(self, allow_private: bool) -> None:
        self._allow_private = allow_private

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
        return super().connect_tcp(addresses[0], port, timeout, local_address, socket_options)


class _GuardedTransport(httpx.HTTPTransport):
    def __init__(self, allow_private: bool) -> None:
        super().__init__(trust_env=False)  # a proxy from the environment would skip the guard
        self._pool = httpcore.ConnectionPool(
            ssl_context=ssl.create_default_context(cafile=certifi.where()),
            network_backend=_GuardedBackend(allow_private),
        )


@dataclass(frozen=True, slots=True)
class PageFetcher:
    """Fetches pages under one policy's guards."""

    allows: Callable[[WebUrl], bool]
    allow_private: bool
    max_bytes: int = MAX_PAGE_BYTES
    timeout: float = TIMEOUT_SECONDS

    def text(self, url: WebUrl, chars: int) -> str:
        """The page's main text, cut to ``chars``; PageSkipped says why there is none."""
        with httpx.Client(
            transport=_GuardedTransport(self.allow_private),
            timeout=self.timeout,
            follow_redirects=False,
            trust_env=False,
            headers={"User-Agent": "reckoner-lookup/1", "Accept": "text/html, text/plain"},
        ) as client:
            for _ in range(MAX_REDIRECTS + 1):
                shown = url.text[:120]
                if not self.allows(url):
                    raise PageSkipped(f"{shown} is not a source the policy allows")
                try:
                    with client.stream("GET", url.text) as response:
                        if response.is_redirect:
                            url = _redirected(url, response.headers.get("location", ""))
                            continue
                        return _main_text(self._body(response), response, chars)
                except (httpx.HTTPError, httpx.InvalidURL) as error:
                    raise PageSkipped(f"{shown} could not be fetched: {error}") from None
            raise PageSkipped(f"{shown} redirects more than {MAX_REDIRECTS} times")

    def _body(self, response: httpx.Response) -> bytes:
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
