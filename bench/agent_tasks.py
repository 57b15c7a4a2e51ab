"""A scripted agent benchmark (issue 14): realistic questions, each as the call sequence a
careful agent makes, run through a real MCP client against `reckoner serve`.

Every question is written twice: with `unit` on set/get and `read` on set and eval (a list
of readings where one value is asked in two units), and as the same question written without
them (the manual's calls only: SI numbers and `dim`, a hand-made unit slot and a division for
every non-SI answer, a `get` after every `eval`). Both runs must reach the known answers; the
table counts the calls.

Run: ``uv run python bench/agent_tasks.py`` (prints the README's table).
"""

from __future__ import annotations

import math
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

Call = tuple[str, dict[str, Any]]


# -- the calls a careful agent writes ---------------------------------------------------


def start(title: str) -> Call:
    return ("record_start", {"title": title})


def note(text: str) -> Call:
    return ("record_message", {"text": text})


def end(text: str) -> Call:
    return ("record_end", {"text": text})


def given(
    name: str,
    num: float | list[float],
    unit: str | None = None,
    read: dict[str, Any] | None = None,
) -> Call:
    """A given quantity, transcribed with the unit it was given in; with `read` options when
    the question only asks for it in another unit (a pure conversion, read by the set)."""
    tag = "array" if isinstance(num, list) else "num"
    value: dict[str, Any] = {tag: num}
    if unit is not None:
        value["unit"] = unit
    args: dict[str, Any] = {"name": name, "value": value}
    if read:
        args["read"] = read
    return ("set", args)


def si(name: str, num: float | list[float], dim: str | list[int] | None = None) -> Call:
    """A quantity the agent converted to SI itself, with its dim (the manual's only way)."""
    tag = "array" if isinstance(num, list) else "num"
    value: dict[str, Any] = {tag: num}
    if dim is not None:
        value["dim"] = dim
    return ("set", {"name": name, "value": value})


def step(
    why: str, formula: str, target: str, *readings: dict[str, Any], **read: Any
) -> tuple[Call, Call]:
    """One step as the persona asks for it (rule 3): a message saying what the step does,
    then its eval, with `read` options when the result is shown in the same call, or a list
    of readings (`readings`) when it is asked in several units."""
    args: dict[str, Any] = {"formula": formula, "target": target}
    assert not (readings and read), "one reading as options, or several as a list"
    if readings:
        args["read"] = list(readings)
    elif read:
        args["read"] = read
    return note(why), ("eval", args)


def get(name: str, **options: Any) -> Call:
    return ("get", {"name": name, **options})


@dataclass(frozen=True)
class Task:
    """One question: its two call sequences and the answers both must reach."""

    area: str
    question: str
    with_units: list[Call]
    without: list[Call]
    answers: tuple[float, ...]  # in the units the question asks for
    hand_made_units: tuple[str, ...] = ()  # unit slots the run without `unit` needs
    stops: bool = False  # a quantity is missing: the run must stop at SLOT_NOT_FOUND
    shown: list[str] = field(default_factory=list)


OHM, VOLT = "ohm", "volt"
ACCEL = [1, 0, -2, 0, 0, 0, 0]
SPEED = [1, 0, -1, 0, 0, 0, 0]
DENSITY = [-3, 1, 0, 0, 0, 0, 0]

