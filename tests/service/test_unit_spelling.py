"""Issue 23: one table of derived-unit spellings (``reckoner.units.spelling``), checked
against the engine's own unit parser: every spelling means the vector it stands for."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reckoner.contract.dimensions import NAME_TABLE
from reckoner.units import resolve_unit
from reckoner.units.spelling import DERIVED, grammar_of, spell_vector, spell_written

vectors = st.tuples(*[st.integers(-4, 4)] * 7).filter(any)


@given(vectors)
def test_every_vectors_spelling_parses_back_to_that_vector_in_si(vector: tuple[int, ...]) -> None:
    spelled = spell_vector(vector)
    spec = resolve_unit(grammar_of(spelled))
    assert tuple(spec.vector) == vector, spelled
    assert spec.factor == 1 and spec.offset == 0  # a spelling of SI itself, never scaled


@pytest.mark.parametrize(("vector", "spelled"), sorted(DERIVED.items()))
def test_each_row_of_the_derived_unit_table_means_its_vector(
    vector: tuple[int, ...], spelled: str
) -> None:
    spec = resolve_unit(grammar_of(spelled))
    assert tuple(spec.vector) == vector and spec.factor == 1


def test_every_named_vector_of_the_dimension_table_has_an_si_symbol() -> None:
    for row in NAME_TABLE:
        if any(row.vector):
            assert row.vector in DERIVED, row.names


@pytest.mark.parametrize(
    ("vector", "spelled"),
    [
        ((2, 1, -3, -2, 0, 0, 0), "Ω"),
        ((1, 1, -3, 0, -1, 0, 0), "W/(m·K)"),
        ((3, 1, -3, -2, 0, 0, 0), "Ω·m"),
        ((3, 0, 0, 0, 0, 0, 0), "m³"),
        ((-3, 1, 0, 0, 0, 0, 0), "kg/m³"),
        ((1, 0, -2, 0, 0, 0, 0), "m/s²"),
        ((0, 0, -1, 0, 0, 0, 0), "s⁻¹"),  # ω and f share it: never claimed to be hertz
        ((2, 1, -3, 1, 0, 0, 0), "m²·kg·s⁻³·A"),
        ((0, 0, 0, 0, 0, 0, 0), ""),
    ],
)
def test_vectors_are_spelled_by_their_si_symbol_or_derived_unit(
    vector: tuple[int, ...], spelled: str
) -> None:
    assert spell_vector(vector) == spelled


@pytest.mark.parametrize(
    ("written", "spelled"),
    [
        ("kOhm", "kΩ"),
        ("Ohm", "Ω"),
        ("degC", "°C"),
        ("deg", "°"),
        ("W/(m*K)", "W/(m·K)"),
        ("kg/m^3", "kg/m³"),
        ("uF", "µF"),
        ("mA", "mA"),
        ("min", "min"),
        ("m/s^-2", "m/s⁻²"),
    ],
)
def test_a_unit_as_written_is_spelled_with_si_symbols_in_its_written_order(
    written: str, spelled: str
) -> None:
    assert spell_written(written) == spelled


@given(
    st.sampled_from(["kOhm", "degC", "W/(m*K)", "kg/m^3", "uF", "mA", "cm^2", "km/h", "J/(kg*K)"])
)
def test_a_written_units_spelling_parses_back_to_the_same_unit(written: str) -> None:
    back = resolve_unit(grammar_of(spell_written(written)))
    original = resolve_unit(written)
    assert back.vector == original.vector and back.exact_factor == original.exact_factor
    assert back.exact_offset == original.exact_offset
