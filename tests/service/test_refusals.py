"""Issue 14 "Refusals that never mislead": every one of the 19 codes names the value, the rule
and a fix, and the fix works when followed literally.

Each chain is a refused call, then the call the refusal's own words lead to (the words the
next call copies are asserted to be in the sentence), until a call succeeds or the sentence
says to stop.
"""

from __future__ import annotations

import errno
import math
from pathlib import Path
from typing import Any

import pytest
from service_helpers import StepClock

from reckoner import Engine
from reckoner.contract.codes import ErrorCode
from reckoner.core.rendering import round_significant

# (tool, args, the code it answers or None for ok, fragments its sentence must hold)
Step = tuple[str, dict[str, Any], ErrorCode | None, tuple[str, ...]]

E = ErrorCode
CHAINS: dict[ErrorCode, list[Step]] = {
    E.INVALID_FORMULA: [
        (
            "eval",
            {"formula": "@V +", "target": "y"},
            E.INVALID_FORMULA,
            ("end of the formula", "complete the expression"),
        ),
        ("eval", {"formula": "@V + @V", "target": "y"}, None, ()),
        # Signs other languages use point to the notation that does the same.
        ("eval", {"formula": "@V**2", "target": "y"}, E.INVALID_FORMULA, ("'**'", "@x^2")),
        ("eval", {"formula": "@V^2", "target": "y"}, None, ()),
        ("eval", {"formula": "7 % 2", "target": "y"}, E.INVALID_FORMULA, ("$mod(a, b)",)),
        ("eval", {"formula": "$mod(7, 2)", "target": "y"}, None, ()),
        ("eval", {"formula": "5%*@V", "target": "y"}, E.INVALID_FORMULA, ("/100",)),
        ("eval", {"formula": "5/100*@V", "target": "y"}, None, ()),
        ("eval", {"formula": "5!", "target": "y"}, E.INVALID_FORMULA, ("$prod_{k=1}^{n}(k)",)),
        ("eval", {"formula": "$prod_{k=1}^{5}(k)", "target": "y"}, None, ()),
        ("eval", {"formula": "|@V|", "target": "y"}, E.INVALID_FORMULA, ("'|'", "$abs(x)")),
        ("eval", {"formula": "$abs(@V)", "target": "y"}, None, ()),
        ("eval", {"formula": ".5*@V", "target": "y"}, E.INVALID_FORMULA, ("'.5'", "'0.5'")),
        ("eval", {"formula": "0.5*@V", "target": "y"}, None, ()),
    ],
    E.INVALID_NUMBER: [
        ("eval", {"formula": "2e", "target": "y"}, E.INVALID_NUMBER, ("'2e'", "'2e3'")),
        ("eval", {"formula": "2e3", "target": "y"}, None, ()),
    ],
    E.INVALID_IDENTIFIER: [
        ("eval", {"formula": "2R", "target": "y"}, E.INVALID_IDENTIFIER, ("'R'", "'2*R'")),
        ("eval", {"formula": "2*R", "target": "y"}, E.NAME_NOT_BOUND, ("'R'", "write @R")),
        ("eval", {"formula": "2*@R", "target": "y"}, None, ()),
    ],
    E.INVALID_DIMENSION: [
        (
            "set",
            {"name": "L", "value": {"num": 10, "dim": "mH"}},
            E.INVALID_DIMENSION,
            ("'mH'", "names no row", "unit: 'mH'"),
        ),
        ("set", {"name": "L", "value": {"num": 10, "unit": "mH"}}, None, ()),
        ("get", {"name": "L", "dim": "uH"}, E.INVALID_DIMENSION, ("'uH'", "unit: 'uH'")),
        ("get", {"name": "L", "unit": "uH"}, None, ()),
    ],
    E.INVALID_NOTATION: [
        ("eval", {"formula": "$sqrt", "target": "y"}, E.INVALID_NOTATION, ("$sqrt(x)",)),
        ("eval", {"formula": "$sqrt(4)", "target": "y"}, None, ()),
        ("eval", {"formula": "$log10(100)", "target": "y"}, E.INVALID_NOTATION, ("$log(x)",)),
        ("eval", {"formula": "$log(100)", "target": "y"}, None, ()),
        ("eval", {"formula": "$pow(2, 3)", "target": "y"}, E.INVALID_NOTATION, ("a^b",)),
        ("eval", {"formula": "2^3", "target": "y"}, None, ()),
    ],
    E.INVALID_ARITY: [
        (
            "eval",
            {"formula": "$sqrt(2, 3)", "target": "y"},
            E.INVALID_ARITY,
            ("given 2", "$sqrt(x)"),
        ),
        ("eval", {"formula": "$sqrt(2)", "target": "y"}, None, ()),
    ],
    E.SLOT_NOT_FOUND: [
        (
            "eval",
            {"formula": "@I*@R", "target": "U"},
            E.SLOT_NOT_FOUND,
            ("@I", "set it if the question gives it", "stop and name it as missing"),
        ),
        (
            "get",
            {"name": "I"},
            E.SLOT_NOT_FOUND,
            ("slot I", "set it if the question gives it", "stop and name it as missing"),
        ),
        ("set", {"name": "I", "value": {"num": 2, "unit": "mA"}}, None, ()),
        ("eval", {"formula": "@I*@R", "target": "U"}, None, ()),
    ],
    E.NAME_NOT_BOUND: [
        ("eval", {"formula": "2*pi*@R", "target": "y"}, E.NAME_NOT_BOUND, ("'pi'", "$pi")),
        ("eval", {"formula": "2*$pi*@R", "target": "y"}, None, ()),
        ("eval", {"formula": "e^2", "target": "y"}, E.NAME_NOT_BOUND, ("'e'", "$e")),
        ("eval", {"formula": "$e^2", "target": "y"}, None, ()),
        (
            "eval",
            {"formula": "sqrt(@R*@R)", "target": "y"},
            E.INVALID_FORMULA,
            ("'sqrt'", "$sqrt(x)"),
        ),
        ("eval", {"formula": "$sqrt(@R*@R)", "target": "y"}, None, ()),
        ("eval", {"formula": "2*π", "target": "y"}, E.INVALID_FORMULA, ("'π'", "$pi")),
        ("eval", {"formula": "2*$pi", "target": "y"}, None, ()),
    ],
    E.INCOMPATIBLE_DIMENSION: [
        (
            "get",
            {"name": "V", "dim": "ampere"},
            E.INCOMPATIBLE_DIMENSION,
            ("ampere", "volt", "use unit to read another unit"),
        ),
        ("get", {"name": "V", "unit": "mV"}, None, ()),
        (
            "get",
            {"name": "V", "unit": "mA"},
            E.INCOMPATIBLE_DIMENSION,
            ("'mA'", "volt", "omit unit"),
        ),
        ("get", {"name": "V"}, None, ()),
    ],
    E.UNSUPPORTED_OPERATION: [
        (
            "eval",
            {"formula": "@o + 1", "target": "y"},
            E.UNSUPPORTED_OPERATION,
            ("fields v", "@o.field"),
        ),
        ("eval", {"formula": "@o.v + 1", "target": "y"}, None, ()),
    ],
    E.INVALID_INDEX: [
        ("eval", {"formula": "@a[5]", "target": "y"}, E.INVALID_INDEX, ("5", "from 0 to 2")),
        ("eval", {"formula": "@a[2]", "target": "y"}, None, ()),
    ],
    E.UNDEFINED_RESULT: [
        (
            "eval",
            {"formula": "@V/@Z", "target": "y"},
            E.UNDEFINED_RESULT,
            ("divisor is 0", "check the divisor's value"),
        ),
        ("set", {"name": "Z", "value": {"num": 3, "dim": "ohm"}}, None, ()),
        ("eval", {"formula": "@V/@Z", "target": "y"}, None, ()),
    ],
    E.UNSUPPORTED_INDEX: [
        (
            "eval",
            {"formula": "@V.x", "target": "y"},
            E.UNSUPPORTED_INDEX,
            ("'.x'", "not an object"),
        ),
        ("eval", {"formula": "@V", "target": "y"}, None, ()),
    ],
    E.FIELD_NOT_FOUND: [
        ("eval", {"formula": "@o.w", "target": "y"}, E.FIELD_NOT_FOUND, ("'w'", "fields are v")),
        ("eval", {"formula": "@o.v", "target": "y"}, None, ()),
    ],
    E.UNSUPPORTED_SYMBOL: [
        (
            "eval",
            {"formula": "$integral_{0}^{1}(x^2, x)", "target": "A"},
            E.UNSUPPORTED_SYMBOL,
            ("$integral", "closed form", "$sum_{k=0}^{n-1}", "(k+0.5)*h"),
        ),
        # The closed form of the integral of x^2 over [0, 1] ...
        ("eval", {"formula": "1^3/3 - 0^3/3", "target": "A"}, None, ()),
        # ... or the midpoint sum the sentence spells, with n = 1000 and h = 1/1000.
        (
            "eval",
            {"formula": "$sum_{k=0}^{1000-1}((0+(k+0.5)*(1/1000))^2)*(1/1000)", "target": "A_sum"},
            None,
            (),
        ),
    ],
    E.INVALID_ARGS: [
        (
            "set",
            {"name": "y", "value": 12},
            E.INVALID_ARGS,
            ("the number 12", '{"num": 4.7e3, "dim": "ohm"}'),
        ),
        ("set", {"name": "y", "value": {"num": 12}}, None, ()),
        (
            "eval",
            {"formula": "@V", "target": "y", "read": {"digit": 3}},
            E.INVALID_ARGS,
            ("'digit'", "form, digits, dim, unit"),
        ),
        ("eval", {"formula": "@V", "target": "y", "read": {"digits": 3}}, None, ()),
        # Issue 14's read on set and read lists: each sentence's fix, followed, works.
        (
            "eval",
            {"formula": "@V", "target": "y", "read": []},
            E.INVALID_ARGS,
            ("an empty list", "MAX_READINGS", 'such as [{"digits": 4, "unit": "mW"}]'),
        ),
        (
            "eval",
            {"formula": "@V", "target": "y", "read": [{"digits": 4, "unit": "mV"}]},
            None,
            (),
        ),
        (
            "eval",
            {
                "formula": "@V",
                "target": "y",
                "read": [{"unit": u} for u in ("V", "mV", "kV", "uV", "MV")],
            },
            E.INVALID_ARGS,
            ("5 readings", "1 to 4", "read the first 4 here and the rest with get"),
        ),
        (
            "eval",
            {
                "formula": "@V",
                "target": "y",
                "read": [{"unit": u} for u in ("V", "mV", "kV", "uV")],
            },
            None,
            (),
        ),
        ("get", {"name": "y", "unit": "MV"}, None, ()),
        (
            "set",
            {"name": "T", "value": {"num": 1, "unit": "degF"}, "read": "degC"},
            E.INVALID_ARGS,
            ("the string 'degC'", 'such as {"digits": 4, "unit": "mW"}'),
        ),
        (
            "set",
            {
                "name": "T",
                "value": {"num": 1, "unit": "degF"},
                "read": {"digits": 4, "unit": "degC"},
            },
            None,
            (),
        ),
        (
            "set",
            {"name": "T", "value": {"num": 1, "unit": "degF"}, "read": [{"unit": "degC"}, 2]},
            E.INVALID_ARGS,
            ("set's read[1]", "the number 2", 'such as {"digits": 4, "unit": "mW"}'),
        ),
        (
            "set",
            {
                "name": "T",
                "value": {"num": 1, "unit": "degF"},
                "read": [{"unit": "degC"}, {"digits": 4, "unit": "degC"}],
            },
            None,
            (),
        ),
        (
            "set",
            {"name": "T", "value": None, "read": {"unit": "degC"}},
            E.INVALID_ARGS,
            ("nothing to read", "leave read out to delete the slot"),
        ),
        ("set", {"name": "T", "value": None}, None, ()),
    ],
    E.OPEN_RECORD_FOUND: [
        ("record_start", {"title": "again"}, E.OPEN_RECORD_FOUND, ("already open", "record_end")),
        ("record_end", {}, None, ()),
        ("record_start", {"title": "again"}, None, ()),
    ],
}


