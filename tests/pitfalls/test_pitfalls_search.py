"""The spec's search rules one by one (issue 13, "Search"): tokenisation, word boundary
versus substring, the score formula on worked examples, and every filter."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pitfall_helpers import lesson

from reckoner.pitfalls.search import (
    FIELD_WEIGHTS,
    STOPWORDS,
    SearchIndex,
    matches_token,
    prepare,
    score_entry,
    search,
    tokenize,
)


def test_tokenize_english_words_of_two_or_more_minus_stopwords() -> None:
    assert tokenize("The npm install fails with EACCES on a Mac") == [
        "npm",
        "install",
        "fails",
        "eacces",
        "mac",
    ]


def test_tokenize_numbers_and_dotted_or_dashed_words_stay_whole() -> None:
    assert tokenize("python 3.11 and node-gyp 7 x") == ["python", "3.11", "node-gyp"]


def test_tokenize_identifiers_keep_underscores() -> None:
    assert tokenize("ENGINE_INVALID_IDENTIFIER on file_path") == [
        "engine_invalid_identifier",
        "file_path",
    ]


def test_tokenize_a_short_cjk_run_is_one_whole_token() -> None:
    assert tokenize("上传失败") == ["上传失败"]


def test_tokenize_a_cjk_run_longer_than_4_adds_its_2_grams() -> None:
    assert tokenize("文件上传失败") == ["文件上传失败", "文件", "件上", "上传", "传失", "失败"]


def test_tokenize_mixed_chinese_and_english() -> None:
    assert tokenize("npm 安装 报错 EACCES") == ["npm", "安装", "报错", "eacces"]


def test_tokenize_a_single_cjk_character_is_not_a_token() -> None:
    assert tokenize("的 坑") == []


def test_tokenize_only_stopwords_gives_nothing() -> None:
    assert tokenize("what is the of it") == []


def test_word_tokens_match_on_word_boundaries_so_no_never_matches_node() -> None:
    assert not matches_token("no", "node is missing")
    assert matches_token("no", "there is no node")
    assert matches_token("node", "node-gyp failed")
    assert matches_token("gyp", "node-gyp failed")
    assert not matches_token("eval", "evaluate")


def test_other_tokens_match_as_substrings() -> None:
    assert matches_token("上传失败", "文件上传失败了")
    assert matches_token("node-gyp", "rebuild node-gyp@9 failed")
    assert matches_token("3.11", "python3.11 missing")


def test_field_weights_are_the_specs() -> None:
    assert dict(FIELD_WEIGHTS) == {
        "tags": 6,
        "title": 5,
        "area": 3,
        "symptom": 2,
        "cause": 2,
        "solution": 2,
        "evidence": 1,
    }


def test_score_worked_example_best_field_weight_times_coverage() -> None:
    entry = lesson(title="npm install fails with EACCES", tags=["npm"], evidence="permission")
    # npm: tags 6 (beats title 5); eacces: title 5; permission: evidence 1; sudo: none.
    tokens = ["npm", "eacces", "permission", "sudo"]
    assert score_entry(tokens, prepare(entry)) == pytest.approx((6 + 5 + 1) * (1 + 3 / 4))


def test_score_worked_example_one_token_each_field() -> None:
    entry = lesson(area="cli.py", symptom="crash", cause="race", solution="lock", evidence="trace")
    for token, weight in [("cli.py", 3), ("crash", 2), ("race", 2), ("lock", 2), ("trace", 1)]:
        assert score_entry([token], prepare(entry)) == pytest.approx(weight * 2)


def test_score_is_zero_when_no_token_matches() -> None:
    assert score_entry(["docker"], prepare(lesson(title="npm install"))) == 0


def test_coverage_ranks_the_entry_that_covers_more_tokens_first() -> None:
    one = lesson("p-20261201-070000-0001", title="docker build slow")
    both = lesson("p-20261201-070000-0002", symptom="docker cache miss on build")
    # one: title 5 + title 5 = 10 × 2 = 20 ; both: 2 + 2 = 4 × 2 = 8 ; a long query
    # matching one word in a tag loses to two body words when the tag scores less.
    lone = lesson("p-20261201-070000-0003", tags=["cache"])
    hits = search([one, both, lone], "docker build cache layers")
    scores = {e["id"][-1]: s for e, s in hits}
    assert scores["1"] == pytest.approx(10 * (1 + 2 / 4))
    assert scores["2"] == pytest.approx(6 * (1 + 3 / 4))
    assert scores["3"] == pytest.approx(6 * (1 + 1 / 4))
    assert [e["id"][-1] for e, _ in hits] == ["1", "2", "3"]


def test_filter_score_zero_is_dropped() -> None:
    hits = search([lesson(title="npm"), lesson("p-20261201-070000-0002", title="pip")], "pip")
    assert [e["id"] for e, _ in hits] == ["p-20261201-070000-0002"]


def test_filter_empty_query_lists_the_most_recent() -> None:
    old = lesson("p-20261201-070000-0001", updated="2026-11-01T00:00:00Z")
    new = lesson("p-20261201-070000-0002", updated="2026-12-01T00:00:00Z")
    mid = lesson("p-20261201-070000-0003", updated="2026-11-15T00:00:00Z")
    hits = search([old, new, mid], "  ", limit=2)
    assert [e["id"][-1] for e, _ in hits] == ["2", "3"]


def test_filter_a_query_with_no_informative_token_returns_nothing_never_everything() -> None:
    assert search([lesson(title="the thing is what it is")], "what is the") == []


def test_filter_tag_is_exact_and_applied_before_scoring() -> None:
    tagged = lesson("p-20261201-070000-0001", title="slow build", tags=["docker"])
    body = lesson("p-20261201-070000-0002", title="docker build slow", tags=["dockerfile"])
    hits = search([tagged, body], "docker build", tag="docker")
    assert [e["id"][-1] for e, _ in hits] == ["1"]
    # Exact: a prefix of a tag is not the tag; case and spacing are ignored.
    assert search([tagged, body], "", tag="dock") == []
    assert [e["id"][-1] for e, _ in search([tagged, body], "", tag=" Docker ")] == ["1"]


def test_limit_cuts_the_hits() -> None:
    entries = [lesson(f"p-20261201-070000-000{i}", title=f"npm case {i}") for i in range(5)]
    assert len(search([*entries], "npm", limit=3)) == 3


_WORDS = ["npm", "no", "node", "node-gyp", "eval", "2x", "上传", "失败", "上传失败", "x_1", "3.11"]


@given(
    st.lists(
        st.fixed_dictionaries(
            {
                "title": st.lists(st.sampled_from(_WORDS), max_size=4).map(" ".join),
                "evidence": st.lists(st.sampled_from([*_WORDS, "-", "."]), max_size=6).map("".join),
                "tags": st.lists(st.sampled_from(_WORDS), max_size=2),
            }
        ),
        max_size=6,
    ),
    st.lists(st.sampled_from(_WORDS), min_size=1, max_size=4).map(" ".join),
)
def test_the_index_scores_exactly_as_score_entry_with_matches_token(
    fields: list[dict[str, object]], query: str
) -> None:
    """The text scan and the postings are only ways to compute the spec's formula."""
    entries = [lesson(f"p-20261201-070000-{i:04x}", **f) for i, f in enumerate(fields)]
    tokens = tokenize(query)
    expected = {
        e["id"]: score_entry(tokens, prepare(e))
        for e in entries
        if score_entry(tokens, prepare(e)) > 0
    }
    index = SearchIndex.build(entries)
    first = {e["id"]: s for e, s in index.search(query, limit=100)}  # decodes postings
    again = {e["id"]: s for e, s in index.search(query, limit=100)}  # reuses them
    assert first == pytest.approx(expected)
    assert again == pytest.approx(expected)


