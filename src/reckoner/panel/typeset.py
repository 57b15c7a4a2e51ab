"""The panel's formula typesetting: the record detail's ``{seq: latex}`` map.

The tree-walk itself lives in ``reckoner.articles.mathtex``, shared with the article writers,
so a formula reads the same in the panel and in a generated article.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from reckoner.articles.mathtex import formula_latex, identifier, to_latex

__all__ = ["formula_latex", "identifier", "to_latex", "typeset_rows"]


def typeset_rows(rows: Iterable[Mapping[str, Any]]) -> dict[str, str]:
    """``{seq: latex}`` for every accepted eval row whose formula parses."""
    out: dict[str, str] = {}
    for row in rows:
        if row.get("tool") != "eval" or row.get("ok") is not True:
            continue
        content = row.get("content")
        if not isinstance(content, dict):
            continue
        formula = content.get("formula")
        if isinstance(formula, str):
            latex = formula_latex(formula)
            if latex is not None:
                out[str(row.get("seq"))] = latex
    return out
