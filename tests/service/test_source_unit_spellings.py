"""Issue 26: `set` takes the unit spellings sources print. The persona tells the model to
copy a lookup's unit as written, and sources write g/cm3, kg/m³, W/(m·K), W·m⁻¹·K⁻¹.

Each case is a snippet as a source prints it (a data sheet, an encyclopedia table, a
handbook line), its unit as the model copies it, and the grammar's own ASCII spelling of the
same unit: the two must resolve to the same SI vector and the same exact factor, through
`set` and back through `get`.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from reckoner import Engine
from reckoner.contract.codes import ErrorCode
from reckoner.core.errors import EngineError
from reckoner.units import resolve_unit

# (snippet as printed, the grammar's ASCII spelling of its unit)
SNIPPETS: list[tuple[str, str]] = [
    # densities
    ("Density (near r.t.) 8.96 g/cm3", "g/cm^3"),
    ("Density 7.874 g/cm³", "g/cm^3"),
    ("ρ = 2700 kg/m3", "kg/m^3"),
    ("density: 998.2 kg/m³ at 20 °C", "kg/m^3"),
    ("Density 1.225 kg·m⁻³ (sea level)", "kg*m^-3"),
    ("specific gravity 0.789 g·cm⁻³", "g*cm^-3"),
    ("bulk density 1.6 t/m3", "t/m^3"),
    ("density 19.3 Mg/m³", "Mg/m^3"),
    ("liquid density 0.7 g/cm3 at boiling point", "g/cm^3"),
    ("density 62.4 lb/ft3", "lb/ft^3"),
    ("density 0.284 lb/in³", "lb/in^3"),
    ("density 1.98 kg/dm3", "kg/dm^3"),
    # thermal conductivities
    ("Thermal conductivity 401 W/(m·K)", "W/(m*K)"),
    ("thermal conductivity 80.4 W/(m⋅K)", "W/(m*K)"),
    ("k = 0.6 W·m⁻¹·K⁻¹", "W*m^-1*K^-1"),
    ("conductivity 237 W·m⁻¹·K⁻¹ (aluminium)", "W*m^-1*K^-1"),
    ("k 0.026 W/(m·K) for air", "W/(m*K)"),
    ("thermal conductivity 1.5 mW/(cm·K)", "mW/(cm*K)"),
    ("heat transfer coefficient 25 W/(m²·K)", "W/(m^2*K)"),
    ("U-value 0.3 W/(m2·K)", "W/(m^2*K)"),
    # specific heats, energies
    ("specific heat 4.186 J/(g·K)", "J/(g*K)"),
    ("heat capacity 385 J/(kg·K)", "J/(kg*K)"),
    ("cp 1.005 kJ/(kg·K)", "kJ/(kg*K)"),
    ("molar heat capacity 24.44 J/(mol·K)", "J/(mol*K)"),
    ("latent heat 2257 kJ/kg", "kJ/kg"),
    ("energy density 46 MJ/kg", "MJ/kg"),
    ("volumetric energy 34.2 MJ/m³", "MJ/m^3"),
    ("consumption 15 kW·h", "kW*h"),
    ("torque 250 N·m", "N*m"),
    ("moment 12 kN⋅m", "kN*m"),
    ("work 5 J·s⁻¹", "J*s^-1"),
    # pressures, stresses
    ("pressure 101.325 kPa", "kPa"),
    ("stress 250 N/mm2", "N/mm^2"),
    ("yield strength 350 N/mm²", "N/mm^2"),
    ("load 5 kN/m²", "kN/m^2"),
    ("pressure 14.7 lbf/in2", "lbf/in^2"),
    ("modulus 200 GPa", "GPa"),
    ("surface tension 72.8 mN/m", "mN/m"),
    ("dynamic viscosity 1.002 mPa·s", "mPa*s"),
    ("viscosity 0.89 mPa⋅s", "mPa*s"),
    # flows, areas, volumes, rates
    ("flow 3.5 m3/h", "m^3/h"),
    ("flow 120 m³/s", "m^3/s"),
    ("cross-section 2.5 mm2", "mm^2"),
    ("area 0.75 mm²", "mm^2"),
    ("kinematic viscosity 1.0e-6 m²/s", "m^2/s"),
    ("diffusivity 0.2 cm2/s", "cm^2/s"),
    ("volume 2 dm3", "dm^3"),
    ("irradiance 1361 W/m²", "W/m^2"),
    ("acceleration 9.81 m/s2", "m/s^2"),
    ("acceleration 9.80665 m·s⁻²", "m*s^-2"),
]

_UNIT = re.compile(r"\s(\S*[A-Za-z]\S*)(?:\s|$)")


def _unit_of(snippet: str) -> str:
    """The unit as a model copies it: the first token after the number."""
    number = re.search(r"\d[\d.e+-]*\s", snippet)
    assert number is not None, snippet
    found = _UNIT.match(snippet, number.end() - 1)
    assert found is not None, snippet
    return found.group(1)


def test_fifty_real_snippets() -> None:
    assert len(SNIPPETS) == 50


@pytest.mark.parametrize(("snippet", "ascii"), SNIPPETS)
def test_a_unit_as_a_source_prints_it_resolves_as_its_ascii_spelling(
    snippet: str, ascii: str
) -> None:
    printed, grammar = resolve_unit(_unit_of(snippet)), resolve_unit(ascii)
    assert printed.vector == grammar.vector, snippet
    assert printed.exact_factor == grammar.exact_factor, snippet


def test_set_stores_a_printed_unit_as_si_and_keeps_it_as_written(tmp_path: Path) -> None:
    with Engine(tmp_path / "home") as engine:
        engine.call("record_start", {"title": "copper"})
        stored = engine.call("set", {"name": "rho", "value": {"num": 8.96, "unit": "g/cm³"}})
        assert stored["ok"] is True
        read = engine.call("get", {"name": "rho", "unit": "kg/m3"})
        assert read["value"]["num"] == pytest.approx(8960)
        k = engine.call("set", {"name": "k", "value": {"num": 401, "unit": "W/(m·K)"}})
        assert k["ok"] is True


@pytest.mark.parametrize("printed", ["W/m·K", "J/kg⋅K", "kJ/kg·K"])
def test_a_dot_after_a_slash_is_refused_as_ambiguous_with_the_parenthesised_fix(
    printed: str,
) -> None:
    """Sources mean W/m·K as W/(m·K); the grammar reads W/m*K as W*K/m. Neither guess is
    safe for a stored vector, so it is refused with the spelling that says which."""
    with pytest.raises(EngineError) as refused:
        resolve_unit(printed)
    assert refused.value.failure.code is ErrorCode.INVALID_DIMENSION
    head, tail = printed.replace("⋅", "·").split("/")
    assert f"{head}/({tail.replace('·', '*')})" in refused.value.failure.message


def test_a_registry_name_with_digits_is_never_split_into_a_power() -> None:
    assert resolve_unit("inH2O").vector == resolve_unit("Pa").vector
    assert resolve_unit("cc").exact_factor == resolve_unit("cm^3").exact_factor
