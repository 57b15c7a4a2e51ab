"""The lookup's fakes: the shared provider fakes (tests/provider_fakes.py) and a fake page
server on loopback."""

from __future__ import annotations

import contextlib
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from provider_fakes import FakeAnthropic, FakeOpenAI, Script, Source, reply_json

__all__ = ["FakeAnthropic", "FakeOpenAI", "Page", "PageServer", "Script", "Source", "reply_json"]


@dataclass
class Page:
    status: int = 200
    body: bytes = b""
    content_type: str = "text/html; charset=utf-8"
    location: str | None = None
    length: int | None = None  # a content-length header differing from the body


class PageServer:
    """Pages by path on loopback; every requested path is recorded."""

    def __init__(self) -> None:
        self.pages: dict[str, Page] = {}
        self.requested: list[str] = []
        server_self = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                server_self.requested.append(self.path)
                page = server_self.pages.get(self.path, Page(404, b"not here", "text/plain"))
                self.send_response(page.status)
                self.send_header("content-type", page.content_type)
                if page.location is not None:
                    self.send_header("location", page.location)
                self.send_header("content-length", str(page.length or len(page.body)))
                self.end_headers()
                with contextlib.suppress(OSError):  # a client that stopped reading at its cap
                    self.wfile.write(page.body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def url(self, path: str, host: str = "127.0.0.1") -> str:
        return f"http://{host}:{self.port}{path}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
