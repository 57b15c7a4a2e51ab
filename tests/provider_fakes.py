"""One fake per model provider on loopback, speaking its real wire protocol, shared by the
lookup's and the articles' tests, with the official SDKs as the clients.

`FakeAnthropic` answers ``POST /v1/messages`` as the Anthropic Messages API does: a search
turn (a request carrying the ``web_search_20250305`` tool) answers ``server_tool_use``, a
``web_search_tool_result`` block and text blocks with ``web_search_result_location``
citations; any other request answers one text block (the lookup's extraction, or an
article). `FakeOpenAI` answers ``POST /v1/responses`` as the Responses API does, with a
``web_search_call`` item and ``url_citation`` annotations, and ``POST /v1/chat/completions``
as Chat Completions does (the article writer). An article turn follows ``Script.replies``
in order: a text, an HTTP error status (whose body echoes the key, as real providers may),
a delay, or a reply cut off at its token limit (``stop_reason: max_tokens``,
``finish_reason: length``). Each fake records every request's path, headers and body.
Every answer carries ``usage`` as the real API reports it: Anthropic's tokens and
``server_tool_use.web_search_requests``, OpenAI's tokens (a search turn's searches are its
``web_search_call`` items); the search turn's and the text turn's counts differ, so a sum
over a lookup's turns is visible.

A delay holds the request until it has passed or the test calls ``release()``, whichever
comes first: a test that holds a turn "for as long as it takes" releases it once it has seen
what it waited for, and a test's teardown releases what it left held and waits (``settle``)
until no request is in flight, so no client of an earlier test is still waiting on the fake,
or retrying against it, when the next test reads the log.
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
class Reply:
    """One scripted article turn: its text, or an HTTP error status; a delay; cut off at the
    token limit when ``cut_off``."""

    text: str = ""
    status: int = 200
    delay: float = 0.0
    cut_off: bool = False


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
    replies: list[Reply] = field(default_factory=list)  # article turns, in order (last repeats)
    search_usage: tuple[int, int] = (1200, 300)  # input and output tokens of a search turn
    text_usage: tuple[int, int] = (400, 40)  # of any other turn (an extraction, an article)
    web_searches: int = 2  # the searches a search turn ran


class _Fake:
    paths: tuple[str, ...] = ()

    def __init__(self) -> None:
        self.script = Script()
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.paths_asked: list[str] = []
        self._lock = threading.Lock()
        self._released = threading.Event()
        self._in_flight = 0
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                with fake._lock:
                    fake._in_flight += 1
                try:
                    self._post()
                finally:
                    with fake._lock:
                        fake._in_flight -= 1

            def _post(self) -> None:
                length = int(self.headers.get("content-length", "0"))
                body = json.loads(self.rfile.read(length) or b"{}")
                headers = {k.lower(): v for k, v in self.headers.items()}
                with fake._lock:
                    fake.requests.append(body)
                    fake.headers.append(headers)
                    fake.paths_asked.append(self.path)
                path = self.path.rstrip("/")
                if path not in fake.paths:
                    self._send(404, b'{"error": "not found"}')
                    return
                status, payload = fake.answer(path, body, headers)
                self._send(status, payload)

            def _send(self, status: int, payload: bytes) -> None:
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    self.send_response(status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self._thread.start()

    @property
    def root(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def close(self) -> None:
        self.release()  # a held handler thread ends with the fake, not a delay later
        self.server.shutdown()
        self.server.server_close()

    def clear(self) -> None:
        """A fresh script and request log; delays hold again."""
        self.script = Script()
        self._released = threading.Event()
        with self._lock:
            self.requests.clear()
            self.headers.clear()
            self.paths_asked.clear()

    def hold(self, seconds: float) -> None:
        """A request's delay: ``seconds``, or until ``release()``."""
        self._released.wait(seconds)

    def release(self) -> None:
        """Answer every held request now, and hold no later one until ``clear()``."""
        self._released.set()

    def settle(self, within: float) -> bool:
        """Whether every request the fake took has been answered, waiting up to ``within``
        seconds (a released request still has its answer to send)."""
        deadline = time.monotonic() + within
        while self._in_flight and time.monotonic() < deadline:
            time.sleep(0.02)
        return self._in_flight == 0

    def key_sent(self, index: int = -1) -> str | None:
        """The credential request ``index`` carried (x-api-key or the bearer token), or None."""
        headers = self.headers[index]
        bearer = headers.get("authorization", "")
        return headers.get("x-api-key") or (bearer[7:] if bearer.startswith("Bearer ") else None)

    def answer(self, path: str, body: dict[str, Any], headers: dict[str, str]) -> tuple[int, bytes]:
        script = self.script
        if script.replies and not self.is_search(body):
            return self.article_answer(path, body, headers)
        if self.is_search(body):
            self.hold(script.search_delay)
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

    def article_answer(
        self, path: str, body: dict[str, Any], headers: dict[str, str]
    ) -> tuple[int, bytes]:
        turns = sum(1 for r in self.requests if not self.is_search(r))
        reply = self.script.replies[min(turns, len(self.script.replies)) - 1]
        self.hold(reply.delay)
        if reply.status != 200:
            # A real provider may echo the key it refused; the engine must not repeat it.
            echoed = headers.get("authorization") or headers.get("x-api-key")
            error = {"type": "error", "error": {"type": "error", "message": f"bad key {echoed}"}}
            return reply.status, json.dumps(error).encode()
        return 200, json.dumps(self.article_turn(path, body, reply)).encode()

    def article_turn(self, path: str, body: dict[str, Any], reply: Reply) -> dict[str, Any]:
        raise NotImplementedError

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

    paths = ("/v1/messages",)

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
        return self._message(
            body, content, self.script.search_usage, web_searches=self.script.web_searches
        )

    def text_turn(self, body: dict[str, Any], text: str) -> dict[str, Any]:
        content = [{"type": "text", "text": text}]
        return self._message(body, content, self.script.text_usage, web_searches=0)

    def article_turn(self, path: str, body: dict[str, Any], reply: Reply) -> dict[str, Any]:
        content = [{"type": "text", "text": reply.text}]
        stop = "max_tokens" if reply.cut_off else "end_turn"
        return self._message(body, content, self.script.text_usage, web_searches=0, stop=stop)

    @staticmethod
    def _message(
        body: dict[str, Any],
        content: list[Any],
        tokens: tuple[int, int],
        web_searches: int,
        stop: str = "end_turn",
    ) -> dict[str, Any]:
        return {
            "id": "msg_01",
            "type": "message",
            "role": "assistant",
            "model": body.get("model", "claude-haiku-4-5"),
            "content": content,
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": {
                "input_tokens": tokens[0],
                "output_tokens": tokens[1],
                "server_tool_use": {"web_search_requests": web_searches},
            },
        }


