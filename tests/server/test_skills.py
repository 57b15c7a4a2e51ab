"""The two skills cannot drift: their vocabulary comes from the core, their examples run.

Every ```reckoner block in a skill is a list of calls (`> tool {json}`) and the receipts
the engine answers (`< {json}`); the test replays each block against a real Engine in a
fresh home and compares receipt by receipt.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from reckoner.contract.codes import ErrorCode
from reckoner.contract.dimensions import NAME_TABLE
from reckoner.contract.engine import TOOL_BY_NAME
from reckoner.contract.limits import MAX_READINGS
from reckoner.contract.registry import PRESET_NAMES
from reckoner.core.notation import NOTATIONS
from reckoner.server.texts import SKILLS, persona, skill_text
from reckoner.service import Engine
from reckoner.units.catalogue import meaning_size
from reckoner.units.meanings import MEANING_BY_NAME, MEANINGS, REFUSED, alias_targets

INTERFACE = next(s for s in SKILLS if s.name == "reckoner-interface")
TEMPLATE = next(s for s in SKILLS if s.name == "reckoner-template")

ANY_SENTENCE = "…"


@dataclass
class Step:
    tool: str
    args: Any
    expected: Any
    line: str


@dataclass
class Example:
    skill: str
    number: int
    steps: list[Step]

    @property
    def id(self) -> str:
        return f"{self.skill}#{self.number}"


def parse_examples(skill_name: str, text: str) -> list[Example]:
    """Every ```reckoner fence of a skill, as calls paired with their expected receipts."""
    examples: list[Example] = []
    for number, block in enumerate(re.findall(r"```reckoner\n(.*?)```", text, re.S), start=1):
        steps: list[Step] = []
        pending: tuple[str, Any, str] | None = None
        for raw in block.splitlines():
            line = raw.strip()
            if not line:
                continue
            if line.startswith("> "):
                assert pending is None, f"call without a receipt before: {line}"
                tool, _, args = line[2:].partition(" ")
                pending = (tool, json.loads(args), line)
            elif line.startswith("< "):
                assert pending is not None, f"receipt without a call: {line}"
                steps.append(Step(pending[0], pending[1], json.loads(line[2:]), pending[2]))
                pending = None
            else:
                raise AssertionError(f"unparseable example line in {skill_name}: {line}")
        assert pending is None, f"the last call of {skill_name} block {number} has no receipt"
        examples.append(Example(skill_name, number, steps))
    return examples


ALL_EXAMPLES = [
    example for skill in SKILLS for example in parse_examples(skill.name, skill_text(skill))
]


def same(expected: Any, actual: Any) -> bool:
    """Receipts match exactly, except that an error sentence shown as … matches any sentence."""
    if isinstance(expected, dict):
        if not isinstance(actual, dict) or expected.keys() != actual.keys():
            return False
        for key, value in expected.items():
            if key == "error" and value == ANY_SENTENCE:
                if not (isinstance(actual[key], str) and actual[key].strip()):
                    return False
            elif not same(value, actual[key]):
                return False
        return True
    if isinstance(expected, list):
        return (
            isinstance(actual, list)
            and len(expected) == len(actual)
            and all(same(e, a) for e, a in zip(expected, actual, strict=True))
        )
    if isinstance(expected, bool) or isinstance(actual, bool):
        return expected is actual
    if isinstance(expected, int | float) and isinstance(actual, int | float):
        return float(expected) == float(actual) and not math.isnan(float(actual))
    return bool(expected == actual)


def test_skills_have_examples_in_both_documents() -> None:
    """The template's worked example and the interface's examples are all parsed."""
    skills = {e.skill for e in ALL_EXAMPLES}
    assert skills == {"reckoner-interface", "reckoner-template"}
    assert sum(len(e.steps) for e in ALL_EXAMPLES) >= 100


@pytest.mark.parametrize("example", ALL_EXAMPLES, ids=lambda e: e.id)
def test_every_skill_example_evaluates_as_shown(example: Example, tmp_path: Path) -> None:
    """docs/reference/tools.md-8 as taught by the skills: each call answers the receipt the skill
    shows."""
    with Engine(home=tmp_path / "home", clock=lambda: 1_700_000_000_000) as engine:
        if example.steps[0].tool != "record_start":
            opened = engine.call("record_start", {"title": f"skill example {example.id}"})
            assert opened == {"ok": True}
        for step in example.steps:
            receipt = engine.call(step.tool, step.args)
            assert same(step.expected, receipt), (
                f"{example.id}: {step.line}\n  shown:   {json.dumps(step.expected)}"
                f"\n  engine:  {json.dumps(receipt)}"
            )


def test_persona_rule_3_walkthroughs_put_a_message_before_every_eval() -> None:
    """Persona rule 3: each step is one eval preceded by a record_message saying what it
    does; the template's walkthroughs (the blocks that open a record) show it that way,
    the stopped one included, since a model copies them."""
    walkthroughs = [
        example
        for example in ALL_EXAMPLES
        if example.skill == TEMPLATE.name and example.steps[0].tool == "record_start"
    ]
    assert len(walkthroughs) >= 3
    for example in walkthroughs:
        for before, step in zip(example.steps, example.steps[1:], strict=False):
            if step.tool == "eval":
                assert before.tool == "record_message", f"{example.id}: {step.line}"


def test_skill_calls_use_the_contract_keys() -> None:
    """Issue 14: every call the skills show names a contract tool with only its keys; a call
    that leaves out a required key or adds another is shown refused.
    Spec: docs/guide/mcp-clients.md (issue 14)."""
    for example in ALL_EXAMPLES:
        for step in example.steps:
            tool = TOOL_BY_NAME[step.tool]
            keys = set(step.args)
            well_formed = keys <= set(tool.keys) and set(tool.required) <= keys
            assert well_formed or step.expected["ok"] is False, (example.id, step.line)


def test_interface_skill_names_every_code_and_what_to_do() -> None:
    """All 19 codes of docs/reference/codes.md appear in the interface skill's code table, each with
    when
    it is raised and what to do.
    Spec: docs/reference/codes.md (the error codes)."""
    text = skill_text(INTERFACE)
    rows = [line.split("|") for line in text.splitlines() if line.startswith("| `ENGINE_")]
    assert {cells[1].strip(" `") for cells in rows} == {code.value for code in ErrorCode}
    for cells in rows:
        # | code | raised when | what to do |
        assert len(cells) == 5 and cells[2].strip() and cells[3].strip(), cells


