"""Long records for the article benchmark (issue 10, Speed), made by the real engine.

``agent_record`` is what an agent leaves after a long session: parts of a few dozen calls,
each a message, sets (dims, units, degC, arrays, complex), evals of everyday formulas, gets,
refused calls the engine really refuses (an unknown slot, mismatched dimensions, a bad
formula, an unknown unit), now and then an author's note, a re-set and re-evaluation, a
deletion. Slots are named as agents name them: the same short names part after part, or with
the part's number. ``shapes`` makes every formula's structure its own (nothing typeset can be
shared between steps): each topic formula is multiplied by a dimensionless factor built at
random over the part's slots, and a factor whose shape was seen before is drawn again.

``uniform_record`` is the earlier synthetic record (sets, a message and one eval of four
structures, repeated), kept so that its figures can be reproduced.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reckoner.service import Engine
from reckoner.storage.home import HomeLayout
from reckoner.storage.record_archive import RecordArchive

# A topic: its slots (name, dim or unit, a draw of a plausible magnitude) and its steps
# (target, formula over the topic's slot names, in order; later steps read earlier targets).
Draw = Callable[[random.Random], Any]


@dataclass(frozen=True)
class Topic:
    prose: str
    slots: tuple[tuple[str, dict[str, Any], Draw], ...]
    steps: tuple[tuple[str, str], ...]


def _num(low: float, high: float, digits: int = 3) -> Draw:
    return lambda rng: round(rng.uniform(low, high), digits)


def _decade(low: int, high: int) -> Draw:
    """A mantissa of three significant digits times a power of ten between the bounds."""
    return lambda rng: float(f"{rng.uniform(1, 9.99):.2f}e{rng.randint(low, high)}")


TOPICS: tuple[Topic, ...] = (
    Topic(
        "A divider: supply {V} V across two resistors.",
        (
            ("V", {"dim": "volt"}, _num(1, 48, 1)),
            ("R1", {"unit": "kOhm"}, _num(0.1, 100, 2)),
            ("R2", {"dim": "ohm"}, _decade(1, 5)),
        ),
        (
            ("I", "@V / (@R1 + @R2)"),
            ("Vout", "@V * @R2 / (@R1 + @R2)"),
            ("P1", "@I^2 * @R1"),
            ("Rp", "@R1 * @R2 / (@R1 + @R2)"),
        ),
    ),
    Topic(
        "Charging a capacitor through a resistor for {t} s.",
        (
            ("R", {"dim": "ohm"}, _decade(2, 6)),
            ("C", {"unit": "uF"}, _num(0.1, 470, 1)),
            ("t", {"dim": "second"}, _num(0.001, 5, 4)),
        ),
        (
            ("tau", "@R * @C"),
            ("frac", "1 - $exp(-@t / @tau)"),
            ("fc", "1 / (2 * $pi * @R * @C)"),
        ),
    ),
    Topic(
        "A series RLC circuit at {f} Hz.",
        (
            ("R", {"dim": "ohm"}, _num(1, 500, 1)),
            ("L", {"unit": "mH"}, _num(0.1, 100, 2)),
            ("C", {"unit": "uF"}, _num(0.1, 100, 2)),
            ("f", {"dim": "hertz"}, _num(10, 5000, 0)),
        ),
        (
            ("Z", "@R + $j * (2 * $pi * @f * @L - 1 / (2 * $pi * @f * @C))"),
            ("Zm", "$abs(@Z)"),
            ("phi", "$arg(@Z)"),
            ("f0", "1 / (2 * $pi * $sqrt(@L * @C))"),
        ),
    ),
    Topic(
        "A mass of {m} kg falls {h} m.",
        (
            ("m", {"dim": "kilogram"}, _num(0.05, 250, 2)),
            ("h", {"dim": "metre"}, _num(0.5, 120, 1)),
            ("g", {"dim": [1, 0, -2, 0, 0, 0, 0]}, lambda rng: 9.80665),
        ),
        (
            ("Ep", "@m * @g * @h"),
            ("v", "$sqrt(2 * @g * @h)"),
            ("Ek", "0.5 * @m * @v^2"),
            ("tf", "@v / @g"),
        ),
    ),
    Topic(
        "Heating {m} kg of water from {T1} degC.",
        (
            ("m", {"dim": "kilogram"}, _num(0.1, 50, 2)),
            ("c", {"dim": [2, 0, -2, 0, -1, 0, 0]}, lambda rng: 4186.0),
            ("T1", {"dim": "degC"}, _num(4, 30, 1)),
            ("T2", {"dim": "degC"}, _num(40, 99, 1)),
        ),
        (
            ("Q", "@m * @c * (@T2 - @T1)"),
            ("Pw", "@Q / 600"),
        ),
    ),
    Topic(
        "Five length readings of one part.",
        (
            (
                "xs",
                {"unit": "mm"},
                lambda rng: [round(rng.uniform(24.9, 25.1), 3) for _ in range(5)],
            ),
        ),
        (
            ("mean", "$sum_{k=0}^{4}(@xs[k]) / 5"),
            ("span", "$max(@xs[0], @xs[4]) - $min(@xs[0], @xs[4])"),
            ("sq", "@xs * @xs"),
            ("n", "$len(@xs)"),
        ),
    ),
    Topic(
        "A right triangle with legs {a} m and {b} m.",
        (
            ("a", {"dim": "metre"}, _num(0.1, 30, 2)),
            ("b", {"dim": "metre"}, _num(0.1, 30, 2)),
        ),
        (
            ("hyp", "$sqrt(@a^2 + @b^2)"),
            ("ang", "$atan2(@b, @a)"),
            ("area", "@a * @b / 2"),
            ("ya", "@hyp * $sin(@ang)"),
        ),
    ),
    Topic(
        "Decay of a sample with rate {k} per second.",
        (
            ("N0", {}, _num(1e3, 1e7, 0)),
            ("k", {"dim": "hertz"}, _decade(-6, -1)),
            ("t", {"dim": "second"}, _num(1, 3600, 0)),
        ),
        (
            ("N", "@N0 * $exp(-@k * @t)"),
            ("thalf", "$ln(2) / @k"),
        ),
    ),
    Topic(
        "A geometric series with ratio {r}.",
        (
            ("a", {"dim": "joule"}, _num(1, 100, 1)),
            ("r", {}, _num(0.1, 0.9, 2)),
        ),
        (
            ("S10", "$sum_{n=0}^{9}(@a * @r^n)"),
            ("Sinf", "@a / (1 - @r)"),
        ),
    ),
    Topic(
        "A quadratic with coefficients {qa}, {qb} and {qc}.",
        (
            ("qa", {}, _num(0.5, 3, 2)),
            ("qb", {}, _num(-20, -8, 2)),
            ("qc", {}, _num(0.5, 5, 2)),
        ),
        (
            ("x1", "(-@qb + $sqrt(@qb^2 - 4 * @qa * @qc)) / (2 * @qa)"),
            ("x2", "@qc / (@qa * @x1)"),
        ),
    ),
    Topic(
        "An impedance of {Zl} ohm on a {Vs} V source.",
        (
            (
                "Zl",
                {"dim": "ohm"},
                lambda rng: (round(rng.uniform(10, 90), 1), rng.uniform(-50, 50)),
            ),
            ("Vs", {"dim": "volt"}, _num(100, 400, 0)),
        ),
        (
            ("Il", "@Vs / @Zl"),
            ("S", "@Vs * $conj(@Il)"),
            ("Pr", "$re(@S)"),
            ("pf", "$cos($arg(@Zl))"),
        ),
    ),
)


def _value(spec: dict[str, Any], drawn: Any) -> dict[str, Any]:
    if isinstance(drawn, tuple):
        return {"re": drawn[0], "im": drawn[1], **spec}
    if isinstance(drawn, list):
        return {"array": drawn, **spec}
    return {"num": drawn, **spec}


_SLOT = re.compile(r"@[A-Za-z_][A-Za-z0-9_]*")
_LITERAL = re.compile(r"\b[0-9]+(?:\.[0-9]+)?(?:e[+-]?[0-9]+)?\b")


def shape_of(formula: str) -> str:
    """The structure of a formula: slots and plain numbers stand for any slot or number."""
    return _LITERAL.sub("#", _SLOT.sub("@", formula))


class Factors:
    """Dimensionless factors of random structure over pairs of same-dim slots; never the
    same shape twice in one record."""

    LITERALS = ("2", "0.5", "3", "1.5", "0.25", "4", "10", "1e-3", "0.9")

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.seen: set[str] = set()

    def draw(self, ratios: list[str], base: str) -> str:
        for _ in range(1000):
            factor = self._tree(ratios, self.rng.randint(1, 2))
            key = shape_of(base + " * " + factor)
            if key not in self.seen:
                self.seen.add(key)
                return factor
        raise RuntimeError("no fresh shape found")

    def _leaf(self, ratios: list[str]) -> str:
        rng = self.rng
        pick = rng.random()
        if pick < 0.5 and ratios:
            return rng.choice(ratios)
        if pick < 0.75:
            return rng.choice(self.LITERALS)
        return f"{rng.choice(('$sqrt', '$exp', '$cos', '$abs'))}({self._positive(ratios)})"

    def _positive(self, ratios: list[str]) -> str:
        leaf = self.rng.choice(ratios) if ratios else self.rng.choice(self.LITERALS)
        return f"{leaf} / {self.rng.choice(self.LITERALS)}"

    def _tree(self, ratios: list[str], depth: int) -> str:
        rng = self.rng
        if depth == 0:
            return self._leaf(ratios)
        left, right = self._tree(ratios, depth - 1), self._tree(ratios, rng.randint(0, depth - 1))
        form = rng.randrange(6)
        if form == 0:
            return f"({left} + {right})"
        if form == 1:
            return f"(1 + {left} - {right})"
        if form == 2:
            return f"{left} * {right}"
        if form == 3:
            return f"{left} / ({right})"
        if form == 4:
            return f"({left})^{rng.randint(2, 3)}"
        return f"$sqrt({left} * {right})"


class AgentSession:
    """Drives a real engine through one long record, part after part."""

    def __init__(self, engine: Engine, rng: random.Random, shapes: bool) -> None:
        self.engine = engine
        self.rng = rng
        self.factors = Factors(rng) if shapes else None
        self.calls = 0

    def call(self, tool: str, args: dict[str, Any]) -> None:
        self.engine.call(tool, args)
        self.calls += 1

    def part(self, index: int) -> None:
        rng = self.rng
        topic = TOPICS[rng.randrange(len(TOPICS))]
        suffix = f"_{index}" if rng.random() < 0.5 else ""
        names = {name: name + suffix for name, _, _ in topic.slots}
        names.update({target: target + suffix for target, _ in topic.steps})
        drawn = {name: draw(rng) for name, _, draw in topic.slots}
        words = {name: _spoken(value) for name, value in drawn.items()}
        self.call("record_message", {"text": f"Part {index + 1}. " + topic.prose.format(**words)})
        for name, spec, _ in topic.slots:
            self.call("set", {"name": names[name], "value": _value(spec, drawn[name])})
        if rng.random() < 0.2:
            self.call("record_message", {"text": "Check the units twice here.", "hide": True})
        ratios = _ratios(topic, names)
        for target, template in topic.steps:
            formula = _bind(template, names)
            if self.factors is not None:
                formula = f"({formula}) * ({self.factors.draw(ratios, formula)})"
            self.call("eval", {"formula": formula, "target": names[target]})
            if rng.random() < 0.3:
                self._get(names[target])
        if rng.random() < 0.4:
            self._refused(names)
        if rng.random() < 0.15:
            # What if: a slot set again and the first step evaluated again.
            name, spec, draw = topic.slots[0]
            self.call("set", {"name": names[name], "value": _value(spec, draw(rng))})
            target, template = topic.steps[0]
            formula = _bind(template, names)
            if self.factors is not None:
                formula = f"({formula}) * ({self.factors.draw(ratios, formula)})"
            self.call("eval", {"formula": formula, "target": names[target]})
        if rng.random() < 0.05:
            self.call("set", {"name": names[topic.steps[-1][0]], "value": None})
        self.call(
            "record_message",
            {"text": f"So part {index + 1} is settled; the results are in the table."},
        )

    def _get(self, name: str) -> None:
        options: dict[str, Any] = {"name": name}
        if self.rng.random() < 0.5:
            options["digits"] = self.rng.choice((3, 4, 6))
        self.call("get", options)

    def _refused(self, names: dict[str, str]) -> None:
        rng = self.rng
        first = next(iter(names.values()))
        kind = rng.randrange(5)
        if kind == 0:
            self.call("eval", {"formula": f"@{first}_typo * 2", "target": "oops"})
        elif kind == 1:
            self.call("eval", {"formula": f"2@{first}", "target": "oops"})
        elif kind == 2:
            self.call("set", {"name": "Vx", "value": {"num": 3, "dim": "volts"}})
        elif kind == 3:
            self.call("get", {"name": "no_such_slot"})
        else:
            self.call("eval", {"formula": f"@{first} + $pi^", "target": "oops"})


def _bind(template: str, names: dict[str, str]) -> str:
    """A topic formula over this part's slot names."""
    return _SLOT.sub(lambda match: "@" + names[match.group(0)[1:]], template)


