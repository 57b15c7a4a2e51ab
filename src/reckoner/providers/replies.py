"""What a provider call answers, as plain values both callers read (no SDK types leak out)."""

from __future__ import annotations

from dataclasses import dataclass

Turn = tuple[str, str]
"""One message of a conversation: ("user" or "assistant", its text)."""


@dataclass(frozen=True, slots=True)
class Reply:
    """A model's text; ``cut_off`` when it stopped at its output-token limit, unfinished."""

    text: str
    cut_off: bool = False


@dataclass(frozen=True, slots=True)
class Citation:
    """One source a web-search turn cited: its URL, title, the text it supports and the
    publication age the search result gave, each as the provider sent it."""

    url: str
    title: str | None = None
    text: str | None = None
    page_age: str | None = None
