"""The failure codes of the tools a preset adds, beside the engine's 19 (core/errors.py).

The engine's enum stays the 19 codes of its own six tools: a preset tool's codes are only
ever answered by a server that mounts that preset. A preset tool also answers the engine's
ENGINE_OPEN_RECORD_NOT_FOUND and ENGINE_INVALID_ARGS, which keep their meaning.
"""

from __future__ import annotations

from enum import StrEnum

from .errors import ErrorCode


class SearchCode(StrEnum):
    """The codes `search` answers besides the engine's own (manual 12.6)."""

    INSUFFICIENT = "SEARCH_INSUFFICIENT"
    BUDGET_EXCEEDED = "SEARCH_BUDGET_EXCEEDED"
    UNAVAILABLE = "SEARCH_UNAVAILABLE"


SEARCH_RAISED_WHEN: dict[str, str] = {
    SearchCode.INSUFFICIENT: (
        "no source the policy allowed holds the fact, or the extractive step answered insufficient"
    ),
    SearchCode.BUDGET_EXCEEDED: (
        "the record has spent its maxSearchesPerRecord lookups; the provider is never called"
    ),
    SearchCode.UNAVAILABLE: (
        "the provider, the network or the extractive model failed, the lookup reached its "
        "deadlineSeconds or was cancelled, or no provider is configured"
    ),
    ErrorCode.OPEN_RECORD_NOT_FOUND: "no record is open; a lookup is recorded, so it needs one",
}
"""The four codes of manual 12.6, in its order, with when each is answered."""

PRESET_CODES: dict[str, tuple[str, ...]] = {"search": tuple(SEARCH_RAISED_WHEN)}
"""Each preset tool's failure codes (ENGINE_INVALID_ARGS aside, which every tool answers)."""
