"""An article's language (reckoner.articles.language): auto reads the record's own prose
(docs/guide/articles.md)."""

from __future__ import annotations

import pytest
from article_helpers import HAND_ID, hand_rows

from reckoner.articles.fact_model import ArticleRefusal
from reckoner.articles.facts import collect_facts
from reckoner.articles.language import resolve_language


def test_language_auto_probes_the_records_own_prose_for_cjk() -> None:
    """Spec: docs/guide/articles.md (article generation)."""
    facts = collect_facts(HAND_ID, hand_rows(), is_open=False)
    assert resolve_language("auto", facts) == "en"
    assert resolve_language("zh-CN", facts) == "zh-CN"
    rows = hand_rows()
    rows[2]["content"]["text"] = "电阻在 25 摄氏度"
    assert resolve_language("auto", collect_facts(HAND_ID, rows, is_open=False)) == "zh-CN"
    with pytest.raises(ArticleRefusal, match="not one of auto, en or zh-CN"):
        resolve_language("fr", facts)