TASKS: list[Task] = [
    Task(
        "electrical",
        "Power in a 4.7 kOhm resistor across 12 V, in mW?",
        [
            start("Power in 4.7 kOhm at 12 V"),
            note("P = V^2/R."),
            given("V", 12, "V"),
            given("R", 4.7, "kOhm"),
            *step(
                "The power from the voltage and the resistance.",
                "@V^2/@R",
                "P",
                unit="mW",
                digits=4,
            ),
            end("P = 30.64 mW."),
        ],
        [
            start("Power in 4.7 kOhm at 12 V"),
            note("P = V^2/R."),
            si("V", 12, VOLT),
            si("R", 4700, OHM),
            *step("The power from the voltage and the resistance.", "@V^2/@R", "P"),
            get("P"),
            si("mW", 0.001, "watt"),
            *step("The power in milliwatts.", "@P/@mW", "P_mW"),
            get("P_mW", digits=4),
            end("P = 30.64 mW."),
        ],
        (30.64,),
        ("mW",),
    ),
    Task(
        "electrical",
        "Series RLC (100 Ohm, 10 mH, 1 uF) at 1 kHz: impedance magnitude and phase in degrees?",
        [
            start("Series RLC at 1 kHz"),
            note("w = 2 pi f; Z = R + j(wL - 1/(wC)); phase = arg Z."),
            given("R", 100, "ohm"),
            given("L", 10, "mH"),
            given("C", 1, "uF"),
            given("f", 1, "kHz"),
            *step("The angular frequency.", "2*$pi*@f", "w", digits=4),
            *step(
                "The series impedance.",
                "@R + 1j*(@w*@L - 1/(@w*@C))",
                "Z",
                form="polar",
                digits=4,
            ),
            *step("The phase of the impedance.", "$arg(@Z)", "phi", unit="deg", digits=4),
            end("|Z| = 138.8 ohm at -43.93 degrees."),
        ],
        [
            start("Series RLC at 1 kHz"),
            note("w = 2 pi f; Z = R + j(wL - 1/(wC)); phase = arg Z."),
            si("R", 100, OHM),
            si("L", 0.01, "henry"),
            si("C", 1e-6, "farad"),
            si("f", 1000, "hertz"),
            *step("The angular frequency.", "2*$pi*@f", "w"),
            get("w", digits=4),
            *step("The series impedance.", "@R + 1j*(@w*@L - 1/(@w*@C))", "Z"),
            get("Z", form="polar", digits=4),
            *step("The phase of the impedance.", "$arg(@Z)", "phi"),
            get("phi", digits=4),
            *step("One degree of arc in radians.", "$pi/180", "deg"),
            *step("The phase in degrees.", "@phi/@deg", "phi_deg"),
            get("phi_deg", digits=4),
            end("|Z| = 138.8 ohm at -43.93 degrees."),
        ],
        (138.8, -43.93),
        ("deg",),
    ),
    Task(
        "electrical",
        "RC with 10 kOhm and 47 uF: time constant in ms, time to 99 % in s?",
        [
            start("RC time constant"),
            note("tau = RC; 99 % after tau*ln(100)."),
            given("R", 10, "kOhm"),
            given("C", 47, "uF"),
            *step("The time constant.", "@R*@C", "tau", unit="ms", digits=4),
            *step("The time to 99 %.", "@tau*$ln(100)", "t99", unit="s", digits=4),
            end("tau = 470 ms; 99 % after 2.164 s."),
        ],
        [
            start("RC time constant"),
            note("tau = RC; 99 % after tau*ln(100)."),
            si("R", 10000, OHM),
            si("C", 4.7e-5, "farad"),
            *step("The time constant.", "@R*@C", "tau"),
            get("tau"),
            si("ms", 0.001, "second"),
            *step("The time constant in milliseconds.", "@tau/@ms", "tau_ms"),
            get("tau_ms", digits=4),
            *step("The time to 99 %.", "@tau*$ln(100)", "t99"),
            get("t99", digits=4),
            end("tau = 470 ms; 99 % after 2.164 s."),
        ],
        (470, 2.164),
        ("ms",),
    ),
    Task(
        "mechanics",
        "Braking from 100 km/h at 7.5 m/s^2: distance and time?",
        [
            start("Braking distance"),
            note("d = v^2/(2a), t = v/a."),
            given("v", 100, "km/h"),
            given("a", 7.5, "m/s^2"),
            *step("The braking distance.", "@v^2/(2*@a)", "d", unit="m", digits=4),
            *step("The braking time.", "@v/@a", "t", unit="s", digits=4),
            end("d = 51.44 m, t = 3.704 s."),
        ],
        [
            start("Braking distance"),
            note("d = v^2/(2a), t = v/a."),
            si("km", 1000, "metre"),
            si("h", 3600, "second"),
            *step("The initial speed in SI.", "100*@km/@h", "v"),
            get("v"),
            si("a", 7.5, ACCEL),
            *step("The braking distance.", "@v^2/(2*@a)", "d"),
            get("d", digits=4),
            *step("The braking time.", "@v/@a", "t"),
            get("t", digits=4),
            end("d = 51.44 m, t = 3.704 s."),
        ],
        (51.44, 3.704),
        ("km", "h"),
    ),
    Task(
        "mechanics",
        "Kinetic energy of a 1500 kg car at 72 km/h, in kJ?",
        [
            start("Kinetic energy"),
            note("KE = m v^2 / 2."),
            given("m", 1500, "kg"),
            given("v", 72, "km/h"),
            *step("The kinetic energy.", "@m*@v^2/2", "KE", unit="kJ", digits=4),
            end("KE = 300 kJ."),
        ],
        [
            start("Kinetic energy"),
            note("KE = m v^2 / 2."),
            si("m", 1500, "kilogram"),
            si("km", 1000, "metre"),
            si("h", 3600, "second"),
            *step("The speed in SI.", "72*@km/@h", "v"),
            get("v"),
            *step("The kinetic energy.", "@m*@v^2/2", "KE"),
            get("KE"),
            si("kJ", 1000, "joule"),
            *step("The kinetic energy in kilojoules.", "@KE/@kJ", "KE_kJ"),
            get("KE_kJ", digits=4),
            end("KE = 300 kJ."),
        ],
        (300,),
        ("km", "h", "kJ"),
    ),
    Task(
        "mechanics (sweep)",
        "Pendulum period for 25 cm, 50 cm, 1 m and 2 m?",
        [
            start("Pendulum sweep"),
            note("T = 2 pi sqrt(l/g) for every length."),
            given("l", [25, 50, 100, 200], "cm"),
            given("g", 9.81, "m/s^2"),
            *step("The period for every length.", "2*$pi*$sqrt(@l/@g)", "T", unit="s", digits=4),
            end("T = 1.003, 1.419, 2.006, 2.837 s."),
        ],
        [
            start("Pendulum sweep"),
            note("T = 2 pi sqrt(l/g) for every length."),
            si("l", [0.25, 0.5, 1, 2], "metre"),
            si("g", 9.81, ACCEL),
            *step("The period for every length.", "2*$pi*$sqrt(@l/@g)", "T"),
            get("T", digits=4),
            end("T = 1.003, 1.419, 2.006, 2.837 s."),
        ],
        (1.003, 1.419, 2.006, 2.837),
    ),
    Task(
        "mechanics (sweep)",
        "Range of a projectile at 20 m/s for 15, 30, 45, 60 and 75 degrees?",
        [
            start("Projectile range sweep"),
            note("R = v^2 sin(2 theta) / g for every angle."),
            given("v", 20, "m/s"),
            given("g", 9.81, "m/s^2"),
            given("th", [15, 30, 45, 60, 75], "deg"),
            *step("The range for every angle.", "@v^2*$sin(2*@th)/@g", "R", unit="m", digits=4),
            end("R = 20.39, 35.31, 40.77, 35.31, 20.39 m."),
        ],
        [
            start("Projectile range sweep"),
            note("R = v^2 sin(2 theta) / g for every angle."),
            si("v", 20, SPEED),
            si("g", 9.81, ACCEL),
            si("th_deg", [15, 30, 45, 60, 75]),
            *step("One degree of arc in radians.", "$pi/180", "deg"),
            *step("The angles in radians.", "@th_deg*@deg", "th"),
            get("th"),
            *step("The range for every angle.", "@v^2*$sin(2*@th)/@g", "R"),
            get("R", digits=4),
            end("R = 20.39, 35.31, 40.77, 35.31, 20.39 m."),
        ],
        (20.39, 35.31, 40.77),
        ("deg",),
    ),
    Task(
        "thermal",
        "Heat to warm 2 kg of water from 20 degC to 80 degC (c = 4.18 kJ/(kg K)), in kJ and kWh?",
        [
            start("Heating water"),
            note("Q = m c dT."),
            given("m", 2, "kg"),
            given("c", 4.18, "kJ/(kg*K)"),
            given("T1", 20, "degC"),
            given("T2", 80, "degC"),
            *step("The temperature rise.", "@T2-@T1", "dT", unit="delta_degC"),
            *step(
                "The heat needed.",
                "@m*@c*@dT",
                "Q",
                {"unit": "kJ", "digits": 4},
                {"unit": "kWh", "digits": 3},
            ),
            end("Q = 501.6 kJ = 0.139 kWh."),
        ],
        [
            start("Heating water"),
            note("Q = m c dT."),
            si("m", 2, "kilogram"),
            si("c", 4180, [2, 0, -2, 0, -1, 0, 0]),
            si("T1", 20, "degC"),
            si("T2", 80, "degC"),
            *step("The temperature rise.", "@T2-@T1", "dT"),
            get("dT"),
            *step("The heat needed.", "@m*@c*@dT", "Q"),
            get("Q"),
            si("kJ", 1000, "joule"),
            *step("The heat in kilojoules.", "@Q/@kJ", "Q_kJ"),
            get("Q_kJ", digits=4),
            si("kWh", 3.6e6, "joule"),
            *step("The heat in kilowatt-hours.", "@Q/@kWh", "Q_kWh"),
            get("Q_kWh", digits=3),
            end("Q = 501.6 kJ = 0.139 kWh."),
        ],
        (60, 501.6, 0.139),
        ("kJ", "kWh"),
    ),
    Task(
        "thermal",
        "Heat loss through a 12 m^2 wall, 20 cm, k = 0.8 W/(m K), 21 degC in, -4 degC out?",
        [
            start("Wall conduction"),
            note("q = k A (Ti - To) / L."),
            given("k", 0.8, "W/(m*K)"),
            given("A", 12, "m^2"),
            given("L", 20, "cm"),
            given("Ti", 21, "degC"),
            given("To", -4, "degC"),
            *step("The conducted heat flow.", "@k*@A*(@Ti-@To)/@L", "q", unit="W", digits=4),
            end("q = 1200 W."),
        ],
        [
            start("Wall conduction"),
            note("q = k A (Ti - To) / L."),
            si("k", 0.8, [1, 1, -3, 0, -1, 0, 0]),
            si("A", 12, [2, 0, 0, 0, 0, 0, 0]),
            si("L", 0.2, "metre"),
            si("Ti", 21, "degC"),
            si("To", -4, "degC"),
            *step("The conducted heat flow.", "@k*@A*(@Ti-@To)/@L", "q"),
            get("q", digits=4),
            end("q = 1200 W."),
        ],
        (1200,),
    ),
    Task(
        "thermal",
        "98.6 degF in degC, and a 3 degF rise in degC?",
        [
            start("Fahrenheit"),
            note("A level reads with degC, a difference with delta_degC."),
            given("T", 98.6, "degF", {"unit": "degC", "digits": 4}),
            given("dT", 3, "delta_degF", {"unit": "delta_degC", "digits": 3}),
            end("98.6 degF = 37 degC; a 3 degF rise is 1.67 degC."),
        ],
        [
            start("Fahrenheit"),
            note("T = (F + 459.67) * 5/9 K; a difference is F * 5/9 K."),
            si("F", 98.6),
            si("K1", 1, "kelvin"),
            *step("The level in kelvin.", "(@F + 459.67)*5/9*@K1", "T"),
            get("T", dim="degC", digits=4),
            si("dF", 3),
            *step("The rise in kelvin.", "@dF*5/9*@K1", "dT"),
            get("dT", digits=3),
            end("98.6 degF = 37 degC; a 3 degF rise is 1.67 degC."),
        ],
        (37, 1.67),
        ("K1",),
    ),
    Task(
        "fluids",
        "Reynolds number of water (998 kg/m^3, 1.002 mPa s) at 2 m/s in a 50 mm pipe?",
        [
            start("Reynolds number"),
            note("Re = rho v D / mu."),
            given("rho", 998, "kg/m^3"),
            given("v", 2, "m/s"),
            given("D", 50, "mm"),
            given("mu", 1.002, "mPa*s"),
            *step("The Reynolds number.", "@rho*@v*@D/@mu", "Re", digits=4),
            end("Re = 99600: turbulent."),
        ],
        [
            start("Reynolds number"),
            note("Re = rho v D / mu."),
            si("rho", 998, DENSITY),
            si("v", 2, SPEED),
            si("D", 0.05, "metre"),
            si("mu", 0.001002, [-1, 1, -1, 0, 0, 0, 0]),
            *step("The Reynolds number.", "@rho*@v*@D/@mu", "Re"),
            get("Re", digits=4),
            end("Re = 99600: turbulent."),
        ],
        (99600,),
    ),
    Task(
        "fluids",
        "Mean velocity of 30 L/min in a 25 mm pipe?",
        [
            start("Pipe velocity"),
            note("v = Q / (pi D^2 / 4)."),
            given("Q", 30, "L/min"),
            given("D", 25, "mm"),
            *step("The pipe's cross-section.", "$pi*@D^2/4", "A", unit="mm^2", digits=4),
            *step("The mean velocity.", "@Q/@A", "v", unit="m/s", digits=4),
            end("v = 1.019 m/s."),
        ],
        [
            start("Pipe velocity"),
            note("v = Q / (pi D^2 / 4)."),
            si("L", 0.001, [3, 0, 0, 0, 0, 0, 0]),
            si("min", 60, "second"),
            *step("The flow in SI.", "30*@L/@min", "Q"),
            get("Q"),
            si("D", 0.025, "metre"),
            *step("The pipe's cross-section.", "$pi*@D^2/4", "A"),
            get("A", digits=4),
            *step("The mean velocity.", "@Q/@A", "v"),
            get("v", digits=4),
            end("v = 1.019 m/s."),
        ],
        (1.019,),
        ("L", "min"),
    ),
    Task(
        "fluids",
        "Water pressure 10 m deep (998 kg/m^3, g = 9.81 m/s^2), in kPa and psi?",
        [
            start("Hydrostatic pressure"),
            note("p = rho g h."),
            given("rho", 998, "kg/m^3"),
            given("g", 9.81, "m/s^2"),
            given("h", 10, "m"),
            *step(
                "The gauge pressure at depth.",
                "@rho*@g*@h",
                "p",
                {"unit": "kPa", "digits": 4},
                {"unit": "psi", "digits": 3},
            ),
            end("p = 97.9 kPa = 14.2 psi."),
        ],
        [
            start("Hydrostatic pressure"),
            note("p = rho g h."),
            si("rho", 998, DENSITY),
            si("g", 9.81, ACCEL),
            si("h", 10, "metre"),
            *step("The gauge pressure at depth.", "@rho*@g*@h", "p"),
            get("p"),
            si("kPa", 1000, "pascal"),
            *step("The pressure in kilopascals.", "@p/@kPa", "p_kPa"),
            get("p_kPa", digits=4),
            si("psi", 6894.757293168361, "pascal"),
            *step("The pressure in psi.", "@p/@psi", "p_psi"),
            get("p_psi", digits=3),
            end("p = 97.9 kPa = 14.2 psi."),
        ],
        (97.9, 14.2),
        ("kPa", "psi"),
    ),
    Task(
        "mechanics",
        "A satellite 400 km above Earth (GM = 3.986e14 m^3/s^2, radius 6371 km): orbital speed "
        "in km/s and period in minutes?",
        [
            start("Circular orbit at 400 km"),
            note("r = R + h; v = sqrt(GM/r); T = 2 pi r / v."),
            given("GM", 3.986e14, "m^3/s^2"),
            given("Re", 6371, "km"),
            given("h", 400, "km"),
            *step("The orbit's radius.", "@Re+@h", "r", unit="km", digits=5),
            *step("The circular orbital speed.", "$sqrt(@GM/@r)", "v", unit="km/s", digits=4),
            *step("The orbital period.", "2*$pi*@r/@v", "T", unit="min", digits=4),
            end("v = 7.673 km/s; T = 92.41 min."),
        ],
        [
            start("Circular orbit at 400 km"),
            note("r = R + h; v = sqrt(GM/r); T = 2 pi r / v."),
            si("GM", 3.986e14, [3, 0, -2, 0, 0, 0, 0]),
            si("Re", 6.371e6, "metre"),
            si("h", 4e5, "metre"),
            *step("The orbit's radius.", "@Re+@h", "r"),
            get("r"),
            *step("The circular orbital speed.", "$sqrt(@GM/@r)", "v"),
            get("v"),
            si("kms", 1000, SPEED),
            *step("The speed in km/s.", "@v/@kms", "v_kms"),
            get("v_kms", digits=4),
            *step("The orbital period.", "2*$pi*@r/@v", "T"),
            get("T"),
            si("min", 60, "second"),
            *step("The period in minutes.", "@T/@min", "T_min"),
            get("T_min", digits=4),
            end("v = 7.673 km/s; T = 92.41 min."),
        ],
        (7.673, 92.41),
        ("kms", "min"),
    ),
    Task(
        "thermal",
        "A 25 m steel rail (alpha = 12e-6 1/K) warms from -10 degC to 40 degC: how much longer, "
        "in mm?",
        [
            start("Thermal expansion of a rail"),
            note("dL = alpha L (T2 - T1)."),
            given("L", 25, "m"),
            given("alpha", 12e-6, "1/K"),
            given("T1", -10, "degC"),
            given("T2", 40, "degC"),
            *step("The temperature rise.", "@T2-@T1", "dT", unit="delta_degC"),
            *step("The change in length.", "@alpha*@L*@dT", "dL", unit="mm", digits=4),
            end("The rail grows by 15 mm."),
        ],
        [
            start("Thermal expansion of a rail"),
            note("dL = alpha L (T2 - T1)."),
            si("L", 25, "metre"),
            si("alpha", 12e-6, [0, 0, 0, 0, -1, 0, 0]),
            si("T1", -10, "degC"),
            si("T2", 40, "degC"),
            *step("The temperature rise.", "@T2-@T1", "dT"),
            get("dT"),
            *step("The change in length.", "@alpha*@L*@dT", "dL"),
            get("dL"),
            si("mm", 0.001, "metre"),
            *step("The change in millimetres.", "@dL/@mm", "dL_mm"),
            get("dL_mm", digits=4),
            end("The rail grows by 15 mm."),
        ],
        (50, 15),
        ("mm",),
    ),
    Task(
        "thermal",
        "A 2 kW kettle heats 1.5 L of water (1 kg/L, c = 4.18 kJ/(kg K)) from 15 degC to 100 "
        "degC: energy in kJ and time in minutes?",
        [
            start("Kettle"),
            note("m = rho V; Q = m c (T2 - T1); t = Q / P."),
            given("P", 2, "kW"),
            given("V", 1.5, "L"),
            given("rho", 1, "kg/L"),
            given("c", 4.18, "kJ/(kg*K)"),
            given("T1", 15, "degC"),
            given("T2", 100, "degC"),
            *step("The mass of the water.", "@rho*@V", "m", unit="kg", digits=4),
            *step("The heat needed.", "@m*@c*(@T2-@T1)", "Q", unit="kJ", digits=4),
            *step("The time at full power.", "@Q/@P", "t", unit="min", digits=4),
            end("Q = 533 kJ; t = 4.441 min."),
        ],
        [
            start("Kettle"),
            note("m = rho V; Q = m c (T2 - T1); t = Q / P."),
            si("P", 2000, "watt"),
            si("V", 0.0015, [3, 0, 0, 0, 0, 0, 0]),
            si("rho", 1000, DENSITY),
            si("c", 4180, [2, 0, -2, 0, -1, 0, 0]),
            si("T1", 15, "degC"),
            si("T2", 100, "degC"),
            *step("The mass of the water.", "@rho*@V", "m"),
            get("m", digits=4),
            *step("The heat needed.", "@m*@c*(@T2-@T1)", "Q"),
            get("Q"),
            si("kJ", 1000, "joule"),
            *step("The heat in kilojoules.", "@Q/@kJ", "Q_kJ"),
            get("Q_kJ", digits=4),
            *step("The time at full power.", "@Q/@P", "t"),
            get("t"),
            si("min", 60, "second"),
            *step("The time in minutes.", "@t/@min", "t_min"),
            get("t_min", digits=4),
            end("Q = 533 kJ; t = 4.441 min."),
        ],
        (1.5, 533, 4.441),
        ("kJ", "min"),
    ),
    Task(
        "electrical",
        "A 400 V three-phase motor draws 32 A at power factor 0.85: apparent power in kVA, real "
        "power in kW, energy in an 8 h shift in kWh?",
        [
            start("Three-phase motor"),
            note("S = sqrt(3) V I; P = S pf; E = P t."),
            given("V", 400, "V"),
            given("I", 32, "A"),
            given("pf", 0.85),
            given("t", 8, "h"),
            *step("The apparent power.", "$sqrt(3)*@V*@I", "S", unit="kVA", digits=4),
            *step("The real power.", "@S*@pf", "P", unit="kW", digits=4),
            *step("The energy over the shift.", "@P*@t", "E", unit="kWh", digits=4),
            end("S = 22.17 kVA; P = 18.84 kW; E = 150.8 kWh."),
        ],
        [
            start("Three-phase motor"),
            note("S = sqrt(3) V I; P = S pf; E = P t."),
            si("V", 400, VOLT),
            si("I", 32, "ampere"),
            si("pf", 0.85),
            si("t", 28800, "second"),
            *step("The apparent power.", "$sqrt(3)*@V*@I", "S"),
            get("S"),
            si("kW", 1000, "watt"),
            *step("The apparent power in kVA.", "@S/@kW", "S_k"),
            get("S_k", digits=4),
            *step("The real power.", "@S*@pf", "P"),
            get("P"),
            *step("The real power in kW.", "@P/@kW", "P_k"),
            get("P_k", digits=4),
            *step("The energy over the shift.", "@P*@t", "E"),
            get("E"),
            si("kWh", 3.6e6, "joule"),
            *step("The energy in kWh.", "@E/@kWh", "E_kWh"),
            get("E_kWh", digits=4),
            end("S = 22.17 kVA; P = 18.84 kW; E = 150.8 kWh."),
        ],
        (22.17, 18.84, 150.8),
        ("kW", "kWh"),
    ),
    Task(
        "electrical (must stop)",
        "Series resistor for a red LED (2 V) on a 5 V supply? (no current given)",
        [
            start("LED series resistor"),
            note("R = (Vs - Vf) / I."),
            given("Vs", 5, "V"),
            given("Vf", 2, "V"),
            *step("The series resistance.", "(@Vs-@Vf)/@I", "R"),
            note("The LED current I is not given, so R cannot be evaluated."),
            end("Stopped: the LED current is missing."),
        ],
        [
            start("LED series resistor"),
            note("R = (Vs - Vf) / I."),
            si("Vs", 5, VOLT),
            si("Vf", 2, VOLT),
            *step("The series resistance.", "(@Vs-@Vf)/@I", "R"),
            note("The LED current I is not given, so R cannot be evaluated."),
            end("Stopped: the LED current is missing."),
        ],
        (),
        stops=True,
    ),
]


