"""The search policy (docs/guide/lookup.md): its keys and defaults, the three layers, the
allow-list.

Pure: no I/O. A layer is a JSON object shaped like the policy (``enrich`` and ``synthesis``
nested); every key is optional, and an unusable value is reported and replaced by the
layer below, never fatal.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from reckoner.providers.config import PROVIDERS

from .urls import LABEL, UrlRefused, WebUrl, parse

TIERS = ("strict", "open")

DEFAULT_ALLOWED_HOSTS: tuple[str, ...] = (
    "wikipedia.org",
    "github.com",
    "githubusercontent.com",
    "stackoverflow.com",
    "stackexchange.com",
    "developer.mozilla.org",
    "docs.python.org",
    "nist.gov",
    "iso.org",
    "ietf.org",
    "rfc-editor.org",
    "arxiv.org",
)
"""Reference material a calculation may cite (docs/guide/lookup.md)."""

GITHUB_HOSTS: tuple[str, ...] = ("github.com", "githubusercontent.com")
"""Hosts whose answers carry origin ``github`` (docs/reference/tools.md)."""


class Unusable(ValueError):
    """A layer's value this build cannot use; the message says what is expected."""


def normalise_host(text: str) -> str | None:
    """A host pattern as compared: lower case, no trailing dot; None when not a host name."""
    host = text.strip().lower().rstrip(".")
    if not host or len(host) > 253:
        return None
    try:
        return str(ipaddress.ip_address(host.strip("[]")))
    except ValueError:
        pass
    labels = host.split(".")
    return host if all(LABEL.match(label) for label in labels) else None


def host_matches(host: str, pattern: str) -> bool:
    """The host is the pattern or a subdomain of it, on a label boundary.

    ``wikipedia.org`` matches ``en.wikipedia.org`` and never ``evilwikipedia.org``.
    """
    return host == pattern or host.endswith("." + pattern)


def url_host(url: str | WebUrl) -> str | None:
    """The host of an http(s) URL as lookup.urls reads it; None for a URL it refuses."""
    if isinstance(url, WebUrl):
        return url.host
    try:
        return parse(url).host
    except UrlRefused:
        return None


DEADLINE_SECONDS = 60
"""A lookup's default overall deadline: provider turns and page fetches together."""
DEADLINE_BOUNDS = (3, 600)
"""The deadline a policy may set: long enough for one short provider turn, and short enough
that a hung provider cannot hold a call for more than ten minutes."""

CACHE_DAYS = 30
"""How long an answered lookup is reused from the home's cache by default (lookup.cache)."""
CACHE_DAYS_BOUNDS = (0, 365)
"""0 switches the cache off; a year is as long as a sourced constant is worth trusting
without asking again."""

# -- the fields ------------------------------------------------------------------------


def _int_in(low: int, high: int) -> Callable[[Any], int]:
    def check(value: Any) -> int:
        if type(value) is not int or not low <= value <= high:
            raise Unusable(f"a whole number from {low} to {high}")
        return value

    return check


def _one_of(choices: tuple[str, ...]) -> Callable[[Any], str]:
    def check(value: Any) -> str:
        if value not in choices:
            raise Unusable(" or ".join(repr(c) for c in choices))
        return str(value)

    return check


def _optional_provider(value: Any) -> str | None:
    if value is None:
        return None
    return _one_of(PROVIDERS)(value)


def _optional_model(value: Any) -> str | None:
    if value is None:
        return None
    if type(value) is not str or not value.strip() or len(value) > 200:
        raise Unusable("a model name (a non-empty string of at most 200 characters)")
    return value.strip()


def _boolean(value: Any) -> bool:
    if type(value) is not bool:
        raise Unusable("true or false")
    return value


HOST_ENTRY = "a host name such as nist.gov (no port, scheme, path or wildcard)"
"""What one allowedHosts entry must be, as a note or a refusal says it."""


def _sift_hosts(value: Any) -> tuple[tuple[str, ...], list[Any]]:
    """The list's host names (normalised, first occurrence kept) and its unusable entries."""
    if not isinstance(value, list) or len(value) > 500:
        raise Unusable('a list of at most 500 host names such as ["wikipedia.org", "nist.gov"]')
    hosts: list[str] = []
    bad: list[Any] = []
    for item in value:
        host = normalise_host(item) if type(item) is str else None
        if host is None:
            bad.append(item)
        elif host not in hosts:
            hosts.append(host)
    return tuple(hosts), bad


def _hosts(value: Any) -> tuple[str, ...]:
    """A whole list the user writes now (the panel): one bad entry refuses the write."""
    hosts, bad = _sift_hosts(value)
    if bad:
        raise Unusable(f"a list of host names, and {str(bad[0])[:60]!r} is not {HOST_ENTRY}")
    return hosts


def _hosts_kept(value: Any) -> tuple[tuple[str, ...], list[str]]:
    """A stored list as a lookup reads it: a bad entry is dropped with a note and the rest of
    the user's list kept, never replaced by the wider list below it."""
    hosts, bad = _sift_hosts(value)
    return hosts, [
        f"the entry {_shown(item)} is not {HOST_ENTRY}, so it was dropped and the rest of "
        f"the list applies"
        for item in bad
    ]