@given(st.text(max_size=300))
def test_tokens_are_lowercase_informative_and_unique_for_any_text(text: str) -> None:
    tokens = tokenize(text)
    assert len(tokens) == len(set(tokens))
    for token in tokens:
        assert len(token) >= 2 and token == token.lower()
        assert token.lower() in text.lower() or any(  # a 2-gram comes from a CJK run
            token in run for run in tokenize(text) if len(run) > 4
        )


# The spec's rules written as regular expressions: the oracles of the hand scans, which
# exist because importing re would cost the hook more than half its start (issue 13).
_CJK_CLASS = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
_SPEC_PIECE = re.compile(rf"[a-z0-9_]+(?:[.\-][a-z0-9_]+)*|[{_CJK_CLASS}]+")


def _spec_tokenize(text: str) -> list[str]:
    tokens: dict[str, None] = {}
    for piece in _SPEC_PIECE.findall(text.lower()):
        if len(piece) < 2 or piece in STOPWORDS:
            continue
        tokens[piece] = None
        if len(piece) > 4 and re.fullmatch(f"[{_CJK_CLASS}]+", piece):
            for i in range(len(piece) - 1):
                if piece[i : i + 2] not in STOPWORDS:
                    tokens[piece[i : i + 2]] = None
    return list(tokens)


_TRICKY = st.sampled_from(
    [
        *"abzAZ09_.-. -\n\t@/",
        "é",
        "İ",
        "K",
        "上",
        "传",
        "失",
        "败",
        "文",
        "件",
        "カ",
        "한",
        "\u303f",
    ]
)


@given(st.text(_TRICKY, max_size=60) | st.text(max_size=60))
def test_tokenize_cuts_exactly_as_the_spec_s_pattern(text: str) -> None:
    assert tokenize(text) == _spec_tokenize(text)


@given(
    st.text(st.sampled_from([*"ab_1.-", "上"]), min_size=1, max_size=4),
    st.text(st.sampled_from([*"ab_1.- x", "上", "é"]), max_size=30),
)
def test_matches_token_is_the_spec_s_word_boundary_or_substring_rule(token: str, text: str) -> None:
    if re.fullmatch(r"[a-z0-9_]+", token):
        expected = re.search(rf"(?<![a-z0-9_]){re.escape(token)}(?![a-z0-9_])", text) is not None
    else:
        expected = token in text
    assert matches_token(token, text) == expected
