"""Issue 21, case 11: loopback is not a boundary between local users or processes, so the
panel requires its per-launch token (as Jupyter does). Real HTTP on a loopback port against
the panel's own server; the sign-in in Debian's Chromium; ``reckoner panel`` as a
subprocess for the printed link and the token a user sets."""

from __future__ import annotations

import os
import re
import ssl
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from panel_records import divider_record, write_closed
from starlette.routing import Mount, Route

from chromium import open_panel
from reckoner.panel.app import API
from reckoner.panel.background import BackgroundPanel
from reckoner.panel.login import API_REFUSAL, cookie_name

WRONG = "a-wrong-token-of-enough-length"
# A value for every path parameter the panel's routes take. A route with a parameter not
# named here fails the enumeration test until it is given one, so no endpoint is skipped.
SAMPLES = {
    "record_id": "1700000000000",
    "seq": "1",
    "lesson_id": "p-20250101-000000-abcd",
    "rest": "no-such-endpoint",
}
# Bodies that reach each endpoint without changing anything of the user's.
HARMLESS_BODY = b"{}"
TLS = ssl.create_default_context()
"""One TLS context for the module's requests, though the panel is plain HTTP on loopback:
``httpx.request`` otherwise builds one per request, loading the CA bundle each time (25 ms
of CPU, a hundred times in the sweep over every endpoint). Each request is still a client
of its own, so no cookie carries over from one to the next."""


def _api_requests(app: Any) -> list[tuple[str, str]]:
    """(method, path) for every method of every API route of the app, with samples filled in."""
    requests: list[tuple[str, str]] = []
    for route in app.routes:
        if isinstance(route, Mount) or not route.path.startswith(API):
            continue
        assert isinstance(route, Route)
        path = route.path
        for name in re.findall(r"\{(\w+)(?::\w+)?\}", path):
            assert name in SAMPLES, f"give the path parameter {name!r} of {path} a sample"
            path = re.sub(rf"\{{{name}(?::\w+)?\}}", SAMPLES[name], path)
        methods = sorted((route.methods or {"GET"}) - {"HEAD"})
        requests.extend((method, path) for method in methods)
    return requests


@pytest.fixture
def running(home: Path) -> Iterator[BackgroundPanel]:
    write_closed(home, divider_record())
    with BackgroundPanel(home, poll_ms=200) as panel:
        yield panel


def _send(
    panel: BackgroundPanel, method: str, path: str, headers: dict[str, str]
) -> httpx.Response:
    body = HARMLESS_BODY if method in ("POST", "PUT", "PATCH") else None
    sent = {**headers, "content-type": "application/json"} if body else headers
    url = f"{panel.url.rstrip('/')}{path}"
    return httpx.request(method, url, content=body, headers=sent, verify=TLS)


def _cookie(panel: BackgroundPanel, token: str) -> dict[str, str]:
    return {"cookie": f"{cookie_name(panel.port)}={token}"}


def test_every_api_endpoint_is_401_without_the_token_and_answers_with_the_cookie_or_bearer(
    running: BackgroundPanel,
) -> None:
    """Every route under /api/reckoner, found from the app itself: no token, a wrong bearer
    or a wrong cookie is 401 with the sentence saying how to get in; the right bearer or
    cookie reaches the endpoint."""
    requests = _api_requests(running.app)
    assert len(requests) >= 15, requests  # the enumeration found the panel's endpoints
    refusals = {
        "no token": {},
        "a wrong bearer": {"authorization": f"Bearer {WRONG}"},
        "a wrong cookie": _cookie(running, WRONG),
        "another scheme": {"authorization": f"Basic {running.token}"},
    }
    for method, path in requests:
        for why, headers in refusals.items():
            answer = _send(running, method, path, headers)
            assert answer.status_code == 401, (method, path, why, answer.status_code)
            assert answer.json() == {"error": API_REFUSAL}, (method, path, why)
            assert answer.headers["www-authenticate"].startswith("Bearer")
        for how in (running.headers, _cookie(running, running.token)):
            answer = _send(running, method, path, how)
            assert answer.status_code != 401, (method, path, how, answer.text)
            assert answer.headers["content-type"].startswith(("application/json", "text/plain"))


def test_a_refused_request_changes_nothing(running: BackgroundPanel, home: Path) -> None:
    """A local process without the token cannot delete a record or save a setting."""
    base = running.url.rstrip("/")
    deleted = httpx.delete(f"{base}{API}/records/1700000000000")
    saved = httpx.put(
        f"{base}{API}/settings",
        content=b'{"panel": {"showAll": true}}',
        headers={"content-type": "application/json"},
    )
    assert (deleted.status_code, saved.status_code) == (401, 401)
    assert (home / "records" / "1700000000000.jsonl").exists()
    assert not (home / "state.json").exists()


def test_the_page_without_the_token_says_to_open_the_printed_link_and_static_assets_load(
    running: BackgroundPanel,
) -> None:
    """The index without a token is a short page (no data, no app); a link with a wrong
    token sets no cookie; the package's static files, which hold no data, load without it."""
    bare = httpx.get(running.url)
    assert bare.status_code == 401 and "text/html" in bare.headers["content-type"]
    assert "?token=" in bare.text and "Voltage divider" not in bare.text
    assert "__PANEL_CONFIG__" not in bare.text and "pollMs" not in bare.text
    wrong = httpx.get(f"{running.url}?token={WRONG}")
    assert wrong.status_code == 401 and "set-cookie" not in wrong.headers
    assert "not this panel's" in wrong.text
    assert httpx.get(f"{running.url}static/style.css").status_code == 200


