"""What the audit reports: a finding at a place in the article, as a sentence and as JSON.

Each kind of finding (a number no fact gives, a number beside the wrong quantity, a word of
the tool) is a ``Located`` with its own sentence; the job lists every finding's sentence in
its ``warnings`` and every JSON in its ``audit``. No I/O here.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar, Protocol


class Finding(Protocol):
    """One thing the audit found: a sentence for the job's warnings, JSON for its audit."""

    def as_json(self) -> dict[str, object]: ...

    def sentence(self) -> str: ...


@dataclass(frozen=True, slots=True)
class Located:
    """A finding's text and where it stands: line and column (from 1), and offset (from 0)."""

    kind: ClassVar[str] = "located"

    text: str
    line: int
    column: int
    offset: int

    def as_json(self) -> dict[str, object]:
        place = {"text": self.text, "line": self.line, "column": self.column}
        return {"kind": self.kind, **place, "offset": self.offset, **self.details()}

    def details(self) -> dict[str, object]:
        """What a kind adds to the JSON beside its place."""
        return {}

    def sentence(self) -> str:
        raise NotImplementedError


def locator(text: str) -> Callable[[int], tuple[int, int]]:
    """The (line, column) of an offset in ``text``, both from 1."""
    starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def locate(offset: int) -> tuple[int, int]:
        line = bisect_left(starts, offset + 1)
        return line, offset - starts[line - 1] + 1

    return locate
