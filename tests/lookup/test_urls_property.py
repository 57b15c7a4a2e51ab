"""Issue 21, case 12: lookup/urls.py's canonical form is a fixed point, and every reader of it
takes the same host: urllib.parse (RFC 3986), httpx (the fetch) and a browser's WHATWG
parser (Node's ``URL``, the same reading as the panel's Chromium). A raw citation the parser
accepts names the same host to the browser as to the allow-list."""

from __future__ import annotations

import json
import select
import shutil
import subprocess
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from reckoner.lookup.policy import host_matches, resolve
from reckoner.lookup.urls import UrlRefused, parse

WHATWG_READER = r"""
const lines = require("readline").createInterface({ input: process.stdin });
lines.on("line", (line) => {
  let answer;
  try {
    const url = new URL(JSON.parse(line));
    answer = { href: url.href, hostname: url.hostname, port: url.port, protocol: url.protocol };
  } catch (error) {
    answer = { error: String(error) };
  }
  process.stdout.write(JSON.stringify(answer) + "\n");
});
"""
ANSWER_SECONDS = 10.0


class Whatwg:
    """One Node process reading URLs as a browser does, a line in and a line out."""

    def __init__(self, node: str) -> None:
        self._process = subprocess.Popen(
            [node, "-e", WHATWG_READER],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            encoding="utf-8",
        )

    def read(self, url: str) -> dict[str, Any]:
        assert self._process.stdin is not None and self._process.stdout is not None
        self._process.stdin.write(json.dumps(url) + "\n")
        self._process.stdin.flush()
        ready, _, _ = select.select([self._process.stdout], [], [], ANSWER_SECONDS)
        assert ready, f"node did not read {url!r} within {ANSWER_SECONDS} s"
        answer: dict[str, Any] = json.loads(self._process.stdout.readline())
        return answer

    def close(self) -> None:
        self._process.kill()
        self._process.wait(timeout=ANSWER_SECONDS)


@pytest.fixture(scope="module")
def whatwg() -> Iterator[Whatwg]:
    node = shutil.which("node")
    if node is None:
        pytest.skip("Node.js is not installed, so there is no WHATWG URL parser to compare")
    reader = Whatwg(node)
    yield reader
    reader.close()


# Pieces chosen to collide with every rule: separators both parsers treat differently,
# IPv4 spellings, IDNA edge cases, percent signs and ports.
_HOST_PIECES = st.sampled_from(
    [
        "en", "wikipedia", "org", "evil", "com", "xn--zca", "b\u00fccher", "stra\u00dfe",
        "\u0435xample", "\uff45x", "0177", "0x7f", "127", "0", "1", "255", "256",
        "2130706433", "%65n", "a-b", "-a", "_x", "", "\u3002", "\u200b", "nist", "gov",
        "github", "io", "x1", "\u00e9t\u00e9", "\u4e2d\u6587", "\u2665",
    ]
)  # fmt: skip
_GLUE = st.sampled_from(["."] * 12 + ["@", "\\", ":", "/", "%2e", "#", "?", " ", "\t"])
_PORTS = st.sampled_from(["", ":", ":80", ":443", ":8443", ":0", ":65535", ":65536", ":08"])
_PATHS = st.lists(
    st.sampled_from([*"ab/.%2e?#=&;@:\\ '\"<>^`{}|~é\u00a0", "%41", "%2E", "..", "%zz"]),
    max_size=16,
).map("".join)  # fmt: skip


@st.composite
def urls(draw: st.DrawFn) -> str:
    scheme = draw(st.sampled_from(["http", "https"] * 4 + ["HTTPS", "ftp", "javascript"]))
    slashes = draw(st.sampled_from(["//"] * 8 + ["/", "///", ""]))
    host = draw(_HOST_PIECES)
    for _ in range(draw(st.integers(0, 4))):
        host += draw(_GLUE) + draw(_HOST_PIECES)
    ipv6 = draw(st.sampled_from(["", "", "", "[::1]", "[::ffff:7f00:1]", "[2001:DB8::1]"]))
    return f"{scheme}:{slashes}{ipv6 or host}{draw(_PORTS)}{draw(_PATHS)}"


def _allowed(host: str) -> bool:
    patterns = resolve({}, {}).policy.allowed_hosts
    return any(host_matches(host, pattern) for pattern in patterns)


@pytest.mark.node
@settings(
    suppress_health_check=[
        *settings.default.suppress_health_check,
        HealthCheck.function_scoped_fixture,
        HealthCheck.filter_too_much,
    ],
)
@given(urls())
def test_the_canonical_form_reads_to_itself_and_every_parser_takes_its_host(
    whatwg: Whatwg, raw: str
) -> None:
    try:
        url = parse(raw)
    except UrlRefused:
        assume(False)
        return
    canonical = url.text
    assert parse(canonical) == url
    assert canonical.isascii()
    split = urlsplit(canonical)
    assert split.hostname == url.host and split.port == url.port
    assert split.username is None
    assert httpx.URL(canonical).raw_host.decode("ascii") == url.host
    browser = whatwg.read(canonical)
    assert browser.get("href") == canonical, browser
    assert browser["hostname"].strip("[]") == url.host
    assert resolve({}, {}).policy.allows(canonical) is _allowed(url.host)
    assert _allowed(split.hostname) is _allowed(browser["hostname"].strip("[]"))


@pytest.mark.node
@settings(
    suppress_health_check=[
        *settings.default.suppress_health_check,
        HealthCheck.function_scoped_fixture,
        HealthCheck.filter_too_much,
    ],
)
@given(urls())
def test_a_raw_citation_that_is_accepted_names_the_browsers_host(whatwg: Whatwg, raw: str) -> None:
    """What the panel's browser would make of the provider's own text never differs from
    the host the allow-list checked."""
    try:
        url = parse(raw)
    except UrlRefused:
        assume(False)
        return
    browser = whatwg.read(raw)
    assert "error" not in browser, browser
    assert browser["hostname"].strip("[]").rstrip(".") == url.host


@pytest.mark.parametrize(
    "raw",
    [
        "https://evil.com\\@en.wikipedia.org/x",
        "http://0177.0.0.1/",
        "http://0x7f000001/",
        "http://2130706433/",
        "http://127.1/",
        "http://127.0.0.1.1/",
        "https://u:p@en.wikipedia.org/",
        "https://en.wikipedia.org@evil.com/",
        "https://%65vil.com/",
        "https:/\\evil.com/",
        "https:evil.com/",
        " https://evil.com/",
        "https://evil.com\n.wikipedia.org/",
        "https://en.wikipedia.org:65536/",
        "https://en.wikipedia.org:-1/",
        "https://xn--/",
        "https://\u00ad.wikipedia.org/",
        "https://[fe80::1%25eth0]/",
        "file:///etc/hostname",
        "javascript:alert(1)//https://en.wikipedia.org/",
        "https://" + "a" * 2100 + ".org/",
    ],
)
def test_a_url_two_readings_could_disagree_on_is_refused_with_a_sentence(raw: str) -> None:
    with pytest.raises(UrlRefused) as refused:
        parse(raw)
    assert str(refused.value).startswith("the ") and "\n" not in str(refused.value)
