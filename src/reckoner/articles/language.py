"""Which language an article is written in: the one asked for, or the record's own prose's."""

from __future__ import annotations

import re

from reckoner.articles.fact_model import ArticleRefusal, Facts

LANGUAGES = ("auto", "en", "zh-CN")
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002ebef]")


def resolve_language(requested: str, facts: Facts) -> str:
    """``en`` or ``zh-CN``; ``auto`` looks for CJK ideographs in the record's own prose."""
    if requested not in LANGUAGES:
        raise ArticleRefusal(
            f"The language {requested!r} is not one of auto, en or zh-CN; pick one of those."
        )
    if requested != "auto":
        return requested
    return "zh-CN" if any(_CJK.search(text) for text in facts.prose) else "en"
