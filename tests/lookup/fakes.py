"""The lookup's fakes: the shared provider fakes (tests/provider_fakes.py) and a fake page
server on loopback."""

from __future__ import annotations

import contextlib
import threading
import time
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
    drip: str = ""  # "body": the body a byte a second; "all": headers too


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
                if page.drip == "all":
                    head = f"HTTP/1.1 200 OK\r\ncontent-type: {page.content_type}\r\n"
                    self._drip(head.encode() + b"content-length: 1000000\r\n\r\n" + page.body)
                    return
                self.send_response(page.status)
                self.send_header("content-type", page.content_type)
                if page.location is not None:
                    self.send_header("location", page.location)
                self.send_header("content-length", str(page.length or len(page.body)))
                self.end_headers()
                if page.drip == "body":
                    self._drip(page.body)
                    return
                with contextlib.suppress(OSError):  # a client that stopped reading at its cap
                    self.wfile.write(page.body)

            def _drip(self, data: bytes) -> None:
                with contextlib.suppress(OSError):  # the client cut the page at its limit
                    for index in range(len(data)):
                        self.wfile.write(data[index : index + 1])
                        self.wfile.flush()
                        time.sleep(1.0)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True  # a dripping handler must not hold the test's exit
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def url(self, path: str, host: str = "127.0.0.1") -> str:
        return f"http://{host}:{self.port}{path}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
