"""One lookup from question to row (docs/guide/lookup.md): retrieval, policy, enrich, extraction.

Pure orchestration: the providers and the page fetcher are handed in, so the pipeline
itself touches nothing outside. It answers the receipt the model receives and the content
of the one `search` row; the model's receipt never carries a URL, a query or a snippet.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Protocol, TypeVar

from reckoner.contract.codes import SearchCode

from . import extraction, grounding
from .policy import GITHUB_HOSTS, Policy, host_matches
from .providers import (
    Candidate,
    NotConfigured,
    PageSkipped,
    Provider,
    ProviderFailure,
    Stopped,
    Usage,
)
from .urls import UrlRefused, WebUrl, parse

T = TypeVar("T")

MAX_RAW_REPLY = 20_000
"""Characters of an unreadable extractive reply the row keeps."""

ProviderFor = Callable[[str | None], Provider]
"""The provider for a name (None: the configured default); raises NotConfigured."""


class Waits(Protocol):
    """The lookup's time and its call's cancellation (lookup.deadline): every provider turn
    and page fetch is run through ``run``, which raises Stopped at a cancel or the deadline."""

    def check(self, during: str) -> None:
        """Stopped when the call was cancelled or the time is up."""
        ...

    def run(self, during: str, work: Callable[[float], T]) -> T:
        """``work(seconds_left)``'s answer, unless the call stops first (Stopped)."""
        ...

    def report(self, message: str) -> None:
        """One progress report to the call's client."""
        ...


class PageReader(Protocol):
    """Fetches an allowed page's main text from its parsed URL (lookup.pages)."""

    def text(self, url: WebUrl, chars: int, within: float | None = None) -> str:
        """The page's main text cut to ``chars``, fetched within ``within`` seconds (and the
        fetcher's own page limit); PageSkipped when there is none."""
        ...


@dataclass(frozen=True, slots=True)
class Cited:
    """One cited source as the lookup read it: the candidate carries the canonical URL
    when lookup.urls read one, else the provider's text and the sentence why it was
    skipped."""

    candidate: Candidate
    url: WebUrl | None
    skipped: str | None = None

    def row(self) -> dict[str, Any]:
        kept = self.candidate.row()
        if self.skipped is not None:
            kept["skipped"] = self.skipped
        return kept


def read_citation(candidate: Candidate) -> Cited:
    """The citation parsed once; a URL the parser refuses is a skipped source, not a fault."""
    try:
        url = parse(candidate.url)
    except UrlRefused as why:
        return Cited(candidate, None, f"{why}; the source was skipped")
    return Cited(replace(candidate, url=url.text), url)


@dataclass(slots=True)
class Outcome:
    """A finished lookup: whether the row is ok, the receipt, the row content, log notes."""

    ok: bool
    receipt: dict[str, Any]
    content: dict[str, Any]
    notes: list[str] = field(default_factory=list)


def spent(earlier: list[dict[str, Any]]) -> int:
    """Lookups this record has carried: every `search` row that ran, refused ones aside and
    those that asked no provider (``"spent": false``: an empty allow-list, a cache hit)."""
    return sum(
        1
        for row in earlier
        if isinstance(row.get("outcome"), str)
        and row["outcome"] != "refused"
        and row.get("spent") is not False
    )


def origin_of(policy: Policy, relied_on: list[WebUrl]) -> str:
    """github when every source relied on is a GitHub host, else the tier's class."""
    hosts = [url.host for url in relied_on]
    if hosts and all(any(host_matches(h, g) for g in GITHUB_HOSTS) for h in hosts):
        return "github"
    return "allowlist" if policy.tier == "strict" else "web"


