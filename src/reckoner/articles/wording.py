"""The tool's words in a model's article (issue 23): the reader gets a solution, not a trace.

An article presents the problem's quantities and relations; the words of the engine that
kept them (its name, its record, its slots, its formulas, its derivation steps) say how the
article was made, which is no part of the solution. The list is one per language and the
decision behind it is ``docs/decisions/article-audit.md``'s. Words inside code type (a
receipt id or path a footnote cites) are not prose and are not searched. No I/O here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar

from reckoner.articles.findings import Located, locator

TOOL_WORDS_EN = ("reckoner", "record", "slot", "formula", "derivation step")
# Chinese: the record (记录), a slot (槽, 槽位), a formula (公式) and a derivation step
# (推导步骤), plus the engine the tool is (计算引擎). 记录 also means "to note down"; an
# article has no need of either sense.
TOOL_WORDS_ZH = ("记录", "槽位", "槽", "公式", "推导步骤", "计算引擎")

# English words whole and with their plurals (records, slots, formulas, formulae); Chinese
# has no word boundaries, so its words are found anywhere.
_WORDS = re.compile(
    r"\b(?:reckoner\w*|records?|slots?|formula[se]?|derivation\s+steps?)\b"
    r"|" + "|".join(re.escape(word) for word in TOOL_WORDS_ZH),
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class ToolWord(Located):
    """A word of the tool in the article's prose."""

    kind: ClassVar[str] = "toolWord"

    def sentence(self) -> str:
        return (
            f"line {self.line}, column {self.column}: the article says {self.text!r}, a word "
            "of the tool that kept the calculation, not of the solution; name the quantity, "
            "the given value or the equation instead"
        )


def tool_words(text: str) -> list[ToolWord]:
    """Every tool word in ``text``, in order, with its line and column."""
    locate = locator(text)
    return [
        ToolWord(match.group(0), *locate(match.start()), match.start())
        for match in _WORDS.finditer(text)
    ]
