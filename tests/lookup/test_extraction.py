"""docs/guide/lookup.md step 4 (issue 11): the extractive reply is one JSON object or a failure; no
text a model could write makes the reader raise anything else or invent an answer."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reckoner.lookup.extraction import (
    PROMPT_VERSION,
    SYSTEM_PROMPT,
    Material,
    UnreadableReply,
    cut,
    read_reply,
    user_message,
)
from reckoner.lookup.providers import MAX_SNIPPET_CHARS, Candidate

_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)


@given(st.text(max_size=300))
def test_any_text_is_read_or_refused_never_raises_otherwise(text: str) -> None:
    try:
        read = read_reply(text, 3)
    except UnreadableReply:
        return
    assert all(0 <= i < 3 for i in read.used)
    assert read.insufficient or (read.answer and read.used)


@given(
    st.fixed_dictionaries(
        {"answer": _JSON, "used": _JSON, "insufficient": _JSON},
        optional={"extra": _JSON},
    )
)
def test_any_object_of_the_agreed_keys_is_read_only_when_every_field_is_right(
    reply: dict[str, object],
) -> None:
    text = json.dumps(reply)
    try:
        read = read_reply(text, 2)
    except UnreadableReply:
        return
    assert set(reply) == {"answer", "used", "insufficient"}
    assert type(reply["insufficient"]) is bool and isinstance(reply["answer"], str)
    assert read.answer == str(reply["answer"]).strip()


def test_the_prompt_forbids_outside_knowledge_conversion_and_derivation() -> None:
    assert PROMPT_VERSION == "search-extract/1" and PROMPT_VERSION in SYSTEM_PROMPT
    for words in (
        "material alone",
        "Never convert a unit",
        "compute or derive",
        "exactly one JSON",
    ):
        assert words in SYSTEM_PROMPT
    message = user_message(
        "What is g?", [Material("https://nist.gov/g", "g", "9.80665 m/s2", None)]
    )
    assert message.startswith("Question: What is g?") and "[0] g <https://nist.gov/g>" in message


@pytest.mark.parametrize(
    ("text", "limit", "expected"), [("abcdef", 6, "abcdef"), ("abcdef", 4, "abc…")]
)
def test_cut_keeps_the_limit(text: str, limit: int, expected: str) -> None:
    assert cut(text, limit) == expected and len(cut(text, limit)) <= limit


def test_a_snippet_is_cut_to_what_a_row_keeps() -> None:
    long = Candidate("https://nist.gov/x", "t" * 1000, "s" * 10_000).trimmed()
    assert long.snippet is not None and len(long.snippet) == MAX_SNIPPET_CHARS
    assert long.title is not None and len(long.title) == 300


def test_a_hostile_reply_nested_past_the_parser_is_unreadable() -> None:
    with pytest.raises(UnreadableReply):
        read_reply("[" * 200_000 + "]" * 200_000, 1)