# -- running them through a real MCP client ---------------------------------------------


def _numbers(value: Any) -> list[float]:
    if isinstance(value, bool):
        return []
    if isinstance(value, int | float):
        return [float(value)]
    if isinstance(value, list):
        return [n for item in value for n in _numbers(item)]
    if isinstance(value, dict):
        return [n for key, item in value.items() if key != "dim" for n in _numbers(item)]
    return []


def _label(value: dict[str, Any]) -> str:
    numbers = ", ".join(f"{n:g}" for n in _numbers(value))
    unit = value.get("unit") or value.get("dim")
    if isinstance(unit, list) or unit == "dim-less":
        unit = ""
    return f"{numbers} {unit}".strip()


def check(task: Task, receipts: list[dict[str, Any]], *, with_units: bool) -> list[str]:
    """The task's answers, found in the receipts' values; raises when one is missing."""
    calls = task.with_units if with_units else task.without
    refused = [
        (call, receipt) for call, receipt in zip(calls, receipts, strict=True) if not receipt["ok"]
    ]
    if task.stops:
        assert [r["code"] for _, r in refused] == ["ENGINE_SLOT_NOT_FOUND"], refused
        assert receipts[-1] == {"ok": True}
        return ["stops: " + refused[0][1]["error"].split(";")[0]]
    assert not refused, refused
    # A list read answers a list of readings: each is a value of its own.
    values = [
        v
        for r in receipts
        if "value" in r
        for v in (r["value"] if isinstance(r["value"], list) else [r["value"]])
    ]
    shown = []
    for answer in task.answers:
        hits = [
            v for v in values if any(math.isclose(n, answer, rel_tol=5e-4) for n in _numbers(v))
        ]
        assert hits, (task.question, answer, values)
        if _label(hits[-1]) not in shown:
            shown.append(_label(hits[-1]))
    if with_units:
        # No hand-made unit slot: every quantity is transcribed with its unit, none in SI.
        assert all("dim" not in args["value"] for tool, args in calls if tool == "set"), (
            task.question
        )
    return shown


