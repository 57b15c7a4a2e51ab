"""Issue 24 (one argument checker): compute's and the pitfalls memory's arguments go through
``reckoner.contract.checks``, which words every shape refusal once, for every tool alike.

The checker is judged here on a tool made for the purpose (every JSON Schema word it knows,
every null rule) and through the two surfaces that use it.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reckoner.compute.arguments import argument_error
from reckoner.contract.checks import PATTERN_RULES, CheckOptions, argument_problem
from reckoner.contract.compute import COMPUTE_TOOL
from reckoner.contract.limits import MAX_PITFALL_RESULTS
from reckoner.contract.pitfalls import OPTION_TOOLS, PITFALL_TOOLS
from reckoner.contract.registry import ANY_TOOL_BY_NAME
from reckoner.contract.tools import NAME_RULE, NAME_SCHEMA_PATTERN, Argument, Null, Tool
from reckoner.pitfalls.tiers import Pitfalls
from reckoner.pitfalls.tools import PitfallTools

PROBE = Tool(
    "probe_tool",
    False,
    (
        Argument("id", True, Null.REFUSED, {"type": "string"}, "The thing's id."),
        Argument("name", False, Null.ABSENT, {"type": "string", "pattern": NAME_SCHEMA_PATTERN},
                 "A slot name."),
        Argument("share", False, Null.ABSENT, {"type": "number", "minimum": 0, "maximum": 1},
                 "A fraction."),
        Argument("depth", False, Null.ABSENT, {"type": "integer", "maximum": 9}, "How deep."),
        Argument("word", False, Null.ABSENT, {"type": "string", "minLength": 3}, "A word."),
        Argument("note", False, Null.REFUSED, {"type": "string"}, "A note, never null."),
        Argument("slot", False, Null.VALUE, {"type": "string"}, "Null empties the slot."),
        Argument("flags", False, Null.ABSENT,
                 {"type": "array", "items": {"type": "boolean"}}, "Switches."),
    ),
)  # fmt: skip


@pytest.mark.parametrize(
    ("args", "sentence"),
    [
        ({}, "probe_tool needs id: The thing's id."),
        ({"id": None}, "probe_tool needs id (null is refused): The thing's id."),
        ({"id": "a", "note": None}, "probe_tool's note cannot be null"),
        (
            {"id": "a", "share": 1.5},
            "probe_tool's share must be a number from 0 to 1, but it is 1.5",
        ),
        ({"id": "a", "depth": 10}, "probe_tool's depth must be at most 9, but it is 10"),
        (
            {"id": "a", "depth": True},
            "probe_tool's depth must be an integer, but it is the boolean true; How deep.",
        ),
        ({"id": "a", "name": "2x"}, f"probe_tool's name '2x' is not a name: {NAME_RULE}"),
        ({"id": "a", "word": "ab"}, "probe_tool's word is 2 characters, below the minimum of 3"),
        (
            {"id": "a", "flags": [True, "yes"]},
            "probe_tool's flags must be an array of booleans, but its item 1 is the string "
            "'yes'; Switches.",
        ),
    ],
)
def test_each_schema_word_and_null_rule_is_one_sentence_with_the_limit(
    args: dict[str, Any], sentence: str
) -> None:
    assert argument_problem(PROBE, args) == sentence


def test_null_that_means_absent_or_carries_a_value_is_accepted() -> None:
    assert argument_problem(PROBE, {"id": "a", "name": None, "slot": None}) is None


def test_a_required_argument_whose_null_is_a_value_takes_null_but_not_absence() -> None:
    """Like the engine's set: null as the value empties the slot; a missing value is not it."""
    value = Argument("value", True, Null.VALUE, {"type": "number"}, "The value, or null.")
    setter = Tool("setter", False, (value,))
    assert argument_problem(setter, {"value": None}) is None
    assert argument_problem(setter, {}) == "setter needs value: The value, or null."
    absent = Tool("absent", False, (Argument("v", True, Null.ABSENT, {"type": "number"}, "V."),))
    assert argument_problem(absent, {"v": None}) == "absent needs v: V."
    assert argument_problem(PROBE, {"id": "a", "share": 0, "depth": 9, "name": "_R2"}) is None


def test_a_range_from_the_pitfalls_contract_is_said_for_every_tool() -> None:
    """The pitfalls tools said "from 1 to 20"; the shared checker says a range wherever a
    schema gives both ends."""
    search = next(tool for tool in PITFALL_TOOLS if tool.name == "pitfall_search")
    assert argument_problem(search, {"limit": MAX_PITFALL_RESULTS + 1}) == (
        f"pitfall_search's limit must be a whole number from 1 to {MAX_PITFALL_RESULTS}, "
        f"but it is {MAX_PITFALL_RESULTS + 1}"
    )