def _open(home: Path) -> Engine:
    engine = Engine(home, clock=StepClock())
    assert engine.call("record_start", {"title": "refusals"}) == {"ok": True}
    for name, value in (
        ("V", {"num": 12, "dim": "volt"}),
        ("R", {"num": 4, "dim": "ohm"}),
        ("Z", {"num": 0, "dim": "ohm"}),
        ("a", {"array": [1, 2, 3]}),
        ("o", {"object": {"v": {"num": 1}}}),
    ):
        assert engine.call("set", {"name": name, "value": value})["ok"] is True
    return engine


def _follow(engine: Engine, chain: list[Step]) -> None:
    for tool, args, code, fragments in chain:
        before = engine.slot_snapshot()
        receipt = engine.call(tool, args)
        if code is None:
            assert receipt["ok"] is True, (tool, args, receipt)
            continue
        assert receipt["code"] == code.value, (tool, args, receipt)
        sentence = receipt["error"]
        assert "\n" not in sentence and sentence.strip() == sentence, sentence
        for fragment in fragments:
            assert fragment in sentence, (fragment, sentence)
        assert engine.slot_snapshot() == before  # a failed call changes nothing


@pytest.mark.parametrize("code", list(CHAINS), ids=[c.value for c in CHAINS])
def test_refusal_names_value_rule_and_a_fix_that_works(code: ErrorCode, tmp_path: Path) -> None:
    """Issue 14 / docs/reference/codes.md: the refusal's fix, followed literally, succeeds."""
    with _open(tmp_path / "home") as engine:
        _follow(engine, CHAINS[code])


