"""Local fake model providers on loopback, speaking the OpenAI Chat Completions and the
Anthropic Messages wire protocols, so the official SDKs can be tested as the clients."""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    """One scripted answer: the article text, or an HTTP error status; an optional delay."""

    text: str = ""
    status: int = 200
    delay: float = 0.0


@dataclass
class FakeProvider:
    """A scripted provider; ``requests`` keeps what each call sent (headers and JSON)."""

    replies: list[Reply]
    requests: list[dict[str, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                fake.requests.append(
                    {
                        "path": self.path,
                        "headers": {k.lower(): v for k, v in self.headers.items()},
                        "json": body,
                    }
                )
                reply = fake.replies[min(len(fake.requests), len(fake.replies)) - 1]
                if reply.delay:
                    time.sleep(reply.delay)
                if reply.status != 200:
                    # A real provider may echo the key it refused; the engine must not repeat it.
                    echoed = self.headers.get("authorization") or self.headers.get("x-api-key")
                    payload = {
                        "error": {"message": f"bad key {echoed}", "type": "error", "code": None},
                        "type": "error",
                    }
                    self._send(reply.status, payload)
                elif self.path.endswith("/chat/completions"):
                    self._send(200, _chat_completion(body["model"], reply.text))
                elif self.path.endswith("/messages"):
                    self._send(200, _message(body["model"], reply.text))
                else:
                    self._send(404, {"error": {"message": "no such path"}})

            def _send(self, status: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def openai_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def anthropic_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def url_for(self, kind: str) -> str:
        return self.openai_url if kind == "openai" else self.anthropic_url

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def _chat_completion(model: str, text: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 1700000000,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": text},
                "finish_reason": "stop",
                "logprobs": None,
            }
        ],
        "usage": {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20},
    }


def _message(model: str, text: str) -> dict[str, Any]:
    return {
        "id": "msg_fake",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [{"type": "text", "text": text}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 10},
    }