def test_interface_skill_lists_every_notation_in_its_written_form() -> None:
    """All 35 notations of docs/reference/notations.md, each in the written form the core's table
    gives.
    Spec: docs/reference/notations.md (notation)."""
    text = skill_text(INTERFACE)
    assert len(NOTATIONS) == 35
    for notation in NOTATIONS:
        for form in notation.written.split(" or "):
            assert f"`{form}`" in text, f"{notation.name}: written form {form!r} missing"


def test_interface_skill_carries_the_whole_name_table() -> None:
    """All 24 rows of docs/reference/units.md: every name with its vector, in the table's order.
    Spec: docs/reference/units.md (the name table)."""
    text = skill_text(INTERFACE)
    rows = [line for line in text.splitlines() if re.match(r"\| `\[[-0-9,]+\]` \|", line)]
    assert len(rows) == len(NAME_TABLE) == 24
    for row, line in zip(NAME_TABLE, rows, strict=True):
        assert f"`[{','.join(str(x) for x in row.vector)}]`" in line
        assert f"| {row.kind} |" in line
        for name in row.names:
            assert f"`{name}`" in line


def test_decisions_are_taught() -> None:
    """$atan2 argument order, $mod's sign, doubles, non-finite refusal and the four limits.
    Spec: docs/guide/mcp-clients.md (issue 2)."""
    text = skill_text(INTERFACE)
    assert "`$atan2(1, 0)` is 0" in text
    assert "with the sign of a" in text
    assert "IEEE doubles" in text
    assert "not finite" in text
    for limit in ("10,000 characters", "200 levels", "1,000,000 steps", "1,000,000 elements"):
        assert limit in text


