"""The one network module (issue 24): an address with or without the brackets of its URL
spelling is one address, judged, bound and shown one way; a taken port is a BindError that
names the address and the system's reason. Real sockets on loopback."""

from __future__ import annotations

import socket

import pytest

from reckoner.host.network import BindError, bind, bound_port, is_loopback, url_host


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.0.0.2", True),
        ("localhost", True),
        ("::1", True),
        ("[::1]", True),
        ("0.0.0.0", False),
        ("::", False),
        ("[::]", False),
        ("192.0.2.1", False),
        ("[2001:db8::1]", False),
        ("example.com", False),
        ("", False),
    ],
)
def test_loopback_is_judged_alike_with_or_without_brackets(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback


@pytest.mark.parametrize(
    ("host", "shown"),
    [
        ("127.0.0.1", "127.0.0.1"),
        ("localhost", "localhost"),
        ("::1", "[::1]"),
        ("[::1]", "[::1]"),
        ("fe80::1", "[fe80::1]"),
    ],
)
def test_an_ipv6_address_is_shown_in_brackets_once(host: str, shown: str) -> None:
    assert url_host(host) == shown


@pytest.mark.parametrize("host", ["::1", "[::1]"])
def test_an_ipv6_address_binds_bare_with_or_without_brackets(host: str) -> None:
    sock = bind(host, 0)
    try:
        assert sock.family == socket.AF_INET6
        assert sock.getsockname()[0] == "::1"
        with socket.create_connection(("::1", bound_port(sock)), timeout=10):
            pass  # the socket listens: a client on this machine gets in
    finally:
        sock.close()


def test_a_taken_port_is_a_bind_error_naming_the_address_and_the_reason() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        with pytest.raises(BindError) as failure:
            bind("127.0.0.1", port)
    assert str(failure.value) == f"cannot listen on 127.0.0.1:{port} ({failure.value.reason})"
    assert failure.value.reason  # the system's words, e.g. "Address already in use"