class _Lookup:
    def __init__(self, question: str, policy: Policy, clock: Callable[[], float]) -> None:
        self.question = question
        self.policy = policy
        self.clock = clock
        self.started = clock()
        self.candidates: list[Cited] = []
        self.used: list[tuple[Candidate, WebUrl]] = []
        self.synthesis: dict[str, Any] | None = None
        self.notes: list[str] = []
        self.policy_notes: list[str] = []
        self.spent = True  # False when no provider was asked, so the budget is not charged
        self.usage: Usage | None = None  # summed over the turns whose provider reported it
        self.cached_at: str | None = None  # when the answer a cache hit reused was answered

    def count(self, usage: Usage | None) -> None:
        if usage is not None:
            self.usage = usage if self.usage is None else self.usage.plus(usage)

    def content(self, outcome: str, error: str | None, code: str | None) -> dict[str, Any]:
        row: dict[str, Any] = {
            "question": self.question,
            "tier": self.policy.tier,
            "outcome": outcome,
            "candidates": [c.row() for c in self.candidates],
            "used": [c.row() for c, _ in self.used],
            "policy": self.policy.row(),
        }
        if self.synthesis is not None:
            row["synthesis"] = self.synthesis
        if self.usage is not None:
            row["usage"] = self.usage.row()
        if self.cached_at is not None:
            row["cached"] = True
            row["answeredAt"] = self.cached_at
        if self.policy_notes:
            row["policyNotes"] = list(self.policy_notes)
        if not self.spent:
            row["spent"] = False
        if error is not None:
            row["error"] = error
            row["code"] = code
        row["durationMs"] = max(0, round((self.clock() - self.started) * 1000))
        return row

    def fail(self, outcome: str, code: SearchCode, error: str) -> Outcome:
        return Outcome(
            False,
            {"ok": False, "code": code.value, "error": error},
            self.content(outcome, error, code.value),
            self.notes,
        )


@dataclass(frozen=True, slots=True)
class Request:
    """One lookup asked of the pipeline, with what its record already holds.

    ``earlier`` are the record's earlier search rows and ``pending`` the lookups of it still
    running (both count against the budget); ``policy_notes`` are the values the policy's
    resolution dropped, kept in the row; ``recall`` answers the cached lookup of this
    question and policy (lookup.cache), which a hit reuses without asking a provider."""

    question: str
    policy: Policy
    earlier: list[dict[str, Any]]
    pending: int
    policy_notes: tuple[str, ...] = ()
    recall: Callable[[], Mapping[str, Any] | None] | None = None


@dataclass(frozen=True, slots=True)
class Means:
    """What a lookup works with: its providers, its waits, its page reader and its clock.

    ``waits`` ends the lookup at its deadline (``policy.deadline_s``) and when its call is
    cancelled; either way its row is ``failed`` and carries no answer."""

    provider_for: ProviderFor
    waits: Waits
    fetcher: Callable[[Policy], PageReader] | None = None
    clock: Callable[[], float] = time.monotonic


class _Ended(Exception):
    """A phase of the lookup ended it: ``outcome`` is its row and receipt."""

    def __init__(self, outcome: Outcome) -> None:
        super().__init__(outcome.receipt.get("error"))
        self.outcome = outcome


def run(request: Request, means: Means) -> Outcome:
    """Run one lookup; never raises for a provider, page or reply fault."""
    lookup = _Lookup(request.question, request.policy, means.clock)
    lookup.policy_notes = list(request.policy_notes)
    try:
        _check_budget(lookup, request)
        hit = request.recall() if request.recall is not None else None
        if hit is not None:
            return _reuse(lookup, hit)
        return _look_up(lookup, means)
    except _Ended as ended:
        return ended.outcome
    except Stopped as why:
        if lookup.synthesis is not None:
            lookup.synthesis["answer"] = None
            lookup.synthesis["used"] = []
        fix = (
            "continue without this value"
            if why.cancelled
            else "continue without this value, or raise search.deadlineSeconds in the search "
            "policy and ask again"
        )
        return lookup.fail(
            "failed", SearchCode.UNAVAILABLE, f"{why}; nothing was answered, so {fix}"
        )


def _check_budget(lookup: _Lookup, request: Request) -> None:
    """End the lookup before any provider is asked when no source could be used or the
    record has spent its lookups."""
    policy = request.policy
    if policy.tier == "strict" and not policy.allowed_hosts:
        # No source could be used, so asking the provider would only spend a lookup.
        lookup.spent = False
        raise _Ended(
            lookup.fail(
                "insufficient",
                SearchCode.INSUFFICIENT,
                "no allowed source holds this fact: the strict policy's allowedHosts is empty, "
                "so nothing was looked up; say which relation cannot be evaluated without it "
                "and stop, rather than estimate it",
            )
        )
    carried = spent(request.earlier) + request.pending
    if carried >= policy.max_searches_per_record:
        raise _Ended(
            lookup.fail(
                "refused",
                SearchCode.BUDGET_EXCEEDED,
                f"this record has spent its {policy.max_searches_per_record} lookup(s) "
                f"(maxSearchesPerRecord), so nothing was looked up; continue with what the "
                f"record holds, or say which quantity is missing",
            )
        )