def test_every_code_is_held(tmp_path: Path) -> None:
    """All 19 codes are covered by a chain here or by the three record-level tests below."""
    covered = set(CHAINS) | {E.OPEN_RECORD_NOT_FOUND, E.UNKNOWN_ERROR}
    assert covered == set(ErrorCode)


def test_open_record_not_found_says_to_start_one(tmp_path: Path) -> None:
    """ENGINE_OPEN_RECORD_NOT_FOUND: 'call record_start with a title first' works."""
    with Engine(tmp_path / "home", clock=StepClock()) as engine:
        _follow(
            engine,
            [
                (
                    "set",
                    {"name": "x", "value": {"num": 1}},
                    E.OPEN_RECORD_NOT_FOUND,
                    ("set needs an open record", "call record_start with a title first"),
                ),
                ("record_start", {"title": "now"}, None, ()),
                ("set", {"name": "x", "value": {"num": 1}}, None, ()),
            ],
        )


def test_unknown_error_of_a_full_disk_says_free_space_and_calling_again_works(
    tmp_path: Path,
) -> None:
    """ENGINE_UNKNOWN_ERROR (issue 8: a row the disk would not take): 'free space and call
    again' works when done. (A file in the way of a close no longer refuses: issue 9 takes
    the next id.)"""
    home = tmp_path / "home"
    with _open(home) as engine:
        journal = engine._journal
        real = journal._handle or journal._reopen_locked()

        class FullDisk:
            def write(self, data: bytes) -> int:
                raise OSError(errno.ENOSPC, "No space left on device")

            def __getattr__(self, name: str) -> Any:
                return getattr(real, name)

        journal._handle = FullDisk()
        step = ("set", {"name": "W", "value": {"num": 1}})
        _follow(engine, [(*step, E.UNKNOWN_ERROR, ("no space left", "free space and call again"))])
        journal._handle = real  # the space came back
        _follow(engine, [(*step, None, ())])


