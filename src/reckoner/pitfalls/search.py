"""Lexical search over lessons (pure): how text is cut into tokens, how a token matches a
field, how an entry scores, and which entries a query returns.

No model, no embeddings: a lesson worded differently is not found, on purpose.
"""

from __future__ import annotations

import heapq
import re
from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache

TYPE_CHECKING = False  # not typing's: the hook loads this module and must start fast
if TYPE_CHECKING:
    from typing import Any

FIELD_WEIGHTS: tuple[tuple[str, int], ...] = (
    ("tags", 6),
    ("title", 5),
    ("area", 3),
    ("symptom", 2),
    ("cause", 2),
    ("solution", 2),
    ("evidence", 1),
)
"""Highest first, so a token's best field is the first that matches it."""

_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
# A word: identifier characters, optionally joined by . or - (node-gyp, 3.11, package.json).
_TOKEN = re.compile(rf"[a-z0-9_]+(?:[.\-][a-z0-9_]+)*|[{_CJK}]+")
_CJK_RUN = re.compile(rf"^[{_CJK}]+$")
WORD_TOKEN = re.compile(r"^[a-z0-9_]+$")
"""A token of identifier characters only: matched on word boundaries, never as a substring."""
MIN_TOKEN = 2
CJK_BIGRAMS_ABOVE = 4

_EN_STOPWORDS = """a an and are as at be been but by can could did do does doing done for from
had has have how i if in into is it its me my no not of on or our so than that the their
them then there these they this those to too up us was we were what when where which while
who why will with would you your yes via also just any all some get got use used using
again still very should must may might please one"""
_ZH_STOPWORDS = """的 了 和 是 在 我 你 他 她 它 们 这 那 有 也 就 都 而 及 与 或
一个 什么 怎么 怎样
为什么 这个 那个 这些 那些 还是 如何 可以 不能 没有 已经 因为 所以 但是 如果 然后"""
STOPWORDS = frozenset(_EN_STOPWORDS.split()) | frozenset(_ZH_STOPWORDS.split())


def tokenize(text: str) -> list[str]:
    """Informative tokens, in order, each once.

    Words and numbers of at least 2 characters minus stopwords; a CJK run is one whole
    token (so an exact phrase ranks first) plus its 2-grams when longer than 4 characters
    (so 上传失败 still finds 文件上传失败).
    """
    tokens: dict[str, None] = {}
    for match in _TOKEN.finditer(text.lower()):
        piece = match.group()
        if len(piece) < MIN_TOKEN or piece in STOPWORDS:
            continue
        tokens[piece] = None
        if len(piece) > CJK_BIGRAMS_ABOVE and _CJK_RUN.match(piece):
            for i in range(len(piece) - 1):
                gram = piece[i : i + 2]
                if gram not in STOPWORDS:
                    tokens[gram] = None
    return list(tokens)


@lru_cache(maxsize=4096)
def _word_pattern(token: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![a-z0-9_]){re.escape(token)}(?![a-z0-9_])")


def matches_token(token: str, text: str) -> bool:
    """Whether a token occurs in lowercased text.

    An identifier-only token must stand on word boundaries (``no`` never matches
    ``node``: a false hit would hand the model another lesson's fix); anything else (CJK,
    ``node-gyp``, ``3.11``) matches as a substring.
    """
    if token not in text:
        return False
    if WORD_TOKEN.match(token) is None:
        return True
    return _word_pattern(token).search(text) is not None


class Prepared:
    """One entry with its fields lowercased once, for repeated scoring."""

    __slots__ = ("entry", "everything", "fields", "tags")

    def __init__(
        self,
        entry: dict[str, Any],
        fields: tuple[tuple[str, int], ...],  # (lowercased text, weight), highest first
        everything: str,
        tags: frozenset[str],
    ) -> None:
        self.entry = entry
        self.fields = fields
        self.everything = everything
        self.tags = tags


def prepare(entry: dict[str, Any]) -> Prepared:
    fields: list[tuple[str, int]] = []
    for key, weight in FIELD_WEIGHTS:
        value = entry.get(key)
        text = "\n".join(value) if isinstance(value, list) else str(value or "")
        fields.append((text.lower(), weight))
    tags = entry.get("tags")
    return Prepared(
        entry,
        tuple(fields),
        "\n".join(text for text, _ in fields),
        frozenset(t.lower() for t in tags) if isinstance(tags, list) else frozenset(),
    )


