"""A `search` row as an article fact (docs/guide/articles.md and docs/guide/lookup.md). Pure.

Ready for the article writer's row readers: an answered lookup becomes its own entry with the
question, the answer verbatim (never cut to the article's four decimals: it carries the number
as its source wrote it), one line per source the answer relied on, and whether it came from
the open web and is unverified. A lookup that answered nothing carries no fact.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class SourceLine:
    """One source the answer relied on."""

    url: str
    title: str | None
    published_at: str | None

    def line(self) -> str:
        """The source as one line an article credits: ``title, date <url>``."""
        head = ", ".join(part for part in (self.title, self.published_at) if part)
        return f"{head} <{self.url}>" if head else f"<{self.url}>"


@dataclass(frozen=True, slots=True)
class LookupFact:
    """An answered lookup, as the article writer receives it."""

    seq: int
    question: str
    answer: str
    sources: tuple[SourceLine, ...]
    open_web: bool  # looked up on the open web and not verified: quote it, credit it


def lookup_fact(seq: int, content: Mapping[str, Any]) -> LookupFact | None:
    """The fact of one `search` row's content, or None when it answered nothing."""
    synthesis = content.get("synthesis")
    if content.get("outcome") != "answered" or not isinstance(synthesis, Mapping):
        return None
    question, answer = content.get("question"), synthesis.get("answer")
    if not isinstance(question, str) or not isinstance(answer, str):
        return None
    used = content.get("used")
    used = used if isinstance(used, list) else []
    indices = synthesis.get("used")
    relied: list[Any] = [
        used[i]
        for i in (indices if isinstance(indices, list) else [])
        if type(i) is int and 0 <= i < len(used)
    ]
    sources = tuple(
        SourceLine(
            str(source["url"]),
            source.get("title") if isinstance(source.get("title"), str) else None,
            source.get("publishedAt") if isinstance(source.get("publishedAt"), str) else None,
        )
        for source in relied
        if isinstance(source, Mapping) and isinstance(source.get("url"), str)
    )
    return LookupFact(seq, question, answer, sources, content.get("tier") == "open")
