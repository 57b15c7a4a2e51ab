"""Issue 27's friction as questions of the scripted agent benchmark (`agent_tasks.py`): what
a model using the tool as a new user met, each as a careful agent answers it.

- A volume in US and imperial gallons: `gal` and `usgal` are the US liquid gallon and
  `gal_imp` the imperial one, so each is set with its unit and read in litres in the same
  call, no call spent finding out what `gal` means.
- Answers at 4 significant figures quoted from each reading's `text` ("68.00", not 68), with
  no claim of precision of the agent's own.
- A formula missing two slots: the one refusal names both, so the run stops after it.
"""

from __future__ import annotations

from agent_script import Task, end, get, given, note, si, start, step

VOLUME = [3, 0, 0, 0, 0, 0, 0]
US_GALLON, IMPERIAL_GALLON = 0.003785411784, 0.00454609  # m^3, exact by definition
IN_LITRES = {"unit": "L", "digits": 4}

FRICTION: list[Task] = [
    Task(
        "fluids (gallons)",
        "Three cans of 5 gal, 5 usgal and 5 gal_imp: how many litres each?",
        [
            start("Gallons, US and imperial"),
            note("gal and usgal are the US liquid gallon, gal_imp the imperial gallon."),
            given("A", 5, "gal", read=IN_LITRES),
            given("B", 5, "usgal", read=IN_LITRES),
            given("C", 5, "gal_imp", read=IN_LITRES),
            end("The US cans hold 18.93 L each, the imperial can 22.73 L."),
        ],
        [
            start("Gallons, US and imperial"),
            note("gal and usgal are the US liquid gallon, gal_imp the imperial gallon."),
            si("A", 5 * US_GALLON, VOLUME),
            si("B", 5 * US_GALLON, VOLUME),
            si("C", 5 * IMPERIAL_GALLON, VOLUME),
            si("L", 0.001, VOLUME),
            *step("Can A in litres.", "@A/@L", "A_L"),
            get("A_L", digits=4),
            *step("Can B in litres.", "@B/@L", "B_L"),
            get("B_L", digits=4),
            *step("Can C in litres.", "@C/@L", "C_L"),
            get("C_L", digits=4),
            end("The US cans hold 18.93 L each, the imperial can 22.73 L."),
        ],
        (18.93, 22.73),
        ("L",),
    ),
    Task(
        "electrical (quoting)",
        "A 3.4 kOhm resistor carries 20 mA: its voltage in V and power in W, to 4 significant "
        "figures?",
        [
            start("Voltage and power to 4 significant figures"),
            note("V = I R; P = V I."),
            given("R", 3.4, "kOhm"),
            given("I", 20, "mA"),
            *step("The voltage across the resistor.", "@I*@R", "V", unit="V", digits=4),
            *step("The power it dissipates.", "@V*@I", "P", unit="W", digits=4),
            end("V = 68.00 V; P = 1.360 W."),
        ],
        [
            start("Voltage and power to 4 significant figures"),
            note("V = I R; P = V I."),
            si("R", 3400, "ohm"),
            si("I", 0.02, "ampere"),
            *step("The voltage across the resistor.", "@I*@R", "V"),
            get("V", digits=4),
            *step("The power it dissipates.", "@V*@I", "P"),
            get("P", digits=4),
            end("V = 68.00 V; P = 1.360 W."),
        ],
        (68, 1.36),
    ),
    Task(
        "mechanics (must stop)",
        "Potential energy of a 2 kg mass raised onto a shelf? (neither g nor the height given)",
        [
            start("Potential energy"),
            note("E = m g h."),
            given("m", 2, "kg"),
            *step("The potential energy.", "@m*@g*@h", "E"),
            note("Neither g nor the height h is given, so E cannot be evaluated."),
            end("Stopped: g and the height h are missing."),
        ],
        [
            start("Potential energy"),
            note("E = m g h."),
            si("m", 2, "kilogram"),
            *step("The potential energy.", "@m*@g*@h", "E"),
            note("Neither g nor the height h is given, so E cannot be evaluated."),
            end("Stopped: g and the height h are missing."),
        ],
        (),
        stops=True,
        missing=("@g", "@h"),
    ),
]