def _ratios(topic: Topic, names: dict[str, str]) -> list[str]:
    """Dimensionless ratios of the part's same-kind slots (``@R1 / @R2``)."""
    by_spec: dict[str, list[str]] = {}
    for name, spec, _ in topic.slots:
        by_spec.setdefault(repr(spec), []).append("@" + names[name])
    ratios = [f"{a} / {b}" for group in by_spec.values() for a in group for b in group if a != b]
    return ratios or [f"@{names[topic.slots[0][0]]} / @{names[topic.slots[0][0]]}"]


def _spoken(value: Any) -> str:
    if isinstance(value, tuple):
        return f"{value[0]:g}{value[1]:+.1f}j"
    if isinstance(value, list):
        return ", ".join(f"{item:g}" for item in value)
    return f"{value:g}"


def agent_record(home: Path, rows: int, shapes: bool = False, seed: int = 10) -> str:
    """A closed record of about ``rows`` rows written as an agent writes one."""
    rng = random.Random(seed)
    with Engine(home=str(home)) as engine:
        session = AgentSession(engine, rng, shapes)
        session.call("record_start", {"title": f"Worked exercises, {rows} calls"})
        index = 0
        while session.calls < rows - 30:
            session.part(index)
            index += 1
        while session.calls < rows - 1:
            session.call("record_message", {"text": "All parts are done."})
        session.call("record_end", {"text": f"Every one of the {index} parts is answered above."})
    return RecordArchive(HomeLayout(home)).index().closed[0].id