async def run_all(home: Path, *, with_units: bool) -> list[list[dict[str, Any]]]:
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    params = StdioServerParameters(
        command=sys.executable, args=["-m", "reckoner", "serve", "--home", str(home)]
    )
    results = []
    async with Client(params) as client:
        for task in TASKS:
            receipts = []
            for tool, args in task.with_units if with_units else task.without:
                result = await client.call_tool(tool, args)
                receipts.append(result.structured_content)
            results.append(receipts)
    return results


def table(root: Path) -> list[tuple[Task, int, int, list[str]]]:
    """Run every task both ways; each row: task, calls with, calls without, answers shown."""
    import anyio

    with_runs = anyio.run(lambda: run_all(root / "with", with_units=True))
    without_runs = anyio.run(lambda: run_all(root / "without", with_units=False))
    rows = []
    for task, with_receipts, without_receipts in zip(TASKS, with_runs, without_runs, strict=True):
        shown = check(task, with_receipts, with_units=True)
        check(task, without_receipts, with_units=False)
        rows.append((task, len(task.with_units), len(task.without), shown))
    return rows


def main() -> None:
    with tempfile.TemporaryDirectory() as root:
        rows = table(Path(root))
    print(
        "| question | area | calls with unit/read | calls without | unit slots without | answer |"
    )
    print("|---|---|---|---|---|---|")
    for task, with_calls, without_calls, shown in rows:
        slots = ", ".join(task.hand_made_units) or "-"
        print(
            f"| {task.question} | {task.area} | {with_calls} | {without_calls} | {slots} | "
            f"{'; '.join(shown)} |"
        )
    total_with = sum(r[1] for r in rows)
    total_without = sum(r[2] for r in rows)
    print(
        f"| **all {len(rows)} questions** | | **{total_with}** | **{total_without}** | "
        f"{sum(len(r[0].hand_made_units) for r in rows)} | "
        f"{1 - total_with / total_without:.0%} fewer calls |"
    )


if __name__ == "__main__":
    main()
