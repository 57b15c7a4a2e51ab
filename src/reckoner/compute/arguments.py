"""The compute tool's arguments, judged against the one contract (reckoner.contract). Pure.

Only the JSON Schema words the contract uses are understood: type, enum, minimum,
minLength, items, properties, required, additionalProperties.
"""

from __future__ import annotations

from typing import Any

from reckoner.contract.checks import describe_json, envelope_problem
from reckoner.contract.compute import COMPUTE_TOOL
from reckoner.contract.tools import JSONSchema

_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "boolean": (bool,),
    "array": (list,),
    "object": (dict,),
}


def _shape_error(value: Any, shape: JSONSchema, where: str) -> str | None:
    kind = shape.get("type")
    if kind is not None:
        allowed = _TYPES[kind]
        if type(value) not in allowed:  # exact types: true is not an integer
            return (
                f"{where} must be a{'n' if kind[0] in 'aeio' else ''} {kind}, but it is "
                f"{describe_json(value)}"
            )
    if "enum" in shape and value not in shape["enum"]:
        return (
            f"{where} must be one of {', '.join(shape['enum'])}, but it is {describe_json(value)}"
        )
    if "minimum" in shape and value < shape["minimum"]:
        return f"{where} must be at least {shape['minimum']}, but it is {value}"
    if "minLength" in shape and len(value) < shape["minLength"]:
        return f"{where} must not be empty"
    if "maxLength" in shape and len(value) > shape["maxLength"]:
        return (
            f"{where} is {len(value)} characters, above the limit of {shape['maxLength']}; "
            "write it to a file in the project and use mode file"
        )
    if kind == "array" and "items" in shape:
        for index, item in enumerate(value):
            error = _shape_error(item, shape["items"], f"{where}[{index}]")
            if error:
                return error
    if kind == "object":
        properties: dict[str, JSONSchema] = shape.get("properties", {})
        for key in shape.get("required", ()):
            if key not in value:
                return f"{where} needs {key}"
        if shape.get("additionalProperties") is False:
            extra = [k for k in value if k not in properties]
            if extra:
                keys = ", ".join(properties)
                return f"{where} has no key {str(extra[0])[:40]!r}; its keys are {keys}"
        for key, item in value.items():
            if key in properties:
                error = _shape_error(item, properties[key], f"{where}.{key}")
                if error:
                    return error
    return None


OP_KEYS: dict[str, frozenset[str]] = {
    "probe": frozenset({"op", "engine", "packages", "cli"}),
    "run": frozenset(
        {
            "op",
            "engine",
            "mode",
            "code",
            "file",
            "expr",
            "packages",
            "timeoutMs",
            "captureFiles",
            "cli",
        }
    ),
    "receipt": frozenset({"op", "file"}),
    "install": frozenset({"op", "engine", "packages", "scope", "dryRun", "confirm"}),
}
"""The arguments each op reads; another one given is a mistake worth saying."""


def argument_error(args: Any) -> str | None:
    """The one sentence saying what is wrong with the arguments, or None."""
    problem = envelope_problem(COMPUTE_TOOL, args)
    if problem is not None or not isinstance(args, dict):
        return problem
    for argument in COMPUTE_TOOL.arguments:
        value = args.get(argument.key)
        if value is None:
            if argument.required:
                return f"compute needs {argument.key}: {argument.description}"
            continue
        error = _shape_error(value, argument.shape, f"compute's {argument.key}")
        if error:
            return error
    taken = OP_KEYS[args["op"]]
    unused = [key for key in COMPUTE_TOOL.keys if args.get(key) is not None and key not in taken]
    if unused:
        return (
            f"op {args['op']} takes no {unused[0]}; its arguments are "
            f"{', '.join(k for k in COMPUTE_TOOL.keys if k in taken)}"
        )
    return None
