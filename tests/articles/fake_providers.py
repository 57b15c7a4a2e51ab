"""The article tests' provider: the shared fakes (tests/provider_fakes.py), one per wire
protocol, scripted with the same article replies, so one test runs against either kind."""

from __future__ import annotations

from typing import Any

from provider_fakes import FakeAnthropic, FakeOpenAI, Reply

__all__ = ["FakeProvider", "Reply"]


class FakeProvider:
    """Both fakes answering ``replies`` in order; ``requests`` keeps what each call sent."""

    def __init__(self, replies: list[Reply]) -> None:
        self.anthropic = FakeAnthropic()
        self.openai = FakeOpenAI()
        for fake in (self.anthropic, self.openai):
            fake.script.replies = list(replies)

    @property
    def requests(self) -> list[dict[str, Any]]:
        """Every request either fake got: its path, lower-cased headers and JSON body."""
        return [
            {"path": path, "headers": headers, "json": body}
            for fake in (self.anthropic, self.openai)
            for path, headers, body in zip(
                fake.paths_asked, fake.headers, fake.requests, strict=True
            )
        ]

    @property
    def openai_url(self) -> str:
        return f"{self.openai.root}/v1"

    @property
    def anthropic_url(self) -> str:
        return self.anthropic.root

    def url_for(self, kind: str) -> str:
        return self.openai_url if kind == "openai" else self.anthropic_url

    def close(self) -> None:
        self.anthropic.close()
        self.openai.close()
