"""Facts (docs/guide/articles.md, issue 10): pinned against a hand-written record."""

from __future__ import annotations

import pytest
from article_helpers import HAND_ID, hand_rows

from reckoner.articles.fact_model import (
    ArrayValue,
    ArticleRefusal,
    Cplx,
    Message,
    Num,
    ObjectValue,
    Scalar,
    Step,
)
from reckoner.articles.facts import collect_facts


def test_facts_of_a_hand_written_record_with_every_row_kind() -> None:
    """Spec: docs/guide/articles.md (article generation)."""
    facts = collect_facts(HAND_ID, hand_rows(), is_open=False)
    assert facts.title == "Heating a 4.7 kOhm resistor"  # the first accepted record_start
    conditions = dict(facts.conditions)
    # The deletion removed "gone"; the re-set kept R1's place with its latest value.
    assert list(conditions) == ["R1", "T", "Z0", "xs", "zs", "probe"]
    assert conditions["R1"] == Scalar(Num("4712.123456"), (2, 1, -3, -2, 0, 0, 0))
    # degC is stored in SI: the record holds kelvin, and so does the article.
    assert conditions["T"] == Scalar(Num("298.15"), (0, 0, 0, 0, 1, 0, 0))
    assert conditions["Z0"] == Scalar(Cplx("3", "-4"), (2, 1, -3, -2, 0, 0, 0))
    assert conditions["xs"] == ArrayValue(
        (Num("1"), Num("2.5"), (Num("1.2e-4"), Num("3e7"))), (1, 0, 0, 0, 0, 0, 0)
    )
    assert conditions["zs"] == ArrayValue((Cplx("1", "2"), Num("0.5")), (0,) * 7)
    probe = conditions["probe"]
    assert isinstance(probe, ObjectValue)
    assert [name for name, _ in probe.fields] == ["v", "inner"]
    assert probe.fields[1][1] == ObjectValue((("k", Scalar(Num("0.25"), (2, 1, -1, 0, 0, 0, 0))),))
    # Messages and steps interleave by seq; refused rows and gets carry nothing.
    kinds = [(type(e).__name__, e.seq) for e in facts.entries]
    assert kinds == [("Message", 3), ("Message", 4), ("Message", 16), ("Step", 17), ("Step", 19)]
    hidden = facts.entries[1]
    assert isinstance(hidden, Message) and hidden.hidden
    step = facts.entries[3]
    assert isinstance(step, Step)
    assert step.formula == "@probe.v / @R1" and step.target == "I"
    assert [name for name, _ in step.reads] == ["probe", "R1"]
    assert step.result == Scalar(Num("0.002547"), (0, 0, 0, 1, 0, 0, 0))
    assert facts.closing == "The power is about 30559 watt."


def test_the_open_record_cannot_be_generated() -> None:
    """Spec: docs/guide/articles.md (article generation)."""
    with pytest.raises(ArticleRefusal, match="still open"):
        collect_facts(HAND_ID, hand_rows(), is_open=True)


def test_a_blank_closing_text_counts_as_absent() -> None:
    """Spec: docs/guide/articles.md (article generation)."""
    rows = hand_rows()
    rows[-1]["content"]["text"] = "   "
    assert collect_facts(HAND_ID, rows, is_open=False).closing is None


def test_hidden_note_numbers_are_not_facts_but_visible_prose_numbers_are() -> None:
    """Spec: docs/guide/articles.md (article generation)."""
    facts = collect_facts(HAND_ID, hand_rows(), is_open=False)
    from decimal import Decimal

    assert Decimal("999.5") not in facts.reference  # only in the hidden author's note
    assert Decimal("25") in facts.reference  # "25 degC" in a visible message
    assert Decimal("77777") in facts.reference  # a stored number, even of a deleted slot


def test_damaged_rows_are_skipped_like_refused_ones() -> None:
    """Spec: docs/guide/articles.md (article generation)."""
    rows = hand_rows()
    rows[4]["content"]["value"] = {"num": "not a number", "dim": [0] * 7}
    rows[5]["content"] = "not an object"
    rows[6]["content"]["value"] = {"num": 1, "dim": [[1], 0, 0, 0, 0, 0, 0]}
    rows[7]["content"]["value"] = {"array": [1], "dim": [{"m": 1}, 0, 0, 0, 0, 0, 0]}
    facts = collect_facts(HAND_ID, rows, is_open=False)
    assert "T" not in dict(facts.conditions)
    assert "Z0" not in dict(facts.conditions) and "xs" not in dict(facts.conditions)
