"""Issue 14 (one source of truth for the tool contract) and issue 9 (null in the schemas).

Every check here derives from `reckoner.contract`: the engine's argument checks, the MCP
input schemas, the CLI help and the skills all answer to the one definition.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from mcp import Client
from mcp_helpers import receipt_of
from shared_servers import SharedClient

from reckoner.contract.codes import ErrorCode
from reckoner.contract.engine import TOOLS
from reckoner.contract.tools import Null, Tool
from reckoner.server.texts import SKILLS, skill_text
from reckoner.server.tools import INPUT_SCHEMAS
from reckoner.service import Engine

# A call each tool accepts (after the setup below: a record open, R holding 4 ohm).
VALID: dict[str, dict[str, Any]] = {
    "set": {"name": "x", "value": {"num": 1}},
    "get": {"name": "R"},
    "eval": {"formula": "2*@R", "target": "y"},
    "record_start": {"title": "a question"},
    "record_message": {"text": "a step"},
    "record_end": {},
}
# A non-null value for each optional argument, accepted on its own.
OPTIONAL_SAMPLES: dict[tuple[str, str], Any] = {
    ("get", "form"): "polar",
    ("get", "digits"): 3,
    ("get", "dim"): "ohm",
    ("get", "unit"): "kOhm",
    ("eval", "read"): {"digits": 3},
    ("set", "read"): [{"digits": 3}, {"form": "polar"}],
    ("record_message", "hide"): True,
    ("record_end", "text"): "done",
}

UNKNOWN_KEY = "colour"


def _prepared(home: Path, tool: str) -> Engine:
    engine = Engine(home=home, clock=lambda: 1_700_000_000_000)
    if tool != "record_start":
        assert engine.call("record_start", {"title": "contract"}) == {"ok": True}
        assert engine.call("set", {"name": "R", "value": {"num": 4, "dim": "ohm"}})["ok"]
    return engine


def _cases() -> list[tuple[str, str, dict[str, Any]]]:
    """(tool, what, args): each required key dropped, and one unknown key added."""
    cases = []
    for tool in TOOLS:
        for key in tool.required:
            args = {k: v for k, v in VALID[tool.name].items() if k != key}
            cases.append((tool.name, f"without {key}", args))
        cases.append((tool.name, f"with {UNKNOWN_KEY}", {**VALID[tool.name], UNKNOWN_KEY: 1}))
    return cases


CASES = _cases()


def _assert_refusal_names(tool: str, what: str, receipt: dict[str, Any]) -> None:
    assert receipt["ok"] is False, (tool, what, receipt)
    assert receipt["code"] == ErrorCode.INVALID_ARGS.value, (tool, what, receipt)
    key = what.split()[-1]
    assert key in receipt["error"], (tool, what, receipt)
    if what.startswith("with "):
        # The refusal lists the tool's real keys, in the contract's order.
        keys = next(t for t in TOOLS if t.name == tool).keys
        assert receipt["error"].endswith(", ".join(keys)), receipt


def test_contract_keys_cover_the_six_operations() -> None:
    """docs/reference/tools.md: the six tools and their keys (issue 14 adds get's unit, and read on
    eval
    and on set).
    Spec: docs/reference/tools.md (the six operations)."""
    assert [t.signature() for t in TOOLS] == [
        "set {name, value, read?}",
        "get {name, form?, digits?, dim?, unit?}",
        "eval {formula, target, read?}",
        "record_start {title}",
        "record_message {text, hide?}",
        "record_end {text?}",
    ]
    assert set(VALID) == {t.name for t in TOOLS}
    optional = {(t.name, a.key) for t in TOOLS for a in t.arguments if not a.required}
    assert optional == set(OPTIONAL_SAMPLES)


@pytest.mark.parametrize(("tool", "what", "args"), CASES, ids=[f"{t} {w}" for t, w, _ in CASES])
def test_engine_refuses_a_missing_required_key_and_an_unknown_one(
    tool: str, what: str, args: dict[str, Any], tmp_path: Path
) -> None:
    """Issue 14: through the Engine, each required key dropped and an unknown key added is
    refused naming the key, and nothing is written (the valid call then succeeds)."""
    with _prepared(tmp_path / "home", tool) as engine:
        before = engine.slot_snapshot()
        _assert_refusal_names(tool, what, engine.call(tool, args))
        assert engine.slot_snapshot() == before
        assert engine.call(tool, VALID[tool])["ok"] is True


def _null_cases() -> list[tuple[Tool, str]]:
    return [(tool, a.key) for tool in TOOLS for a in tool.arguments]


@pytest.mark.parametrize(
    ("tool", "key"), _null_cases(), ids=[f"{t.name}.{k}" for t, k in _null_cases()]
)
def test_schemas_admit_null_exactly_where_the_engine_treats_it_as_absent(
    tool: Tool, key: str, tmp_path: Path
) -> None:
    """Issue 9: the schema admits null for a key iff the engine accepts null there (as the
    key left out, or for set's value as the delete); everywhere else null is refused.
    Spec: docs/reference/tools.md (issue 9)."""
    argument = next(a for a in tool.arguments if a.key == key)
    schema = INPUT_SCHEMAS[tool.name]
    base = {**VALID[tool.name]}
    if (tool.name, key) in OPTIONAL_SAMPLES:
        base[key] = OPTIONAL_SAMPLES[tool.name, key]
    with_null = {**base, key: None}
    schema_admits = jsonschema.Draft202012Validator(schema).is_valid(with_null)
    assert jsonschema.Draft202012Validator(schema).is_valid(base)
    assert schema_admits == argument.admits_null
    without = {k: v for k, v in base.items() if k != key}
    with _prepared(tmp_path / "a", tool.name) as engine:
        nulled = engine.call(tool.name, with_null)
    with _prepared(tmp_path / "b", tool.name) as engine:
        omitted = engine.call(tool.name, without)
    if argument.null is Null.ABSENT:
        assert nulled == omitted and nulled["ok"] is True
    elif argument.null is Null.VALUE:
        assert nulled == {"ok": True, "name": "x", "rev": None, "value": None}
    else:
        assert nulled["ok"] is False and omitted["ok"] is False
        assert nulled["code"] in (ErrorCode.INVALID_ARGS.value, ErrorCode.INVALID_IDENTIFIER.value)


def test_schemas_are_the_contract() -> None:
    """Issue 14: each input schema lists exactly the contract's keys, requires exactly its
    required ones and refuses any other key (additionalProperties false)."""
    for tool in TOOLS:
        schema = INPUT_SCHEMAS[tool.name]
        assert list(schema["properties"]) == list(tool.keys)
        assert schema["required"] == list(tool.required)
        assert schema["additionalProperties"] is False
        validator = jsonschema.Draft202012Validator(schema)
        assert validator.is_valid(VALID[tool.name])
        assert not validator.is_valid({**VALID[tool.name], UNKNOWN_KEY: 1})
        for key in tool.required:
            assert not validator.is_valid({k: v for k, v in VALID[tool.name].items() if k != key})


def test_mcp_client_sees_the_contract_and_the_engine_judges(shared_client: SharedClient) -> None:
    """Issue 14 through a real MCP client and `reckoner serve`: the listed schemas are the
    contract's, and every dropped or unknown key comes back as the engine's refusal."""

    async def main(client: Client) -> list[tuple[str, str, dict[str, Any]]]:
        answers = []
        listed = await client.list_tools()
        for tool in listed.tools:
            assert tool.input_schema == INPUT_SCHEMAS[tool.name]
        # record_start's cases first, while no record is open; then open one.
        for tool_name, what, args in [c for c in CASES if c[0] == "record_start"]:
            answers.append((tool_name, what, receipt_of(await client.call_tool(tool_name, args))))
        await client.call_tool("record_start", {"title": "contract over MCP"})
        await client.call_tool("set", {"name": "R", "value": {"num": 4, "dim": "ohm"}})
        for tool_name, what, args in [c for c in CASES if c[0] != "record_start"]:
            answers.append((tool_name, what, receipt_of(await client.call_tool(tool_name, args))))
        assert receipt_of(await client.call_tool("record_end", {})) == {"ok": True}
        return answers

    answers = shared_client.run(main)
    assert len(answers) == len(CASES)
    for tool, what, receipt in answers:
        _assert_refusal_names(tool, what, receipt)


def test_cli_call_help_lists_every_tool_and_key() -> None:
    """Issue 14: `reckoner call --help` derives from the contract."""
    shown = subprocess.run(
        [sys.executable, "-m", "reckoner", "call", "--help"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    for tool in TOOLS:
        assert tool.signature() in shown
        for argument in tool.arguments:
            assert f"{argument.key}: " in shown


def test_interface_skill_teaches_every_signature() -> None:
    """Issue 14: the interface skill's tool table spells each tool's keys as the contract."""
    text = skill_text(next(s for s in SKILLS if s.name == "reckoner-interface"))
    for tool in TOOLS:
        assert f"`{tool.signature()}`" in text, tool.signature()


def test_unit_and_read_through_a_real_mcp_client(shared_client: SharedClient) -> None:
    """Issue 14: unit on set and get, read on eval, and a bad unit, over MCP stdio.
    Spec: docs/reference/tools.md (issue 14)."""

    async def main(client: Client) -> list[dict[str, Any]]:
        calls: list[tuple[str, dict[str, Any]]] = [
            ("record_start", {"title": "units over MCP"}),
            ("set", {"name": "V", "value": {"num": 12, "unit": "V"}}),
            ("set", {"name": "R", "value": {"num": 4.7, "unit": "kOhm"}}),
            (
                "eval",
                {"formula": "@V^2/@R", "target": "P", "read": {"digits": 4, "unit": "mW"}},
            ),
            ("get", {"name": "P", "unit": "mW", "digits": 4}),
            ("set", {"name": "x", "value": {"num": 1, "unit": "degC/s"}}),
            ("record_end", {}),
        ]
        return [receipt_of(await client.call_tool(tool, args)) for tool, args in calls]

    receipts = shared_client.run(main)
    assert receipts[2]["value"] == {"num": 4700, "dim": [2, 1, -3, -2, 0, 0, 0]}
    shown = {"num": 30.64, "text": "30.64", "unit": "mW", "dim": "watt"}
    assert receipts[3] == {"ok": True, "target": "P", "rev": 1, "value": shown}
    assert receipts[4] == {"ok": True, "name": "P", "value": shown}
    assert receipts[5]["code"] == ErrorCode.INVALID_DIMENSION.value
    assert "delta_degC" in receipts[5]["error"]


def test_read_on_set_and_read_lists_through_a_real_mcp_client(
    shared_client: SharedClient,
) -> None:
    """Issue 14: read on set (a pure conversion) and a read list on eval (one value in two
    units) over MCP stdio, each answering what get answers; a list too long refuses.
    Spec: docs/reference/tools.md (issue 14)."""
    in_two = [{"unit": "kJ", "digits": 4}, {"unit": "kWh", "digits": 3}]

    async def main(client: Client) -> list[dict[str, Any]]:
        calls: list[tuple[str, dict[str, Any]]] = [
            ("record_start", {"title": "reads over MCP"}),
            (
                "set",
                {
                    "name": "T",
                    "value": {"num": 98.6, "unit": "degF"},
                    "read": {"unit": "degC", "digits": 4},
                },
            ),
            ("set", {"name": "E", "value": {"num": 501.6, "unit": "kJ"}}),
            ("eval", {"formula": "@E", "target": "Q", "read": in_two}),
            ("get", {"name": "Q", **in_two[0]}),
            ("get", {"name": "Q", **in_two[1]}),
            ("eval", {"formula": "@E", "target": "Q", "read": in_two * 3}),
            ("record_end", {}),
        ]
        return [receipt_of(await client.call_tool(tool, args)) for tool, args in calls]

    receipts = shared_client.run(main)
    assert receipts[1] == {
        "ok": True,
        "name": "T",
        "rev": 1,
        "value": {"num": 37, "text": "37.00", "unit": "degC", "dim": "kelvin"},
    }
    assert receipts[3] == {
        "ok": True,
        "target": "Q",
        "rev": 1,
        "value": [receipts[4]["value"], receipts[5]["value"]],
    }
    kwh = {"num": 0.139, "text": "0.139", "unit": "kWh", "dim": "joule"}
    assert receipts[3]["value"][1] == kwh
    assert receipts[6]["code"] == ErrorCode.INVALID_ARGS.value
    assert "MAX_READINGS" in receipts[6]["error"]