def test_integral_quadrature_from_the_sentence_is_close_to_the_closed_form(tmp_path: Path) -> None:
    """Issue 14: the $sum quadrature the $integral refusal spells agrees with the closed form."""
    with _open(tmp_path / "home") as engine:
        _follow(engine, CHAINS[E.UNSUPPORTED_SYMBOL])
        exact = engine.call("get", {"name": "A"})["value"]["num"]
        approx = engine.call("get", {"name": "A_sum"})["value"]["num"]
        assert math.isclose(exact, 1 / 3) and abs(approx - exact) < 1e-6


@pytest.mark.parametrize(
    ("x", "digits", "shown"),
    [
        (2.5, 1, 3),
        (0.15, 1, 0.2),
        (-2.5, 1, -3),
        (1.25, 2, 1.3),
        (0.125, 2, 0.13),
        (2.675, 3, 2.68),  # binary 2.67499999...: the spelling decides, not the binary value
        (9.95, 2, 10),
        (2.5e-7, 1, 3e-7),
        (1.5e300, 1, 2e300),
        (-3.45e-12, 2, -3.5e-12),
        (1234.5, 4, 1235),
        (0.1 + 0.2, 17, 0.30000000000000004),
        (123.0, 5, 123),
    ],
)
def test_digits_round_half_away_from_zero_on_the_shortest_spelling(
    x: float, digits: int, shown: float, tmp_path: Path
) -> None:
    """Issue 14: `digits` rounds ties away from zero on the shortest decimal spelling, in
    positional and exponential form alike (docs/decisions/units.md)."""
    assert round_significant(x, digits) == shown
    with _open(tmp_path / "home") as engine:
        engine.call("set", {"name": "x", "value": {"num": x}})
        assert engine.call("get", {"name": "x", "digits": digits})["value"]["num"] == shown
