"""What a provider call answers, as plain values both callers read (no SDK types leak out)."""

from __future__ import annotations

from dataclasses import dataclass

Turn = tuple[str, str]
"""One message of a conversation: ("user" or "assistant", its text)."""


@dataclass(frozen=True, slots=True)
class Usage:
    """What a provider reported one or more requests cost: tokens in and out, and the web
    searches its server-side tool ran (None when the API reports no count)."""

    input_tokens: int = 0
    output_tokens: int = 0
    web_search_requests: int | None = None

    def plus(self, other: Usage) -> Usage:
        """The two summed; a search count known on either side is kept."""
        searches = [
            n for n in (self.web_search_requests, other.web_search_requests) if n is not None
        ]
        return Usage(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            sum(searches) if searches else None,
        )

    def row(self) -> dict[str, int]:
        """The usage as a row keeps it."""
        kept = {"inputTokens": self.input_tokens, "outputTokens": self.output_tokens}
        if self.web_search_requests is not None:
            kept["webSearchRequests"] = self.web_search_requests
        return kept


@dataclass(frozen=True, slots=True)
class Reply:
    """A model's text; ``cut_off`` when it stopped at its output-token limit, unfinished;
    the usage the provider reported, when it did."""

    text: str
    cut_off: bool = False
    usage: Usage | None = None


@dataclass(frozen=True, slots=True)
class Citation:
    """One source a web-search turn cited: its URL, title, the text it supports and the
    publication age the search result gave, each as the provider sent it."""

    url: str
    title: str | None = None
    text: str | None = None
    page_age: str | None = None


@dataclass(frozen=True, slots=True)
class Searched:
    """A web-search turn's citations, in first-cited order (repeats kept), and its usage."""

    citations: list[Citation]
    usage: Usage | None = None