def _reuse(lookup: _Lookup, hit: Mapping[str, Any]) -> Outcome:
    """The row and receipt of a cache hit: the original sources, answer and date."""
    lookup.candidates = []
    lookup.synthesis = dict(hit["synthesis"])
    lookup.cached_at = str(hit["answeredAt"])
    content = lookup.content("answered", None, None)
    content["candidates"] = list(hit["candidates"])
    content["used"] = list(hit["used"])
    receipt = {"ok": True, "answer": hit["receipt"]["answer"], "origin": hit["receipt"]["origin"]}
    lookup.notes.append(f"lookup answered from the home's cache (answered {lookup.cached_at})")
    return Outcome(True, receipt, content, lookup.notes)


def _look_up(lookup: _Lookup, means: Means) -> Outcome:
    """Search, keep the allowed sources, read their pages, extract, and judge the answer."""
    _search(lookup, means)
    material = _material(lookup, means.waits, means.fetcher)
    reply = _extract(lookup, means, material)
    return _judge(lookup, reply, material)


def _search(lookup: _Lookup, means: Means) -> None:
    """The provider's search turn: the cited candidates and the allowed ones among them."""
    question, policy, waits = lookup.question, lookup.policy, means.waits
    try:
        provider = means.provider_for(None)
    except (NotConfigured, ProviderFailure) as why:  # no key, or the search extra missing
        raise _Ended(
            lookup.fail(
                "failed",
                SearchCode.UNAVAILABLE,
                f"the lookup is unavailable: {why}; nothing was looked up",
            )
        ) from why
    waits.report("lookup: the provider's search turn")
    try:
        turn = waits.run(
            "the provider's search turn",
            lambda left: provider.search(question, policy.max_results, left),
        )
        lookup.count(turn.usage)
        cited = turn.candidates[: policy.max_results]
        lookup.candidates = [read_citation(c.trimmed()) for c in cited]
    except ProviderFailure as why:
        raise _Ended(
            lookup.fail(
                "failed",
                SearchCode.UNAVAILABLE,
                f"the lookup could not run: {why}; nothing was answered, so continue without "
                f"this value or ask again later",
            )
        ) from why
    for source in lookup.candidates:
        if source.skipped is not None:
            lookup.notes.append(f"source skipped: {source.skipped}")
    lookup.used = [
        (c.candidate, c.url)
        for c in lookup.candidates
        if c.url is not None and policy.allows(c.url)
    ]
    if not lookup.used:
        found = len(lookup.candidates)
        reason = (
            "the search cited no source"
            if found == 0
            else f"none of the {found} source(s) it cited is one the {policy.tier} policy allows"
        )
        raise _Ended(
            lookup.fail(
                "insufficient",
                SearchCode.INSUFFICIENT,
                f"no allowed source holds this fact: {reason}; say which relation cannot be "
                f"evaluated without it and stop, rather than estimate it",
            )
        )


def _extract(lookup: _Lookup, means: Means, material: list[extraction.Material]) -> str:
    """The extractive model's reply to the question over the material."""
    policy, waits = lookup.policy, means.waits
    try:
        synthesizer = means.provider_for(policy.synthesis_provider)
    except (NotConfigured, ProviderFailure) as why:
        raise _Ended(
            lookup.fail(
                "failed",
                SearchCode.UNAVAILABLE,
                f"the extractive step is unavailable: {why}; nothing was answered",
            )
        ) from why
    model = policy.synthesis_model or synthesizer.model
    lookup.synthesis = {
        "provider": synthesizer.name,
        "model": model,
        "promptVersion": extraction.PROMPT_VERSION,
        "answer": None,
        "used": [],
    }
    waits.report("lookup: the extraction")
    try:
        reply = waits.run(
            "the extraction",
            lambda left: synthesizer.complete(
                extraction.SYSTEM_PROMPT,
                extraction.user_message(lookup.question, material),
                model,
                policy.synthesis_max_tokens,
                left,
            ),
        )
    except ProviderFailure as why:
        raise _Ended(
            lookup.fail(
                "failed",
                SearchCode.UNAVAILABLE,
                f"the extractive step could not run: {why}; nothing was answered",
            )
        ) from why
    lookup.count(reply.usage)
    # A cancel that came while the reply was on its way still wins: its client is gone.
    waits.check("the extraction")
    return reply.text