@dataclass(frozen=True, slots=True)
class Field:
    """One policy key: where it sits in a layer, its code default and its check."""

    path: tuple[str, ...]
    default: Any
    check: Callable[[Any], Any]
    meaning: str
    kind: str  # how a form edits it: "choice", "integer", "hosts", "boolean" or "text"
    choices: tuple[str, ...] = ()
    # A stored layer's reading that keeps the usable part of a value and names the rest;
    # unset, ``check`` reads it whole.
    sift: Callable[[Any], tuple[Any, list[str]]] | None = None

    @property
    def name(self) -> str:
        return ".".join(self.path)


# Unset (None) is a value for synthesis.provider and .model: null means the deployment default,
# so an explicit null in a layer is read as "unset" rather than "fall through".
FIELDS: tuple[Field, ...] = (
    Field(
        ("tier",),
        "strict",
        _one_of(TIERS),
        "strict keeps allow-listed hosts; open keeps all",
        "choice",
        TIERS,
    ),
    Field(
        ("allowedHosts",),
        DEFAULT_ALLOWED_HOSTS,
        _hosts,
        "hosts a strict lookup accepts, each matched as itself or a subdomain",
        "hosts",
        sift=_hosts_kept,
    ),
    Field(
        ("maxResults",),
        12,
        _int_in(1, 50),
        "upper bound on the sources one search returns",
        "integer",
    ),
    Field(
        ("maxSearchesPerRecord",), 4, _int_in(0, 1000), "lookups one record may carry", "integer"
    ),
    Field(
        ("answerMaxChars",),
        1200,
        _int_in(1, 20_000),
        "upper bound on the answer's length",
        "integer",
    ),
    Field(
        ("deadlineSeconds",),
        DEADLINE_SECONDS,
        _int_in(*DEADLINE_BOUNDS),
        "seconds one lookup may take in all, provider turns and page fetches together",
        "integer",
    ),
    Field(
        ("cacheDays",),
        CACHE_DAYS,
        _int_in(*CACHE_DAYS_BOUNDS),
        "days an answered lookup is reused from the home's cache (0: never)",
        "integer",
    ),
    Field(
        ("enrich", "pages"), 0, _int_in(0, 10), "allowed pages fetched for their text", "integer"
    ),
    Field(
        ("enrich", "charsPerPage"), 4000, _int_in(100, 100_000), "text kept of each page", "integer"
    ),
    Field(
        ("enrich", "allowPrivateAddresses"),
        False,
        _boolean,
        "let a fetch reach private, loopback or link-local addresses (off: SSRF guard)",
        "boolean",
    ),
    Field(
        ("synthesis", "provider"),
        None,
        _optional_provider,
        "the extractive step's provider (unset: the search provider)",
        "choice",
        PROVIDERS,
    ),
    Field(
        ("synthesis", "model"),
        None,
        _optional_model,
        "the extractive step's model (unset: the provider's model)",
        "text",
    ),
    Field(
        ("synthesis", "maxTokens"),
        800,
        _int_in(16, 32_000),
        "token ceiling of the extractive call",
        "integer",
    ),
)
FIELD_BY_NAME: dict[str, Field] = {field.name: field for field in FIELDS}
_NULL_MEANS_UNSET = frozenset({"synthesis.provider", "synthesis.model"})


@dataclass(frozen=True, slots=True)
class Policy:
    """One resolved policy: every key with a usable value."""

    tier: str
    allowed_hosts: tuple[str, ...]
    max_results: int
    max_searches_per_record: int
    answer_max_chars: int
    deadline_s: int
    cache_days: int
    enrich_pages: int
    enrich_chars_per_page: int
    allow_private_addresses: bool
    synthesis_provider: str | None
    synthesis_model: str | None
    synthesis_max_tokens: int

    def allows(self, url: str | WebUrl) -> bool:
        """Whether the extractive step may read this source (docs/guide/lookup.md); a URL that
        lookup.urls refuses (any non-http(s) one among them) is never allowed."""
        host = url_host(url)
        if host is None:
            return False
        if self.tier == "open":
            return True
        return any(host_matches(host, pattern) for pattern in self.allowed_hosts)

    def row(self) -> dict[str, Any]:
        """The policy as the `search` row keeps it (docs/guide/lookup.md)."""
        return {
            "tier": self.tier,
            "allowedHosts": list(self.allowed_hosts),
            "maxResults": self.max_results,
            "maxSearchesPerRecord": self.max_searches_per_record,
            "answerMaxChars": self.answer_max_chars,
            "deadlineSeconds": self.deadline_s,
            "cacheDays": self.cache_days,
            "enrichPages": self.enrich_pages,
            "enrichCharsPerPage": self.enrich_chars_per_page,
            "enrichAllowPrivateAddresses": self.allow_private_addresses,
        }


_MISSING = object()


def _lookup(layer: Mapping[str, Any], path: tuple[str, ...]) -> Any:
    node: Any = layer
    for key in path:
        if not isinstance(node, Mapping) or key not in node:
            return _MISSING
        node = node[key]
    return node


