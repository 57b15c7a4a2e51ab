"""Issue 26: the pure check that an answer's numbers appear in its material (lookup.grounding)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reckoner.lookup.grounding import numbers, unsupported


@pytest.mark.parametrize(
    ("answer", "material"),
    [
        ("8,960 kg/m3", "8960 kg/m3"),
        ("8960", "8 960"),
        ("8\u202f960", "8,960"),
        ("0.5 MPa", ".50 MPa"),
        ("1.2e-5 m", "1.2e-05 m"),
        ("12,345,678 J", "12345678 J"),
        ("401 W/(m·K)", "k = 401 W/(m⋅K)"),
    ],
)
def test_the_same_digits_in_another_spelling_are_supported(answer: str, material: str) -> None:
    assert unsupported(answer, [material]) == []


@pytest.mark.parametrize(
    ("answer", "material", "missing"),
    [
        ("8,960 kg/m3", "7,850 kg/m3", ["8960"]),
        ("8.96 g/cm3 at 20 °C", "8.96 g/cm3", ["20"]),
        ("1.2e-5 m", "1.2e-6 m", ["1.2e-5"]),
        ("0.51 MPa", "0.5 MPa", ["0.51"]),
        ("896 and 896 kg", "7850", ["896"]),
    ],
)
def test_a_number_the_material_lacks_is_named(
    answer: str, material: str, missing: list[str]
) -> None:
    assert unsupported(answer, [material]) == missing


def test_digits_glued_to_a_letter_are_a_unit_or_a_word_not_a_number() -> None:
    assert numbers("kg/m3 of H2O per ISO9001") == []
    assert unsupported("8.96 g/cm3", ["8.96 g/cm³"]) == []


@given(st.integers(min_value=1000, max_value=10**9))
def test_any_grouping_of_a_whole_number_is_that_number(value: int) -> None:
    grouped = f"{value:,}"
    for separator in (",", " ", "\u00a0", "'"):
        assert unsupported(grouped.replace(",", separator), [str(value)]) == []