def score_entry(tokens: Sequence[str], prepared: Prepared) -> float:
    """Σ (each token's best field weight) × (1 + covered tokens / all tokens); 0 if none."""
    if not tokens:
        return 0.0
    total = 0
    covered = 0
    for token in tokens:
        if token not in prepared.everything:  # the common miss, decided in C
            continue
        for text, weight in prepared.fields:
            if matches_token(token, text):
                total += weight
                covered += 1
                break
    if total == 0:
        return 0.0
    return total * (1 + covered / len(tokens))


def _updated(prepared: Prepared) -> str:
    return str(prepared.entry.get("updated") or prepared.entry.get("created") or "")


_IDENTIFIER_RUN = re.compile(r"[a-z0-9_]+")


class SearchIndex:
    """Entries with an inverted index of their identifier words, for fast repeated search.

    An identifier-only token matches a field on word boundaries exactly when it is one of
    the field's maximal runs of identifier characters, so from the second search on those
    tokens are looked up in the index (the best field weight per entry, built once)
    instead of scanning every entry; other tokens (CJK, ``node-gyp``) always scan with
    ``matches_token``.
    """

    def __init__(self, entries: Iterable[Prepared]) -> None:
        self.entries = list(entries)
        self._postings: dict[str, dict[int, int]] | None = None
        self._searches = 0

    def _built_postings(self) -> dict[str, dict[int, int]]:
        if self._postings is None:
            postings: dict[str, dict[int, int]] = {}
            for position, prepared in enumerate(self.entries):
                for text, weight in prepared.fields:  # highest weight first: the first wins
                    for word in set(_IDENTIFIER_RUN.findall(text)):
                        postings.setdefault(word, {}).setdefault(position, weight)
            self._postings = postings
        return self._postings

    def _weights(self, token: str, allowed: set[int] | None) -> dict[int, int]:
        # The index pays off from the second search on; a one-shot search (the hook) scans.
        if self._searches > 1 and WORD_TOKEN.match(token) is not None:
            found = self._built_postings().get(token, {})
            if allowed is None:
                return found
            return {i: w for i, w in found.items() if i in allowed}
        weights: dict[int, int] = {}
        for position, prepared in enumerate(self.entries):
            if (allowed is not None and position not in allowed) or (
                token not in prepared.everything
            ):
                continue
            for text, weight in prepared.fields:
                if matches_token(token, text):
                    weights[position] = weight
                    break
        return weights

    def search(
        self,
        query: str,
        *,
        tag: str | None = None,
        limit: int = 5,
        keep: Callable[[dict[str, Any]], bool] | None = None,
    ) -> list[tuple[dict[str, Any], float]]:
        """The entries a query returns, best first, with their scores.

        A tag filter is exact and comes before scoring (so is ``keep``); an empty query
        lists the most recent (score 0); a query with no informative token returns
        nothing, never everything; a score of 0 is dropped.
        """
        allowed: set[int] | None = None
        if (tag is not None and tag.strip()) or keep is not None:
            wanted = " ".join(tag.split()).lower() if tag is not None and tag.strip() else None
            allowed = {
                i
                for i, p in enumerate(self.entries)
                if (wanted is None or wanted in p.tags) and (keep is None or keep(p.entry))
            }
        if not query.strip():
            pool = self.entries if allowed is None else [self.entries[i] for i in sorted(allowed)]
            recent = heapq.nlargest(limit, pool, key=_updated)
            return [(p.entry, 0.0) for p in recent]
        tokens = tokenize(query)
        if not tokens:
            return []
        self._searches += 1
        totals: dict[int, list[int]] = {}
        for token in tokens:
            for position, weight in self._weights(token, allowed).items():
                seen = totals.get(position)
                if seen is None:
                    totals[position] = [weight, 1]
                else:
                    seen[0] += weight
                    seen[1] += 1
        count = len(tokens)
        scored = [
            (total * (1 + covered / count), _updated(self.entries[i]), i)
            for i, (total, covered) in totals.items()
        ]
        best = heapq.nlargest(limit, scored)
        return [(self.entries[i].entry, score) for score, _, i in best]


def search(
    entries: Iterable[Prepared], query: str, *, tag: str | None = None, limit: int = 5
) -> list[tuple[dict[str, Any], float]]:
    """``SearchIndex(entries).search(...)``, for a one-off search."""
    return SearchIndex(entries).search(query, tag=tag, limit=limit)