class FakeOpenAI(_Fake):
    """The OpenAI Responses API (POST /v1/responses) and Chat Completions
    (POST /v1/chat/completions)."""

    paths = ("/v1/responses", "/v1/chat/completions")

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
                "id": f"ws_0{n}",
                "status": "completed",
                "action": {"type": "search", "query": body.get("input")},
            }
            for n in range(self.script.web_searches)
        ]
        output.append(self._message_item(text, annotations))
        return self._response(body, output, self.script.search_usage)

    def text_turn(self, body: dict[str, Any], text: str) -> dict[str, Any]:
        return self._response(body, [self._message_item(text, [])], self.script.text_usage)

    def article_turn(self, path: str, body: dict[str, Any], reply: Reply) -> dict[str, Any]:
        if path.endswith("/responses"):
            return self.text_turn(body, reply.text)
        return {
            "id": "chatcmpl-fake",
            "object": "chat.completion",
            "created": 1_700_000_000,
            "model": body.get("model", "gpt-5.5"),
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": reply.text},
                    "finish_reason": "length" if reply.cut_off else "stop",
                    "logprobs": None,
                }
            ],
            "usage": {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20},
        }

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
    def _response(
        body: dict[str, Any], output: list[Any], tokens: tuple[int, int]
    ) -> dict[str, Any]:
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
                "input_tokens": tokens[0],
                "input_tokens_details": {"cached_tokens": 0},
                "output_tokens": tokens[1],
                "output_tokens_details": {"reasoning_tokens": 0},
                "total_tokens": tokens[0] + tokens[1],
            },
        }