def test_skills_teach_units_read_and_the_fixes() -> None:
    """Issue 14: the skills teach unit on set/get, read on eval, never converting in prose,
    temperature differences, integrals by closed form or a $sum, expression bounds, and the
    worked RLC and pendulum sweep (whose blocks run above).
    Spec: docs/guide/mcp-clients.md (issue 14)."""
    interface = skill_text(INTERFACE)
    template = skill_text(TEMPLATE)
    for phrase in ('"unit": "kOhm"', "delta_degC", "midpoint `$sum`", "A bound may", "`read`"):
        assert phrase in interface, phrase
    for phrase in ("series RLC", "pendulum", "Never convert a unit yourself", "delta_degC"):
        assert phrase in template, phrase
    examples = [e for e in ALL_EXAMPLES if e.skill == TEMPLATE.name]
    calls = [s for e in examples for s in e.steps]
    assert any("unit" in json.dumps(s.args) for s in calls if s.tool == "set")
    assert any("read" in s.args for s in calls if s.tool == "eval")


def test_skills_teach_read_on_set_and_read_lists() -> None:
    """Issue 14: the interface and the template each show, in blocks run above, a set with
    read (a pure conversion) and an eval whose read is a list (one value in two units), and
    the persona names both.
    Spec: docs/guide/mcp-clients.md (issue 14)."""
    for skill in (INTERFACE, TEMPLATE):
        calls = [s for e in ALL_EXAMPLES if e.skill == skill.name for s in e.steps]
        assert any("read" in s.args for s in calls if s.tool == "set"), skill.name
        assert any(isinstance(s.args.get("read"), list) for s in calls if s.tool == "eval")
    text = persona("reckoner")
    assert '[{"unit": "kJ"}, {"unit": "kWh"}]' in text and "`read` on the `set`" in text
    # The list's limit is the engine's one constant, as the interface states it.
    interface = skill_text(INTERFACE)
    assert f"a **list** of 1 to {MAX_READINGS} option objects" in interface
    assert f"more than {MAX_READINGS} readings" in interface


def test_persona_states_the_pure_preset_rules() -> None:
    """The server instructions: set/eval as the only number sources, no prose arithmetic,
    stop on a missing quantity, every question in a record; issue 14: units transcribed as
    given and never converted by the model."""
    text = persona("reckoner")
    assert "Every question is carried by a record" in text
    assert "Every number in your answer comes from the engine" in text
    assert "number and unit unchanged" in text
    assert "Never convert a unit yourself" in text
    assert "delta_degC" in text
    assert "Never compute in prose" in text
    assert "A missing quantity means stop" in text
    with pytest.raises(ValueError, match="presets are: " + ", ".join(PRESET_NAMES)):
        persona("reckoner-with-nothing")


def test_interface_skill_tables_the_ambiguous_unit_names_as_the_catalogue_does() -> None:
    """Each ambiguous name has one row stating what the catalogue takes it as, the size the
    catalogue computes and every other meaning's spelling; every alias and refused name the
    catalogue knows is named.
    Spec: docs/guide/mcp-clients.md (issue 27)."""
    text = skill_text(INTERFACE)
    rows = {
        cells[1].strip(" `"): cells
        for cells in (line.split("|") for line in text.splitlines())
        if len(cells) == 6 and cells[1].strip(" `") in MEANING_BY_NAME
    }
    assert set(rows) == set(MEANING_BY_NAME)
    for meaning in MEANINGS:
        cells = rows[meaning.name]
        assert cells[2].strip() == meaning.means
        assert cells[3].strip() == meaning_size(meaning)
        for what, spelling in meaning.others:
            assert f"{what} `{spelling}`" in cells[4], (meaning.name, spelling)
        assert meaning.note in cells[4]
    for name in [*alias_targets(), *REFUSED]:
        assert f"`{name}`" in text, name


def test_the_persona_skills_and_contract_tell_the_model_to_quote_text() -> None:
    """A model quoting `num` would lose the trailing zeros `digits` asked for: the persona,
    both skills and get's own digits description say to quote `text`, and the skills show it
    in a receipt their examples run.
    Spec: docs/guide/mcp-clients.md (issue 27)."""
    assert "quote its `text`" in persona()
    assert "quote `text`" in skill_text(INTERFACE)
    assert 'the `text` (`"68.00"`, not 68)' in skill_text(TEMPLATE)
    digits = next(a for a in TOOL_BY_NAME["get"].arguments if a.key == "digits")
    assert "quote text" in digits.description
    shown = [
        s for e in ALL_EXAMPLES for s in e.steps if '"text": "37.00"' in json.dumps(s.expected)
    ]
    assert shown, "no example receipt shows a text with trailing zeros"
