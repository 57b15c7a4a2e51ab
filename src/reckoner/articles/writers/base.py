"""The one interface every article writer meets. No I/O here."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from reckoner.articles.fact_model import Facts

WRITERS = ("template", "openai", "anthropic")


class WriterFailure(RuntimeError):
    """A writer that could not produce an article; the message is one sentence, no secrets."""


class WriterCancelled(Exception):
    """The job was cancelled while the writer was working."""


@dataclass(frozen=True, slots=True)
class Draft:
    """An article body as a writer produced it, and who produced it."""

    body: str
    writer: str
    prompt_version: str | None = None
    attempts: int = 1


class Writer(Protocol):
    """Turns facts into an article body in one format (``md`` or ``tex``) and language."""

    name: str

    def write(
        self, facts: Facts, language: str, format_name: str, cancelled: Callable[[], bool]
    ) -> Draft: ...