def test_a_type_error_repeats_the_arguments_description_in_compute_too() -> None:
    timeout = next(a for a in COMPUTE_TOOL.arguments if a.key == "timeoutMs")
    assert argument_error({"op": "run", "timeoutMs": "soon"}) == (
        f"compute's timeoutMs must be an integer, but it is the string 'soon'; "
        f"{timeout.description}"
    )


def test_an_enum_names_its_values_and_that_an_optional_one_can_be_left_out() -> None:
    engine = next(a for a in COMPUTE_TOOL.arguments if a.key == "engine")
    error = argument_error({"op": "probe", "engine": "Python"})
    assert error == (
        "compute's engine 'Python' is not one of python, r, octave, julia, matlab, maple, "
        f"wolfram, cli; give one of them as written, or leave engine out; {engine.description}"
    )
    op = argument_error({"op": "execute"})
    assert op is not None and op.startswith("compute's op 'execute' is not one of probe, ")
    assert "leave op out" not in op  # op is required


def test_an_over_long_string_is_told_the_tools_own_way_round_it() -> None:
    short = Argument("s", False, Null.ABSENT, {"type": "string", "maxLength": 3}, "S.")
    plain = Tool("t", False, (short,))
    assert argument_problem(plain, {"s": "abcd"}) == "t's s is 4 characters, above the limit of 3"
    told = argument_problem(plain, {"s": "abcd"}, CheckOptions(too_long_fix="use a file"))
    assert told == "t's s is 4 characters, above the limit of 3; use a file"


def test_a_lesson_status_is_normalised_but_a_status_filter_is_refused(tmp_path: Path) -> None:
    """The one checker keeps pitfalls' two rules: a lesson's status outside the three is
    stored as solved and said so; a filter outside them is refused, writing nothing."""
    tools = PitfallTools(Pitfalls.open(tmp_path / "home", project=tmp_path / "project"))
    recorded = tools.call("pitfall_record", {"title": "npm EACCES", "status": "Fixed"})
    assert recorded.ok and recorded.data["lesson"]["status"] == "solved"
    assert "stored as solved" in recorded.text
    listed = tools.call("pitfall_list", {"status": "Fixed"})
    assert listed.data["code"] == "PITFALL_INVALID_ARGS"
    assert listed.data["error"].startswith(
        "pitfall_list's status 'Fixed' is not one of solved, workaround, open; give one of "
        "them as written, or leave status out"
    )


_SCALARS = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8)
_JSON = st.recursive(_SCALARS, lambda s: st.lists(s) | st.dictionaries(st.text(), s), max_leaves=8)
_CHECKED_TOOLS = (COMPUTE_TOOL, *PITFALL_TOOLS, PROBE)


@given(st.sampled_from(_CHECKED_TOOLS), st.data())
def test_any_json_gets_none_or_one_line_and_never_raises(tool: Tool, data: st.DataObject) -> None:
    """A hostile caller: whatever the JSON, the checker answers, in one line."""
    keys = st.sampled_from([*tool.keys, "x"])
    args = data.draw(st.dictionaries(keys, _JSON, max_size=5) | _JSON)
    problem = argument_problem(tool, args)
    assert problem is None or (isinstance(problem, str) and "\n" not in problem and problem)


def _patterns(shape: Any) -> set[str]:
    if isinstance(shape, dict):
        found = {shape["pattern"]} if isinstance(shape.get("pattern"), str) else set()
        return found.union(*(_patterns(value) for value in shape.values()))
    if isinstance(shape, list):
        return set().union(*(_patterns(item) for item in shape))
    return set()


def test_every_pattern_a_contract_uses_is_one_the_checker_can_test() -> None:
    """The contract imports no ``re``, so each pattern has its own test in the checker."""
    tools = (*ANY_TOOL_BY_NAME.values(), *OPTION_TOOLS)
    used = set().union(*(_patterns(a.shape) for tool in tools for a in tool.arguments))
    assert used and used <= set(PATTERN_RULES)


@given(st.text(alphabet="aZ_09-é \n", max_size=6) | st.text(max_size=6))
def test_each_patterns_test_agrees_with_the_pattern_itself(text: str) -> None:
    for pattern, (matches, _) in PATTERN_RULES.items():
        # JSON Schema's $ is ECMAScript's: the very end, not before a last newline as Python's.
        ecma = pattern.replace("$", r"\Z")
        assert matches(text) == (re.search(ecma, text) is not None), (pattern, text)
