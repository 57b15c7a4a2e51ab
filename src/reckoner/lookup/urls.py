"""The one reading of a source's URL: parsed once into the canonical form every use shares.

Pure: no I/O. The allow-list check, the page fetch, the record's row and the panel's link
all take the canonical string this module writes, so no two of them can read a different
host out of one citation. A URL that two parsers could read differently is refused rather
than guessed at: ``urllib.parse`` (RFC 3986) and a browser's WHATWG parser disagree on
backslashes, userinfo, whitespace, the many spellings of an IPv4 address and
percent-encoded hosts, so none of those is accepted (docs/decisions/lookup-urls.md).
"""

from __future__ import annotations

import ipaddress
import re
import unicodedata
from dataclasses import dataclass
from encodings.idna import nameprep
from urllib.parse import urljoin

MAX_URL_CHARS = 2048
"""Longest citation accepted; longer ones are refused, not cut (a cut URL names another page)."""

SCHEMES: dict[str, int] = {"http": 80, "https": 443}
"""The schemes a source may have, with their default ports."""

LABEL = re.compile(r"^(?!-)[a-z0-9-]{1,63}(?<!-)$")
"""One label of a host name as compared and fetched (letters, digits, inner hyphens)."""

_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*):")
_DECIMAL_OCTET = re.compile(r"^(0|[1-9][0-9]{0,2})$")
_NUMERIC_LABEL = re.compile(r"^([0-9]+|0[xX][0-9a-fA-F]*)$")
_PERCENT = re.compile(r"%([0-9A-Fa-f]{2})")
# Characters a path, query or fragment keeps as they are; every other one is percent-encoded
# as UTF-8, so the canonical string is plain ASCII both parsers leave alone.
_KEPT = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$&()*+,;=:@/")
_KEPT_IN_QUERY = _KEPT | {"?"}


class UrlRefused(ValueError):
    """A URL this parser will not read; ``str()`` is one sentence naming why and the rule."""


