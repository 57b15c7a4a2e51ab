"""The search tool (docs/guide/lookup.md): one question, forwarded verbatim to the lookup."""

from __future__ import annotations

from .limits import (
    MAX_QUESTION_LENGTH,
)
from .presets import SEARCH_AND_COMPUTE_PRESET, SEARCH_PRESET
from .tools import Argument, Null, Tool

SEARCH_TOOL = Tool(
    "search",
    True,
    (
        Argument(
            "question",
            True,
            Null.REFUSED,
            {"type": "string", "minLength": 1, "maxLength": MAX_QUESTION_LENGTH},
            "The one fact you need, asked as a question in one sentence "
            "('What is the density of copper at 20 degC?'). Forwarded verbatim. Never ask "
            "the lookup to compute, convert, round or derive anything.",
        ),
    ),
    (SEARCH_PRESET, SEARCH_AND_COMPUTE_PRESET),
)