def _judge(lookup: _Lookup, reply: str, material: list[extraction.Material]) -> Outcome:
    """The answer if the reply is one, states a fact and holds only the sources' numbers."""
    policy, synthesis = lookup.policy, lookup.synthesis
    assert synthesis is not None  # set by _extract
    try:
        read = extraction.read_reply(reply, len(material))
    except extraction.UnreadableReply as why:
        synthesis["raw"] = reply[:MAX_RAW_REPLY]
        return lookup.fail(
            "failed",
            SearchCode.UNAVAILABLE,
            f"the lookup failed: {why}, so it is not an answer; continue without this value "
            f"or ask again",
        )
    synthesis["used"] = list(read.used)
    if read.insufficient:
        return lookup.fail(
            "insufficient",
            SearchCode.INSUFFICIENT,
            f"the {len(material)} allowed source(s) do not state this fact; say which relation "
            f"cannot be evaluated without it and stop, rather than estimate it",
        )
    answer = extraction.cut(read.answer, policy.answer_max_chars)
    missing = grounding.unsupported(answer, _texts(material))
    if missing:
        # A number the material does not hold was computed, converted or recalled: the
        # model gets the insufficient sentence, the row keeps what was refused and why.
        synthesis["refusedAnswer"] = answer
        synthesis["unsupportedNumbers"] = missing
        lookup.notes.append(
            f"answer refused: its number(s) {', '.join(missing)} appear in none of the "
            f"{len(material)} allowed source(s) the extractive step was given"
        )
        return lookup.fail(
            "insufficient",
            SearchCode.INSUFFICIENT,
            f"the {len(material)} allowed source(s) do not state this fact as the answer gave "
            f"it; say which relation cannot be evaluated without it and stop, rather than "
            f"estimate it",
        )
    synthesis["answer"] = answer
    relied_on = [lookup.used[i][1] for i in read.used]
    receipt = {"ok": True, "answer": answer, "origin": origin_of(policy, relied_on)}
    return Outcome(True, receipt, lookup.content("answered", None, None), lookup.notes)


def _material(
    lookup: _Lookup, deadline: Waits, fetcher: Callable[[Policy], PageReader] | None
) -> list[extraction.Material]:
    policy = lookup.policy
    pages: dict[int, str] = {}
    if policy.enrich_pages > 0 and fetcher is not None:
        fetch = fetcher(policy)
        chosen = lookup.used[: policy.enrich_pages]
        for index, (_, url) in enumerate(chosen):
            # Each page may take its share of the time left, the extraction keeping one share.
            shares = len(chosen) - index + 1

            def page(left: float, url: WebUrl = url, shares: int = shares) -> str:
                return fetch.text(url, policy.enrich_chars_per_page, left / shares)

            try:
                pages[index] = deadline.run(f"the fetch of page {index + 1} of {len(chosen)}", page)
            except PageSkipped as why:
                lookup.notes.append(f"page not enriched: {why}")
            deadline.report(f"lookup: fetched page {index + 1} of {len(chosen)}")
    return [
        extraction.Material(c.url, c.title, c.snippet, pages.get(i))
        for i, (c, _) in enumerate(lookup.used)
    ]


def _texts(material: list[extraction.Material]) -> list[str]:
    """What the extractive step read of each item: its title, snippet and page text."""
    return [
        text for item in material for text in (item.title, item.snippet, item.page_text) if text
    ]


def unexpected(question: str, policy: Policy, kind: str) -> Outcome:
    """The row and receipt of a lookup a fault nobody foresaw ended (the server keeps serving)."""
    return _Lookup(question, policy, time.monotonic).fail(
        "failed",
        SearchCode.UNAVAILABLE,
        f"the lookup failed on an unexpected {kind} in the provider's reply; nothing was "
        f"answered, so continue without this value or ask again later",
    )