@dataclass(frozen=True, slots=True)
class Resolution:
    """A resolved policy, where each value came from, and a note per unusable value."""

    policy: Policy
    source: dict[str, str]
    notes: tuple[str, ...]


LAYERS = ("default", "preset", "override")


def resolve(preset: Mapping[str, Any], override: Mapping[str, Any]) -> Resolution:
    """Resolve every key: the override above the preset above the code defaults."""
    values: dict[str, Any] = {}
    source: dict[str, str] = {}
    notes: list[str] = []
    for field in FIELDS:
        value, origin = field.default, "default"
        for name, layer in (("preset", preset), ("override", override)):
            raw = _lookup(layer, field.path)
            if raw is _MISSING or (raw is None and field.name not in _NULL_MEANS_UNSET):
                continue
            try:
                if field.sift is None:
                    value, origin = field.check(raw), name
                else:
                    value, dropped = field.sift(raw)
                    origin = name
                    notes.extend(f"search policy: {name} {field.name}: {d}" for d in dropped)
            except Unusable as expected:
                notes.append(
                    f"search policy: the {name} value {_shown(raw)} of {field.name} is unusable "
                    f"(expected {expected}); the {origin} value {_shown(value)} applies"
                )
        values[field.name] = value
        source[field.name] = origin
    policy = Policy(
        tier=values["tier"],
        allowed_hosts=values["allowedHosts"],
        max_results=values["maxResults"],
        max_searches_per_record=values["maxSearchesPerRecord"],
        answer_max_chars=values["answerMaxChars"],
        deadline_s=values["deadlineSeconds"],
        cache_days=values["cacheDays"],
        enrich_pages=values["enrich.pages"],
        enrich_chars_per_page=values["enrich.charsPerPage"],
        allow_private_addresses=values["enrich.allowPrivateAddresses"],
        synthesis_provider=values["synthesis.provider"],
        synthesis_model=values["synthesis.model"],
        synthesis_max_tokens=values["synthesis.maxTokens"],
    )
    return Resolution(policy, source, tuple(notes))


def _shown(value: Any) -> str:
    text = repr(list(value) if isinstance(value, tuple) else value)
    return text if len(text) <= 80 else text[:77] + "..."


def layer_value(layer: Mapping[str, Any], name: str) -> Any:
    """One key's value in one layer as stored there (None when the layer leaves it out)."""
    raw = _lookup(layer, FIELD_BY_NAME[name].path)
    return None if raw is _MISSING else raw


def effective_value(policy: Policy, name: str) -> Any:
    """One key's resolved value, in the JSON shape a layer would hold it."""
    return {
        "tier": policy.tier,
        "allowedHosts": list(policy.allowed_hosts),
        "maxResults": policy.max_results,
        "maxSearchesPerRecord": policy.max_searches_per_record,
        "answerMaxChars": policy.answer_max_chars,
        "deadlineSeconds": policy.deadline_s,
        "cacheDays": policy.cache_days,
        "enrich.pages": policy.enrich_pages,
        "enrich.charsPerPage": policy.enrich_chars_per_page,
        "enrich.allowPrivateAddresses": policy.allow_private_addresses,
        "synthesis.provider": policy.synthesis_provider,
        "synthesis.model": policy.synthesis_model,
        "synthesis.maxTokens": policy.synthesis_max_tokens,
    }[name]


def merge_override(stored: Mapping[str, Any], changes: Mapping[str, Any]) -> dict[str, Any]:
    """Apply ``{"enrich.pages": 2, "tier": None, ...}`` to a stored override subtree.

    None clears that key, so the layer below applies again; an unusable value raises
    ``Unusable`` naming the key, and nothing is applied.
    """
    merged: dict[str, Any] = _deep_copy(stored)
    for name, value in changes.items():
        field = FIELD_BY_NAME.get(name)
        if field is None:
            raise Unusable(
                f"the search policy has no key {name!r}; its keys are {', '.join(FIELD_BY_NAME)}"
            )
        if value is None:
            _remove(merged, field.path)
            continue
        try:
            checked = field.check(value)
        except Unusable as expected:
            raise Unusable(f"search.{name} must be {expected}, not {_shown(value)}") from None
        node = merged
        for key in field.path[:-1]:
            child = node.get(key)
            if not isinstance(child, dict):
                child = {}
                node[key] = child
            node = child
        node[field.path[-1]] = list(checked) if isinstance(checked, tuple) else checked
    return merged


def _remove(tree: dict[str, Any], path: tuple[str, ...]) -> None:
    node = tree
    parents: list[tuple[dict[str, Any], str]] = []
    for key in path[:-1]:
        child = node.get(key)
        if not isinstance(child, dict):
            return
        parents.append((node, key))
        node = child
    node.pop(path[-1], None)
    for parent, key in reversed(parents):
        if parent[key]:
            break
        del parent[key]


def _deep_copy(tree: Mapping[str, Any]) -> dict[str, Any]:
    return {k: _deep_copy(v) if isinstance(v, Mapping) else v for k, v in tree.items()}
