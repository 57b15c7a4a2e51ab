"""Facts and the cut (manual 10, issue 10): pinned against a hand-written record."""

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
from reckoner.articles.language import resolve_language
from reckoner.articles.numbers import cut


@pytest.mark.parametrize(
    ("stored", "shown"),
    [
        (0.0, "0"),
        (12, "12"),
        (7.1274298056155505, "7.127"),
        (6283.185307179586, "6283"),
        (-96.32309002009949, "-96.32"),
        (0.001, "0.001"),
        (0.0029484029484029483, "0.002948"),
        (266.6666666666667, "266.7"),
        (123456.7, "123457"),
        (0.00099999, "1e-3"),
        (0.00032397408207343413, "3.24e-4"),
        (1e-6, "1e-6"),
        (999999.99, "1e6"),
        (1e6, "1e6"),
        (30559123.0, "3.056e7"),
        (-2.5e-9, "-2.5e-9"),
        (298.15, "298.1"),
        (0.00004, "4e-5"),
        (-0.00001, "-1e-5"),
    ],
)
def test_every_number_is_cut_to_four_significant_figures_exponential_outside_1e_3_to_1e6(
    stored: float, shown: str
) -> None:
    assert cut(stored) == shown


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
