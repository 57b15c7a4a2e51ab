"""What the catalogue takes an ambiguous unit name to mean, and the spellings people write.

One table serves the catalogue (the aliases it defines, the names it refuses, the meaning
its near-miss sentence states) and the interface skill's table of these names, which a test
checks against it. Sizes are never written here: the catalogue computes them from pint's
own definitions, so a sentence cannot disagree with the conversion the engine applies.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Meaning:
    """A name whose meaning differs by country or trade, as the catalogue takes it."""

    name: str  # the name as people write it: gal
    means: str  # what the catalogue takes it for: the US liquid gallon
    size_in: str  # the unit its size is stated in (computed): L
    others: tuple[tuple[str, str], ...]  # (the other thing the name is used for, its spelling)
    note: str = ""  # what else to know, where the other meaning has no spelling of its own


MEANINGS: tuple[Meaning, ...] = (
    Meaning(
        "gal",
        "the US liquid gallon",
        "L",
        (("the imperial gallon", "imperial_gallon"), ("the US dry gallon", "US_dry_gallon")),
    ),
    Meaning("pint", "the US liquid pint", "L", (("the imperial pint", "imperial_pint"),)),
    Meaning(
        "floz",
        "the US fluid ounce",
        "mL",
        (("the imperial fluid ounce", "imperial_floz"), ("the ounce of mass", "oz")),
    ),
    Meaning("bbl", "the 31.5-gallon US barrel", "L", (("the 42-gallon oil barrel", "oil_barrel"),)),
    Meaning(
        "ton",
        "the US short ton",
        "kg",
        (
            ("the metric tonne", "t"),
            ("the long ton", "long_ton"),
            ("the ton of refrigeration", "ton_of_refrigeration"),
        ),
    ),
    Meaning(
        "cal",
        "the thermochemical calorie",
        "J",
        (("the international calorie", "cal_it"), ("the food Calorie", "kcal")),
    ),
    Meaning(
        "psi",
        "pound-force per square inch, absolute",
        "kPa",
        (),
        "a gauge reading (psig) is refused: set it in psi and add 1 atm in eval",
    ),
    Meaning(
        "mpg",
        "miles per US gallon",
        "km/L",
        (("miles per imperial gallon", "mpg_imp"),),
    ),
    Meaning("Gal", "the galileo, an acceleration", "m/s^2", (("the gallon", "gal"),)),
)

# Spellings people write that the registry lacks, mapped onto the registry's own names
# (each line is a pint definition).
ALIASES: tuple[str, ...] = (
    "Ohm = ohm",
    "Ohms = ohm",
    "usgal = gallon",
    "US_gal = gallon",
    "gal_us = gallon",
    "gal_US = gallon",
    "US_gallon = gallon",
    "gallon_us = gallon",
    "gallon_US = gallon",
    "gal_imp = imperial_gallon",
    "imp_gal = imperial_gallon",
    "gal_uk = imperial_gallon",
    "gal_UK = imperial_gallon",
    "UK_gal = imperial_gallon",
    "ukgal = imperial_gallon",
    "gallon_imperial = imperial_gallon",
    "gallon_imp = imperial_gallon",
    "gallon_uk = imperial_gallon",
    "gallon_UK = imperial_gallon",
    "fl_oz = fluid_ounce",
    "fl_oz_imp = imperial_fluid_ounce",
    "psia = psi",
    "mpg = mile / gallon",
    "mpg_us = mile / gallon",
    "mpg_imp = mile / imperial_gallon",
    "mpg_uk = mile / imperial_gallon",
)

# Names refused rather than guessed: each would be read one way by half of its writers.
REFUSED: dict[str, str] = {
    "Cal": (
        "is the food Calorie on a nutrition label but the small calorie in physics; write "
        "kcal for the food Calorie or cal for the thermochemical calorie"
    ),
    "psig": (
        "is a gauge pressure (psi above the atmosphere) and the engine stores absolute "
        "pressures; write the value in psi and add 1 atm (set with unit atm) in eval, or "
        "write psi for a pressure difference"
    ),
}

MEANING_BY_NAME: dict[str, Meaning] = {meaning.name: meaning for meaning in MEANINGS}


def alias_targets() -> dict[str, str]:
    """Each alias with the registry expression it stands for."""
    pairs = (line.split(" = ", 1) for line in ALIASES)
    return {name: target for name, target in pairs}
