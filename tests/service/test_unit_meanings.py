"""Issue 27: the unit catalogue says what ambiguous names mean, takes the spellings people
write for them, and names the meaning in the sentence refusing a near miss."""

from __future__ import annotations

from fractions import Fraction

import pytest

from reckoner import Engine
from reckoner.contract.codes import ErrorCode
from reckoner.units import resolve_unit
from reckoner.units.catalogue import meaning_sentence, meaning_size
from reckoner.units.meanings import MEANING_BY_NAME, MEANINGS, REFUSED, alias_targets

LITRE = Fraction(1, 1000)


@pytest.mark.parametrize(
    ("written", "litres"),
    [
        ("gal", Fraction("3.785411784")),
        ("usgal", Fraction("3.785411784")),
        ("US_gallon", Fraction("3.785411784")),
        ("gal_imp", Fraction("4.54609")),
        ("imp_gal", Fraction("4.54609")),
        ("UK_gallon", Fraction("4.54609")),
        ("gallon_imperial", Fraction("4.54609")),
        ("fl_oz", Fraction("0.0295735295625")),
    ],
)
def test_the_spellings_people_write_for_gallons_are_taken_as_their_definitions(
    written: str, litres: Fraction
) -> None:
    assert resolve_unit(written).exact_factor == litres * LITRE


def test_every_alias_converts_exactly_as_the_registry_name_it_stands_for() -> None:
    for alias, target in alias_targets().items():
        spec, meant = resolve_unit(alias), resolve_unit(target)
        assert (spec.exact_factor, spec.vector) == (meant.exact_factor, meant.vector), alias


def test_ambiguous_names_are_taken_as_the_table_says() -> None:
    """The table's words against the exact definitions: a US gallon is 231 cubic inches, a
    short ton 2000 lb, the thermochemical calorie 4.184 J, mpg a mile per US gallon."""
    inch3 = resolve_unit("in^3").exact_factor
    assert resolve_unit("gal").exact_factor == 231 * inch3
    assert resolve_unit("ton").exact_factor == 2000 * resolve_unit("lb").exact_factor
    assert resolve_unit("cal").exact_factor == Fraction("4.184")
    assert resolve_unit("mpg").exact_factor == resolve_unit("mi/gal").exact_factor
    assert resolve_unit("mpg_imp").exact_factor == resolve_unit("mi/imperial_gallon").exact_factor
    assert resolve_unit("psia").exact_factor == resolve_unit("lbf/in^2").exact_factor
    assert meaning_size(MEANING_BY_NAME["gal"]) == "3.785 L"


def test_every_other_meaning_in_the_table_is_a_spelling_the_catalogue_takes() -> None:
    for meaning in MEANINGS:
        resolve_unit(meaning.size_in)
        for _, spelling in meaning.others:
            other, taken = resolve_unit(spelling), resolve_unit(meaning.name)
            assert (other.vector, other.exact_factor) != (taken.vector, taken.exact_factor)


def _refused_unit(engine: Engine, unit: str) -> str:
    """The sentence refusing a set written in `unit`."""
    engine.call("record_start", {"title": "Units"})
    receipt = engine.call("set", {"name": "x", "value": {"num": 3, "unit": unit}})
    assert receipt["code"] == ErrorCode.INVALID_DIMENSION.value, receipt
    return str(receipt["error"])


@pytest.mark.parametrize(("name", "fix"), [("Cal", "kcal"), ("psig", "add 1 atm")])
def test_names_half_their_writers_read_otherwise_are_refused_with_the_fix(
    engine: Engine, name: str, fix: str
) -> None:
    message = _refused_unit(engine, name)
    assert f"'{name}' {REFUSED[name]}" in message and fix in message and "\n" not in message


@pytest.mark.parametrize(
    ("near_miss", "meant"), [("gall", "gal"), ("tonn", "ton"), ("psii", "psi")]
)
def test_a_near_miss_of_an_ambiguous_name_is_refused_naming_its_meaning(
    engine: Engine, near_miss: str, meant: str
) -> None:
    message = _refused_unit(engine, near_miss)
    assert meaning_sentence(MEANING_BY_NAME[meant]) in message, message


def test_the_gallon_near_miss_says_which_gallon_gal_is_and_how_to_write_the_other() -> None:
    with pytest.raises(Exception) as refused:
        resolve_unit("galon")
    message = str(refused.value)
    assert "gal is the US liquid gallon (3.785 L)" in message
    assert "the imperial gallon is imperial_gallon" in message
    assert "galileo" not in message  # Gal's row is not pulled in by gal's spellings


def test_an_imperial_gallon_set_with_gal_imp_reads_back_in_litres(engine: Engine) -> None:
    engine.call("record_start", {"title": "Fuel"})
    value = {"num": 12, "unit": "gal_imp"}
    receipt = engine.call("set", {"name": "fuel", "value": value, "read": {"unit": "L"}})
    assert receipt["ok"] is True
    assert receipt["value"]["num"] == pytest.approx(12 * 4.54609, rel=1e-15)
