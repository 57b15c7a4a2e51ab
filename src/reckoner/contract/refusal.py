"""A refused call, for every tool family: a code, the one sentence, and what else it carries.

The engine's, search's, compute's and the pitfalls memory's codes all travel in this one
type; a surface raises it where it refuses and turns it into the receipt at its edge.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any


class Refusal(Exception):
    """A call refused with ``code`` (of any family) and ``sentence``; ``extra`` are the fields
    the receipt carries after them (compute's ``next``, evidence fields), in order."""

    def __init__(self, code: StrEnum, sentence: str, **extra: Any) -> None:
        super().__init__(sentence)
        self.code = code
        self.sentence = sentence
        self.extra = extra

    def receipt(self) -> dict[str, Any]:
        """``{"ok": false, "code", "error", ...extra}``: the failure receipt of every tool."""
        return {"ok": False, "code": self.code.value, "error": self.sentence, **self.extra}