@dataclass(frozen=True, slots=True)
class WebUrl:
    """An http(s) URL in canonical form; ``text`` is the one string every use takes."""

    scheme: str
    host: str
    """Lower-case ASCII: a host name (IDNA A-labels), a dotted-quad IPv4, or an IPv6
    address in its compressed form without brackets."""
    port: int | None
    """None for the scheme's default port."""
    path: str
    query: str | None
    fragment: str | None

    @property
    def text(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        port = "" if self.port is None else f":{self.port}"
        query = "" if self.query is None else f"?{self.query}"
        fragment = "" if self.fragment is None else f"#{self.fragment}"
        return f"{self.scheme}://{host}{port}{self.path}{query}{fragment}"


def parse(raw: object) -> WebUrl:
    """The canonical reading of ``raw``; UrlRefused when it has none both parsers share."""
    if not isinstance(raw, str) or not raw:
        raise UrlRefused("the source has no URL")
    if len(raw) > MAX_URL_CHARS:
        raise UrlRefused(
            f"the URL is {len(raw)} characters, over the {MAX_URL_CHARS}-character limit"
        )
    _refuse_ambiguous_characters(raw)
    scheme_match = _SCHEME.match(raw)
    scheme = scheme_match.group(1).lower() if scheme_match else ""
    if scheme not in SCHEMES:
        raise UrlRefused(
            f"the URL's scheme {scheme or 'is missing and'} is not http or https, "
            "the only ones a source may have"
        )
    rest = raw[len(scheme) + 1 :]
    if not rest.startswith("//") or rest.startswith("///"):
        raise UrlRefused("the URL does not have the form scheme://host/path")
    rest = rest[2:]
    cut = min((i for i in (rest.find(c) for c in "/?#") if i >= 0), default=len(rest))
    authority, tail = rest[:cut], rest[cut:]
    host, port = _authority(authority, SCHEMES[scheme])
    tail, fragment = _split(tail, "#")
    path, query = _split(tail, "?")
    return WebUrl(
        scheme=scheme,
        host=host,
        port=port,
        path=_canonical_path(path),
        query=None if query is None else _encoded(query, _KEPT_IN_QUERY),
        fragment=None if fragment is None else _encoded(fragment, _KEPT_IN_QUERY),
    )


def join(base: WebUrl, reference: str) -> WebUrl:
    """Where a redirect's ``Location`` leads from ``base``, read by the same rules."""
    if not isinstance(reference, str) or not reference:
        raise UrlRefused("the redirect names no location")
    _refuse_ambiguous_characters(reference)
    return parse(urljoin(base.text, reference))


def _refuse_ambiguous_characters(raw: str) -> None:
    if "\\" in raw:
        raise UrlRefused(
            "the URL holds a backslash, which browsers read as a slash and other parsers do "
            "not, so it could name two different hosts"
        )
    for char in raw:
        if char.isspace() or unicodedata.category(char) in ("Cc", "Cf", "Cs", "Zl", "Zp", "Zs"):
            raise UrlRefused(
                f"the URL holds the control or space character U+{ord(char):04X}, which "
                "parsers strip or keep differently"
            )


def _split(text: str, mark: str) -> tuple[str, str | None]:
    head, found, tail = text.partition(mark)
    return head, tail if found else None


def _authority(authority: str, default_port: int) -> tuple[str, int | None]:
    if "@" in authority:
        raise UrlRefused(
            "the URL carries a user name before its host (an @ in the authority), which is "
            "how a link disguises its real host"
        )
    if authority.startswith("["):
        inner, bracket, after = authority[1:].partition("]")
        if not bracket:
            raise UrlRefused("the URL's IPv6 host has no closing bracket")
        host = _ipv6(inner)
    else:
        inner, colon, digits = authority.partition(":")
        after = colon + digits
        host = _host_name(inner)
    port = _port(after)
    return host, None if port == default_port else port


def _port(after_host: str) -> int | None:
    if not after_host:
        return None
    digits = after_host[1:] if after_host.startswith(":") else ""
    if not digits.isascii() or not digits.isdigit() or len(digits) > 5:
        raise UrlRefused(f"the URL's port {after_host[:12]!r} is not a number from 1 to 65535")
    port = int(digits)
    if not 1 <= port <= 65535:
        raise UrlRefused(f"the URL's port {port} is out of range (1 to 65535)")
    return port


def _ipv6(inner: str) -> str:
    if "%" in inner:
        raise UrlRefused("the URL's IPv6 host carries a zone or percent sign")
    try:
        return ipaddress.IPv6Address(inner).compressed
    except ValueError:
        raise UrlRefused(f"the URL's host [{inner[:60]}] is not an IPv6 address") from None


def _host_name(host: str) -> str:
    if not host:
        raise UrlRefused("the URL has no host")
    if "%" in host:
        raise UrlRefused(
            "the URL's host is percent-encoded, which some parsers decode and others do not"
        )
    host = host.lower()
    if host.endswith("."):
        host = host[:-1]  # the root label: the same name, written without it
    labels = host.split(".")
    if _NUMERIC_LABEL.match(labels[-1]):
        return _ipv4(host)
    encoded = [_ascii_label(label) for label in labels]
    name = ".".join(encoded)
    if len(name) > 253:
        raise UrlRefused("the URL's host name is longer than 253 characters")
    return name


def _ipv4(host: str) -> str:
    """A host a browser reads as an IPv4 address: accepted only as a plain dotted quad."""
    parts = host.split(".")
    if len(parts) != 4 or not all(_DECIMAL_OCTET.match(p) and int(p) <= 255 for p in parts):
        raise UrlRefused(
            f"the URL's host {host[:60]} is an IPv4 address in a non-canonical form (octal, "
            "hexadecimal, dotless or short); write it as four decimal numbers such as "
            "192.0.2.1"
        )
    return host


def _ascii_label(label: str) -> str:
    if label.isascii():
        if not LABEL.match(label):
            raise UrlRefused(
                f"the URL's host label {label[:63]!r} is not letters, digits and inner hyphens"
            )
        if label[:4].lower() == "xn--":
            _check_punycode(label)
        return label
    try:
        prepared = nameprep(label)
        encoded = label.encode("idna").decode("ascii")
    except UnicodeError:
        raise UrlRefused(
            f"the URL's host label {label[:63]!r} cannot be encoded as an international domain name"
        ) from None
    if prepared != label or not LABEL.match(encoded):
        # A label the codec would first map to another (such as ß to ss) is one the
        # browser's mapping may read differently.
        raise UrlRefused(
            f"the URL's host label {label[:63]!r} is not in the normal form of an "
            "international domain name"
        )
    return encoded


def _check_punycode(label: str) -> None:
    """An ``xn--`` label is an encoded international name: one that does not decode, or does
    not encode back to itself, is a host a browser refuses (``xn--zca2``)."""
    try:
        decoded = label.encode("ascii").decode("idna")
        again = decoded.encode("idna").decode("ascii")
    except UnicodeError:
        again = None
    if again is None or again.lower() != label.lower():
        raise UrlRefused(
            f"the URL's host label {label[:63]!r} starts with xn-- but is not an encoded "
            "international domain name"
        )


def _canonical_path(path: str) -> str:
    segments: list[str] = []
    parts = _encoded(path, _KEPT).split("/")[1:] if path else [""]
    for index, segment in enumerate(parts):
        last = index == len(parts) - 1
        dots = segment.lower().replace("%2e", ".")
        if dots == ".":
            if last:
                segments.append("")
        elif dots == "..":
            if segments:
                segments.pop()
            if last:
                segments.append("")
        else:
            segments.append(segment)
    return "/" + "/".join(segments)


def _encoded(text: str, kept: frozenset[str]) -> str:
    out: list[str] = []
    index = 0
    while index < len(text):
        char = text[index]
        if char == "%" and _PERCENT.match(text, index):
            out.append(text[index : index + 3].upper())
            index += 3
            continue
        if char in kept:
            out.append(char)
        else:
            out.extend(f"%{byte:02X}" for byte in char.encode("utf-8", "surrogatepass"))
        index += 1
    return "".join(out)