def test_the_link_sets_an_httponly_strict_cookie_and_redirects_to_the_address_without_it(
    running: BackgroundPanel,
) -> None:
    """The cookie's attributes as sent, and the redirect target (no token in it)."""
    answer = httpx.get(f"{running.login_url}&lang=en")
    assert answer.status_code == 303
    assert answer.headers["location"] == "/?lang=en"
    cookie = answer.headers["set-cookie"]
    assert cookie.startswith(f"{cookie_name(running.port)}={running.token};")
    assert {part.strip() for part in cookie.split(";")[1:]} == {
        "HttpOnly",
        "SameSite=Strict",
        "Path=/",
    }


def test_the_printed_link_opened_in_chromium_loads_the_records_and_leaves_no_token_behind(
    running: BackgroundPanel, page: Any
) -> None:
    """The user's path: open the link; the list loads, the address bar holds no token, the
    cookie is HttpOnly (page scripts cannot read it) and SameSite=Strict."""
    open_panel(page, running.login_url)
    page.wait_for_selector("text=Voltage divider power")
    assert "token" not in page.url and page.url == running.url
    assert page.evaluate("document.cookie") == ""
    (cookie,) = page.context.cookies()
    assert cookie["name"] == cookie_name(running.port)
    assert cookie["httpOnly"] is True and cookie["sameSite"] == "Strict"
    # A record's own link keeps its fragment through the sign-in.
    page.goto(f"{running.login_url}#/records/1700000000000")
    page.wait_for_selector(".card")
    assert page.url == f"{running.url}#/records/1700000000000"


@pytest.mark.parametrize(
    ("path", "words"),
    [
        ("/tmp\x00/etc", "NUL character"),
        ("relative/dir", "not an absolute path"),
        ("/" + "a" * 5000, "over the limit of 4096"),
        ("/" + "b" * 300, "File name too long"),
    ],
    ids=["nul", "relative", "over-long", "over-long-name"],
)
def test_list_dirs_refuses_a_bad_path_with_one_sentence_never_a_500(
    running: BackgroundPanel, path: str, words: str
) -> None:
    """A NUL (once a 500), a relative path, an over-long one: 400 with one sentence."""
    url = f"{running.url.rstrip('/')}{API}/list-dirs"
    answer = httpx.get(url, params={"path": path}, headers=running.headers)
    assert answer.status_code == 400, answer.text
    sentence = answer.json()["error"]
    assert "Traceback" not in sentence and sentence.endswith(".")
    assert words in sentence
    assert httpx.get(url, params={"path": "/"}).status_code == 401


def test_list_dirs_without_the_token_tells_nothing_about_the_filesystem(
    running: BackgroundPanel, tmp_path: Path
) -> None:
    """Without the token an existing and a missing path get the same 401."""
    url = f"{running.url.rstrip('/')}{API}/list-dirs"
    there = httpx.get(url, params={"path": str(tmp_path)})
    missing = httpx.get(url, params={"path": str(tmp_path / "nope")})
    assert there.status_code == missing.status_code == 401
    assert there.text == missing.text


def _panel_process(home: Path, *extra: str, env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "reckoner", "panel", "--home", str(home), "--port", "0", *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **env},
    )


def test_reckoner_panel_prints_a_fresh_token_each_launch_and_honours_reckoner_panel_token(
    home: Path,
) -> None:
    """Two launches print two different tokens; RECKONER_PANEL_TOKEN sets it explicitly."""
    chosen = "my-own-panel-token-1234"
    links = []
    for env in (
        {"RECKONER_PANEL_TOKEN": ""},
        {"RECKONER_PANEL_TOKEN": ""},
        {"RECKONER_PANEL_TOKEN": chosen},
    ):
        process = _panel_process(home, env=env)
        try:
            assert process.stdout is not None
            line = process.stdout.readline()
            match = re.search(r"(http://127\.0\.0\.1:\d+/)\?token=([\w.~-]+)", line)
            assert match, line
            links.append(match.group(2))
            base, token = match.group(1), match.group(2)
            auth = {"authorization": f"Bearer {token}"}
            assert httpx.get(f"{base}api/reckoner/records-index", headers=auth).status_code == 200
            assert httpx.get(f"{base}api/reckoner/records-index").status_code == 401
        finally:
            process.terminate()
            process.communicate(timeout=30)
    assert links[0] != links[1] and len(links[0]) >= 43
    assert links[2] == chosen


@pytest.mark.parametrize(
    ("extra", "env"),
    [(("--token", "short"), {}), ((), {"RECKONER_PANEL_TOKEN": "has spaces in it, see"})],
    ids=["flag-too-short", "variable-bad-characters"],
)
def test_an_unusable_token_is_refused_with_one_sentence_before_the_panel_starts(
    home: Path, extra: tuple[str, ...], env: dict[str, str]
) -> None:
    process = _panel_process(home, *extra, env=env)
    out, err = process.communicate(timeout=60)
    assert process.returncode != 0
    assert out == "" and "Traceback" not in err
    assert "letters, digits and - _ . ~" in err and "token_urlsafe" in err
    assert len(err.strip().splitlines()) == 1