UNIFORM_FORMULAS = (
    "@a{i} * @b{j} / (@a{i} + @b{j})",
    "$sqrt(@a{i}^2 + @b{j}^2)",
    "@a{i} * $exp(-@b{j} / @a{i})",
    "2 * $pi * @a{i} * @b{j}",
)


def uniform_record(home: Path, rows: int, distinct: bool = False, shapes: bool = False) -> str:
    """The earlier benchmark's record: sets, a message and an eval of four structures, over
    and over. ``distinct`` gives each formula its own literal; ``shapes`` multiplies each by
    twelve factors of one whose spelling follows the bits of its index."""
    with Engine(home=str(home)) as engine:
        engine.call("record_start", {"title": f"A long solution of {rows} rows"})
        made = 1
        index = 0
        while made < rows - 1:
            engine.call("set", {"name": f"a{index}", "value": {"num": 4700 + index, "dim": "ohm"}})
            engine.call(
                "set", {"name": f"b{index}", "value": {"num": 0.5 + index / 7, "dim": "ohm"}}
            )
            engine.call("record_message", {"text": f"Step group {index}: combine a and b."})
            formula = UNIFORM_FORMULAS[index % len(UNIFORM_FORMULAS)].format(i=index, j=index)
            if distinct:
                formula = f"{index + 2} * ({formula})"
            if shapes:
                formula += "".join(
                    f" * (@a{index} / @a{index})"
                    if index >> bit & 1
                    else f" * @b{index} / @b{index}"
                    for bit in range(12)
                )
            engine.call("eval", {"formula": formula, "target": f"r{index}"})
            made += 4
            index += 1
        engine.call("record_end", {"text": "Every result is listed above."})
    return RecordArchive(HomeLayout(home)).index().closed[0].id
