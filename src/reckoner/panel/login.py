"""The panel's door: its per-launch token, taken once from the printed link into a cookie.

``reckoner panel`` prints ``http://127.0.0.1:8765/?token=...``. Opening it sets the token in
an HttpOnly, SameSite=Strict cookie and redirects to the same address without the token, so
it stays out of the history and of any Referer. From then on the page's requests carry the
cookie; a script or another tool sends ``Authorization: Bearer <token>`` instead. Without
either, an endpoint is 401 with one JSON sentence and the page is a short one saying which
link to open. Only the static assets, which hold no data, load without the token.
"""

from __future__ import annotations

import html
from urllib.parse import parse_qsl, urlencode

from starlette.types import ASGIApp, Receive, Scope, Send

from reckoner.access import (
    is_authorized,
    refuse_websocket,
    send_unauthorized,
    token_matches,
)

TOKEN_PARAMETER = "token"
STATIC_PREFIX = "/static/"
_INDEX = "/"
_GET_IN = (
    "open the link 'reckoner panel' printed when it started (it ends in ?token=...), or send "
    "the header Authorization: Bearer <token>"
)
API_REFUSAL = f"This panel answers only requests that carry its access token; {_GET_IN}."
WRONG_LINK = (
    "That link's token is not this panel's; open the link this run of 'reckoner panel' "
    "printed (a panel started again has a new token)."
)


def cookie_name(port: int) -> str:
    """The cookie's name, with the port in it: browsers share cookies between the ports of
    one host, and two panels must not overwrite each other's."""
    return f"reckoner-panel-{port}"


def login_url(base_url: str, token: str) -> str:
    """The link to print and open: the panel's address with the token to sign in with."""
    return f"{base_url}?{urlencode({TOKEN_PARAMETER: token})}"


def _sign_in_page(sentence: str) -> bytes:
    return (
        "<!doctype html><html lang=en><meta charset=utf-8><title>reckoner panel</title>"
        '<body style="font:16px system-ui,sans-serif;max-width:36em;margin:4em auto">'
        f"<h1>reckoner panel</h1><p>{html.escape(sentence, quote=False)}</p></body></html>"
    ).encode()


class PanelDoor:
    """Lets a request reach the panel only with its token; see the module's text."""

    def __init__(self, app: ASGIApp, token: str, port: int) -> None:
        self.app = app
        self.token = token
        self.cookie = cookie_name(port)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self.app(scope, receive, send)
            return
        path = str(scope.get("path", ""))
        if scope["type"] == "http" and path.startswith(STATIC_PREFIX):
            await self.app(scope, receive, send)
            return
        query = parse_qsl(scope.get("query_string", b"").decode("latin-1"), keep_blank_values=True)
        link_token = next((value for key, value in query if key == TOKEN_PARAMETER), None)
        if scope["type"] == "http" and path == _INDEX and link_token is not None:
            await self._sign_in(send, link_token, query)
        elif is_authorized(scope, self.token, self.cookie):
            await self.app(scope, receive, send)
        elif scope["type"] == "websocket":
            await refuse_websocket(send)
        elif path == _INDEX:
            await _send_page(send, 401, _sign_in_page(f"To use this panel, {_GET_IN}."))
        else:
            await send_unauthorized(send, {"error": API_REFUSAL})

    async def _sign_in(self, send: Send, link_token: str, query: list[tuple[str, str]]) -> None:
        if not token_matches(link_token, self.token):
            await _send_page(send, 401, _sign_in_page(WRONG_LINK))
            return
        rest = urlencode([(key, value) for key, value in query if key != TOKEN_PARAMETER])
        location = _INDEX + (f"?{rest}" if rest else "")
        cookie = f"{self.cookie}={self.token}; HttpOnly; SameSite=Strict; Path=/"
        # 303: the browser follows with a GET and keeps the #fragment of the link it opened.
        await _send_page(
            send, 303, b"", [(b"location", location.encode()), (b"set-cookie", cookie.encode())]
        )


async def _send_page(
    send: Send, status: int, body: bytes, extra: list[tuple[bytes, bytes]] | None = None
) -> None:
    headers = [
        (b"content-type", b"text/html; charset=utf-8"),
        (b"content-length", str(len(body)).encode()),
        (b"cache-control", b"no-store"),
        *(extra or []),
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
