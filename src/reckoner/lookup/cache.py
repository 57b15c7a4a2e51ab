"""The home-wide cache of answered lookups: the one module that reads and writes its file.

One JSON file in the home (``HomeLayout.lookup_cache_file``), read and replaced whole through
``reckoner.host.files`` under a lock beside it, so two engines of one home (lanes, a shared
record) never lose each other's entries. An entry is keyed by the normalised question and
the policy keys that shape an answer, and lives ``cacheDays`` from the time it was answered.
The file is bounded (entries and bytes, the oldest dropped first); a file that is not the
expected JSON is ignored and rewritten by the next answered lookup, never fatal.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import unicodedata
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from reckoner.host.files import Folder
from reckoner.storage.home import HomeLayout

from .policy import CACHE_DAYS_BOUNDS, Policy

MAX_ENTRIES = 1000
"""Answered lookups kept; the oldest go first."""
MAX_BYTES = 8 * 1024 * 1024
"""The file's size bound: reads stop there, and a write drops the oldest entries to fit."""
VERSION = 1
_LOCK = ".lookup-cache.lock"
_ORIGINS = ("github", "allowlist", "web")

_UNSHAPING = frozenset({"maxSearchesPerRecord", "deadlineSeconds", "cacheDays"})
"""Policy keys that do not change what a lookup answers (its budget, its time, the cache's
own life), so they are left out of the key: changing them keeps the cache."""


def normalised(question: str) -> str:
    """The question as the key reads it: case folded, spaces collapsed, punctuation and
    spaces at the ends removed ("What is X?" and "what is  x" are one question)."""
    text = " ".join(question.casefold().split())
    start, end = 0, len(text)
    while start < end and _edge(text[start]):
        start += 1
    while end > start and _edge(text[end - 1]):
        end -= 1
    return text[start:end]


def _edge(char: str) -> bool:
    return char.isspace() or unicodedata.category(char).startswith("P")


def key(question: str, policy: Policy) -> str:
    """The entry's key: a digest of the normalised question and the answer-shaping policy."""
    shaping = {k: v for k, v in policy.row().items() if k not in _UNSHAPING}
    shaping["synthesis"] = [
        policy.synthesis_provider,
        policy.synthesis_model,
        policy.synthesis_max_tokens,
    ]
    text = json.dumps([normalised(question), shaping], sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _usable(entry: Any) -> bool:
    """An entry a hit can be written from (anything else in the file is skipped)."""
    if not isinstance(entry, dict):
        return False
    receipt, synthesis = entry.get("receipt"), entry.get("synthesis")
    return (
        isinstance(entry.get("answeredAt"), str)
        and isinstance(entry.get("candidates"), list)
        and isinstance(entry.get("used"), list)
        and isinstance(synthesis, dict)
        and isinstance(synthesis.get("answer"), str)
        and isinstance(receipt, dict)
        and isinstance(receipt.get("answer"), str)
        and receipt.get("origin") in _ORIGINS
    )


def _age_days(entry: Mapping[str, Any], now: datetime) -> float | None:
    try:
        answered = datetime.fromisoformat(str(entry["answeredAt"]))
    except ValueError:
        return None
    if answered.tzinfo is None:
        return None
    return (now - answered).total_seconds() / 86400


class LookupCache:
    """The cache file of one home."""

    def __init__(self, layout: HomeLayout) -> None:
        self._path = layout.lookup_cache_file

    def _folder(self) -> Folder:
        return Folder.open(str(self._path.parent), create=True)

    def _entries(self, folder: Folder) -> dict[str, dict[str, Any]]:
        """The file's usable entries by key; {} for a missing, oversized or corrupt file."""
        try:
            tree = json.loads(folder.read(self._path.name, MAX_BYTES + 1))
        except (OSError, ValueError, RecursionError):
            return {}
        entries = tree.get("entries") if isinstance(tree, dict) else None
        if not isinstance(entries, dict):
            return {}
        return {k: v for k, v in entries.items() if isinstance(k, str) and _usable(v)}

    def recall(
        self, question: str, policy: Policy, now: datetime | None = None
    ) -> dict[str, Any] | None:
        """The answered lookup cached for this question and policy and still alive, or None
        (also when the cache is off or its file cannot be read)."""
        if policy.cache_days == 0:
            return None
        moment = now or datetime.now(UTC)
        try:
            with self._folder() as folder:
                entry = self._entries(folder).get(key(question, policy))
        except OSError:
            return None
        if entry is None:
            return None
        age = _age_days(entry, moment)
        return entry if age is not None and 0 <= age < policy.cache_days else None

    def keep(
        self,
        question: str,
        policy: Policy,
        content: Mapping[str, Any],
        receipt: Mapping[str, Any],
        now: datetime | None = None,
    ) -> None:
        """Keep an answered lookup's sources and answer; the expired and the oldest entries
        beyond the bounds go. A cache that cannot be written is skipped, never fatal."""
        if policy.cache_days == 0:
            return
        moment = now or datetime.now(UTC)
        entry = {
            "question": content["question"],
            "answeredAt": moment.isoformat(timespec="seconds"),
            "candidates": content["candidates"],
            "used": content["used"],
            "synthesis": content["synthesis"],
            "receipt": {"answer": receipt["answer"], "origin": receipt["origin"]},
        }
        with contextlib.suppress(OSError), self._folder() as folder:
            lock = folder.lock(_LOCK)
            try:
                entries = self._entries(folder)
                entries.pop(key(question, policy), None)
                entries[key(question, policy)] = entry
                folder.write_atomic(self._path.name, _bounded(entries, moment))
            finally:
                os.close(lock)


def _bounded(entries: dict[str, dict[str, Any]], now: datetime) -> bytes:
    """The file's bytes: entries older than the longest life any policy allows dropped, then
    the oldest until both bounds hold (insertion order is age order)."""
    kept = [
        (k, v)
        for k, v in entries.items()
        if (age := _age_days(v, now)) is not None and age <= CACHE_DAYS_BOUNDS[1]
    ][-MAX_ENTRIES:]
    while True:
        tree = {"version": VERSION, "entries": dict(kept)}
        data = json.dumps(tree, ensure_ascii=False).encode("utf-8")
        if len(data) <= MAX_BYTES or not kept:
            return data
        kept = kept[max(1, len(kept) // 10) :]
