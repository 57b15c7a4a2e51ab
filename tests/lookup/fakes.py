"""Fake providers and a fake page server on loopback, speaking the real wire protocols.

`FakeAnthropic` answers ``POST /v1/messages`` as the Anthropic Messages API does: a search
turn (a request carrying the ``web_search_20250305`` tool) answers ``server_tool_use``, a
``web_search_tool_result`` block and text blocks with ``web_search_result_location``
citations; any other request is the extractive call and answers one text block.
`FakeOpenAI` answers ``POST /v1/responses`` as the Responses API does, with a
``web_search_call`` item and ``url_citation`` annotations. Each records every request.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Source:
    """One source the fake search cites."""

    url: str
    title: str = "A source"
    cited_text: str = "Density (near r.t.) 8.96 g/cm3"
    page_age: str | None = "April 30, 2025"


def reply_json(answer: str, used: list[int], insufficient: bool = False) -> str:
    return json.dumps({"answer": answer, "used": used, "insufficient": insufficient})


@dataclass
class Script:
    """What a fake provider answers; tests change it between calls."""

    sources: list[Source] = field(default_factory=list)
    search_status: int = 200
    search_raw: bytes | None = None  # a body sent verbatim instead of a search turn
    search_delay: float = 0.0
    extract_text: str | Callable[[dict[str, Any]], str] = ""
    extract_status: int = 200
    extract_raw: bytes | None = None
    error_body: str = '{"type": "error", "error": {"type": "api_error", "message": "boom"}}'


class _Fake:
    path = ""

    def __init__(self) -> None:
        self.script = Script()
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length", "0"))
                body = json.loads(self.rfile.read(length) or b"{}")
                fake.requests.append(body)
                fake.headers.append({k.lower(): v for k, v in self.headers.items()})
                if self.path.rstrip("/") != fake.path:
                    self._send(404, b'{"error": "not found"}')
                    return
                status, payload = fake.answer(body)
                self._send(status, payload)

            def _send(self, status: int, payload: bytes) -> None:
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self._thread.start()

    @property
    def root(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def answer(self, body: dict[str, Any]) -> tuple[int, bytes]:
        script = self.script
        if self.is_search(body):
            time.sleep(script.search_delay)
            if script.search_status != 200:
                return script.search_status, script.error_body.encode()
            if script.search_raw is not None:
                return 200, script.search_raw
            return 200, json.dumps(self.search_turn(body, script.sources)).encode()
        if script.extract_status != 200:
            return script.extract_status, script.error_body.encode()
        if script.extract_raw is not None:
            return 200, script.extract_raw
        text = script.extract_text
        reply = text(body) if callable(text) else text
        return 200, json.dumps(self.text_turn(body, reply)).encode()

    def is_search(self, body: dict[str, Any]) -> bool:
        raise NotImplementedError

    def search_turn(self, body: dict[str, Any], sources: list[Source]) -> dict[str, Any]:
        raise NotImplementedError

    def text_turn(self, body: dict[str, Any], text: str) -> dict[str, Any]:
        raise NotImplementedError

    def searches(self) -> list[dict[str, Any]]:
        return [r for r in self.requests if self.is_search(r)]

    def extractions(self) -> list[dict[str, Any]]:
        return [r for r in self.requests if not self.is_search(r)]


class FakeAnthropic(_Fake):
    """The Anthropic Messages API: POST /v1/messages."""

    path = "/v1/messages"

    def is_search(self, body: dict[str, Any]) -> bool:
        return any(t.get("type") == "web_search_20250305" for t in body.get("tools", []))

    def search_turn(self, body: dict[str, Any], sources: list[Source]) -> dict[str, Any]:
        question = body["messages"][0]["content"]
        content: list[dict[str, Any]] = [
            {
                "type": "server_tool_use",
                "id": "srvtoolu_01",
                "name": "web_search",
                "input": {"query": question},
            },
            {
                "type": "web_search_tool_result",
                "tool_use_id": "srvtoolu_01",
                "content": [
                    {
                        "type": "web_search_result",
                        "url": s.url,
                        "title": s.title,
                        "encrypted_content": "EqgfCioIARgBIiQ3YTAw",
                        "page_age": s.page_age,
                    }
                    for s in sources
                ],
            },
            {"type": "text", "text": "Here is what I found."},
        ]
        for s in sources:
            content.append(
                {
                    "type": "text",
                    "text": f"According to {s.title}, {s.cited_text}.",
                    "citations": [
                        {
                            "type": "web_search_result_location",
                            "url": s.url,
                            "title": s.title,
                            "encrypted_index": "Eo8BCioIAhgBIiQyYjQ0",
                            "cited_text": s.cited_text,
                        }
                    ],
                }
            )
        return self._message(body, content, web_searches=1)

    def text_turn(self, body: dict[str, Any], text: str) -> dict[str, Any]:
        return self._message(body, [{"type": "text", "text": text}], web_searches=0)

    @staticmethod
    def _message(body: dict[str, Any], content: list[Any], web_searches: int) -> dict[str, Any]:
        return {
            "id": "msg_01",
            "type": "message",
            "role": "assistant",
            "model": body.get("model", "claude-haiku-4-5"),
            "content": content,
            "stop_reason": "end_turn",
            "stop_sequence": None,
            "usage": {
                "input_tokens": 100,
                "output_tokens": 50,
                "server_tool_use": {"web_search_requests": web_searches},
            },
        }


class FakeOpenAI(_Fake):
    """The OpenAI Responses API: POST /v1/responses."""

    path = "/v1/responses"

    def is_search(self, body: dict[str, Any]) -> bool:
        return any(t.get("type") == "web_search" for t in body.get("tools", []))

    def search_turn(self, body: dict[str, Any], sources: list[Source]) -> dict[str, Any]:
        text = ""
        annotations = []
        for s in sources:
            sentence = f"{s.cited_text}. "
            annotations.append(
                {
                    "type": "url_citation",
                    "start_index": len(text),
                    "end_index": len(text) + len(s.cited_text),
                    "url": s.url,
                    "title": s.title,
                }
            )
            text += sentence
        output = [
            {
                "type": "web_search_call",
                "id": "ws_01",
                "status": "completed",
                "action": {"type": "search", "query": body.get("input")},
            },
            self._message_item(text, annotations),
        ]
        return self._response(body, output)

    def text_turn(self, body: dict[str, Any], text: str) -> dict[str, Any]:
        return self._response(body, [self._message_item(text, [])])

    @staticmethod
    def _message_item(text: str, annotations: list[Any]) -> dict[str, Any]:
        return {
            "type": "message",
            "id": "msg_01",
            "status": "completed",
            "role": "assistant",
            "content": [{"type": "output_text", "text": text, "annotations": annotations}],
        }

    @staticmethod
    def _response(body: dict[str, Any], output: list[Any]) -> dict[str, Any]:
        return {
            "id": "resp_01",
            "object": "response",
            "created_at": 1_700_000_000,
            "status": "completed",
            "model": body.get("model", "gpt-5-mini"),
            "output": output,
            "parallel_tool_calls": True,
            "tool_choice": "auto",
            "tools": body.get("tools", []),
            "error": None,
            "incomplete_details": None,
            "instructions": body.get("instructions"),
            "metadata": {},
            "temperature": 1.0,
            "top_p": 1.0,
            "usage": {
                "input_tokens": 100,
                "input_tokens_details": {"cached_tokens": 0},
                "output_tokens": 50,
                "output_tokens_details": {"reasoning_tokens": 0},
                "total_tokens": 150,
            },
        }


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
